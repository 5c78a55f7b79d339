"""What every attention estimator shares: the fit recipe, fitted state, inference, explanations.

A public estimator is a plain scikit-learn estimator built from three parts:

- its **network** (:mod:`skattn.estimators._architectures`): the module
  class, its parameters and the text parameters its encoder takes;
- its **task** (:mod:`skattn.estimators._tasks`): what it learns from ``y``
  and answers with, made by :meth:`AttentionEstimatorBase._new_task` at
  ``fit`` and kept as the fitted ``task_``;
- its **input** (:mod:`skattn.estimators._inputs`): one text or a pair of
  texts per sample.

It *holds* a fitted :class:`~skattn.text.TextEncoder` (``encoder_``) and a
skorch net (``net_``, from :func:`skattn.training.build_net`). The public
seams other layers use (the embedder, the benchmarks, user code that drives
the network itself) are :meth:`~AttentionEstimatorBase.build_encoder`,
:meth:`~AttentionEstimatorBase.build_network`,
:meth:`~AttentionEstimatorBase.to_dataset` and
:meth:`~AttentionEstimatorBase.document_outputs`. ``fit`` and
``set_fitted_state`` both end in ``_adopt``, the one place fitted
attributes are set.
"""

from __future__ import annotations

import abc
import contextlib
import tempfile
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted
from skorch.callbacks import EarlyStopping
from skorch.history import History

from skattn.decisions import DecisionRule
from skattn.embeddings._vectors import (
    check_embeddings_source,
    choice_inputs,
    corpus_sentences,
    initial_vectors,
)
from skattn.estimators._constraints import NOTABLE_SHARE
from skattn.estimators._fit_cache import documents_key, fit_data_cache, parameters_key
from skattn.estimators._inputs import Input, TextInput
from skattn.estimators._state import FittedState, WeightsMismatchError
from skattn.estimators._tasks import (
    MultiLabelTask,
    RegressionTask,
    SingleLabelTask,
    Task,
    classification_task,
)
from skattn.explain._attribution import (
    DEFAULT_METHOD,
    DEFAULT_STEPS,
    check_method,
    explanation_records,
)
from skattn.explain._explanations import Explanations, token_scores_of
from skattn.explain._faithfulness import faithfulness_report
from skattn.text._batching import DocumentDataset
from skattn.text._encoder import PAD_ID, EncodedCorpus, TextEncoder
from skattn.text._ordering import DigestRecorder, canonical_order
from skattn.text._streaming import (
    DEFAULT_CHUNK_SIZE,
    is_document_stream,
    iter_predictions,
    stream_documents,
)
from skattn.training._build import build_net
from skattn.training._epochs import EpochChoice, auto_epochs
from skattn.training._net import (
    AttentionNet,
    NetConfig,
    check_net_params,
    release_fit_data,
    user_callback_types,
)
from skattn.utils._memory import release_free_memory, release_mapped_pages
from skattn.utils._params import validate_params
from skattn.utils._runtime import (
    blas_thread_counts,
    blas_threads,
    resolve_device,
    seeded,
    torch_threads,
)
from skattn.utils._validation import (
    as_label_array,
    check_same_length,
    check_sample_weight,
    check_targets,
    seed_from,
    text_input_tags,
)

__all__ = [
    "AttentionClassifierBase",
    "AttentionEstimatorBase",
    "AttentionRegressorBase",
    "FittedState",
    "WeightsMismatchError",
]


class _Vectors(NamedTuple):
    """A fit's initial word vectors (None: the network's own), their coverage, the choice."""

    matrix: np.ndarray | None
    coverage: float | None
    choice: dict


