"""The two papers' models, whatever the task: networks, parameters, presets, features.

A public estimator is one of these models plus a task base of
:mod:`skattn.base` (:class:`~skattn.base.AttentionClassifierBase` or
:class:`~skattn.base.AttentionRegressorBase`), e.g.
``class SelfAttentiveRegressor(SelfAttentiveModel, AttentionRegressorBase)``.
A model declares its network (``_module_class``, ``_module_params``), the
text parameters it takes (``_text_params``), the constraints of its own
parameters (``_model_constraints``), its loss terms (``_loss_params``), the
papers' settings (``PAPER_SETTINGS``, ``from_paper``) and what ``transform``
returns (each is a scikit-learn ``TransformerMixin``, so that
``set_output(transform="pandas")`` wraps the ``transform`` it defines).
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any, TypeVar

import numpy as np
from sklearn.base import TransformerMixin

from skattn.modules.hierarchical import HierarchicalAttentionNet
from skattn.modules.self_attentive import SelfAttentiveNet
from skattn.text import TextEncoder
from skattn.utils.params import POSITIVE_INT, Interval, Options

__all__ = ["HierarchicalAttentionModel", "SelfAttentiveModel"]

#: The estimator class a preset is built for.
_Estimator = TypeVar("_Estimator")


class SelfAttentiveModel(TransformerMixin):
    """Lin et al. 2017's structured self-attentive network, for any task.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier, SelfAttentiveRegressor
    >>> SelfAttentiveRegressor.from_paper().attention_hops
    30
    >>> issubclass(SelfAttentiveClassifier, SelfAttentiveModel)
    True
    """

    _module_class = SelfAttentiveNet
    #: Epochs at the reference corpus size (see :mod:`skattn.epochs`).
    _base_epochs = 8
    #: Lin et al. 2017, the authors' Yelp command line (see :meth:`from_paper`).
    PAPER_SETTINGS = {
        "embedding_dim": 100,
        "embeddings": "word2vec",
        "hidden_size": 300,
        "attention_dim": 350,
        "attention_hops": 30,
        "mlp_hidden": 3000,
        "pooling": "flatten",
        # The authors' coefficient 1.0 is on the mean over the r × r entries.
        "penalty": 1.0 / 30**2,
        "dropout": 0.3,
        "dropout_placement": "authors",
        "batch_size": 50,
        "clip_grad_norm": 0.5,
        "optimizer": "adam",
        "lr": 1e-3,
        "lr_schedule": "constant",
        "min_count": 1,
        "max_length": None,
        "subword_buckets": None,
    }
    _text_params = (
        "lowercase",
        "token_pattern",
        "tokenizer",
        "strip_accents",
        "analyzer",
        "min_count",
        "max_vocab",
        "subword_buckets",
        "max_length",
    )
    _model_constraints: dict = {
        **TextEncoder.parameter_constraints(_text_params),
        "attention_dim": [POSITIVE_INT],
        "attention_hops": [POSITIVE_INT],
        "penalty": [Interval(Real, 0, None, "left")],
        "pooling": [Options({"flatten", "max", "mean"})],
        "mlp_hidden": [POSITIVE_INT],
        "dropout_placement": [Options({"embeddings", "authors"})],
    }

    def _module_params(self) -> dict[str, Any]:
        return {
            "embedding_dim": self.embedding_dim,
            "hidden_size": self.hidden_size,
            "attention_dim": self.attention_dim,
            "attention_hops": self.attention_hops,
            "mlp_hidden": self.mlp_hidden,
            "pooling": self.pooling,
            "dropout": self.dropout,
            "dropout_placement": self.dropout_placement,
            "subword_buckets": self.subword_buckets or 0,
        }

    @classmethod
    def from_paper(cls: type[_Estimator], **overrides) -> _Estimator:
        """The structured self-attentive model as Lin et al. 2017 train it on Yelp.

        The sizes are the paper's (Lin et al. 2017, section 4.1): a BiLSTM of
        300 units per direction, d_a = 350, r = 30 hops, a 3,000-unit ReLU
        hidden layer, 100-d word2vec (trained here on the fit data), every
        word kept, no truncation, gradients clipped at 0.5. From the
        authors' released Yelp command line: penalty coefficient 1.0 in
        their definition (the mean over the r × r entries: ``1/30**2`` in
        ours, see ``penalty``), dropout 0.3 placed as in their code
        (``dropout_placement="authors"``) and minibatches of 50.

        Not the same as theirs: the paper's L2 penalty of 1e-4 is not
        applied; the command line's 300-d GloVe vectors are replaced by the
        text's 100-d word2vec; clipping here bounds the global gradient
        norm, where Lasagne's clip in their code bounds each step's
        gradient; Adam at 1e-3 with a constant rate is our choice (the text
        uses SGD), as is the default number of epochs.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> SelfAttentiveClassifier.from_paper().attention_hops
        30
        """
        return cls(**{**cls.PAPER_SETTINGS, **overrides})

    def _loss_params(self) -> dict[str, Any]:
        return {"penalty": self.penalty}

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Sentence embeddings M, flattened: shape (n_documents, r * 2u).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32
        """
        embedding = self.document_outputs(X, ("embedding",))["embedding"]
        return embedding.reshape(len(embedding), -1)

    def _feature_names(self) -> list[str]:
        """``transform``'s columns: ``hop{i}_dim{j}``."""
        width = 2 * self.hidden_size
        return [f"hop{h}_dim{d}" for h in range(self.attention_hops) for d in range(width)]


