"""The public attention classifiers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

import numpy as np

from skattn._docstrings import fill_shared_docs
from skattn.base import COMMON_CONSTRAINTS, AttentionClassifierBase
from skattn.modules.hierarchical import HierarchicalAttentionNet
from skattn.modules.self_attentive import SelfAttentiveNet
from skattn.text import DEFAULT_TOKEN_PATTERN, TextEncoder
from skattn.utils.params import POSITIVE_INT, Interval, Options


@fill_shared_docs
class SelfAttentiveClassifier(AttentionClassifierBase):
    """Structured self-attentive sentence embedding classifier (Lin et al. 2017).

    Words → embeddings → BiLSTM (states H, n × 2u) → r attention rows
    A = softmax(W_s2 tanh(W_s1 Hᵀ)) over the real tokens → sentence
    embedding M = A H (r × 2u) → pooling → ReLU MLP → softmax. The loss is
    cross-entropy plus ``penalty`` × ‖AAᵀ − I‖²_F (squared Frobenius norm
    summed over the r × r entries, averaged over the batch; the authors'
    code takes the mean over the entries, so their coefficient c is
    ``c / attention_hops**2`` here).

    Parameters
    ----------
    embedding_dim : int, default=100
        Size of the word embeddings (d).
    hidden_size : int, default=100
        LSTM units per direction (u).
    attention_dim : int, default=64
        Width of the attention MLP (d_a).
    attention_hops : int, default=4
        Number of attention rows (r).
    penalty : float, default=0.1
        Coefficient of the redundancy penalty; 0 disables it.
    pooling : {"flatten", "max", "mean"}, default="flatten"
        How M feeds the MLP: flattened (the paper) or pooled over hops.
    mlp_hidden : int, default=128
        Units of the ReLU hidden layer.
    dropout : float, default=0.5
        The dropout rate.
    dropout_placement : {"embeddings", "authors"}, default="embeddings"
        "embeddings": on the word embeddings, on M and on the MLP's hidden
        layer; "authors": as the authors' code, on H, tanh(W_s1 Hᵀ), M and
        the hidden layer.
    %(embeddings)s
    %(freeze_embeddings)s
    %(text_options)s
    %(min_count)s
    %(max_vocab)s
    %(subword_buckets)s
    max_length : int or None, default=1000
        Tokens kept per document: the first ``max_length`` (documented
        truncation rule of :mod:`skattn.text`; ``n_truncated_`` counts the
        training documents it shortened). Batches are padded only to their
        own longest document, so the limit costs nothing on short texts;
        on long reviews a tighter one loses accuracy (see *Results*).
    %(max_epochs)s
    %(batch_size)s
    %(batch_tokens)s
    %(lr)s
    %(optimizer)s
    %(momentum)s
    %(weight_decay)s
    %(clip_grad_norm)s
    %(lr_schedule)s
    %(warmup_epochs)s
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(checkpoint_dir)s
    %(warm_start)s
    %(callbacks)s
    %(net_params)s
    %(class_weight)s
    %(device)s
    %(threads)s
    %(random_state)s
    %(verbose)s

    Attributes
    ----------
    %(fitted_attributes)s

    Examples
    --------
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = SelfAttentiveClassifier(max_epochs=20, lr=0.01, random_state=0).fit(X, y)
    >>> clf.predict(["great", "bad"]).tolist()
    ['pos', 'neg']
    >>> clf.transform(["great"]).shape  # r * 2u
    (1, 800)
    """

    _module_class = SelfAttentiveNet
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
    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        **TextEncoder.parameter_constraints(_text_params),
        "attention_dim": [POSITIVE_INT],
        "attention_hops": [POSITIVE_INT],
        "penalty": [Interval(Real, 0, None, "left")],
        "pooling": [Options({"flatten", "max", "mean"})],
        "mlp_hidden": [POSITIVE_INT],
        "dropout_placement": [Options({"embeddings", "authors"})],
    }

    def __init__(
        self,
        *,
        embedding_dim: int = 100,
        hidden_size: int = 100,
        attention_dim: int = 64,
        attention_hops: int = 4,
        penalty: float = 0.1,
        pooling: str = "flatten",
        mlp_hidden: int = 128,
        dropout: float = 0.5,
        dropout_placement: str = "embeddings",
        embeddings: str | None = "auto",
        freeze_embeddings: bool = False,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        strip_accents: str | None = None,
        analyzer: str = "word",
        min_count: int = 2,
        max_vocab: int | None = None,
        subword_buckets: int | None = 50_000,
        max_length: int | None = 1000,
        max_epochs: int = 8,
        batch_size: int = 64,
        batch_tokens: int | None = None,
        lr: float = 3e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 0.5,
        lr_schedule: str = "cosine",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
        class_weight: str | dict | None = None,
        device: str | None = "cpu",
        threads: int | None = 1,
        random_state=None,
        verbose: int = 0,
    ):
        self.embedding_dim = embedding_dim
        self.hidden_size = hidden_size
        self.attention_dim = attention_dim
        self.attention_hops = attention_hops
        self.penalty = penalty
        self.pooling = pooling
        self.mlp_hidden = mlp_hidden
        self.dropout = dropout
        self.dropout_placement = dropout_placement
        self.embeddings = embeddings
        self.freeze_embeddings = freeze_embeddings
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.strip_accents = strip_accents
        self.analyzer = analyzer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.subword_buckets = subword_buckets
        self.max_length = max_length
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.lr = lr
        self.optimizer = optimizer
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_grad_norm = clip_grad_norm
        self.lr_schedule = lr_schedule
        self.warmup_epochs = warmup_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.checkpoint_dir = checkpoint_dir
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.net_params = net_params
        self.class_weight = class_weight
        self.device = device
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose

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
    def from_paper(cls, **overrides) -> SelfAttentiveClassifier:
        """The structured self-attentive classifier as Lin et al. 2017 train it on Yelp.

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


