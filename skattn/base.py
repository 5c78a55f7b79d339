"""What every attention estimator shares: validation, fitting, fitted state, inference.

A public estimator is a plain scikit-learn estimator that *holds* a fitted
:class:`~skattn.text.TextEncoder` (``encoder_``) and a skorch net
(``net_``, built by :func:`skattn.net.build_net` from a
:class:`~skattn.net.NetConfig`). Subclasses declare their network
(``_module_class``, ``_module_params``), the text parameters they take
(``_text_params``, validated by :class:`~skattn.text.TextEncoder`'s own
constraints) and their loss terms (``_loss_params``); the rest lives here once.

The public seams other layers use (the embedder, the benchmarks, user code
that drives the network itself): :meth:`~AttentionClassifierBase.build_encoder`,
:meth:`~AttentionClassifierBase.build_network`,
:meth:`~AttentionClassifierBase.to_dataset` and
:meth:`~AttentionClassifierBase.document_outputs`.

Fitted state protocol: :meth:`AttentionClassifierBase.get_fitted_state`
describes everything ``fit`` learned as a :class:`FittedState` (plain data
plus the network's tensors), and :meth:`~AttentionClassifierBase.set_fitted_state`
rebuilds a fitted estimator from one. ``fit`` and ``set_fitted_state`` both
end in ``_adopt``, the one place fitted attributes are set; persistence and
the embedder go through the same two methods.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
import torch
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted
from skorch.callbacks import EarlyStopping
from skorch.history import History

from skattn.attribution import DEFAULT_METHOD, DEFAULT_STEPS, check_method, explanation_records
from skattn.data import DocumentDataset
from skattn.embeddings import check_embeddings_source, corpus_sentences, initial_vectors
from skattn.epochs import EpochChoice, auto_epochs
from skattn.erasure import fixed_column
from skattn.explain import Explanations, token_scores_of
from skattn.faithfulness import faithfulness_report
from skattn.net import (
    OPTIMIZERS,
    AttentionNet,
    NetConfig,
    build_net,
    check_net_params,
    release_fit_data,
    user_callback_types,
)
from skattn.streaming import (
    DEFAULT_CHUNK_SIZE,
    is_document_stream,
    iter_predictions,
    stream_documents,
)
from skattn.text import PAD_ID, EncodedCorpus, TextEncoder
from skattn.thresholds import THRESHOLD_OPTIONS, f1_thresholds, resolve_threshold
from skattn.utils.ordering import DigestRecorder, canonical_order, text_digests
from skattn.utils.params import POSITIVE_INT, Interval, Options, validate_params
from skattn.utils.runtime import resolve_device, seeded, torch_threads
from skattn.utils.validation import (
    as_label_array,
    check_indicator_matrix,
    check_known_labels,
    check_labels,
    check_same_length,
    check_sample_weight,
    check_targets,
    check_text_input,
    is_indicator_matrix,
    seed_from,
    text_input_tags,
)

#: Share of the training documents above which blank or truncated
#: documents are worth a warning at fit.
NOTABLE_SHARE = 0.01

#: Constraints of the network and training parameters every attention
#: classifier has (text parameters take theirs from TextEncoder).
COMMON_CONSTRAINTS: dict[str, list] = {
    "embedding_dim": [POSITIVE_INT],
    "hidden_size": [POSITIVE_INT],
    "dropout": [Interval(Real, 0, 1, "left")],
    # Strings, paths, KeyedVectors, dicts: checked by check_embeddings_source.
    "embeddings": "no_validation",
    "freeze_embeddings": ["boolean"],
    "max_epochs": [POSITIVE_INT, Options({"auto"})],
    "batch_size": [POSITIVE_INT],
    "batch_tokens": [POSITIVE_INT, Options({"auto"}), None],
    "lr": [Interval(Real, 0, None, "neither")],
    "optimizer": [Options(OPTIMIZERS), type],
    "momentum": [Interval(Real, 0, 1, "left")],
    "weight_decay": [Interval(Real, 0, None, "left")],
    "clip_grad_norm": [Interval(Real, 0, None, "neither"), None],
    "clip_grad_value": [Interval(Real, 0, None, "neither"), None],
    "lr_schedule": [Options({"constant", "cosine", "onecycle"})],
    "warmup_epochs": [Interval(Integral, 0, None, "left")],
    "early_stopping": ["boolean"],
    "validation_fraction": [Interval(Real, 0, 1, "neither"), None],
    "n_iter_no_change": [POSITIVE_INT],
    "checkpoint_dir": [str, os.PathLike, None],
    "memmap_dir": [str, os.PathLike, None],
    "warm_start": ["boolean"],
    "callbacks": [list, None],
    "net_params": [dict, None],
    "class_weight": [Options({"balanced"}), dict, None],
    "threshold": [Interval(Real, 0, 1, "neither"), Options(THRESHOLD_OPTIONS)],
    "device": [str, None],
    # An accelerate.Accelerator: checked by skattn.net when the net is built.
    "accelerator": "no_validation",
    "threads": [POSITIVE_INT, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


__all__ = [
    "AttentionClassifierBase",
    "AttentionEstimatorBase",
    "AttentionRegressorBase",
    "FittedState",
    "WeightsMismatchError",
]


class WeightsMismatchError(ValueError):
    """Stored network weights do not fit the network an estimator's parameters build.

    :meth:`AttentionClassifierBase.set_fitted_state` raises it;
    :func:`skattn.load` turns it into its "not a valid model file" error.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> small = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
    >>> state = small.fit(["good", "bad"] * 4, [1, 0] * 4).get_fitted_state()
    >>> try:
    ...     SelfAttentiveClassifier(hidden_size=3).set_fitted_state(state)
    ... except WeightsMismatchError:
    ...     print("refused")
    refused
    """


@dataclass
class FittedState:
    """Everything a fitted estimator learned: plain data plus the network's tensors.

    Attributes
    ----------
    classes : ndarray or None
        ``classes_`` (None for a regressor: its target scaling is among the
        ``attributes``).
    tokens : list of str
        The token of each id (``TextEncoder.id_to_token_``).
    token_counts : list of int
        How often each token was seen in ``fit``.
    attributes : dict
        The other fitted attributes by name without the trailing underscore
        (``n_truncated``, ``embedding_coverage``, ``history``), JSON-ready.
    weights : dict of str to Tensor
        The network's ``state_dict``, on the CPU.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
    >>> state = clf.fit(["good", "bad"] * 4, [1, 0] * 4).get_fitted_state()
    >>> state.attributes["n_blank"], "embedding.weight" in state.weights
    (0, True)
    """

    classes: np.ndarray
    tokens: list[str]
    token_counts: list[int]
    attributes: dict[str, Any] = field(default_factory=dict)
    weights: dict[str, torch.Tensor] = field(default_factory=dict)


class AttentionEstimatorBase(TransformerMixin, BaseEstimator):
    """What every attention estimator shares: validation, fitting, fitted state, inference.

    Not instantiated itself. :class:`AttentionClassifierBase` and
    :class:`AttentionRegressorBase` add what a task needs (how targets are
    checked and encoded, the loss, what ``predict`` returns); the public
    estimators add their network and parameters. Its public methods are
    theirs (``fit``, ``explain``, ``get_fitted_state``, the seams
    ``build_encoder``, ``build_network``, ``to_dataset`` and
    ``document_outputs``).

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier, SelfAttentiveRegressor
    >>> issubclass(SelfAttentiveClassifier, AttentionEstimatorBase)
    True
    >>> issubclass(SelfAttentiveRegressor, AttentionEstimatorBase)
    True
    """

    _module_class: type[torch.nn.Module]
    #: Text parameters of this estimator that go to its TextEncoder.
    _text_params: tuple[str, ...] = ()
    #: Whether batches keep sentences apart.
    _hierarchical = False
    #: Whether ``fit`` reads a document stream (see skattn.streaming.is_document_stream).
    _reads_streams = True
    #: What an estimator pickled before skattn 0.3 had: no subwords, no
    #: element-wise clipping.
    subword_buckets = None
    clip_grad_value = None

    def _module_params(self) -> dict[str, Any]:
        """Constructor arguments of the network, besides vocabulary and class counts."""
        raise NotImplementedError

    def _feature_names(self) -> list[str]:
        """Names of ``transform``'s columns, one per column."""
        raise NotImplementedError

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of ``transform``'s columns (``hop{i}_dim{j}`` or ``doc_dim{j}``).

        Parameters
        ----------
        input_features : ignored

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "net_")
        return np.asarray(self._feature_names(), dtype=object)

    def _loss_params(self) -> dict[str, Any]:
        """Loss terms of :class:`~skattn.net.AttentionNet` (e.g. ``penalty``)."""
        return {}

    #: The network's task, ``"classification"`` or ``"regression"`` (:func:`skattn.net.build_net`).
    _task = "classification"
    #: Fitted-state attributes that describe the targets (restored by ``_targets_from_state``).
    _target_attributes_names: tuple[str, ...] = ()

    def _check_targets(self, y: Any, n_samples: int) -> np.ndarray:
        """``y`` validated for this task (clear errors before any training)."""
        raise NotImplementedError

    def _encode_targets(self, y: np.ndarray, warm: bool) -> tuple[dict[str, Any], np.ndarray]:
        """What ``fit`` learns from ``y`` (e.g. the classes), and ``y`` as the network learns it."""
        raise NotImplementedError

    def _n_outputs(self, targets: dict[str, Any]) -> int:
        """Size of the network's output layer for these targets."""
        raise NotImplementedError

    def _class_weights(self, targets: dict[str, Any], y_encoded: np.ndarray) -> list[float] | None:
        """Loss weight of each class (classifiers), None otherwise."""
        return None

    def _adopt_targets(self, targets: dict[str, Any]) -> None:
        """Set the fitted attributes that describe the targets."""
        raise NotImplementedError

    def _net_task(self, targets: dict[str, Any]) -> str:
        """The network's task for these targets (:func:`skattn.net.build_net`)."""
        return self._task

    def _needs_validation(self, targets: dict[str, Any]) -> bool:
        """Whether fitting these targets needs held-out documents (besides early stopping)."""
        return False

    def _after_training(self, targets: dict[str, Any], net, valid) -> dict[str, Any]:
        """Hook: what is learned from the trained ``net`` on the validation split (thresholds)."""
        return targets

    def _label_column(self, label: Any) -> int:
        """The column of ``_output_scores`` that ``explain(label=...)`` names."""
        raise NotImplementedError

    def _target_attributes(self) -> dict[str, Any]:
        """The target attributes of :class:`FittedState`, JSON-ready (besides ``classes``)."""
        return {}

    def _targets_from_state(self, state: FittedState) -> dict[str, Any]:
        """The ``targets`` of ``_adopt`` that ``state`` describes."""
        raise NotImplementedError

    # -- input: one text per sample (pair estimators override these) ---------
    def _check_model_params(self) -> None:
        """Hook: the model's checks across parameters (one at a time: ``validate_params``)."""

    def _check_input(self, X: Any) -> list:
        """``X`` validated: a list with one sample (here a str) per row."""
        return check_text_input(X)

    def _fit_encode(self, encoder: TextEncoder, X: Iterable, memmap_dir=None) -> EncodedCorpus:
        """Fit ``encoder`` on samples (validated a chunk at a time) and encode them."""
        return encoder.fit_encode_stream(X, memmap_dir=memmap_dir)

    def _encode_input(self, encoder: TextEncoder, X: list, memmap_dir=None) -> EncodedCorpus:
        """Encode validated samples with a fitted ``encoder`` (ids on disk with ``memmap_dir``)."""
        if memmap_dir is not None:
            return encoder.encode_stream(X, memmap_dir=memmap_dir)
        return encoder.encode(X, validated=True)

    def _dataset(self, corpus, y=None, sample_weight=None) -> DocumentDataset:
        """The network's dataset over an encoded corpus."""
        return DocumentDataset(corpus, y, sample_weight, hierarchical=self._hierarchical)

    def _digests(self, X: list) -> np.ndarray:
        """The digest of each validated sample, which the canonical order sorts by."""
        return text_digests(X)

    def _vector_corpus(self, encoder: TextEncoder, X: list, corpus) -> EncodedCorpus:
        """The encoded texts count-based word vectors learn from."""
        return corpus

    def _vector_texts(self, order: np.ndarray) -> np.ndarray:
        """Positions in ``_vector_corpus`` of the texts of samples ``order``, in that order."""
        return order

    # -- fitting -------------------------------------------------------------
    def fit(self, X: Sequence[str] | Iterable[str], y: Sequence[Any], sample_weight=None):
        """Fit the vocabulary and train the network.

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str, or a stream
            Training documents. A stream is read once, a chunk at a time,
            and never held whole: a :class:`~skattn.streaming.DocumentFile`,
            a pyarrow array, or any iterator (a generator, ``iter(list)``).
            The fitted model is the same as for the list of its documents.
        y : array-like of shape (n_documents,) or (n_documents, n_outputs)
            Classifiers: labels, of any hashable type. Regressors: numbers,
            one per document or one row of outputs per document.
        sample_weight : array-like of shape (n_documents,), optional
            Weights of each document in the loss.

        Returns
        -------
        self
        """
        validate_params(self)
        self._check_model_params()
        check_embeddings_source(self.embeddings, self.embedding_dim)
        check_net_params(self.net_params)
        accelerator = self.accelerator
        if accelerator is not None:
            from skattn.net.accelerated import check_accelerator

            check_accelerator(accelerator)
        # Under an accelerator, the accelerator places the network.
        device = resolve_device(self.device) if accelerator is None else str(accelerator.device)
        streamed = self._reads_streams and is_document_stream(X)
        if not streamed:
            X = self._check_input(X)
        # A stream's documents are counted as they are encoded: until then
        # the targets must agree with themselves (and are checked against
        # the count before any training).
        n_samples = _n_targets(y) if streamed else len(X)
        y = self._check_targets(y, n_samples)
        weights = None if sample_weight is None else check_sample_weight(sample_weight, n_samples)
        warm = self.warm_start and hasattr(self, "net_")
        targets, y_encoded = self._encode_targets(y, warm)
        class_weight = self._class_weights(targets, y_encoded)
        seed = seed_from(self.random_state)
        if accelerator is not None:
            from skattn.net.accelerated import shared_seed

            # Every process of a distributed fit takes the main process's seed
            # (the same split and batch order, even for random_state=None).
            seed = shared_seed(seed, accelerator)
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch_threads(self.threads))
            stack.enter_context(seeded(seed, device))
            memmap_dir = None
            if self.memmap_dir is not None:
                # The fitted model keeps no reference to these ids; where the
                # platform cannot remove a mapped file, it is left behind.
                memmap_dir = stack.enter_context(
                    tempfile.TemporaryDirectory(
                        prefix="skattn-ids-", dir=self.memmap_dir, ignore_cleanup_errors=True
                    )
                )
            encoder = self.encoder_ if warm else self.build_encoder()
            if streamed:
                documents = DigestRecorder(stream_documents(X))
                corpus = (
                    encoder.encode_stream(documents, memmap_dir=memmap_dir)
                    if warm
                    else self._fit_encode(encoder, documents, memmap_dir)
                )
                digests = documents.digests()
                check_same_length(len(corpus), y)
            else:
                corpus = (
                    self._encode_input(encoder, X, memmap_dir)
                    if warm
                    else self._fit_encode(encoder, X, memmap_dir)
                )
                digests = self._digests(X)
            # A canonical order makes the fitted model independent of the
            # order the samples came in, and a file equal to a list (batches,
            # split and vectors all follow it); errors still name positions
            # in the caller's order.
            order = canonical_order(digests, y_encoded, weights)
            dataset = self._dataset(corpus, y_encoded, weights).subset(order)
            train, valid = self._split(dataset, seed, targets)
            checkpoint_dir = None
            if valid is not None:
                checkpoint_dir = self.checkpoint_dir or stack.enter_context(
                    tempfile.TemporaryDirectory(prefix="skattn-fit-")
                )
            self._warn_about(corpus)
            epochs = self._epochs_for(train)
            net = self.build_network(
                self._n_outputs(targets),
                encoder.vocab_size_,
                valid,
                checkpoint_dir,
                class_weight,
                max_epochs=epochs.value,
                task=self._net_task(targets),
            )
            net.initialize()
            if warm:
                net.module_.load_state_dict(self.net_.module_.state_dict())
                vectors, coverage, choices = None, self.embedding_coverage_, self.choices_
            else:
                vector_corpus = self._vector_corpus(encoder, X, corpus)
                initial = initial_vectors(
                    self.embeddings,
                    encoder,
                    vector_corpus,
                    self.embedding_dim,
                    seed,
                    sentences=lambda: corpus_sentences(
                        vector_corpus, encoder.id_to_token_, self._vector_texts(order)
                    ),
                )
                vectors, coverage = initial.matrix, initial.coverage
                choices = {"embeddings": {"value": initial.source, "why": initial.reason}}
            choices = {**choices, "max_epochs": {"value": epochs.value, "why": epochs.why}}
            net.load_embeddings(vectors, freeze=self.freeze_embeddings)
            if accelerator is not None and accelerator.num_processes > 1:
                # Each process's own dropout masks (the split, the initial
                # weights and the batch order are already shared).
                torch.manual_seed(seed + accelerator.process_index)
            net.partial_fit(train, y=None)
            targets = self._after_training(targets, net, valid)
            release_fit_data(net)
        return self._adopt(
            targets,
            encoder,
            net,
            n_truncated=int(corpus.n_truncated),
            n_blank=int(corpus.n_blank),
            embedding_coverage=coverage,
            choices=choices,
        )

    def _epochs_for(self, train: DocumentDataset) -> EpochChoice:
        """The epochs this fit trains for: ``max_epochs``, or the rule of :mod:`skattn.epochs`."""
        if self.max_epochs != "auto":
            return EpochChoice(int(self.max_epochs), "set by max_epochs")
        return auto_epochs(self._base_epochs, len(train), int(train.lengths.sum()))

    def _warn_about(self, corpus: EncodedCorpus) -> None:
        """One warning each when a notable share of the fit data is blank or truncated."""
        n = getattr(corpus, "n_texts", len(corpus))  # a pair corpus counts its texts
        if corpus.n_blank / n >= NOTABLE_SHARE:
            warnings.warn(
                f"{corpus.n_blank} of {n} training documents ({corpus.n_blank / n:.1%}) are "
                "blank or yield no token; each is encoded as the reserved token '<empty>' "
                "(see n_blank_).",
                UserWarning,
                stacklevel=3,
            )
        if corpus.n_truncated / n >= NOTABLE_SHARE:
            limits = ", ".join(
                f"{name}={getattr(self, name)} cut {count}"
                for name, count in sorted(corpus.truncated_by.items())
            )
            warnings.warn(
                f"{corpus.n_truncated} of {n} training documents ({corpus.n_truncated / n:.1%}) "
                f"were truncated to their first tokens ({limits}). Raise these parameters (or "
                "set them to None) to keep more text (see n_truncated_).",
                UserWarning,
                stacklevel=3,
            )

    def build_encoder(self) -> TextEncoder:
        """An unfitted :class:`~skattn.text.TextEncoder` with this estimator's text parameters.

        Returns
        -------
        TextEncoder

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> SelfAttentiveClassifier(min_count=3).build_encoder().min_count
        3
        """
        return TextEncoder(**{name: getattr(self, name) for name in self._text_params})

    def build_network(
        self,
        n_outputs: int,
        vocab_size: int,
        valid: DocumentDataset | None = None,
        checkpoint_dir=None,
        class_weight: Sequence[float] | None = None,
        max_epochs: int | None = None,
        task: str | None = None,
    ) -> AttentionNet:
        """The skorch net these parameters make, not initialised (see :func:`skattn.net.build_net`).

        Parameters
        ----------
        n_outputs : int
            Classes of a classifier, outputs of a regressor.
        vocab_size : int
            Rows of the embedding (the encoder's ``vocab_size_``).
        valid : DocumentDataset or None, default=None
            A validation split for the net to score each epoch on.
        checkpoint_dir : str or None, default=None
            Where the best validation epoch is kept (with ``valid``).
        class_weight : sequence of float or None, default=None
            Loss weight of each encoded class.
        max_epochs : int or None, default=None
            The epochs to train for; None: ``max_epochs`` when it is a
            number, else the model's base epochs (``fit`` passes what
            ``"auto"`` chose for its training split).
        task : {"classification", "multilabel", "regression"} or None, default=None
            The network's task; None: the estimator's (a classifier's
            ``fit`` passes ``"multilabel"`` for an indicator matrix ``y``).

        Returns
        -------
        AttentionNet, AttentionMultiLabelNet or AttentionRegressionNet

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> net = SelfAttentiveClassifier(lr=0.01).build_network(n_outputs=2, vocab_size=10)
        >>> net.lr, net.initialize().module_.embedding.num_embeddings
        (0.01, 10)
        """
        params = self.get_params(deep=False)
        if max_epochs is None:
            max_epochs = self._base_epochs if self.max_epochs == "auto" else self.max_epochs
        return build_net(
            NetConfig.from_params({**params, "max_epochs": max_epochs}),
            module=self._module_class,
            module_params={
                **self._module_params(),
                "vocab_size": vocab_size,
                "n_classes": n_outputs,
                "padding_idx": PAD_ID,
            },
            n_classes=n_outputs,
            task=self._task if task is None else task,
            valid=valid,
            checkpoint_dir=checkpoint_dir,
            class_weight=class_weight,
            **self._loss_params(),
        )

    def _adopt(self, targets: dict[str, Any], encoder: TextEncoder, net, **attributes):
        """Set every fitted attribute (the one place: ``fit`` and ``set_fitted_state``)."""
        self._adopt_targets(targets)
        self.encoder_ = encoder
        self.net_ = net
        self.n_truncated_ = attributes["n_truncated"]
        self.n_blank_ = attributes.get("n_blank", 0)
        self.embedding_coverage_ = attributes["embedding_coverage"]
        self.choices_ = attributes.get("choices", {})
        self.history_ = net.history
        return self

    def get_fitted_state(self) -> FittedState:
        """What ``fit`` learned, as plain data plus the network's tensors.

        Returns
        -------
        FittedState

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> state = clf.fit(["good", "bad"] * 4, [1, 0] * 4).get_fitted_state()
        >>> state.tokens, state.classes.tolist()
        (['<pad>', '<unk>', '<empty>', 'bad', 'good'], [0, 1])
        """
        check_is_fitted(self, "net_")
        return FittedState(
            classes=getattr(self, "classes_", None),
            tokens=list(self.encoder_.id_to_token_),
            token_counts=self.encoder_.token_counts_.tolist(),
            attributes={
                **self._target_attributes(),
                "n_truncated": self.n_truncated_,
                "n_blank": self.n_blank_,
                "embedding_coverage": self.embedding_coverage_,
                "choices": self.choices_,
                "history": self.history_.to_list(),
            },
            weights={k: v.detach().cpu() for k, v in self.net_.module_.state_dict().items()},
        )

    def set_fitted_state(self, state: FittedState):
        """Become the fitted estimator that ``state`` describes (on ``device``).

        Parameters
        ----------
        state : FittedState
            From :meth:`get_fitted_state` of an estimator with the same
            parameters.

        Returns
        -------
        self

        Raises
        ------
        WeightsMismatchError
            The weights do not fit the network these parameters build.
        """
        validate_params(self)
        encoder = self.build_encoder().set_vocabulary(state.tokens, state.token_counts)
        targets = self._targets_from_state(state)
        net = self.build_network(
            self._n_outputs(targets), encoder.vocab_size_, task=self._net_task(targets)
        ).initialize()
        try:
            net.module_.load_state_dict(state.weights)
        except (RuntimeError, KeyError) as error:
            raise WeightsMismatchError(f"the weights do not fit the network ({error})") from error
        net.history = History(state.attributes.get("history", []))
        # Files written while fit could search learning rates also hold "lr".
        skip = {"history", "lr", *self._target_attributes_names}
        attributes = {k: v for k, v in state.attributes.items() if k not in skip}
        return self._adopt(targets, encoder, net, **attributes)

    def _split(self, dataset: DocumentDataset, seed: int, targets: dict[str, Any]):
        fraction = self.validation_fraction
        # skorch's EarlyStopping among the user's callbacks needs a validation
        # split too: it gets the same default share as early_stopping=True,
        # and so do decision thresholds tuned on held-out documents.
        wants_validation = (
            self.early_stopping
            or self._needs_validation(targets)
            or any(issubclass(t, EarlyStopping) for t in user_callback_types(self.callbacks))
        )
        if fraction is None and wants_validation:
            fraction = 0.1
        if fraction is None:
            return dataset, None
        train_idx, valid_idx = train_test_split(
            np.arange(len(dataset)),
            test_size=fraction,
            stratify=dataset.labels if self._net_task(targets) == "classification" else None,
            random_state=seed,
        )
        valid = dataset.subset(valid_idx)
        # Scored every epoch: length-sorted, its batches pad least.
        return dataset.subset(train_idx), valid.subset(valid.length_order())

    # -- inference -----------------------------------------------------------
    def to_dataset(self, X: Sequence[str], y=None) -> DocumentDataset:
        """Documents (and labels) as the fitted network's dataset.

        Parameters
        ----------
        X : sequence of str
        y : array-like, optional
            Labels among ``classes_`` (classifiers) or targets (regressors).

        Returns
        -------
        DocumentDataset

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> clf.to_dataset(["good film"], [1]).labels.tolist()
        [1]
        """
        check_is_fitted(self, "net_")
        corpus = self._encode_input(self.encoder_, self._check_input(X))
        y_encoded = None if y is None else self._encode_fitted_targets(y, len(corpus))
        return self._dataset(corpus, y_encoded)

    def _encode_fitted_targets(self, y: Any, n_samples: int) -> np.ndarray:
        """``y`` for documents after ``fit``, encoded as the network trains on it."""
        raise NotImplementedError

    def document_outputs(
        self, X: Sequence[str], fields: Sequence[str] = ("logits",)
    ) -> dict[str, Any]:
        """The network's outputs for each document, by field name.

        Parameters
        ----------
        X : sequence of str
        fields : sequence of str, default=("logits",)
            Fields of the network's output (:mod:`skattn.modules.outputs`):
            ``"logits"``, ``"embedding"`` and the attention maps
            (``"attention"``; ``"word_attention"``, ``"sentence_attention"``).

        Returns
        -------
        dict of str to ndarray or list
            Fixed-size fields as one array with a row per document;
            attention maps as a list with one array per document, cut to
            its real size.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> outputs = clf.document_outputs(["good film", "bad"], ("logits", "attention"))
        >>> outputs["logits"].shape, [a.shape for a in outputs["attention"]]
        ((2, 2), [(4, 2), (4, 1)])
        """
        return self._outputs(self._check_input(X), fields)

    def _outputs(self, X: list[str], fields: Sequence[str], corpus=None) -> dict[str, Any]:
        """Module outputs for validated documents ``X`` (or their ``corpus``, already encoded)."""
        check_is_fitted(self, "net_")
        if corpus is None:
            corpus = self._encode_input(self.encoder_, X)
        dataset = self._dataset(corpus)
        with torch_threads(self.threads):
            return self.net_.predict_outputs(dataset, fields)

    # -- streams: chunk by chunk, flat memory (see skattn.streaming) --------
    def predict_iter(
        self, X: Iterable[str], chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> Iterator[np.ndarray]:
        """``predict`` over an iterable of documents, yielded chunk by chunk.

        Parameters
        ----------
        X : iterable of str
            A list, a generator, a pandas Series, or
            :func:`skattn.streaming.iter_documents` of a file; read lazily.
        chunk_size : int, default=4096
            Documents per chunk; memory grows with it, not with ``X``.

        Yields
        ------
        ndarray
            The predictions of one chunk, in order.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> [chunk.shape for chunk in clf.predict_iter(iter(["good"] * 5), chunk_size=2)]
        [(2,), (2,), (1,)]
        """
        return iter_predictions(self, X, "predict", chunk_size)

    def transform_iter(
        self, X: Iterable[str], chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> Iterator[np.ndarray]:
        """``transform`` over an iterable of documents, yielded chunk by chunk.

        Parameters
        ----------
        X : iterable of str
        chunk_size : int, default=4096

        Yields
        ------
        ndarray
            The document vectors of one chunk, in order.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> [chunk.shape for chunk in clf.transform_iter(["good"] * 3, chunk_size=2)]
        [(2, 16), (1, 16)]
        """
        return iter_predictions(self, X, "transform", chunk_size)

    # -- what explanations explain (see skattn.attribution) ------------------
    def _output_scores(self, logits: np.ndarray) -> np.ndarray:
        """Per document, the values explanations are about: probabilities or predictions."""
        raise NotImplementedError

    def _explained_columns(self, scores: np.ndarray) -> np.ndarray:
        """Per document, the column of ``_output_scores`` an explanation is for."""
        raise NotImplementedError

    def _explained_objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        """Per document, the differentiable quantity gradient explanations attribute."""
        raise NotImplementedError

    def _shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        """The ``prediction`` (and ``proba``) an explanation record shows for one document."""
        raise NotImplementedError

    def explain(
        self,
        X: Sequence[str],
        y=None,
        *,
        label: Any = None,
        target_names: Sequence[str] | None = None,
        method: str | None = None,
        n_steps: int = DEFAULT_STEPS,
        faithfulness: bool = False,
        as_frame: bool = False,
    ):
        """Which tokens each document's prediction rests on, with the prediction.

        Parameters
        ----------
        X : sequence of str
        y : array-like, optional
            True labels, shown next to the predictions (multi-label: an
            indicator matrix; the true labels are listed).
        label : optional
            Explain this class's probability (a value of ``classes_``; a
            multi-label classifier: a label index; a multi-output
            regressor: an output index) in every document. Default: each
            document's predicted class (multi-label: its most probable
            predicted label, or most probable label if none is predicted;
            regressor: output 0).
        target_names : sequence of str, optional
            Multi-label: each label's name (e.g. the ``classes_`` of the
            :class:`~sklearn.preprocessing.MultiLabelBinarizer` that made
            ``y``), shown instead of its index.
        method : str, optional
            The attribution method (:mod:`skattn.attribution`):
            ``"attention"`` (the papers' pictures), ``"gradient"``,
            ``"integrated_gradients"``, ``"occlusion"`` and, for hierarchical
            models, ``"sentence_occlusion"``. Default:
            :data:`skattn.attribution.DEFAULT_METHOD`, chosen by measured
            faithfulness (see the user guide's *Explanations* page).
        n_steps : int, default=4
            Steps of ``"integrated_gradients"``.
        faithfulness : bool, default=False
            Also measure how faithful these explanations are on ``X``
            (:func:`skattn.faithfulness.faithfulness_report` of their scores
            and of a random ranking: 20 more forward passes per document,
            batched). The result is kept as the ``faithfulness`` attribute
            of the returned explanations and shown on their page and
            figures (``as_frame=True`` returns only the frame).
        as_frame : bool, default=False
            Return a pandas DataFrame with one row per token instead.

        Returns
        -------
        Explanations or pandas.DataFrame
            A list with one dict per document (keys in
            :mod:`skattn.explain`: the tokens, their scores, ``method``,
            ``prediction``, ``proba`` and, given ``y``, ``true_label``), that
            also renders as HTML (``to_html``, ``save_html``, inline in
            Jupyter) and matplotlib figures (``plot``).
        """
        X = check_text_input(X)
        check_is_fitted(self, "net_")
        method = check_method(DEFAULT_METHOD if method is None else method, self._hierarchical)
        if faithfulness and self._task != "classification":
            raise ValueError(
                "faithfulness=True measures how a class probability falls as tokens are "
                "erased; it is for classifiers."
            )
        if y is not None:
            y = self._shown_truth(y, len(X))
        column = None if label is None else self._label_column(label)
        name_of = self._label_names(target_names)
        with fixed_column(column):
            records = explanation_records(self, X, method, n_steps=n_steps)
            for i, record in enumerate(records):
                if y is not None:
                    record["true_label"] = name_of(y[i])
                explained = column
                if explained is None and "label_proba" in record:  # multi-label: say which one
                    explained = int(self._explained_columns(record["proba"][None, :])[0])
                if explained is not None:
                    record["explained_label"] = name_of(self._column_label(explained))
                    if "proba" in record:
                        record["explained_proba"] = float(record["proba"][explained])
                if "label_proba" in record:
                    record["prediction"] = name_of(record["prediction"])
            report = None
            if faithfulness:

                def these_scores(_):
                    return [token_scores_of(record) for record in records]

                these_scores.__name__ = method
                report = faithfulness_report(self, X, [these_scores], reference=False)
        explanations = Explanations(records, faithfulness=report)
        return explanations.to_frame() if as_frame else explanations

    def _column_label(self, column: int) -> Any:
        """The label of output ``column`` (a class; a regressor: the output index)."""
        classes = getattr(self, "classes_", None)
        return column if classes is None else classes[column].item()

    def _label_names(self, target_names: Sequence[str] | None):
        """A function that shows labels (a label, or a list of them) by their names."""
        if target_names is None:
            return lambda value: value
        if not getattr(self, "_multilabel", False):
            raise ValueError(
                "target_names names the labels of a multi-label classifier; this model's "
                "classes_ are already its labels."
            )
        names = [str(name) for name in target_names]
        if len(names) != len(self.classes_):
            raise ValueError(
                f"target_names has {len(names)} names; the model has {len(self.classes_)} labels."
            )
        return lambda value: [names[i] for i in value] if isinstance(value, list) else names[value]

    def _shown_truth(self, y: Any, n_samples: int) -> list:
        """Each document's true value as an explanation shows it."""
        y = as_label_array(y)
        check_same_length(n_samples, y)
        return list(y)

    def __sklearn_tags__(self):
        tags = text_input_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None
        return tags


class AttentionClassifierBase(ClassifierMixin, AttentionEstimatorBase):
    """What both attention classifiers share: labels, class weights, probabilities, thresholds.

    ``y`` is either one label per document (binary or multiclass: softmax
    and cross-entropy) or a multi-label 0/1 indicator matrix (one sigmoid
    per label and binary cross-entropy; ``predict`` returns an indicator
    matrix, thresholded per label at ``thresholds_``).

    Examples
    --------
    >>> from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    >>> issubclass(SelfAttentiveClassifier, AttentionClassifierBase)
    True
    >>> issubclass(HierarchicalAttentionClassifier, AttentionClassifierBase)
    True
    """

    _task = "classification"
    _target_attributes_names = ("multilabel", "thresholds", "target_dtype", "sparse_target")
    #: What an estimator pickled before multi-label support had.
    threshold = "auto"
    _multilabel = False

    def _check_targets(self, y: Any, n_samples: int):
        """Labels (1-D ndarray) or a multi-label indicator matrix (ndarray, or CSR if sparse)."""
        if y is None or not is_indicator_matrix(y):
            return check_labels(y, n_samples)
        dense = check_indicator_matrix(y, n_samples)
        return sp.csr_matrix(dense) if sp.issparse(y) else dense

    def _encode_targets(self, y, warm: bool) -> tuple[dict[str, Any], np.ndarray]:
        if y.ndim == 1:
            classes, y_encoded = self._encode_labels(y, warm)
            targets = {"classes": classes, "multilabel": False}
        else:
            targets, y_encoded = self._encode_indicator(y, warm)
        n_classes = len(targets["classes"])
        # Checked here, before any training.
        targets["threshold_rule"] = resolve_threshold(
            self.threshold, multilabel=targets["multilabel"], n_classes=n_classes
        )
        return targets, y_encoded

    def _encode_indicator(self, y, warm: bool) -> tuple[dict[str, Any], np.ndarray]:
        """A multi-label ``y``'s targets (labels 0..n_labels−1) and its float32 matrix."""
        dense = y.toarray() if sp.issparse(y) else y
        n_labels = dense.shape[1]
        if warm and (not self._multilabel or n_labels != len(self.classes_)):
            fitted = f"{len(self.classes_)} labels" if self._multilabel else "1-D labels"
            raise ValueError(
                f"warm_start: y is an indicator matrix of {n_labels} labels; the model was "
                f"fitted with {fitted}."
            )
        counts = dense.sum(axis=0)
        constant = np.flatnonzero((counts == 0) | (counts == len(dense)))
        if len(constant) == n_labels:
            raise ValueError(
                f"y is a multi-label indicator matrix whose {n_labels} labels are each the "
                "same in every document; there is nothing to learn (a 2-D y of 0/1 is read "
                "as one column per label)."
            )
        if len(constant):
            warnings.warn(
                f"labels {constant[:10].tolist()} are 0 in every document or 1 in every "
                "document of y; the model learns to always give them that value (their "
                "thresholds stay 0.5).",
                UserWarning,
                stacklevel=4,
            )
        targets = {
            "classes": np.arange(n_labels),
            "multilabel": True,
            "target_dtype": dense.dtype.str,
            "sparse_target": bool(sp.issparse(y)),
        }
        return targets, dense.astype(np.float32)

    def _n_outputs(self, targets: dict[str, Any]) -> int:
        return len(targets["classes"])

    def _net_task(self, targets: dict[str, Any]) -> str:
        return "multilabel" if targets.get("multilabel") else "classification"

    def _needs_validation(self, targets: dict[str, Any]) -> bool:
        return targets["threshold_rule"] == "f1"

    def _after_training(self, targets: dict[str, Any], net, valid) -> dict[str, Any]:
        """Set ``thresholds``: tuned for F1 on the validation split, fixed, or None (argmax)."""
        rule = targets["threshold_rule"]
        n_columns = len(targets["classes"]) if targets["multilabel"] else 1
        if rule == "argmax":
            return {**targets, "thresholds": None}
        if rule != "f1":
            return {**targets, "thresholds": np.full(n_columns, float(rule))}
        proba = self._scores_for(net.predict_outputs(valid)["logits"], targets["multilabel"])
        truth = np.asarray(valid.labels)
        if not targets["multilabel"]:  # binary: the positive class is classes_[1]
            proba, truth = proba[:, 1:], (truth == 1)[:, None]
        return {**targets, "thresholds": f1_thresholds(truth, proba)}

    def _adopt_targets(self, targets: dict[str, Any]) -> None:
        self.classes_ = np.asarray(targets["classes"])
        self._multilabel = bool(targets.get("multilabel", False))
        self._target_dtype = targets.get("target_dtype")
        self._sparse_target = bool(targets.get("sparse_target", False))
        thresholds = targets.get("thresholds")
        self.thresholds_ = None if thresholds is None else np.asarray(thresholds, dtype=np.float64)

    def _target_attributes(self) -> dict[str, Any]:
        return {
            "multilabel": self._multilabel,
            "thresholds": None if self._thresholds is None else self._thresholds.tolist(),
            "target_dtype": getattr(self, "_target_dtype", None),
            "sparse_target": getattr(self, "_sparse_target", False),
        }

    def _targets_from_state(self, state: FittedState) -> dict[str, Any]:
        # Files written before multi-label support hold none of these.
        extra = {name: state.attributes.get(name) for name in self._target_attributes_names}
        return {"classes": np.asarray(state.classes), **extra}

    @staticmethod
    def _scores_for(logits: np.ndarray, multilabel: bool) -> np.ndarray:
        logits = logits.astype(np.float64)
        return expit(logits) if multilabel else softmax(logits, axis=1)

    def _output_scores(self, logits: np.ndarray) -> np.ndarray:
        return self._scores_for(logits, self._multilabel)

    def _explained_columns(self, scores: np.ndarray) -> np.ndarray:
        if not self._multilabel:  # the predicted class
            return np.argmax(scores, axis=1)
        # Multi-label: the most probable of the predicted labels (of all
        # labels when none is predicted), so a page never explains a label
        # it does not show as predicted while another one is.
        predicted = self._decide(scores).astype(bool)
        chosen = np.where(predicted.any(axis=1, keepdims=True), predicted, True)
        return np.argmax(np.where(chosen, scores, -np.inf), axis=1)

    def _explained_objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        rows = torch.arange(len(columns), device=logits.device)
        if self._multilabel:
            return torch.nn.functional.logsigmoid(logits.float()[rows, columns])
        return torch.log_softmax(logits.float(), dim=1)[rows, columns]

    def _shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        decided = self._decide(scores[None, :])[0]
        if self._multilabel:
            chosen = decided.astype(bool)
            return {
                "prediction": self.classes_[chosen].tolist(),
                "label_proba": scores[chosen].tolist(),
                "proba": scores,
            }
        return {"prediction": decided, "proba": scores}

    def _label_column(self, label: Any) -> int:
        check_known_labels(np.asarray([label]), self.classes_, context="label")
        return int(np.searchsorted(self.classes_, label))

    def _shown_truth(self, y: Any, n_samples: int) -> list:
        if not self._multilabel:
            return super()._shown_truth(y, n_samples)
        indicator = self._checked_indicator(y, n_samples).astype(bool)
        return [self.classes_[row].tolist() for row in indicator]

    def _encode_fitted_targets(self, y: Any, n_samples: int) -> np.ndarray:
        if self._multilabel:
            return self._checked_indicator(y, n_samples).astype(np.float32)
        y = as_label_array(y)
        check_same_length(n_samples, y)
        check_known_labels(y, self.classes_)
        return np.searchsorted(self.classes_, y)

    def _checked_indicator(self, y: Any, n_samples: int) -> np.ndarray:
        """A multi-label ``y`` after ``fit``: an indicator matrix of the fitted labels."""
        if not is_indicator_matrix(y):
            raise ValueError(
                f"y has shape {np.shape(y)}; the model was fitted on a multi-label indicator "
                f"matrix of {len(self.classes_)} labels."
            )
        dense = check_indicator_matrix(y, n_samples)
        if dense.shape[1] != len(self.classes_):
            raise ValueError(
                f"y has {dense.shape[1]} labels; the model was fitted with {len(self.classes_)}."
            )
        return dense

    def _class_weights(self, targets: dict[str, Any], y_encoded: np.ndarray) -> list[float] | None:
        """The loss weight of each class from ``class_weight``, in the order of ``classes``.

        Multi-label: the weight of each label's positive examples (its
        negatives weigh 1); ``"balanced"`` gives n_negative / n_positive.
        """
        classes = targets["classes"]
        if self.class_weight is None:
            return None
        if self.class_weight == "balanced":
            if targets["multilabel"]:
                positives = y_encoded.sum(axis=0).astype(np.float64)
                negatives = len(y_encoded) - positives
                ratio = np.divide(
                    negatives, positives, out=np.ones_like(positives), where=positives > 0
                )
                return np.where(negatives > 0, ratio, 1.0).tolist()
            present = np.unique(y_encoded)
            weights = np.ones(len(classes))
            weights[present] = compute_class_weight("balanced", classes=present, y=y_encoded)
            return weights.tolist()
        unknown = [label for label in self.class_weight if label not in set(classes.tolist())]
        if unknown:
            what = "label indices" if targets["multilabel"] else "labels"
            raise ValueError(
                f"class_weight names {what} that are not in y: {unknown[:5]}; "
                f"the classes are {classes.tolist()}."
            )
        return [float(self.class_weight.get(label, 1.0)) for label in classes.tolist()]

    def _encode_labels(self, y: np.ndarray, warm: bool) -> tuple[np.ndarray, np.ndarray]:
        """Classes and labels as indices into them (a warm start keeps its classes)."""
        if not warm:
            return np.unique(y, return_inverse=True)
        if self._multilabel:
            raise ValueError(
                f"warm_start: y is 1-D; the model was fitted on a multi-label indicator matrix "
                f"of {len(self.classes_)} labels."
            )
        check_known_labels(y, self.classes_, context="warm_start: y")
        return self.classes_, np.searchsorted(self.classes_, y)

    @property
    def _thresholds(self) -> np.ndarray | None:
        # Estimators pickled before thresholds existed have none.
        return getattr(self, "thresholds_", None)

    def _decide(self, proba: np.ndarray) -> np.ndarray:
        """Predictions from probabilities: indicator rows (multi-label) or labels."""
        thresholds = self._thresholds
        if self._multilabel:
            cut = 0.5 if thresholds is None else thresholds
            return (proba >= cut).astype(self._target_dtype or np.int64)
        if thresholds is None:
            return self.classes_[np.argmax(proba, axis=1)]
        return self.classes_[(proba[:, 1] >= thresholds[0]).astype(np.int64)]

    def predict_proba_iter(
        self, X: Iterable[str], chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> Iterator[np.ndarray]:
        """``predict_proba`` over an iterable of documents, yielded chunk by chunk.

        Parameters
        ----------
        X : iterable of str
        chunk_size : int, default=4096

        Yields
        ------
        ndarray of shape (chunk, n_classes)

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> [chunk.shape for chunk in clf.predict_proba_iter(["good"] * 3, chunk_size=2)]
        [(2, 2), (1, 2)]
        """
        return iter_predictions(self, X, "predict_proba", chunk_size)

    def decision_function(self, X: Sequence[str]) -> np.ndarray:
        """Raw scores: logits (n, n_classes), log-odds of ``classes_[1]`` (n,) if binary.

        Multi-label: each label's log-odds, (n, n_labels).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray
        """
        logits = self.document_outputs(X)["logits"].astype(np.float64)
        if self._multilabel:
            return logits
        return logits[:, 1] - logits[:, 0] if logits.shape[1] == 2 else logits

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities (n, n_classes), columns in the order of ``classes_``.

        Multi-label: each label's probability (n, n_labels), independent
        of the others (a row need not sum to 1).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents, n_classes)
        """
        return self._output_scores(self.document_outputs(X)["logits"])

    def predict(self, X: Sequence[str]):
        """Predicted labels: values of ``classes_``, or an indicator matrix (multi-label).

        Binary and multi-label predictions use ``thresholds_`` when it is
        set (see ``threshold``); otherwise the most probable class.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents,), or (n_documents, n_labels)
            Multi-label: 0/1 of the dtype of the fitted ``y``, a CSR
            matrix if that ``y`` was sparse.
        """
        decided = self._decide(self.predict_proba(X))
        return sp.csr_matrix(decided) if self._multilabel and self._sparse_target else decided

    def score(self, X: Sequence[str], y: Sequence[Any], sample_weight=None) -> float:
        """Accuracy on ``(X, y)`` (multi-label: subset accuracy); unseen labels are an error.

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n_documents,) or (n_documents, n_labels)
        sample_weight : array-like, optional

        Returns
        -------
        float
        """
        check_is_fitted(self, "net_")
        n_samples = len(self._check_input(X))
        if self._multilabel:
            y = self._checked_indicator(y, n_samples)
        else:
            y = as_label_array(y)
            check_same_length(n_samples, y)
            check_known_labels(y, self.classes_)
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


class AttentionRegressorBase(RegressorMixin, AttentionEstimatorBase):
    """What both attention regressors share: numeric targets, standardised for training.

    The network learns each output standardised (minus its mean over the fit
    data, divided by its standard deviation; a constant output is only
    centred) with a mean squared error loss; ``predict`` undoes it. The
    scale of ``y`` therefore does not change the learning rate that works.

    Examples
    --------
    >>> from skattn import HierarchicalAttentionRegressor, SelfAttentiveRegressor
    >>> issubclass(SelfAttentiveRegressor, AttentionRegressorBase)
    True
    >>> issubclass(HierarchicalAttentionRegressor, AttentionRegressorBase)
    True
    """

    _task = "regression"
    _target_attributes_names = ("target_mean", "target_scale", "target_ndim")

    def _check_targets(self, y: Any, n_samples: int) -> np.ndarray:
        return check_targets(y, n_samples)

    def _encode_targets(self, y: np.ndarray, warm: bool) -> tuple[dict[str, Any], np.ndarray]:
        columns = y.reshape(len(y), -1)
        if warm:
            if columns.shape[1] != self.n_outputs_:
                raise ValueError(
                    f"warm_start: y has {columns.shape[1]} outputs; the model was fitted with "
                    f"{self.n_outputs_}."
                )
            targets = {**self._fitted_targets(), "target_ndim": y.ndim}
        else:
            scale = columns.std(axis=0)
            targets = {
                "target_mean": columns.mean(axis=0),
                "target_scale": np.where(scale > 0, scale, 1.0),
                "target_ndim": y.ndim,
            }
        return targets, self._standardise(columns, targets)

    @staticmethod
    def _standardise(columns: np.ndarray, targets: dict[str, Any]) -> np.ndarray:
        return ((columns - targets["target_mean"]) / targets["target_scale"]).astype(np.float32)

    def _n_outputs(self, targets: dict[str, Any]) -> int:
        return len(targets["target_mean"])

    def _adopt_targets(self, targets: dict[str, Any]) -> None:
        self.target_mean_ = np.asarray(targets["target_mean"], dtype=np.float64)
        self.target_scale_ = np.asarray(targets["target_scale"], dtype=np.float64)
        self.n_outputs_ = len(self.target_mean_)
        self._target_ndim = int(targets["target_ndim"])

    def _target_attributes(self) -> dict[str, Any]:
        return {
            "target_mean": self.target_mean_.tolist(),
            "target_scale": self.target_scale_.tolist(),
            "target_ndim": self._target_ndim,
        }

    def _targets_from_state(self, state: FittedState) -> dict[str, Any]:
        return {name: state.attributes[name] for name in self._target_attributes_names}

    def _encode_fitted_targets(self, y: Any, n_samples: int) -> np.ndarray:
        columns = check_targets(y, n_samples).reshape(n_samples, -1)
        if columns.shape[1] != self.n_outputs_:
            raise ValueError(f"y has {columns.shape[1]} outputs; the model has {self.n_outputs_}.")
        return self._standardise(columns, self._fitted_targets())

    def _fitted_targets(self) -> dict[str, Any]:
        return {"target_mean": self.target_mean_, "target_scale": self.target_scale_}

    def _output_scores(self, logits: np.ndarray) -> np.ndarray:
        return logits.astype(np.float64) * self.target_scale_ + self.target_mean_

    def _explained_columns(self, scores: np.ndarray) -> np.ndarray:
        # One explanation per document: of the first output.
        return np.zeros(len(scores), dtype=np.int64)

    def _explained_objective(self, logits: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
        scale = torch.as_tensor(self.target_scale_, dtype=torch.float32, device=logits.device)
        values = logits.float() * scale
        return values[torch.arange(len(columns), device=values.device), columns]

    def _shown_prediction(self, scores: np.ndarray) -> dict[str, Any]:
        return {"prediction": float(scores[0]) if self._target_ndim == 1 else scores}

    def _label_column(self, label: Any) -> int:
        if not isinstance(label, Integral) or not 0 <= label < self.n_outputs_:
            raise ValueError(
                f"label={label!r}: a regressor's label is an output index, 0 to "
                f"{self.n_outputs_ - 1}."
            )
        return int(label)

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """Predicted targets, in the units of ``y``.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float64, shape (n_documents,) or (n_documents, n_outputs)
            The shape of the ``y`` the model was fitted on.
        """
        predictions = self._output_scores(self.document_outputs(X)["logits"])
        return predictions[:, 0] if self._target_ndim == 1 else predictions

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def score(self, X: Sequence[str], y, sample_weight=None) -> float:
        """R² of the predictions on ``(X, y)`` (averaged uniformly over several outputs).

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n_documents,) or (n_documents, n_outputs)
        sample_weight : array-like, optional

        Returns
        -------
        float
        """
        check_is_fitted(self, "net_")
        y = check_targets(y, len(self._check_input(X)))
        return super().score(X, y, sample_weight=sample_weight)


def _n_targets(y: Any) -> int:
    """How many samples ``y`` describes (for a streamed ``X``, which is counted later)."""
    if y is None:
        return 0  # the target checks refuse None with their own message
    try:
        n = int(y.shape[0]) if getattr(y, "ndim", 1) > 0 and hasattr(y, "shape") else len(y)
    except TypeError:
        raise TypeError(
            f"y is a {type(y).__name__} without a length; when X is a stream, y must be "
            "array-like (a list, an array, a Series), e.g. DocumentFile(path).column('label')."
        ) from None
    if n == 0:
        raise ValueError("y is empty; at least one document (and its target) is needed.")
    return n