class AttentionEstimatorBase(TransformerMixin, BaseEstimator, metaclass=abc.ABCMeta):
    """What every attention estimator shares: the fit recipe, fitted state, inference.

    Not instantiated itself. :class:`AttentionClassifierBase` and
    :class:`AttentionRegressorBase` choose the task; the public estimators
    add their network (:mod:`skattn.estimators._architectures`) and input.

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
    #: What a sample is: one text here (the pair models read pairs).
    _input: Input = TextInput()
    #: What an estimator pickled before skattn 0.3 had: no subwords, no
    #: element-wise clipping.
    subword_buckets = None
    clip_grad_value = None

    # -- the parts -------------------------------------------------------------
    @abc.abstractmethod
    def _module_params(self) -> dict[str, Any]:
        """Constructor arguments of the network, besides vocabulary and class counts."""

    @abc.abstractmethod
    def _feature_names(self) -> list[str]:
        """Names of ``transform``'s columns, one per column."""

    @abc.abstractmethod
    def _new_task(self, y: Any, n_samples: int) -> tuple[Task, Any]:
        """The unfitted task ``y`` asks for, and ``y`` checked for it (before any training)."""

    @abc.abstractmethod
    def _task_from_state(self, state: FittedState) -> Task:
        """The fitted task a :class:`FittedState` describes."""

    def _loss_params(self, task: str) -> dict[str, Any]:
        """Loss terms of :class:`~skattn.training.AttentionNet` (e.g. ``penalty``)."""
        return {}

    def _task_module_params(self, n_outputs: int, task: str) -> dict[str, Any]:
        """Network settings that follow the task (label attention); none by default."""
        return {}

    def _architecture_choices(self, task: str) -> dict[str, Any]:
        """The network decisions ``fit`` made from the task, for ``choices_``."""
        return {}

    def _check_model_params(self) -> None:
        """The model's checks across parameters (one at a time: ``validate_params``)."""

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

    def _check_input(self, X: Any) -> list:
        """``X`` validated by the input part (a DataFrame read by the names seen at fit)."""
        return self._input.check(X, getattr(self, "feature_names_in_", None))

    # -- fitting: a recipe of named steps ----------------------------------------
    def fit(self, X: Sequence[str] | Iterable[str], y: Sequence[Any], sample_weight=None):
        """Fit the vocabulary and train the network.

        Parameters
        ----------
        X : list, tuple, 1-D array or pandas Series of str, or a stream
            Training documents (pair models: pairs of texts). A stream is
            read once, a chunk at a time, and never held whole: a
            :class:`~skattn.text.DocumentFile`, a pyarrow array, or any
            iterator. The fitted model is the same as for the list of its
            documents.
        y : array-like of shape (n_documents,) or (n_documents, n_outputs)
            Classifiers: labels, of any hashable type, or a multi-label
            0/1 indicator matrix. Regressors: numbers, one per document
            or one row of outputs per document.
        sample_weight : array-like of shape (n_documents,), optional
            Weights of each document in the loss.

        Returns
        -------
        self
        """
        self._check_fit_params()
        X, streamed, feature_names = self._read_fit_input(X)
        task, y, weights = self._fit_targets(X, y, sample_weight, streamed)
        seed = self._fit_seed()
        with contextlib.ExitStack() as stack:
            memmap_dir = self._enter_fit_context(stack, seed)
            encoder, corpus, digests, cache_key = self._fit_encoding(X, streamed, memmap_dir)
            release_free_memory()  # what reading and encoding freed, before training grows
            check_same_length(len(corpus), y)  # a stream is counted as it is read
            # A canonical order makes the model independent of the order the
            # samples came in, and a file equal to a list (batches, split and
            # vectors all follow it); errors still name the caller's positions.
            order = canonical_order(digests, y, weights)
            del digests  # one per document: not kept through training
            train, valid = self._split(corpus, y, weights, order, seed, task)
            net, epochs = self._fit_network(stack, task, encoder, train, valid, y)
            vectors = self._fit_vectors(encoder, X, corpus, order, seed, cache_key)
            del order  # one per document, like the digests
            # Freed by the vectors, and mapped pages word2vec read (co-occurrences drop their own).
            release_free_memory()
            release_mapped_pages(train.mapped_arrays())
            self._train(net, vectors.matrix, train, seed)
            self._tune(task, net, valid)
            release_fit_data(net)
        return self._adopt(
            task,
            encoder,
            net,
            n_truncated=int(corpus.n_truncated),
            n_blank=int(corpus.n_blank),
            embedding_coverage=vectors.coverage,
            choices={
                **vectors.choice,
                "max_epochs": epochs,
                **self._architecture_choices(task.net_task),
            },
            feature_names_in=feature_names,
        )

    def _warm(self) -> bool:
        return self.warm_start and hasattr(self, "net_")

    def _check_fit_params(self) -> None:
        """Every parameter, one at a time and across, before any data is read."""
        validate_params(self)
        self._check_model_params()
        check_embeddings_source(self.embeddings, self.embedding_dim)
        check_net_params(self.net_params)
        if self.accelerator is not None:
            from skattn.training._accelerated import check_accelerator

            check_accelerator(self.accelerator, self._recurrent_layers)

    def _read_fit_input(self, X: Any) -> tuple[Any, bool, list[str] | None]:
        """``X`` validated (a stream: as it is read), whether it streams, its column names."""
        if self._input.reads_streams and is_document_stream(X):
            return X, True, None
        X, feature_names = self._input.check_fit(X)
        return X, False, feature_names

    def _fit_targets(self, X, y, sample_weight, streamed: bool):
        """The task, ``y`` as the network learns it, and the sample weights, all checked."""
        # A stream's documents are counted as they are encoded: until then
        # the targets must agree with themselves.
        n_samples = _n_targets(y) if streamed else len(X)
        task, y = self._new_task(y, n_samples)
        weights = None if sample_weight is None else check_sample_weight(sample_weight, n_samples)
        y_encoded = task.encode(y, warm=self.task_ if self._warm() else None)
        return task, y_encoded, weights

    def _fit_seed(self) -> int:
        """This fit's seed: from ``random_state``, the main process's under an accelerator."""
        seed = seed_from(self.random_state)
        if self.accelerator is not None:
            from skattn.training._accelerated import shared_seed

            # Every process of a distributed fit takes the main process's seed
            # (the same split and batch order, even for random_state=None).
            seed = shared_seed(seed, self.accelerator)
        return seed

    def _device(self) -> str:
        # Under an accelerator, the accelerator places the network.
        if self.accelerator is not None:
            return str(self.accelerator.device)
        return resolve_device(self.device)

    def _enter_fit_context(self, stack: contextlib.ExitStack, seed: int):
        """Threads and seed for the length of ``fit``; the folder of memory-mapped ids."""
        stack.enter_context(torch_threads(self.threads))
        stack.enter_context(seeded(seed, self._device()))
        if self.memmap_dir is None:
            return None
        # The fitted model keeps no reference to these ids; where the platform
        # cannot remove a mapped file, it is left behind.
        return stack.enter_context(
            tempfile.TemporaryDirectory(
                prefix="skattn-ids-", dir=self.memmap_dir, ignore_cleanup_errors=True
            )
        )

    def _fit_encoding(self, X, streamed: bool, memmap_dir):
        """The encoder (fitted, or kept by a warm start), the encoded corpus, the digests,
        and the key it is kept by in :data:`fit_data_cache` (None: not kept)."""
        warm = self._warm()
        if streamed or warm or memmap_dir is not None:
            encoder = self.encoder_ if warm else self.build_encoder()
            samples = DigestRecorder(stream_documents(X)) if streamed else X
            if warm:
                corpus = self._input.encode(encoder, samples, memmap_dir)
            else:
                corpus = self._input.fit_encode(encoder, samples, memmap_dir)
            digests = samples.digests() if streamed else self._input.digests(X)
            key = None
        else:
            digests = self._input.digests(X)
            encoder, corpus, key = self._cached_fit_encode(X, digests)
        self._warn_about(corpus)
        return encoder, corpus, digests, key

    def _cached_fit_encode(self, X: list, digests: np.ndarray):
        """Fit the encoder and encode ``X``, or reuse an earlier fit's of the same documents."""
        text_params = {name: getattr(self, name) for name in self._text_params}
        key = "|".join(
            (type(self._input).__name__, documents_key(digests), parameters_key(text_params))
        )
        found = fit_data_cache.get_encoding(key)
        if found is not None:
            return (*found, key)
        encoder = self.build_encoder()
        corpus = self._input.fit_encode(encoder, X, None)
        fit_data_cache.put_encoding(key, encoder, corpus)
        return encoder, corpus, key

    def _fit_network(self, stack, task: Task, encoder, train, valid, y_encoded):
        """The initialised net for this fit, and the epochs it trains for (and why)."""
        checkpoint_dir = None
        if valid is not None:
            checkpoint_dir = self.checkpoint_dir or stack.enter_context(
                tempfile.TemporaryDirectory(prefix="skattn-fit-")
            )
        epochs = self._epochs_for(train, task)
        net = self.build_network(
            task.n_outputs(),
            encoder.vocab_size_,
            valid,
            checkpoint_dir,
            task.class_weights(y_encoded),
            max_epochs=epochs.value,
            task=task.net_task,
        ).initialize()
        return net, {"value": epochs.value, "why": epochs.why}

    def _fit_vectors(self, encoder, X, corpus, order, seed: int, cache_key) -> _Vectors:
        """Initial word vectors, their coverage and the choice made (a warm start keeps its)."""
        if self._warm():
            return _Vectors(None, self.embedding_coverage_, dict(self.choices_))
        key, environment = cache_key, choice_inputs(self.embeddings)
        if key is not None and environment is not None:
            # What the vectors depend on beyond the documents and the encoder
            # (their SVD's rounding, on the BLAS threads they are made with).
            blas = self.threads if self.threads is not None else blas_thread_counts()
            key += "|" + parameters_key(
                {
                    "embeddings": self.embeddings,
                    "dim": self.embedding_dim,
                    "seed": seed,
                    "blas_threads": blas,
                    "environment": environment,
                }
            )
            key += "|" + documents_key(np.asarray(order))
            found = fit_data_cache.get_vectors(key)
            if found is not None:
                return found
        else:
            key = None
        with warnings.catch_warnings(record=True) as said, blas_threads(self.threads):
            vectors = self._new_vectors(encoder, X, corpus, order, seed)
        for warning in said:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
        # A choice that warned is made again next time, so it warns again.
        if key is not None and not said:
            fit_data_cache.put_vectors(key, vectors)
        return vectors

    def _new_vectors(self, encoder, X, corpus, order, seed: int) -> _Vectors:
        vector_corpus = self._input.vector_corpus(encoder, X, corpus)
        initial = initial_vectors(
            self.embeddings,
            encoder,
            vector_corpus,
            self.embedding_dim,
            seed,
            sentences=lambda: corpus_sentences(
                vector_corpus, encoder.id_to_token_, self._input.vector_texts(order)
            ),
        )
        choice = {"embeddings": {"value": initial.source, "why": initial.reason}}
        return _Vectors(initial.matrix, initial.coverage, choice)

    def _train(self, net, vectors: np.ndarray | None, train, seed: int) -> None:
        """Load the initial weights and vectors, then train on ``train``."""
        if self._warm():
            fitted = self.net_.module_.state_dict()
            _check_same_network(fitted, net.module_.state_dict())
            net.module_.load_state_dict(fitted)
        net.load_embeddings(vectors, freeze=self.freeze_embeddings)
        accelerator = self.accelerator
        if accelerator is not None and accelerator.num_processes > 1:
            # Each process's own dropout masks (the split, the initial weights
            # and the batch order are already shared).
            torch.manual_seed(seed + accelerator.process_index)
        net.partial_fit(train, y=None)

    @staticmethod
    def _tune(task: Task, net, valid) -> None:
        """What the task learns from the trained network (thresholds, on held-out documents)."""
        if task.needs_validation():
            task.tune(net.predict_outputs(valid)["logits"], valid.labels)
        else:
            task.tune()

    def _epochs_for(self, train: DocumentDataset, task: Task) -> EpochChoice:
        """The epochs this fit trains for: ``max_epochs``, or the rule of ``auto_epochs``."""
        if self.max_epochs != "auto":
            return EpochChoice(int(self.max_epochs), "set by max_epochs")
        base, source = task.base_epochs(self._base_epochs)
        choice = auto_epochs(base, len(train), int(train.lengths.sum()))
        return EpochChoice(choice.value, f"{choice.why} ({base}: {source})")

    def _warn_about(self, corpus: EncodedCorpus) -> None:
        """One warning each when a notable share of the fit data is blank or truncated."""
        n = getattr(corpus, "n_texts", len(corpus))  # a pair corpus counts its texts
        if n and corpus.n_blank / n >= NOTABLE_SHARE:
            warnings.warn(
                f"{corpus.n_blank} of {n} training documents ({corpus.n_blank / n:.1%}) are "
                "blank or yield no token; each is encoded as the reserved token '<empty>' "
                "(see n_blank_).",
                UserWarning,
                stacklevel=4,
            )
        if n and corpus.n_truncated / n >= NOTABLE_SHARE:
            limits = ", ".join(
                f"{name}={getattr(self, name)} cut {count}"
                for name, count in sorted(corpus.truncated_by.items())
            )
            warnings.warn(
                f"{corpus.n_truncated} of {n} training documents ({corpus.n_truncated / n:.1%}) "
                f"were truncated to their first tokens ({limits}). Raise these parameters (or "
                "set them to None) to keep more text (see n_truncated_).",
                UserWarning,
                stacklevel=4,
            )

    def _split(self, corpus, y, weights, order: np.ndarray, seed: int, task: Task):
        """The training split, and the validation split (or None) early stopping and
        tuned thresholds need, of the samples in ``order`` (each split indexes the
        corpus once: no dataset of all the samples outlives it)."""
        dataset = self._input.dataset(corpus, y, weights, self._hierarchical)
        fraction = self.validation_fraction
        # skorch's EarlyStopping among the user's callbacks needs a validation
        # split too: it gets the same default share as early_stopping=True,
        # and so do decision thresholds tuned on held-out documents.
        wants_validation = (
            self.early_stopping
            or task.needs_validation()
            or any(issubclass(t, EarlyStopping) for t in user_callback_types(self.callbacks))
        )
        if fraction is None and wants_validation:
            fraction = 0.1
        if fraction is None:
            return dataset.subset(order), None
        stratify = dataset.labels[order] if task.net_task == "classification" else None
        try:
            train_idx, valid_idx = train_test_split(
                order, test_size=fraction, stratify=stratify, random_state=seed
            )
        except ValueError as error:
            raise ValueError(_validation_split_message(fraction, stratify, task, error)) from error
        valid = dataset.subset(valid_idx)
        # Scored every epoch: length-sorted, its batches pad least.
        return dataset.subset(train_idx), valid.subset(valid.length_order())

    # -- building ------------------------------------------------------------------
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
        """The skorch net these parameters make, not initialised (see ``build_net``).

        Parameters
        ----------
        n_outputs : int
            Classes, labels or outputs (the size of the head).
        vocab_size : int
            Rows of the embedding (the encoder's ``vocab_size_``).
        valid : DocumentDataset or None, default=None
            A validation split to score each epoch on; ``checkpoint_dir``
            keeps its best epoch.
        checkpoint_dir : str or None, default=None
        class_weight : sequence of float or None, default=None
            Loss weight of each encoded class.
        max_epochs : int or None, default=None
            None: ``max_epochs``, or the model's base epochs for ``"auto"``.
        task : {"classification", "multilabel", "regression"} or None, default=None
            None: a classifier's single-label task, or a regressor's.

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
        if max_epochs is None:
            max_epochs = self._base_epochs if self.max_epochs == "auto" else self.max_epochs
        task = self._default_net_task if task is None else task
        config = NetConfig.from_params({**self.get_params(deep=False), "max_epochs": max_epochs})
        module_params = {**self._module_params(), **self._task_module_params(n_outputs, task)}
        module_params.update(vocab_size=vocab_size, n_classes=n_outputs, padding_idx=PAD_ID)
        return build_net(
            config, module=self._module_class, module_params=module_params, n_classes=n_outputs,
            task=task, valid=valid, checkpoint_dir=checkpoint_dir, class_weight=class_weight,
            **self._loss_params(task),
        )  # fmt: skip

    # -- fitted state ------------------------------------------------------------
    def _adopt(self, task: Task, encoder: TextEncoder, net, **attributes):
        """Set every fitted attribute (the one place: ``fit`` and ``set_fitted_state``)."""
        self.task_ = task
        self.__dict__.pop("label_names_", None)  # set by a multi-label task with named labels
        for name, value in task.attributes().items():
            setattr(self, name, value)
        self.encoder_ = encoder
        self.net_ = net
        self.n_truncated_ = attributes["n_truncated"]
        self.n_blank_ = attributes.get("n_blank", 0)
        self.embedding_coverage_ = attributes["embedding_coverage"]
        self.choices_ = attributes.get("choices", {})
        self.history_ = net.history
        names = attributes.get("feature_names_in")
        if names is None:  # scikit-learn's convention: set only when fit saw column names
            self.__dict__.pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = np.asarray(names, dtype=object)
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
        names = getattr(self, "feature_names_in_", None)
        return FittedState(
            classes=self.task_.attributes().get("classes_"),
            tokens=list(self.encoder_.id_to_token_),
            token_counts=self.encoder_.token_counts_.tolist(),
            attributes={
                **self.task_.state(),
                "n_truncated": self.n_truncated_,
                "n_blank": self.n_blank_,
                "embedding_coverage": self.embedding_coverage_,
                "choices": self.choices_,
                "history": self.history_.to_list(),
                "feature_names_in": None if names is None else [str(n) for n in names],
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
        task = self._task_from_state(state)
        net = self.build_network(
            task.n_outputs(), encoder.vocab_size_, task=task.net_task
        ).initialize_for_prediction()
        try:
            net.module_.load_state_dict(state.weights)
        except (RuntimeError, KeyError) as error:
            raise WeightsMismatchError(f"the weights do not fit the network ({error})") from error
        net.history = History(state.attributes.get("history", []))
        # Files written while fit could search learning rates also hold "lr".
        skip = {"history", "lr", *task.state_names}
        attributes = {k: v for k, v in state.attributes.items() if k not in skip}
        return self._adopt(task, encoder, net, **attributes)

    def __setstate__(self, state):
        super().__setstate__(state)
        if "net_" in self.__dict__ and "task_" not in self.__dict__:
            # Pickled by skattn 0.3, which kept its task in private attributes.
            self.task_ = self._task_from_0_3_attributes()
        names, task = self.__dict__.get("label_names_"), self.__dict__.get("task_")
        if names is not None and isinstance(task, MultiLabelTask) and task.names is None:
            # A development build of 0.4 kept the names in the task's "label_names".
            task.names = [str(name) for name in names]

    @abc.abstractmethod
    def _task_from_0_3_attributes(self) -> Task:
        """The fitted task of an estimator pickled by skattn 0.3."""

    # -- inference ---------------------------------------------------------------
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
        corpus = self._input.encode(self.encoder_, self._check_input(X))
        y_encoded = None if y is None else self.task_.encode_fitted(y, len(corpus))
        return self._input.dataset(corpus, y_encoded, hierarchical=self._hierarchical)

    def document_outputs(
        self, X: Sequence[str], fields: Sequence[str] = ("logits",)
    ) -> dict[str, Any]:
        """The network's outputs for each document, by field name.

        Parameters
        ----------
        X : sequence of str
        fields : sequence of str, default=("logits",)
            Fields of the network's output (:class:`skattn.nn.ModuleOutput`):
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

    def _outputs(self, X: list, fields: Sequence[str], corpus=None) -> dict[str, Any]:
        """Module outputs for validated samples ``X`` (or their ``corpus``, already encoded)."""
        check_is_fitted(self, "net_")
        if corpus is None:
            corpus = self._input.encode(self.encoder_, X)
        dataset = self._input.dataset(corpus, hierarchical=self._hierarchical)
        with torch_threads(self.threads):
            return self.net_.predict_outputs(dataset, fields)

    def _dataset(self, corpus) -> DocumentDataset:
        """The network's dataset over encoded samples (for explanations)."""
        return self._input.dataset(corpus, hierarchical=self._hierarchical)

    # -- streams: chunk by chunk, flat memory --------------------------------------
    def _iterate(self, X: Iterable, method: str, chunk_size: int) -> Iterator[np.ndarray]:
        samples = self._input.stream(X, getattr(self, "feature_names_in_", None))
        return iter_predictions(self, samples, method, chunk_size)

    def predict_iter(
        self, X: Iterable[str], chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> Iterator[np.ndarray]:
        """``predict`` over an iterable of documents, yielded chunk by chunk.

        Parameters
        ----------
        X : iterable of str
            A list, a generator, a pandas Series, or
            :func:`skattn.text.iter_documents` of a file; read lazily.
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
        return self._iterate(X, "predict", chunk_size)

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
        return self._iterate(X, "transform", chunk_size)

    @property
    def decision_rule_(self) -> DecisionRule:
        """How ``predict`` turns the network's scores into answers (:mod:`skattn.decisions`).

        The fitted task's rule: the most probable class; ``classes_[1]`` at
        ``thresholds_[0]`` for a binary model with a threshold; each label
        at its ``thresholds_`` for a multi-label one; the outputs times
        ``target_scale_`` plus ``target_mean_`` for a regressor. An exported
        artefact carries it, and the serving runtime and the command line
        apply it.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, threshold=0.3,
        ...                               random_state=0).fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> clf.decision_rule_.kind, clf.decision_rule_.thresholds
        ('threshold', (0.3,))
        """
        check_is_fitted(self, "net_")
        return self.task_.decision_rule()

    # -- explanations ------------------------------------------------------------
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
        X : sequence of str (pair models: pairs of str)
        y : array-like, optional
            True labels, shown beside the predictions (multi-label: indicators).
        label : optional
            Explain this class's probability (a value of ``classes_``; multi-label:
            an index or a name of ``label_names_``; regressor: a column index) in
            every document. Default: each one's prediction (multi-label: its likeliest).
        target_names : sequence of str, optional
            Multi-label: the labels' names shown (default: ``label_names_``, if any).
        method : str, optional
            :data:`skattn.explain.METHODS` (``"sentence_occlusion"``:
            hierarchical models). Default: ``"integrated_gradients"``, the
            most faithful measured (user guide, *Explanations*).
        n_steps : int, default=4
            Steps of ``"integrated_gradients"``.
        faithfulness : bool, default=False
            Also measure them: the result's ``faithfulness`` (a FaithfulnessReport).
        as_frame : bool, default=False
            Return a pandas DataFrame, a row per token, instead.

        Returns
        -------
        Explanations or pandas.DataFrame
            A record per document (keys in :mod:`skattn.explain`); HTML, figures.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
        >>> clf = clf.fit(["good", "bad"] * 4, [1, 0] * 4)
        >>> clf.explain(["good film"], label=0, method="gradient")[0]["explained_label"]
        0
        """
        X = self._check_input(X)
        check_is_fitted(self, "net_")
        method = check_method(DEFAULT_METHOD if method is None else method, self._hierarchical)
        self._check_faithfulness_request(faithfulness)
        truth = None if y is None else self.task_.shown_truth(y, len(X))
        column = None if label is None else self.task_.label_column(label)
        records = explanation_records(self, X, method, column=column, n_steps=n_steps)
        self._label_records(records, truth, column, self._label_names(target_names))
        report = self._faithfulness_of(X, records, method, label) if faithfulness else None
        explanations = Explanations(records, faithfulness=report)
        return explanations.to_frame() if as_frame else explanations

    def _explained_documents(self, X: Sequence, column: int | None = None):
        """The samples explanations score and erase, explained for ``column``."""
        return self._input.documents(self, X, column)

    def _check_faithfulness_request(self, faithfulness: bool) -> None:
        if faithfulness and not isinstance(self, ClassifierMixin):
            raise ValueError(
                "faithfulness=True measures how a class probability falls as tokens are "
                "erased; it is for classifiers."
            )

    def _label_records(self, records: list[dict], truth, column, name_of) -> None:
        """Add the true labels and the explained label, each shown by its name."""
        for i, record in enumerate(records):
            if truth is not None:
                record["true_label"] = name_of(truth[i])
            explained = column
            if explained is None and "label_proba" in record:  # multi-label: say which one
                explained = int(self.task_.explained_columns(record["proba"][None, :])[0])
            if explained is not None:
                record["explained_label"] = name_of(self.task_.column_label(explained))
                if "proba" in record:
                    record["explained_proba"] = float(record["proba"][explained])
            if "label_proba" in record:
                record["prediction"] = name_of(record["prediction"])

    def _faithfulness_of(self, X: list, records: list[dict], method: str, label: Any):
        """The erasure test of the records' own scores, against the same label."""

        def these_scores(_):
            return [token_scores_of(record) for record in records]

        these_scores.__name__ = method
        return faithfulness_report(self, X, [these_scores], reference=False, label=label)

    def _label_names(self, target_names: Sequence[str] | None):
        """A function that shows labels (a label, or a list of them) by their names."""
        if target_names is None:
            target_names = getattr(self.task_, "names", None)
        if target_names is None:
            return lambda value: value
        if not isinstance(self.task_, MultiLabelTask):
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

    def __sklearn_tags__(self):
        tags = text_input_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None
        return tags