@fill_shared_docs
class HierarchicalAttentionClassifier(AttentionClassifierBase):
    """Hierarchical attention network for documents (Yang et al. 2016).

    Each sentence's words → embeddings → BiGRU → word pooling (attention
    with a learned context vector u_w in HN-ATT) → sentence vector; the
    document's sentence vectors → BiGRU → sentence pooling (u_s) →
    document vector v → linear → softmax; loss = negative log-likelihood.
    All sentences of a batch share one word-level pass (sorted by length,
    in chunks); documents are batched by sentence count.

    Parameters
    ----------
    embedding_dim : int, default=100
        Word embedding size (the paper: 200).
    hidden_size : int, default=50
        Word-level GRU units per direction (the paper: 50).
    sentence_hidden_size : int, default=50
        Sentence-level GRU units per direction (the paper: 50).
    context_dim : int, default=100
        Size of u_w, u_s and of the attention projections (the paper: 100).
    pooling : {"attention", "mean", "max"}, default="attention"
        HN-ATT, HN-AVE or HN-MAX, at both levels, over real positions only.
    dropout : float, default=0.3
        Dropout on the embeddings and on the document vector (the paper
        has none).
    %(embeddings)s
    %(freeze_embeddings)s
    %(text_options)s
    %(min_count)s
    %(max_vocab)s
    %(subword_buckets)s
    sentence_split : {"punctuation", "lines"} or callable, default="punctuation"
        "punctuation" ends a sentence after ``.``, ``!`` or ``?`` and at line
        breaks; "lines" takes each line as a sentence (movie_reviews);
        a callable ``str -> list of str``.
    max_sentences : int or None, default=60
        Sentences kept per document: the first ones.
    max_sentence_length : int or None, default=60
        Words kept per sentence: the first ones.
    chunk_size : int or None, default=256
        Sentences per word-level GRU call.
    %(max_epochs)s
    %(batch_size)s
    %(batch_tokens)s
    %(lr)s
    %(optimizer)s
    %(momentum)s
    %(weight_decay)s
    %(clip_grad_norm)s
    %(lr_schedule)s
    %(warmup_epochs)s
    %(early_stopping)s
    %(validation_fraction)s
    %(n_iter_no_change)s
    %(checkpoint_dir)s
    %(warm_start)s
    %(callbacks)s
    %(net_params)s
    %(class_weight)s
    %(device)s
    %(threads)s
    %(random_state)s
    %(verbose)s

    Attributes
    ----------
    %(fitted_attributes)s

    Examples
    --------
    >>> X = ["A great film. I loved it.", "Truly great!", "A bad film. I hated it.",
    ...      "Truly bad!"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = HierarchicalAttentionClassifier(max_epochs=8, random_state=0).fit(X, y)
    >>> clf.predict(["Great. Loved it.", "Bad. Hated it."]).tolist()
    ['pos', 'neg']
    >>> clf.transform(["Great."]).shape  # 2 * sentence_hidden_size
    (1, 100)
    """

    _module_class = HierarchicalAttentionNet
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
    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
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

    def __init__(
        self,
        *,
        embedding_dim: int = 100,
        hidden_size: int = 50,
        sentence_hidden_size: int = 50,
        context_dim: int = 100,
        pooling: str = "attention",
        dropout: float = 0.3,
        embeddings: str | None = "auto",
        freeze_embeddings: bool = False,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        strip_accents: str | None = None,
        analyzer: str = "word",
        min_count: int = 2,
        max_vocab: int | None = None,
        subword_buckets: int | None = 50_000,
        sentence_split: str | Callable[[str], list[str]] = "punctuation",
        max_sentences: int | None = 60,
        max_sentence_length: int | None = 60,
        chunk_size: int | None = 256,
        max_epochs: int = 5,
        batch_size: int = 32,
        batch_tokens: int | None = None,
        lr: float = 3e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 5.0,
        lr_schedule: str = "cosine",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
        class_weight: str | dict | None = None,
        device: str | None = "cpu",
        threads: int | None = 1,
        random_state=None,
        verbose: int = 0,
    ):
        self.embedding_dim = embedding_dim
        self.hidden_size = hidden_size
        self.sentence_hidden_size = sentence_hidden_size
        self.context_dim = context_dim
        self.pooling = pooling
        self.dropout = dropout
        self.embeddings = embeddings
        self.freeze_embeddings = freeze_embeddings
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.strip_accents = strip_accents
        self.analyzer = analyzer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.subword_buckets = subword_buckets
        self.sentence_split = sentence_split
        self.max_sentences = max_sentences
        self.max_sentence_length = max_sentence_length
        self.chunk_size = chunk_size
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.lr = lr
        self.optimizer = optimizer
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_grad_norm = clip_grad_norm
        self.lr_schedule = lr_schedule
        self.warmup_epochs = warmup_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.checkpoint_dir = checkpoint_dir
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.net_params = net_params
        self.class_weight = class_weight
        self.device = device
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose

    @classmethod
    def from_paper(cls, **overrides) -> HierarchicalAttentionClassifier:
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