class HierarchicalAttentionModel(TransformerMixin):
    """Yang et al. 2016's hierarchical attention network, for any task.

    Examples
    --------
    >>> from skattn import HierarchicalAttentionRegressor
    >>> HierarchicalAttentionRegressor.from_paper().embedding_dim
    200
    """

    _module_class = HierarchicalAttentionNet
    #: Epochs at the reference corpus size (see :mod:`skattn.epochs`).
    _base_epochs = 5
    _hierarchical = True
    _text_params = (
        "lowercase",
        "token_pattern",
        "tokenizer",
        "strip_accents",
        "analyzer",
        "min_count",
        "max_vocab",
        "subword_buckets",
        "sentence_split",
        "max_sentences",
        "max_sentence_length",
    )
    _model_constraints: dict = {
        **TextEncoder.parameter_constraints(_text_params),
        "sentence_hidden_size": [POSITIVE_INT],
        "context_dim": [POSITIVE_INT],
        "pooling": [Options({"attention", "mean", "max"})],
        "chunk_size": [POSITIVE_INT, None],
    }

    #: Yang et al. 2016, section 3.3 (see :meth:`from_paper`).
    PAPER_SETTINGS = {
        "embedding_dim": 200,
        "embeddings": "word2vec",
        "hidden_size": 50,
        "sentence_hidden_size": 50,
        "context_dim": 100,
        "pooling": "attention",
        "min_count": 6,
        "dropout": 0.0,
        "batch_size": 64,
        "optimizer": "sgd",
        "momentum": 0.9,
        "lr": 0.1,
        "validation_fraction": 0.1,
        "lr_schedule": "constant",
        "clip_grad_norm": None,
        "max_epochs": 10,
        "subword_buckets": None,
    }
    #: The learning rates the preset's search tries (ours: the paper gives none).
    PAPER_LEARNING_RATES = (0.01, 0.03, 0.1)

    @classmethod
    def from_paper(cls: type[_Estimator], **overrides) -> _Estimator:
        """HN-ATT as Yang et al. 2016 train it (section 3.3), plus ``overrides``.

        - word2vec (gensim skip-gram, 200-d) trained on the fit data
          initialises the embeddings (``skattn[word2vec]``);
        - words seen at most 5 times map to UNK (``min_count=6``);
        - word and sentence GRUs of 50 units per direction, context
          vectors of 100;
        - SGD with momentum 0.9, minibatches of 64 documents grouped by
          sentence count (the batches sort by sentence count first);
        - the model is selected on a validation split (10% of the fit
          data, stratified): the weights of the epoch with the best
          validation accuracy are kept;
        - no dropout, no clipping, a constant learning rate.

        The paper picks the learning rate on its validation set without
        giving the grid. ``lr=0.1`` is ours; to pick it as the paper does,
        search :data:`PAPER_LEARNING_RATES` with
        :func:`skattn.model_selection.learning_rate_search`. Also ours, as
        the paper does not say: ``max_epochs=10``. Nothing is added for
        stability. The document truncation limits stay the estimator's
        defaults.

        Examples
        --------
        >>> from skattn import HierarchicalAttentionClassifier
        >>> HierarchicalAttentionClassifier.from_paper().embedding_dim
        200
        >>> from skattn.model_selection import learning_rate_search
        >>> search = learning_rate_search(
        ...     HierarchicalAttentionClassifier.from_paper(),
        ...     HierarchicalAttentionClassifier.PAPER_LEARNING_RATES,
        ... )
        >>> search.param_grid
        {'lr': [0.01, 0.03, 0.1]}
        """
        return cls(**{**cls.PAPER_SETTINGS, **overrides})

    def _module_params(self) -> dict[str, Any]:
        return {
            "embedding_dim": self.embedding_dim,
            "word_hidden": self.hidden_size,
            "sentence_hidden": self.sentence_hidden_size,
            "context_dim": self.context_dim,
            "pooling": self.pooling,
            "dropout": self.dropout,
            "chunk_size": self.chunk_size,
            "subword_buckets": self.subword_buckets or 0,
        }

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Document vectors v: shape (n_documents, 2 * sentence_hidden_size).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32
        """
        return self.document_outputs(X, ("embedding",))["embedding"]

    def _feature_names(self) -> list[str]:
        """``transform``'s columns: ``doc_dim{j}``."""
        return [f"doc_dim{d}" for d in range(2 * self.sentence_hidden_size)]