class AttentionClassifierBase(ClassifierMixin, AttentionEstimatorBase):
    """What both attention classifiers share: labels or label rows, probabilities.

    ``y`` is either one label per document (binary or multiclass: softmax
    and cross-entropy; :class:`~skattn.estimators._tasks.SingleLabelTask`)
    or a multi-label 0/1 indicator matrix (a sigmoid per label and binary
    cross-entropy; ``predict`` returns an indicator matrix, thresholded per
    label at ``thresholds_``; :class:`~skattn.estimators._tasks.MultiLabelTask`).

    Examples
    --------
    >>> from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    >>> issubclass(SelfAttentiveClassifier, AttentionClassifierBase)
    True
    >>> issubclass(HierarchicalAttentionClassifier, AttentionClassifierBase)
    True
    """

    _default_net_task = "classification"
    #: What an estimator pickled before multi-label support had.
    threshold = "auto"

    def _new_task(self, y: Any, n_samples: int):
        return classification_task(y, n_samples, self.threshold, self.class_weight)

    def _task_from_state(self, state: FittedState):
        kind = MultiLabelTask if state.attributes.get("multilabel") else SingleLabelTask
        settings = {"threshold": self.threshold, "class_weight": self.class_weight}
        return kind.from_state(state.classes, state.attributes, **settings)

    def _task_from_0_3_attributes(self):
        old = self.__dict__
        state = {
            "thresholds": old.get("thresholds_"),
            "target_dtype": old.get("_target_dtype"),
            "sparse_target": old.get("_sparse_target", False),
        }
        kind = MultiLabelTask if old.get("_multilabel", False) else SingleLabelTask
        settings = {
            "threshold": self.threshold,
            "class_weight": getattr(self, "class_weight", None),
        }
        return kind.from_state(self.classes_, state, **settings)

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
        return self._iterate(X, "predict_proba", chunk_size)

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
        if isinstance(self.task_, MultiLabelTask):
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
        logits = self.document_outputs(X)["logits"]  # NotFittedError before fit
        return self.task_.scores(logits)

    def predict(self, X: Sequence[str]):
        """Predicted labels: values of ``classes_``, or an indicator matrix (multi-label).

        The fitted :attr:`decision_rule_` decides: ``thresholds_`` where set
        (see ``threshold``), otherwise the most probable class.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents,), or (n_documents, n_labels)
            Multi-label: 0/1 of the dtype of the fitted ``y``, a CSR
            matrix if that ``y`` was sparse.
        """
        decided = self.decision_rule_.decide(self.predict_proba(X))
        sparse = isinstance(self.task_, MultiLabelTask) and self.task_.sparse
        return sp.csr_matrix(decided) if sparse else decided

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
        if isinstance(self.task_, MultiLabelTask):
            y = self.task_.checked(y, n_samples)
        else:
            self.task_.encode_fitted(y, n_samples)  # refuses unseen labels and wrong lengths
            y = as_label_array(y)
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


