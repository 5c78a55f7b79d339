"""skorch glue: the training loop of every attention estimator.

This layer owns everything between an estimator's settings and PyTorch:

- :func:`build_net` maps the estimator's parameters to a skorch net:
  optimizer, learning-rate schedule, clipping, early stopping, checkpoints,
  the user's callbacks and skorch arguments (``net_params``);
  :class:`NetConfig` carries those settings, typed; :func:`optimizer_arguments`,
  :func:`training_callbacks` and :func:`validation_callbacks` are its parts;
- :class:`AttentionNet` is a :class:`skorch.NeuralNetClassifier` that
  overrides only what it must: the loss (sample weights, class weights,
  the attention penalty), the iterators (length-bucketed training batches,
  length-sorted inference batches, both honouring the user's
  ``iterator_*`` settings) and inference that returns every module output
  per document;
- ``_accelerated.py`` holds the nets that train through an
  ``accelerate.Accelerator`` (an estimator's ``accelerator`` parameter), and
  ``_build.py`` the function that chooses among them all (:func:`build_net`).

Device, thread and seed handling live in :mod:`skattn.utils._runtime`.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import torch
from scipy.special import expit
from skorch import NeuralNet, NeuralNetClassifier, NeuralNetRegressor
from skorch.callbacks import (
    Callback,
    Checkpoint,
    EarlyStopping,
    GradientNormClipping,
    LRScheduler,
)
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, SequentialLR
from torch.utils.data import DataLoader

from skattn.text._batching import BucketBatchSampler, DocumentDataset
from skattn.text._pairs import PairDataset
from skattn.utils._memory import release_free_memory, release_mapped_pages

__all__ = [
    "AUTO_TOKENS_PER_DOCUMENT",
    "NET_PARAM_PREFIXES",
    "ONECYCLE_WARMUP_SHARE",
    "OPTIMIZERS",
    "VALIDATION_MONITORS",
    "AttentionMultiLabelNet",
    "AttentionNet",
    "AttentionRegressionNet",
    "GradientValueClipping",
    "NetConfig",
    "OneCycleSchedule",
    "RestoreLastEpoch",
    "ValidationMacroF1",
    "check_net_params",
    "fused_optimizer_works",
    "one_cycle",
    "optimizer_arguments",
    "release_fit_data",
    "training_callbacks",
    "user_callback_types",
    "validation_callbacks",
    "warmup_then",
]

#: ``batch_tokens="auto"``: a training batch holds at most ``batch_size`` documents
#: and this many tokens per document of ``batch_size`` (long documents come fewer at
#: a time, so a corpus of few long documents still gets many optimizer steps). With
#: the classifiers' batches of 64: 12,800 tokens, about 17 movie reviews.
AUTO_TOKENS_PER_DOCUMENT = 200

#: Optimizers by the names the estimators accept.
OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "sgd": torch.optim.SGD,
    "adagrad": torch.optim.Adagrad,
    "rmsprop": torch.optim.RMSprop,
}


class _AttentionNetMixin:
    """What the classification and the regression net share (see :class:`AttentionNet`)."""

    #: Whether a document's loss over several outputs is their sum (else their mean).
    _sum_outputs = False

    def __init__(
        self,
        *args,
        penalty: float = 0.0,
        class_weight: Sequence[float] | None = None,
        bucket_pool: int = 50,
        batch_tokens: int | str | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.penalty = penalty
        self.class_weight = class_weight
        self.bucket_pool = bucket_pool
        self.batch_tokens = batch_tokens

    def initialize_for_prediction(self):
        """skorch's ``initialize`` without the optimizer: the net of a loaded model.

        A fitted model holds no optimizer (:func:`release_fit_data`), and
        building one imports ``torch._dynamo``, which prediction never needs.
        """
        self._initialize_virtual_params()
        self._initialize_callbacks()
        self._initialize_module()
        self._initialize_criterion()
        self._initialize_history()
        with self._current_init_context("optimizer"):
            # Known by name, as a built optimizer would be: optimizer__* settings stay valid.
            self._register_attribute("optimizer_", None)
        self.release_optimizer()
        self._validate_params()
        self.initialized_ = True
        return self

    def release_optimizer(self) -> None:
        """Let go of the optimizer; its settings (``lr``, ``optimizer__*``) stay settable.

        Examples
        --------
        >>> from skattn import SelfAttentiveClassifier
        >>> net = SelfAttentiveClassifier(hidden_size=4, max_epochs=1, random_state=0).fit(
        ...     ["good", "bad"] * 8, [1, 0] * 8).net_
        >>> net.optimizer_ is None, net.set_params(lr=0.5).lr
        (True, 0.5)
        """
        self.optimizer_ = None
        self._register_virtual_param(["optimizer__*", "lr"], _record_optimizer_setting)

    def get_params_for_optimizer(self, prefix, named_parameters):
        """skorch's optimizer arguments, with ``fused="auto"`` decided on the optimizer's device."""
        args, kwargs = super().get_params_for_optimizer(prefix, named_parameters)
        if kwargs.get("fused") == "auto":
            optimizer = getattr(self, prefix)
            if fused_optimizer_works(optimizer, self._optimizer_device()):
                kwargs["fused"] = True
            else:
                del kwargs["fused"]
        return args, kwargs

    def _optimizer_device(self) -> str | None:
        """Where the optimizer's state will live (an accelerator overrides it)."""
        return self.device

    def partial_fit(self, X, y=None, classes=None, **fit_params):
        """skorch's ``partial_fit``, refused on a fitted model's net.

        A fitted model keeps neither its optimizer nor its validation split
        (:func:`release_fit_data`), so its training cannot go on where
        ``fit`` stopped; the estimator's ``warm_start=True`` refits from the
        fitted weights with a new optimizer and schedule.
        """
        if getattr(self, "initialized_", False) and self.optimizer_ is None:
            raise RuntimeError(
                "this net belongs to a fitted skattn model, which keeps no optimizer "
                "or validation split, so its training cannot go on where fit stopped; "
                "refit the estimator with warm_start=True to train on from its weights"
            )
        return super().partial_fit(X, y, classes=classes, **fit_params)

    def infer(self, x, **fit_params):
        x = {key: value for key, value in x.items() if key != "sample_weight"}
        return super().infer(x, **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """Weighted mean of the per-document losses, plus ``penalty`` × the mean penalty.

        A document's weight is its ``sample_weight`` (1 if none) times the
        ``class_weight`` of its class (1 if none); the loss is
        Σ wᵢ lossᵢ / Σ wᵢ, so weights of ones give the plain mean. A
        document's loss over several outputs is their mean (regression) or
        their sum (multi-label: the negative log-likelihood of its label set).
        """
        logits = y_pred[0]
        y_true = y_true.to(logits.device)
        losses = self.criterion_(logits, y_true)
        if losses.dim() > 1:
            losses = losses.flatten(1)
            losses = losses.sum(dim=1) if self._sum_outputs else losses.mean(dim=1)
        weights = None if X is None else X.get("sample_weight")
        if weights is not None:
            weights = weights.to(losses.device, losses.dtype)
        if self.class_weight is not None:
            per_class = torch.as_tensor(self.class_weight, dtype=losses.dtype, device=losses.device)
            weights = per_class[y_true] if weights is None else weights * per_class[y_true]
        if weights is None:
            loss = losses.mean()
        else:
            loss = (losses * weights).sum() / weights.sum().clamp(min=1e-12)
        penalty = getattr(y_pred, "penalty", None)
        if self.penalty and penalty is not None:
            loss = loss + self.penalty * penalty.mean()
        return loss

    def get_iterator(self, dataset, training=False):
        if not isinstance(dataset, (DocumentDataset, PairDataset)):
            return super().get_iterator(dataset, training=training)
        # The user's iterator_train__*/iterator_valid__* (num_workers, ...),
        # without the batching arguments that skorch injects.
        extra = {
            key: value
            for key, value in self.get_params_for(
                "iterator_train" if training else "iterator_valid"
            ).items()
            if key not in _OWN_ITERATOR_ARGS
        }
        if training:
            sampler = self._training_batches(self._bucket_sampler(dataset))
        else:
            # A DataLoader draws a base seed when it starts iterating: from its
            # own generator here, so inference leaves the global one alone.
            extra.setdefault("generator", torch.Generator())
            # In dataset order, as skorch's own predict expects; predict_outputs
            # hands over a length-sorted view of the documents (less padding).
            order = np.arange(len(dataset))
            sampler = [
                order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)
            ]
        return DataLoader(dataset, batch_sampler=sampler, collate_fn=dataset.collate, **extra)

    def _bucket_sampler(self, dataset) -> BucketBatchSampler:
        """The sampler of an epoch's training batches, bucketed by length."""
        max_tokens = self.batch_tokens
        if max_tokens == "auto":
            max_tokens = AUTO_TOKENS_PER_DOCUMENT * self.batch_size
        return BucketBatchSampler(
            dataset.sort_keys,
            self.batch_size,
            shuffle=True,
            pool_batches=self.bucket_pool,
            sizes=dataset.lengths,
            max_tokens=max_tokens,
            cap_documents=self.batch_tokens == "auto",
        )

    def training_steps(self, dataset) -> int:
        """Optimizer steps of one training epoch over ``dataset`` (this process's share).

        With ``batch_tokens``, the batches of one sorted pass (an epoch's
        pools cut a few more).
        """
        if not isinstance(dataset, (DocumentDataset, PairDataset)):
            return -(-len(dataset) // self.batch_size)
        return len(self._bucket_sampler(dataset))

    def _training_batches(self, sampler: BucketBatchSampler):
        """The batch sampler of an epoch's training batches (distributed nets share it out)."""
        return sampler

    def load_embeddings(self, vectors: np.ndarray | None, freeze: bool = False) -> None:
        """Copy initial word vectors into the module's ``embedding``; optionally freeze it."""
        embedding = _bare_module(self).embedding
        if vectors is not None:
            with torch.no_grad():
                embedding.weight.copy_(torch.as_tensor(vectors, dtype=embedding.weight.dtype))
        embedding.weight.requires_grad_(not freeze)

    def _iter_outputs(self, dataset: DocumentDataset) -> Iterator[tuple[np.ndarray, dict, Any]]:
        """Yield ``(document_indices, batch, module_output)`` over length-sorted batches."""
        order = dataset.length_order()
        self.module_.eval()
        start = 0
        with torch.no_grad():
            for X, _ in self.get_iterator(dataset.subset(order), training=False):
                rows = order[start : start + len(X["lengths"])]
                start += len(rows)
                yield rows, X, self.infer(X)

    def predict_outputs(
        self, dataset: DocumentDataset, fields: Sequence[str] = ("logits",)
    ) -> dict[str, object]:
        """Module outputs for every document, in dataset order.

        Parameters
        ----------
        dataset : DocumentDataset
        fields : sequence of str
            Names of the module output's fields to collect. Fields with a
            fixed per-document shape come back as one array; attention maps
            as a list of per-document arrays, cut to the document's real
            size.

        Returns
        -------
        dict of str to ndarray or list of ndarray
        """
        collected: dict[str, list] = {field: [None] * len(dataset) for field in fields}
        for rows, X, output in self._iter_outputs(dataset):
            for field in fields:
                values = _to_numpy(getattr(output, field))
                if field in PER_DOCUMENT:
                    # A pair's second text has its own lengths (``lengths_b``).
                    lengths = X["lengths_b" if field.endswith("_b") else "lengths"]
                    values = PER_DOCUMENT[field](values, lengths.cpu().numpy())
                for row, value in zip(rows, values):
                    collected[field][row] = value
        return {
            field: np.stack(values) if _same_shape(values) else values
            for field, values in collected.items()
        }


class AttentionNet(_AttentionNetMixin, NeuralNetClassifier):
    """NeuralNetClassifier for modules that return (logits, attention..., penalty).

    Parameters
    ----------
    penalty : float, default=0.0
        Coefficient of the module's ``penalty`` output in the loss.
    class_weight : sequence of float or None, default=None
        Weight of each (encoded) class in the loss.
    bucket_pool : int, default=50
        Training batches are drawn from shuffled pools of this many batches
        sorted by length; 1 gives plain random batches (no bucketing).
    batch_tokens : int, "auto" or None, default=None
        Token-budget training batches: up to this many tokens each (see
        :class:`~skattn.text.BucketBatchSampler`) instead of ``batch_size``
        documents; "auto": at most ``batch_size`` documents and at most
        :data:`AUTO_TOKENS_PER_DOCUMENT` × ``batch_size`` tokens.
    **kwargs
        Passed to :class:`skorch.NeuralNetClassifier`.

    Examples
    --------
    Made by :func:`build_net` (or an estimator's ``build_network``):

    >>> from skattn import SelfAttentiveClassifier
    >>> net = SelfAttentiveClassifier(hidden_size=4).build_network(n_outputs=2, vocab_size=10)
    >>> type(net).__name__, net.penalty
    ('AttentionNet', 0.1)
    """


class AttentionRegressionNet(_AttentionNetMixin, NeuralNetRegressor):
    """NeuralNetRegressor for the same modules: their ``logits`` are the predicted outputs.

    The loss is the mean squared error per document (averaged over its
    outputs), weighted by ``sample_weight`` as in :class:`AttentionNet`,
    plus ``penalty`` × the module's penalty. Parameters as
    :class:`AttentionNet` (``class_weight`` stays None).

    Examples
    --------
    >>> from skattn import SelfAttentiveRegressor
    >>> net = SelfAttentiveRegressor(hidden_size=4).build_network(n_outputs=1, vocab_size=10)
    >>> type(net).__name__, type(net.initialize().criterion_).__name__
    ('AttentionRegressionNet', 'MSELoss')
    """


class AttentionMultiLabelNet(_AttentionNetMixin, NeuralNet):
    """NeuralNet for multi-label targets: one logit per label, binary cross-entropy.

    A document's loss is the binary cross-entropy of each of its labels,
    summed over the labels (the negative log-likelihood of its label set, as
    the cross-entropy of :class:`AttentionNet` is that of its class), then
    weighted by ``sample_weight`` as in :class:`AttentionNet`, plus
    ``penalty`` × the module's penalty. A label's positive examples weigh
    ``criterion__pos_weight`` (from the estimator's ``class_weight``).
    Parameters as :class:`AttentionNet` (``class_weight`` stays None).

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> net = SelfAttentiveClassifier(hidden_size=4).build_network(
    ...     n_outputs=3, vocab_size=10, task="multilabel")
    >>> type(net).__name__, type(net.initialize().criterion_).__name__
    ('AttentionMultiLabelNet', 'BCEWithLogitsLoss')
    """

    _sum_outputs = True


def _bare_module(net) -> torch.nn.Module:
    """``net.module_`` without the wrapper an accelerator puts around it while training."""
    accelerator = getattr(net, "accelerator", None)
    if accelerator is None or not getattr(net, "_wrapped_with_accelerator", False):
        return net.module_
    return accelerator.unwrap_model(net.module_)


def _attention_per_document(attention: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """Self-attentive A (batch, hops, time) → one (hops, length) array per document."""
    return [a[:, :n] for a, n in zip(attention, lengths)]


def _sentence_attention_per_document(attention, lengths) -> list[np.ndarray]:
    """(batch, sentences) → one (n_sentences,) array per document."""
    return [a[: int((counts > 0).sum())] for a, counts in zip(attention, lengths)]


def _word_attention_per_document(attention, lengths) -> list[list[np.ndarray]]:
    """(batch, sentences, words) → per document, one (n_words,) array per sentence."""
    return [
        [weights[:n] for weights, n in zip(document, sentence_lengths[sentence_lengths > 0])]
        for document, sentence_lengths in zip(attention, lengths)
    ]


#: How each padded attention output is cut to each document's real size,
#: given the batch's ``lengths`` (tokens per document, or words per sentence).
PER_DOCUMENT: dict[str, Callable[[np.ndarray, np.ndarray], list]] = {
    "attention": _attention_per_document,
    "attention_b": _attention_per_document,
    "sentence_attention": _sentence_attention_per_document,
    "word_attention": _word_attention_per_document,
}


def _to_numpy(values: torch.Tensor) -> np.ndarray:
    """A module output on the CPU as numpy (bfloat16, which numpy lacks, as float32)."""
    if values.dtype == torch.bfloat16:
        values = values.float()
    return values.cpu().numpy()


def _same_shape(values: list) -> bool:
    """Whether per-document values are arrays of one shape (so they stack)."""
    if not all(isinstance(v, np.ndarray) for v in values):
        return False
    return all(v.shape == values[0].shape for v in values)


class RestoreLastEpoch(Callback):
    """After an interrupted fit (Ctrl-C), put back the weights of the last finished epoch.

    skorch stops training on ``KeyboardInterrupt`` and keeps the module as
    it was mid-epoch; this callback keeps a copy of the weights at the end
    of each epoch and restores it when training ends inside an epoch. The
    net's ``interrupted_`` then says so.

    Examples
    --------
    Every net :func:`build_net` makes has it:

    >>> [name for name, _ in training_callbacks(NetConfig())][:1]
    ['restore_last_epoch']
    """

    def on_train_begin(self, net, **kwargs):
        self._snapshot(net)
        net.interrupted_ = False

    def on_epoch_begin(self, net, **kwargs):
        self.in_epoch_ = True

    def on_epoch_end(self, net, **kwargs):
        self._snapshot(net)

    def on_train_end(self, net, **kwargs):
        if self.in_epoch_:
            # The module itself: an accelerated net has unwrapped it by now.
            _bare_module(net).load_state_dict(self.state_)
            net.interrupted_ = True
            warnings.warn(
                f"fit was interrupted; the weights of the last finished epoch "
                f"({len(net.history) - 1}) were restored.",
                UserWarning,
                stacklevel=2,
            )
        # The copy has served: a fitted model (pickled, sent to dask workers) does without it.
        self.state_ = None

    def _snapshot(self, net):
        state = _bare_module(net).state_dict()
        self.state_ = {k: v.detach().clone() for k, v in state.items()}
        self.in_epoch_ = False


class ReleaseMemory(Callback):
    """Give back memory a fit no longer uses, so that a long epoch's resident size stays flat.

    After every training batch, the pages of memory-mapped ids
    (``memmap_dir=``) that the batch read are dropped from the process
    (:func:`~skattn.utils._memory.release_mapped_pages`): a read of a
    mapped file maps the pages around it too, so shuffled batches would
    otherwise map a share of the file that grows with the corpus. Every
    ``every`` training batches and after each epoch, the allocator's freed
    pages go back to the system as well
    (:func:`~skattn.utils._memory.release_free_memory`), which costs more.

    Parameters
    ----------
    every : int, default=100
        Training batches between two releases of freed allocator pages.

    Examples
    --------
    Every net :func:`build_net` makes has it:

    >>> [name for name, _ in training_callbacks(NetConfig())][1:2]
    ['release_memory']
    """

    def __init__(self, every: int = 100):
        self.every = every

    def on_train_begin(self, net, X=None, **kwargs):
        self.mapped_ = X.mapped_arrays() if hasattr(X, "mapped_arrays") else []
        self.batches_ = 0

    def on_batch_end(self, net, training=False, **kwargs):
        if training:
            self.batches_ += 1
            release_mapped_pages(self.mapped_)
            if self.batches_ % self.every == 0:
                release_free_memory()

    def on_epoch_end(self, net, **kwargs):
        release_free_memory()
        release_mapped_pages(self.mapped_)

    def on_train_end(self, net, **kwargs):
        # The fitted model keeps no reference to the fit's mapped files.
        self.mapped_ = []


def warmup_then(decay: str, warmup_epochs: int, max_epochs: int):
    """The learning-rate schedule class and arguments for skorch's ``LRScheduler``.

    Parameters
    ----------
    decay : {"constant", "cosine"}
        What follows the warm-up.
    warmup_epochs : int
        Epochs of linear warm-up from ``lr / (warmup_epochs + 1)`` to ``lr``.
    max_epochs : int

    Returns
    -------
    (scheduler class, dict of its arguments) or None
        None for a constant rate with no warm-up.

    Examples
    --------
    >>> warmup_then("cosine", 0, 10)[0].__name__
    'CosineAnnealingLR'
    """
    decay_epochs = max(1, max_epochs - warmup_epochs)
    if warmup_epochs == 0:
        if decay == "cosine":
            return CosineAnnealingLR, {"T_max": max_epochs}
        return None

    def warmup(epoch: int) -> float:
        return (epoch + 1) / (warmup_epochs + 1)

    if decay == "constant":
        return LambdaLR, {"lr_lambda": lambda epoch: min(1.0, warmup(epoch))}
    return _WarmupCosine, {"warmup_epochs": warmup_epochs, "decay_epochs": decay_epochs}


class GradientValueClipping(Callback):
    """Clip every gradient element to [−value, value] before each step.

    Lin et al.'s code clips this way (element by element) where skorch's
    :class:`~skorch.callbacks.GradientNormClipping` bounds the global norm.

    Parameters
    ----------
    value : float

    Examples
    --------
    >>> weight = torch.nn.Parameter(torch.zeros(3))
    >>> weight.grad = torch.tensor([-2.0, 0.1, 3.0])
    >>> class Net:
    ...     module_ = torch.nn.ParameterList([weight])
    >>> GradientValueClipping(0.5).on_grad_computed(Net(), [("w", weight)])
    >>> weight.grad.tolist()
    [-0.5, 0.10000000149011612, 0.5]
    """

    def __init__(self, value: float):
        self.value = value

    def on_grad_computed(self, net, named_parameters, **kwargs):
        parameters = [p for _, p in named_parameters]
        accelerator = getattr(net, "accelerator", None)
        if accelerator is None:
            torch.nn.utils.clip_grad_value_(parameters, self.value)
        elif accelerator.sync_gradients:
            # Unscaled (fp16), averaged over the processes, accumulated in full.
            accelerator.clip_grad_value_(parameters, self.value)


class _WarmupCosine(SequentialLR):
    """Linear warm-up for ``warmup_epochs``, then cosine decay over ``decay_epochs``."""

    def __init__(self, optimizer, warmup_epochs: int, decay_epochs: int, last_epoch: int = -1):
        warm = LambdaLR(optimizer, lambda epoch: (epoch + 1) / (warmup_epochs + 1))
        cosine = CosineAnnealingLR(optimizer, T_max=decay_epochs)
        super().__init__(
            optimizer, [warm, cosine], milestones=[warmup_epochs], last_epoch=last_epoch
        )


#: Prefixes of skorch arguments a user may pass through ``net_params``.
NET_PARAM_PREFIXES = ("optimizer__", "criterion__", "iterator_train__", "iterator_valid__")
#: AttentionNet's own knobs a user may pass through ``net_params`` too.
NET_PARAM_NAMES = ("bucket_pool",)
#: DataLoader arguments the package sets itself (batching is its job).
_OWN_ITERATOR_ARGS = (
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "collate_fn",
    "drop_last",
    "in_order",
)


def check_net_params(net_params: Mapping[str, Any] | None) -> None:
    """Fail before training on a ``net_params`` key skattn would not pass on as meant.

    Parameters
    ----------
    net_params : dict or None
        skorch arguments with one of :data:`NET_PARAM_PREFIXES`, e.g.
        ``{"optimizer__betas": (0.9, 0.98), "iterator_train__num_workers": 2}``.

    Examples
    --------
    >>> check_net_params({"optimizer__betas": (0.9, 0.98)})
    >>> check_net_params({"module__hidden": 3})
    Traceback (most recent call last):
    ...
    ValueError: net_params['module__hidden']: keys must start with one of ...
    """
    for key in net_params or {}:
        if not isinstance(key, str) or not (
            key.startswith(NET_PARAM_PREFIXES) or key in NET_PARAM_NAMES
        ):
            raise ValueError(
                f"net_params[{key!r}]: keys must start with one of {list(NET_PARAM_PREFIXES)} "
                f"(or be one of {list(NET_PARAM_NAMES)}); "
                "network sizes, lr, max_epochs, batch_size, device and callbacks are "
                "estimator parameters of their own."
            )
        if key.startswith("iterator") and key.split("__", 1)[1] in _OWN_ITERATOR_ARGS:
            raise ValueError(
                f"net_params[{key!r}]: batching is set by batch_size (training batches "
                "are shuffled and grouped by length); this key cannot change it."
            )


def user_callback_types(callbacks: Sequence | None) -> set[type]:
    """The skorch callback classes among a user's ``callbacks`` (named or not).

    Examples
    --------
    >>> from skorch.callbacks import EarlyStopping, ProgressBar
    >>> sorted(t.__name__ for t in user_callback_types([("bar", ProgressBar()), EarlyStopping]))
    ['EarlyStopping', 'ProgressBar']
    """
    types = set()
    for callback in callbacks or []:
        item = callback[1] if isinstance(callback, tuple) else callback
        types.add(item if isinstance(item, type) else type(item))
    return types


@dataclass(frozen=True)
class NetConfig:
    """The training settings of an estimator (already validated by it), as skorch needs them.

    Built once per ``fit`` from the estimator's parameters
    (:meth:`from_params`), so a reader (and a type checker) can follow each
    setting from the estimator to the net :func:`build_net` makes.

    Examples
    --------
    >>> config = NetConfig.from_params({"lr": 0.01, "hidden_size": 8})
    >>> config.lr, config.optimizer  # hidden_size is the module's, not the net's
    (0.01, 'adam')
    """

    optimizer: str | type = "adam"
    lr: float = 3e-3
    momentum: float = 0.9
    weight_decay: float = 0.0
    clip_grad_norm: float | None = None
    clip_grad_value: float | None = None
    lr_schedule: str = "constant"
    warmup_epochs: int = 0
    early_stopping: bool = False
    n_iter_no_change: int = 3
    max_epochs: int = 8
    batch_size: int = 64
    batch_tokens: int | str | None = None
    callbacks: Sequence | None = None
    net_params: Mapping[str, Any] | None = None
    device: str | None = "cpu"
    accelerator: Any = None
    verbose: int = 0

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> NetConfig:
        """The settings among an estimator's ``get_params(deep=False)`` (others are ignored).

        Parameters
        ----------
        params : mapping

        Returns
        -------
        NetConfig
        """
        names = {f.name for f in fields(cls)}
        return cls(**{name: value for name, value in params.items() if name in names})

    @property
    def optimizer_class(self) -> type[torch.optim.Optimizer]:
        """The optimizer class (a name of :data:`OPTIMIZERS` or the class itself)."""
        return OPTIMIZERS.get(self.optimizer, self.optimizer)


def optimizer_arguments(config: NetConfig) -> dict[str, Any]:
    """skorch's ``optimizer__*`` arguments for ``config``.

    Adam and AdamW get ``fused="auto"``: the net runs them fused (one
    kernel per step) where this PyTorch supports it on the optimizer's
    device, decided when the optimizer is built (see
    :meth:`AttentionNet.get_params_for_optimizer`). Momentum goes to the
    optimizers that take it.

    Examples
    --------
    >>> optimizer_arguments(NetConfig(optimizer="sgd", momentum=0.5))
    {'optimizer__weight_decay': 0.0, 'optimizer__momentum': 0.5}
    >>> optimizer_arguments(NetConfig())["optimizer__fused"]
    'auto'
    """
    optimizer = config.optimizer_class
    arguments: dict[str, Any] = {"optimizer__weight_decay": config.weight_decay}
    if optimizer in (torch.optim.SGD, torch.optim.RMSprop):
        arguments["optimizer__momentum"] = config.momentum
    if optimizer in (torch.optim.Adam, torch.optim.AdamW):
        arguments["optimizer__fused"] = "auto"
    return arguments


def training_callbacks(
    config: NetConfig, norm_clipping: type[Callback] = GradientNormClipping
) -> list[tuple[str, Callback]]:
    """The callbacks every fit has: Ctrl-C safety, clipping and the learning-rate schedule.

    ``norm_clipping``: the callback that clips by norm (under an accelerator,
    one that clips the unscaled gradients averaged over the processes).

    A scheduler among the user's callbacks replaces the built-in schedule
    instead of stacking on it.

    Examples
    --------
    >>> [name for name, _ in training_callbacks(NetConfig(clip_grad_norm=1.0))]
    ['restore_last_epoch', 'release_memory', 'clip']
    >>> [name for name, _ in training_callbacks(NetConfig(clip_grad_value=0.5))]
    ['restore_last_epoch', 'release_memory', 'clip_value']
    >>> [name for name, _ in training_callbacks(NetConfig(lr_schedule="cosine"))]
    ['restore_last_epoch', 'release_memory', 'lr_schedule']
    """
    callbacks: list[tuple[str, Callback]] = [
        ("restore_last_epoch", RestoreLastEpoch()),
        ("release_memory", ReleaseMemory()),
    ]
    if config.clip_grad_norm is not None:
        callbacks.append(("clip", norm_clipping(config.clip_grad_norm)))
    if config.clip_grad_value is not None:
        callbacks.append(("clip_value", GradientValueClipping(config.clip_grad_value)))
    user_types = user_callback_types(config.callbacks)
    if any(issubclass(t, LRScheduler) for t in user_types):
        return callbacks
    if config.lr_schedule == "onecycle":
        callbacks.append(("lr_schedule", OneCycleSchedule(config.warmup_epochs)))
        return callbacks
    schedule = warmup_then(config.lr_schedule, config.warmup_epochs, config.max_epochs)
    if schedule is not None:
        callbacks.append(("lr_schedule", LRScheduler(schedule[0], **schedule[1])))
    return callbacks


#: Share of a one-cycle fit's optimizer steps spent warming up (without ``warmup_epochs``).
ONECYCLE_WARMUP_SHARE = 0.1


def one_cycle(step: int, total_steps: int, warmup_steps: int) -> float:
    """The learning rate's factor at optimizer step ``step`` (0-based) of a one-cycle fit.

    A linear rise over the first ``warmup_steps`` steps (from
    ``1 / warmup_steps`` to 1), then a cosine decay that would reach 0 one
    step after the last.

    Examples
    --------
    Eleven steps, two of warm-up: half the rate, the full rate, then half
    of it again halfway through the decay, and little at the last step.

    >>> [round(one_cycle(step, 11, 2), 3) for step in (0, 1, 6, 10)]
    [0.5, 1.0, 0.5, 0.024]
    """
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    progress = min(1.0, (step - warmup_steps + 1) / (total_steps - warmup_steps + 1))
    return 0.5 * (1.0 + math.cos(math.pi * progress))


class OneCycleSchedule(LRScheduler):
    """A one-cycle learning rate, stepped after every training batch.

    Warm-up over ``warmup_epochs`` epochs (0: the first 10% of the
    steps), then a cosine decay to 0 at the last step of ``max_epochs``
    (:func:`one_cycle`). The steps are counted when training begins, from
    the training batches of one epoch. The rate is recorded per batch
    (``event_lr`` in each batch's history).

    Parameters
    ----------
    warmup_epochs : int, default=0

    Examples
    --------
    >>> [name for name, _ in training_callbacks(NetConfig(lr_schedule="onecycle"))]
    ['restore_last_epoch', 'release_memory', 'lr_schedule']
    """

    def __init__(self, warmup_epochs: int = 0, event_name: str = "event_lr"):
        super().__init__(policy=LambdaLR, step_every="batch", event_name=event_name)
        self.warmup_epochs = warmup_epochs

    @property
    def kwargs(self):
        return {}  # the schedule is built on_train_begin, when the steps are known

    def on_train_begin(self, net, X=None, y=None, **kwargs):
        self.total_steps_ = max(1, net.training_steps(net.get_dataset(X, y))) * net.max_epochs
        share = self.warmup_epochs / net.max_epochs if self.warmup_epochs else ONECYCLE_WARMUP_SHARE
        self.warmup_steps_ = max(1, min(self.total_steps_, round(share * self.total_steps_)))
        super().on_train_begin(net, X=X, y=y, **kwargs)

    def _get_scheduler(self, net, policy, **scheduler_kwargs):
        factor = functools.partial(
            one_cycle, total_steps=self.total_steps_, warmup_steps=self.warmup_steps_
        )
        return LambdaLR(net.optimizer_, lr_lambda=factor)


#: What early stopping and the checkpoint follow, by task: (history key, lower is better).
VALIDATION_MONITORS = {
    "classification": ("valid_acc", False),
    "multilabel": ("valid_f1", False),
    "regression": ("valid_loss", True),
}


class BestEpoch:
    """The checkpoint's test: a better validation score, or an equal one at a lower loss.

    On a small validation split accuracy and macro-F1 reach their best (often
    1.0) within an epoch or two and stay there; taking only a strictly better
    score as best kept the first of those epochs, and the fitted model was
    the one of that epoch, not of the training that followed. An equal score
    at a lower validation loss is the better model.

    Parameters
    ----------
    monitor : str
        The history key of the score (``"valid_acc"``, ``"valid_f1"``, ``"valid_loss"``).
    lower_is_better : bool

    Examples
    --------
    >>> from skorch.history import History
    >>> history = History()
    >>> for acc, loss in [(0.9, 0.5), (1.0, 0.4), (1.0, 0.1)]:
    ...     history.new_epoch()
    ...     history.record("valid_acc", acc)
    ...     history.record("valid_loss", loss)
    >>> class Net:
    ...     pass
    >>> net = Net()
    >>> net.history = history
    >>> BestEpoch("valid_acc", lower_is_better=False)(net)
    True
    """

    def __init__(self, monitor: str, lower_is_better: bool):
        self.monitor = monitor
        self.lower_is_better = lower_is_better

    def __call__(self, net) -> bool:
        sign = -1.0 if self.lower_is_better else 1.0
        epochs = [(epoch.get(self.monitor), epoch.get("valid_loss")) for epoch in net.history]
        if not epochs or not _finite(epochs[-1][0]):
            return False  # a NaN or missing score is never best (a diverged fit)
        score, loss = sign * epochs[-1][0], epochs[-1][1]
        earlier = [(sign * s, past) for s, past in epochs[:-1] if _finite(s)]
        best = max((s for s, _ in earlier), default=-math.inf)
        if score != best:
            return score > best
        tied = [past for s, past in earlier if s == score and _finite(past)]
        return _finite(loss) and (not tied or loss < min(tied))


def _finite(value) -> bool:
    return value is not None and math.isfinite(value)


class ValidationMacroF1(Callback):
    """Each epoch, the validation split's macro-F1 at each label's tuned threshold.

    Recorded as ``valid_f1`` (and ``valid_f1_best``) in the history, for
    multi-label fits: each label decided at the threshold
    :func:`skattn.model_selection.f1_thresholds` tunes for its F1 on these
    documents, as ``threshold="auto"`` will decide (with a fixed threshold it still
    measures how well each label can be separated).

    Parameters
    ----------
    valid : DocumentDataset
        The validation documents, with their indicator rows as labels.

    Examples
    --------
    Two labels that a word each decides: at each label's best threshold the
    validation documents are told apart without a mistake.

    >>> from skattn import SelfAttentiveClassifier
    >>> X, Y = ["good fun", "good", "sad fun", "sad"] * 8, [[1, 1], [1, 0], [0, 1], [0, 0]] * 8
    >>> model = SelfAttentiveClassifier(max_epochs=2, lr=0.01, random_state=0).fit(X, Y)
    >>> [epoch["valid_f1"] for epoch in model.history_]
    [1.0, 1.0]
    """

    def __init__(self, valid):
        self.valid = valid

    def on_epoch_end(self, net, **kwargs):
        from skattn.training._thresholds import tuned_macro_f1

        logits = net.predict_outputs(self.valid)["logits"].astype(np.float64)
        score = tuned_macro_f1(np.asarray(self.valid.labels) > 0.5, expit(logits))
        earlier = [epoch["valid_f1"] for epoch in net.history[:-1] if "valid_f1" in epoch]
        net.history.record("valid_f1", score)
        net.history.record("valid_f1_best", not earlier or score > max(earlier))


def _record_optimizer_setting(net, param: str, value) -> None:
    """``set_params`` of ``lr`` or ``optimizer__*`` on a net that holds no optimizer.

    The setting is recorded for the next optimizer built (a refit reads the
    estimator's own parameters); a parameter group has nothing to record into.
    """
    if param.startswith("optimizer__param_groups__"):
        raise ValueError(f"{param}: this net holds no optimizer whose groups could take it")
    setattr(net, param, value)


def release_fit_data(net) -> None:
    """Drop what a trained net still holds of its fit: the validation split, optimizer, gradients.

    skorch keeps ``train_split`` (here the predefined validation split) and
    :class:`ValidationMacroF1` its documents; both hold the whole training
    corpus they index. It also keeps the optimizer, whose Adam moments are
    twice the weights, and the learning-rate schedule references it again,
    so a pickle held the moments twice (six times the weights in all). A
    fitted model needs none of these: it predicts, explains and saves from
    the module, and a warm start trains a new net from the weights. Without
    them it pickles without the corpus or the moments, and memory-mapped
    ids can be removed. The last batch's gradients (as large as the
    weights, not pickled) are dropped too.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> model = SelfAttentiveClassifier(max_epochs=1, early_stopping=True, random_state=0)
    >>> net = model.fit(["good", "bad"] * 8, [1, 0] * 8).net_
    >>> net.train_split is None, net.optimizer_ is None
    (True, True)
    """
    net.train_split = None
    net.release_optimizer()
    net.module_.zero_grad(set_to_none=True)
    for _, callback in getattr(net, "callbacks_", []):
        if isinstance(callback, ValidationMacroF1):
            callback.valid = None
        if isinstance(callback, LRScheduler):
            callback.lr_scheduler_ = None


def validation_callbacks(
    config: NetConfig, checkpoint_dir=None, task: str = "classification", valid=None
) -> list[tuple[str, Callback]]:
    """Early stopping and the best-epoch checkpoint, for fits with a validation split.

    For classification both follow validation *accuracy*: the validation
    loss rises from over-confidence while accuracy still improves, so
    stopping on it quits too early. For multi-label targets, for the same
    reason, they follow the validation macro-F1 at tuned thresholds
    (:class:`ValidationMacroF1`, which needs ``valid``). For regression they
    follow the validation loss (the squared error). The checkpoint (in
    ``checkpoint_dir``) keeps the best epoch by that score, an equal score
    at a lower validation loss counting as better (:class:`BestEpoch`), and
    is loaded back when training ends, also after Ctrl-C or early stopping.

    Examples
    --------
    >>> [name for name, _ in validation_callbacks(NetConfig(early_stopping=True), "/tmp")]
    ['early_stopping', 'checkpoint']
    """
    monitor, lower_is_better = VALIDATION_MONITORS[task]
    callbacks: list[tuple[str, Callback]] = []
    if task == "multilabel" and valid is not None:
        callbacks.append(("valid_f1", ValidationMacroF1(valid)))
    if config.early_stopping:
        callbacks.append(
            (
                "early_stopping",
                EarlyStopping(
                    monitor=monitor,
                    lower_is_better=lower_is_better,
                    patience=config.n_iter_no_change,
                ),
            )
        )
    if checkpoint_dir is not None:
        checkpoint = Checkpoint(
            monitor=BestEpoch(monitor, lower_is_better),
            dirname=str(checkpoint_dir),
            f_optimizer=None,
            f_criterion=None,
            f_history=None,
            load_best=True,
            # Under an accelerator every process writes its own file.
            fn_prefix=_process_prefix(config.accelerator),
        )
        callbacks.append(("checkpoint", checkpoint))
    return callbacks


def _process_prefix(accelerator) -> str:
    """The checkpoint file prefix of this process: none for the main one, ``rank<i>_`` else."""
    if accelerator is None or accelerator.process_index == 0:
        return ""
    return f"rank{accelerator.process_index}_"


@functools.lru_cache(maxsize=64)
def fused_optimizer_works(optimizer: type, device: str | None) -> bool:
    """Whether ``optimizer(..., fused=True)`` takes a step on ``device`` with this PyTorch.

    Examples
    --------
    >>> isinstance(fused_optimizer_works(torch.optim.Adam, "cpu"), bool)
    True
    """
    try:
        weight = torch.zeros(2, device=device or "cpu", requires_grad=True)
        weight.grad = torch.ones_like(weight)
        optimizer([weight], lr=1e-3, fused=True).step()
    except (RuntimeError, TypeError, ValueError):
        return False
    return True
