"""What every attention estimator shares: validation, fitting, inference.

A public estimator is a plain scikit-learn estimator that *holds* a fitted
:class:`~skattn.text.TextEncoder` (``encoder_``) and a private skorch
:class:`~skattn.net.AttentionNet` (``net_``). Subclasses declare their
network (``_module_class`` and ``_module_params``) and which text
parameters they take; the rest lives here once.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Sequence
from numbers import Integral, Real
from pathlib import Path
from typing import Any

import numpy as np
import torch
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted
from skorch.callbacks import Checkpoint, EarlyStopping, GradientNormClipping, LRScheduler
from skorch.helper import predefined_split
from torch.optim.lr_scheduler import CosineAnnealingLR

from skattn.data import DocumentDataset
from skattn.embeddings import check_embeddings_source, initial_vectors
from skattn.explain import Explanations
from skattn.net import AttentionNet, RestoreLastEpoch, torch_threads
from skattn.text import TextEncoder
from skattn.utils.validation import (
    check_labels,
    check_same_length,
    check_sample_weight,
    check_text_input,
)

OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "sgd": torch.optim.SGD,
    "adagrad": torch.optim.Adagrad,
    "rmsprop": torch.optim.RMSprop,
}

_positive_int = Interval(Integral, 1, None, closed="left")

#: Constraints of the parameters every attention classifier has.
COMMON_CONSTRAINTS: dict[str, list] = {
    "embedding_dim": [_positive_int],
    "hidden_size": [_positive_int],
    "dropout": [Interval(Real, 0, 1, closed="left")],
    # Strings, paths, KeyedVectors, dicts: checked by check_embeddings_source.
    "embeddings": "no_validation",
    "freeze_embeddings": ["boolean"],
    "lowercase": ["boolean"],
    "token_pattern": [str],
    "tokenizer": [callable, None],
    "min_count": [_positive_int],
    "max_vocab": [_positive_int, None],
    "max_epochs": [_positive_int],
    "batch_size": [_positive_int],
    "lr": [Interval(Real, 0, None, closed="neither")],
    "optimizer": [StrOptions(set(OPTIMIZERS)), type],
    "momentum": [Interval(Real, 0, 1, closed="left")],
    "weight_decay": [Interval(Real, 0, None, closed="left")],
    "clip_grad_norm": [Interval(Real, 0, None, closed="neither"), None],
    "lr_schedule": [StrOptions({"constant", "cosine"})],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
    "n_iter_no_change": [_positive_int],
    "checkpoint_dir": [str, os.PathLike, None],
    "warm_start": ["boolean"],
    "callbacks": [list, None],
    "device": [str],
    "threads": [_positive_int, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


class AttentionClassifierBase(ClassifierMixin, BaseEstimator):
    """Shared machinery of the attention classifiers (not public API)."""

    _module_class: type[torch.nn.Module]
    #: Text parameters of this estimator that go to its TextEncoder.
    _text_params: tuple[str, ...] = (
        "lowercase",
        "token_pattern",
        "tokenizer",
        "min_count",
        "max_vocab",
        "max_length",
    )
    #: Whether batches keep sentences apart.
    _hierarchical = False

    def _module_params(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- fitting -------------------------------------------------------------
    def fit(self, X: Sequence[str], y: Sequence[Any], sample_weight=None):
        """Fit the vocabulary and train the network.

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str
            Training documents.
        y : array-like of shape (n_documents,)
            Labels, of any hashable type.
        sample_weight : array-like of shape (n_documents,), optional
            Weights of each document in the loss.

        Returns
        -------
        self
        """
        self._validate_params()
        check_embeddings_source(self.embeddings)
        X = check_text_input(X)
        y = check_labels(y, len(X))
        weights = None if sample_weight is None else check_sample_weight(sample_weight, len(X))
        warm = self.warm_start and hasattr(self, "net_")
        classes, y_encoded = self._encode_labels(y, warm)
        # A canonical order makes the fitted model independent of the order
        # the samples came in (batches, split and vectors all follow it);
        # errors still name positions in the caller's order.
        order = np.array(sorted(range(len(X)), key=lambda i: (X[i], y_encoded[i])), dtype=np.int64)
        seed = _seed_from(self.random_state)
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch_threads(self.threads))
            stack.enter_context(torch.random.fork_rng(devices=[]))
            torch.manual_seed(seed)
            if not warm:
                self.classes_ = classes
                self.encoder_ = TextEncoder(
                    **{name: getattr(self, name) for name in self._text_params}
                )
            corpus = self.encoder_.encode(X) if warm else self.encoder_.fit_encode(X)
            dataset = DocumentDataset(
                corpus, y_encoded, weights, hierarchical=self._hierarchical
            ).subset(order)
            train, valid = self._split(dataset, seed)
            checkpoint_dir = None
            if valid is not None:
                checkpoint_dir = self.checkpoint_dir or stack.enter_context(
                    tempfile.TemporaryDirectory(prefix="skattn-fit-")
                )
            if warm:
                self._continue_net(valid, checkpoint_dir)
            else:
                self._new_net(valid, checkpoint_dir, corpus, [X[i] for i in order], seed)
            self.net_.partial_fit(train, y=None)
        self.n_truncated_ = corpus.n_truncated
        return self

    def _encode_labels(self, y: np.ndarray, warm: bool) -> tuple[np.ndarray, np.ndarray]:
        """Classes and labels as indices into them (a warm start keeps its classes)."""
        if not warm:
            return np.unique(y, return_inverse=True)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if len(unseen):
            raise ValueError(
                f"warm_start: y holds labels the model was not trained on: "
                f"{unseen[:5].tolist()}; the classes are {self.classes_.tolist()}."
            )
        return self.classes_, np.searchsorted(self.classes_, y)

    def _new_net(self, valid, checkpoint_dir, corpus, documents: list[str], seed: int) -> None:
        """A freshly initialised network, its embedding set from ``embeddings``."""
        vectors, self.embedding_coverage_ = initial_vectors(
            self.embeddings,
            self.encoder_,
            corpus,
            self.embedding_dim,
            seed,
            sentences=lambda: [s for doc in self.encoder_.tokenize(documents) for s in doc],
        )
        self.net_ = self._make_net(valid, checkpoint_dir).initialize()
        self.net_.load_embeddings(vectors, freeze=self.freeze_embeddings)

    def _continue_net(self, valid, checkpoint_dir) -> None:
        """A new training loop (fresh optimizer) around the current weights."""
        previous = self.net_.module_.state_dict()
        self.net_ = self._make_net(valid, checkpoint_dir).initialize()
        self.net_.module_.load_state_dict(previous)
        self.net_.load_embeddings(None, freeze=self.freeze_embeddings)

    def _split(self, dataset: DocumentDataset, seed: int):
        fraction = self.validation_fraction
        if fraction is None and self.early_stopping:
            fraction = 0.1
        if fraction is None:
            return dataset, None
        train_idx, valid_idx = train_test_split(
            np.arange(len(dataset)), test_size=fraction, stratify=dataset.labels, random_state=seed
        )
        return dataset.subset(train_idx), dataset.subset(valid_idx)

    def _make_net(self, valid: DocumentDataset | None, checkpoint_dir=None) -> AttentionNet:
        optimizer = OPTIMIZERS.get(self.optimizer, self.optimizer)
        optimizer_params = {"optimizer__weight_decay": self.weight_decay}
        if optimizer in (torch.optim.SGD, torch.optim.RMSprop):
            optimizer_params["optimizer__momentum"] = self.momentum
        callbacks = [("restore_last_epoch", RestoreLastEpoch())]
        if self.clip_grad_norm is not None:
            callbacks.append(("clip", GradientNormClipping(self.clip_grad_norm)))
        if self.lr_schedule == "cosine":
            callbacks.append(("lr_schedule", LRScheduler(CosineAnnealingLR, T_max=self.max_epochs)))
        if self.early_stopping:
            callbacks.append(
                # Validation loss rises from over-confidence while accuracy
                # still improves; stopping on it quits too early.
                (
                    "early_stopping",
                    EarlyStopping(
                        monitor="valid_acc",
                        lower_is_better=False,
                        patience=self.n_iter_no_change,
                    ),
                )
            )
        if checkpoint_dir is not None:
            # The best validation epoch on disk, loaded back when training ends
            # (also after Ctrl-C or early stopping).
            callbacks.append(
                (
                    "checkpoint",
                    Checkpoint(
                        monitor="valid_acc_best",
                        dirname=str(checkpoint_dir),
                        f_optimizer=None,
                        f_criterion=None,
                        f_history=None,
                        load_best=True,
                    ),
                )
            )
        callbacks.extend(self.callbacks or [])
        return AttentionNet(
            module=self._module_class,
            **{f"module__{k}": v for k, v in self._module_params().items()},
            module__vocab_size=self.encoder_.vocab_size_,
            module__n_classes=len(self.classes_),
            classes=list(range(len(self.classes_))),
            criterion=torch.nn.CrossEntropyLoss,
            criterion__reduction="none",
            optimizer=optimizer,
            **optimizer_params,
            lr=self.lr,
            max_epochs=self.max_epochs,
            batch_size=self.batch_size,
            train_split=None if valid is None else predefined_split(valid),
            callbacks=callbacks,
            device=self.device,
            verbose=self.verbose,
            penalty=getattr(self, "penalty", 0.0),
        )

    # -- inference -----------------------------------------------------------
    def _outputs(self, X: Sequence[str], fields: Sequence[str], corpus=None) -> dict[str, Any]:
        """Module outputs for documents ``X`` (or for their ``corpus``, already encoded)."""
        check_is_fitted(self, "net_")
        if corpus is None:
            corpus = self.encoder_.encode(X)
        dataset = DocumentDataset(corpus, hierarchical=self._hierarchical)
        with torch_threads(self.threads):
            return self.net_.predict_outputs(dataset, fields)

    def explain(self, X: Sequence[str], y=None, *, as_frame: bool = False):
        """Tokens and attention weights of each document, with the prediction.

        Parameters
        ----------
        X : sequence of str
        y : array-like, optional
            True labels, shown next to the predictions.
        as_frame : bool, default=False
            Return a pandas DataFrame with one row per token instead.

        Returns
        -------
        Explanations or pandas.DataFrame
            A list with one dict per document (keys in
            :mod:`skattn.explain`: the tokens, their weights,
            ``prediction``, ``proba`` and, given ``y``, ``true_label``), that
            also renders as HTML (``to_html``, ``save_html``, inline in
            Jupyter) and matplotlib figures (``plot``).
        """
        X = check_text_input(X)
        records = self._explain_records(X)
        if y is not None:
            y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
            check_same_length(len(X), y)
            for record, label in zip(records, y):
                record["true_label"] = label
        explanations = Explanations(records)
        return explanations.to_frame() if as_frame else explanations

    def _explained_outputs(self, X: list[str], fields: Sequence[str]):
        """Tokens, the given module outputs and class probabilities of each document."""
        check_is_fitted(self, "net_")
        corpus, tokens = self.encoder_.encode(X, return_tokens=True)
        outputs = self._outputs(X, ("logits", *fields), corpus=corpus)
        probas = softmax(outputs["logits"].astype(np.float64), axis=1)
        return tokens, outputs, probas

    def decision_function(self, X: Sequence[str]) -> np.ndarray:
        """Raw scores: logits (n, n_classes), or log-odds of ``classes_[1]`` (n,) if binary.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray
        """
        logits = self._outputs(X, ("logits",))["logits"].astype(np.float64)
        return logits[:, 1] - logits[:, 0] if logits.shape[1] == 2 else logits

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities (n, n_classes), columns in the order of ``classes_``.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents, n_classes)
        """
        logits = self._outputs(X, ("logits",))["logits"].astype(np.float64)
        return softmax(logits, axis=1)

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """Predicted labels, values of ``classes_``.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        logits = self._outputs(X, ("logits",))["logits"]
        return self.classes_[np.argmax(logits, axis=1)]

    def score(self, X: Sequence[str], y: Sequence[Any], sample_weight=None) -> float:
        """Accuracy on ``(X, y)``; labels unseen in ``fit`` are an error.

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n_documents,)
        sample_weight : array-like, optional

        Returns
        -------
        float
        """
        check_is_fitted(self, "net_")
        y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
        check_same_length(len(check_text_input(X)), y)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if len(unseen):
            raise ValueError(
                f"y holds labels never seen in fit: {unseen[:5].tolist()}; "
                f"the classes are {self.classes_.tolist()}."
            )
        return super().score(X, y, sample_weight=sample_weight)

    def save(self, path) -> Path:
        """Save the fitted estimator without pickle; see :func:`skattn.persistence.save`.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        Path
        """
        from skattn.persistence import save

        return save(self, path)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        tags.non_deterministic = self.random_state is None
        return tags


def _seed_from(random_state) -> int:
    """An int seed: ``random_state`` itself when an int, else drawn from it."""
    if isinstance(random_state, Integral):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