class AttentionRegressorBase(RegressorMixin, AttentionEstimatorBase):
    """What both attention regressors share: numeric targets, standardised for training.

    The network learns each output standardised (minus its mean over the fit
    data, divided by its standard deviation; a constant output is only
    centred) with a mean squared error loss; ``predict`` undoes it
    (:class:`~skattn.estimators._tasks.RegressionTask`). The scale of ``y``
    therefore does not change the learning rate that works.

    Examples
    --------
    >>> from skattn import HierarchicalAttentionRegressor, SelfAttentiveRegressor
    >>> issubclass(SelfAttentiveRegressor, AttentionRegressorBase)
    True
    >>> issubclass(HierarchicalAttentionRegressor, AttentionRegressorBase)
    True
    """

    _default_net_task = "regression"

    def _new_task(self, y: Any, n_samples: int):
        return RegressionTask(), RegressionTask.check(y, n_samples)

    def _task_from_state(self, state: FittedState):
        return RegressionTask.from_state(None, state.attributes)

    def _task_from_0_3_attributes(self):
        old = self.__dict__
        state = {
            "target_mean": old["target_mean_"],
            "target_scale": old["target_scale_"],
            "target_ndim": old["_target_ndim"],
        }
        return RegressionTask.from_state(None, state)

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
        return self.decision_rule_.decide(self.document_outputs(X)["logits"])

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


def _check_same_network(fitted: dict, built: dict) -> None:
    """Refuse a warm start whose parameters build a network of another shape."""
    differing = sorted(
        name
        for name in fitted.keys() | built.keys()
        if name not in fitted or name not in built or fitted[name].shape != built[name].shape
    )
    if differing:
        raise ValueError(
            "warm_start=True continues the fitted network, but this fit's parameters build "
            f"another one ({', '.join(differing[:4])}{', …' if len(differing) > 4 else ''} "
            "differ in shape or presence): the parameters that size the network (sizes, "
            "hops, label_hops, pooling, …) must keep the values of the first fit. Set "
            "warm_start=False to train a new network."
        )


def _validation_split_message(fraction: float, stratify, task: Task, error: ValueError) -> str:
    """Why the held-out validation split failed, in the user's labels and parameters."""
    reason = f"scikit-learn: {error}"
    if stratify is not None:
        counts = np.bincount(stratify)
        rare = [task.column_label(column) for column in np.flatnonzero((counts > 0) & (counts < 2))]
        if rare:
            reason = f"the split keeps each class's share, and these have one document: {rare}"
    return (
        f"cannot hold out validation_fraction={fraction} of the documents for early "
        f"stopping or tuned thresholds ({reason}). Set another validation_fraction, or "
        "early_stopping=False (and no threshold tuned on held-out documents), or fit "
        "with more documents of each class."
    )
