"""skorch glue: the training loop of every attention estimator.

This layer owns everything between an estimator's settings and PyTorch:

- :func:`build_net` maps the estimator's parameters to a skorch net:
  optimizer, learning-rate schedule, clipping, early stopping, checkpoints,
  the user's callbacks and skorch arguments (``net_params``);
- :class:`AttentionNet` is a :class:`skorch.NeuralNetClassifier` that
  overrides only what it must: the loss (sample weights, class weights,
  the attention penalty), the iterators (length-bucketed training batches)
  and inference that returns every module output per document;
- :func:`resolve_device`, :func:`torch_threads` and :func:`seeded` run a
  block on the right device, thread count and random seed, leaving
  PyTorch's global state as they found it.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from skorch import NeuralNetClassifier
from skorch.callbacks import (
    Callback,
    Checkpoint,
    EarlyStopping,
    GradientNormClipping,
    LRScheduler,
)
from skorch.helper import predefined_split
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, SequentialLR
from torch.utils.data import DataLoader

from skattn.data import BucketBatchSampler, DocumentDataset

#: Optimizers by the names the estimators accept.
OPTIMIZERS = {
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "sgd": torch.optim.SGD,
    "adagrad": torch.optim.Adagrad,
    "rmsprop": torch.optim.RMSprop,
}


class AttentionNet(NeuralNetClassifier):
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
    batch_tokens : int or None, default=None
        Token-budget training batches: up to this many tokens each (see
        :class:`~skattn.data.BucketBatchSampler`) instead of ``batch_size``
        documents.
    **kwargs
        Passed to :class:`skorch.NeuralNetClassifier`.
    """

    def __init__(
        self,
        *args,
        penalty: float = 0.0,
        class_weight: Sequence[float] | None = None,
        bucket_pool: int = 50,
        batch_tokens: int | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.penalty = penalty
        self.class_weight = class_weight
        self.bucket_pool = bucket_pool
        self.batch_tokens = batch_tokens

    def infer(self, x, **fit_params):
        x = {key: value for key, value in x.items() if key != "sample_weight"}
        return super().infer(x, **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        """Weighted mean of the per-document losses, plus ``penalty`` × the mean penalty.

        A document's weight is its ``sample_weight`` (1 if none) times the
        ``class_weight`` of its class (1 if none); the loss is
        Σ wᵢ lossᵢ / Σ wᵢ, so weights of ones give the plain mean.
        """
        logits = y_pred[0]
        y_true = y_true.to(logits.device)
        losses = self.criterion_(logits, y_true)
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
        if not isinstance(dataset, DocumentDataset):
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
            sampler = BucketBatchSampler(
                dataset.sort_keys,
                self.batch_size,
                shuffle=True,
                pool_batches=self.bucket_pool,
                sizes=dataset.lengths,
                max_tokens=self.batch_tokens,
            )
            return DataLoader(dataset, batch_sampler=sampler, collate_fn=dataset.collate, **extra)
        return DataLoader(
            dataset, batch_size=self.batch_size, shuffle=False, collate_fn=dataset.collate, **extra
        )

    def load_embeddings(self, vectors: np.ndarray | None, freeze: bool = False) -> None:
        """Copy initial word vectors into the module's ``embedding``; optionally freeze it."""
        embedding = self.module_.embedding
        if vectors is not None:
            with torch.no_grad():
                embedding.weight.copy_(torch.as_tensor(vectors, dtype=embedding.weight.dtype))
        embedding.weight.requires_grad_(not freeze)

    def iter_sorted_outputs(
        self, dataset: DocumentDataset
    ) -> Iterator[tuple[np.ndarray, dict, tuple]]:
        """Yield ``(document_indices, batch, module_output)`` over length-sorted batches."""
        order = np.argsort(dataset.sort_keys, kind="stable")
        self.module_.eval()
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                X, _ = dataset.collate(rows)
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
            size (see ``PER_DOCUMENT``).

        Returns
        -------
        dict of str to ndarray or list of ndarray
        """
        collected: dict[str, list] = {field: [None] * len(dataset) for field in fields}
        for rows, X, output in self.iter_sorted_outputs(dataset):
            lengths = X["lengths"].cpu().numpy()
            for field in fields:
                values = getattr(output, field).cpu().numpy()
                if field in PER_DOCUMENT:
                    values = PER_DOCUMENT[field](values, lengths)
                for row, value in zip(rows, values):
                    collected[field][row] = value
        return {
            field: np.stack(values) if _same_shape(values) else values
            for field, values in collected.items()
        }


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
    "sentence_attention": _sentence_attention_per_document,
    "word_attention": _word_attention_per_document,
}


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
            net.module_.load_state_dict(self.state_)
            net.interrupted_ = True
            warnings.warn(
                f"fit was interrupted; the weights of the last finished epoch "
                f"({len(net.history) - 1}) were restored.",
                UserWarning,
                stacklevel=2,
            )

    def _snapshot(self, net):
        self.state_ = {k: v.detach().clone() for k, v in net.module_.state_dict().items()}
        self.in_epoch_ = False


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
_OWN_ITERATOR_ARGS = ("batch_size", "shuffle", "sampler", "batch_sampler", "collate_fn")


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
    """The skorch callback classes among a user's ``callbacks`` (named or not)."""
    types = set()
    for callback in callbacks or []:
        item = callback[1] if isinstance(callback, tuple) else callback
        types.add(item if isinstance(item, type) else type(item))
    return types


def build_net(
    settings: Mapping[str, Any],
    *,
    module: type[torch.nn.Module],
    module_params: Mapping[str, Any],
    n_classes: int,
    valid: DocumentDataset | None = None,
    checkpoint_dir=None,
    penalty: float = 0.0,
    class_weight: Sequence[float] | None = None,
) -> AttentionNet:
    """The skorch net for an estimator's settings.

    Parameters
    ----------
    settings : mapping
        The estimator's parameters (``get_params(deep=False)``): optimizer,
        lr, momentum, weight_decay, clip_grad_norm, lr_schedule,
        warmup_epochs, early_stopping, n_iter_no_change, callbacks,
        net_params, max_epochs, batch_size, device, verbose.
    module : torch.nn.Module class
    module_params : mapping
        Its constructor arguments.
    n_classes : int
    valid : DocumentDataset or None
        The validation split, if any.
    checkpoint_dir : str or None
        Where the best validation epoch is saved (with ``valid``).
    penalty : float
        Coefficient of the module's penalty output.
    class_weight : sequence of float or None
        Loss weight of each encoded class.

    Returns
    -------
    AttentionNet
        Not initialised.
    """
    optimizer = OPTIMIZERS.get(settings["optimizer"], settings["optimizer"])
    optimizer_params = {"optimizer__weight_decay": settings["weight_decay"]}
    if optimizer in (torch.optim.SGD, torch.optim.RMSprop):
        optimizer_params["optimizer__momentum"] = settings["momentum"]
    device = resolve_device(settings["device"])
    if optimizer in (torch.optim.Adam, torch.optim.AdamW) and fused_optimizer_works(
        optimizer, device
    ):
        # One fused kernel per step instead of per-tensor temporaries: measured
        # 1.6x faster for the paper-sized self-attentive network, 1.12x at the
        # defaults, with the same accuracy (benchmarks in RESULTS.md).
        optimizer_params["optimizer__fused"] = True
    user_types = user_callback_types(settings["callbacks"])
    callbacks: list = [("restore_last_epoch", RestoreLastEpoch())]
    if settings["clip_grad_norm"] is not None:
        callbacks.append(("clip", GradientNormClipping(settings["clip_grad_norm"])))
    schedule = warmup_then(
        settings["lr_schedule"], settings.get("warmup_epochs", 0), settings["max_epochs"]
    )
    # A user's scheduler replaces the built-in one instead of stacking on it.
    if schedule is not None and not any(issubclass(t, LRScheduler) for t in user_types):
        callbacks.append(("lr_schedule", LRScheduler(schedule[0], **schedule[1])))
    if settings["early_stopping"]:
        # Validation loss rises from over-confidence while accuracy still
        # improves; stopping on it quits too early.
        callbacks.append(
            (
                "early_stopping",
                EarlyStopping(
                    monitor="valid_acc",
                    lower_is_better=False,
                    patience=settings["n_iter_no_change"],
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
    callbacks.extend(settings["callbacks"] or [])
    return AttentionNet(
        module=module,
        **{f"module__{k}": v for k, v in module_params.items()},
        classes=list(range(n_classes)),
        criterion=torch.nn.CrossEntropyLoss,
        criterion__reduction="none",
        optimizer=optimizer,
        lr=settings["lr"],
        max_epochs=settings["max_epochs"],
        batch_size=settings["batch_size"],
        train_split=None if valid is None else predefined_split(valid),
        callbacks=callbacks,
        device=device,
        verbose=settings["verbose"],
        penalty=penalty,
        class_weight=class_weight,
        batch_tokens=settings.get("batch_tokens"),
        # The user's skorch arguments win over ours (e.g. optimizer__fused=False).
        **{**optimizer_params, **(settings.get("net_params") or {})},
    )


@functools.cache
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


def available_devices() -> list[str]:
    """The devices PyTorch can use here, CPU first.

    Examples
    --------
    >>> available_devices()[0]
    'cpu'
    """
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    return devices


def resolve_device(device: str | None) -> str | None:
    """The device a model runs on, checked before any work starts.

    Parameters
    ----------
    device : str or None
        ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"``,
        ``"cuda:N"``, ``"mps"``, or None (skorch's meaning: leave the
        module where PyTorch creates it, the CPU).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        The device is not a PyTorch device name, or not available here.

    Examples
    --------
    >>> resolve_device("auto") in available_devices()
    True
    """
    if device is None:
        return None
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(
            f"device={device!r} is not a PyTorch device name; use 'auto', 'cpu', 'cuda', "
            "'cuda:N' or 'mps'."
        ) from error
    available = available_devices()
    missing = (
        (parsed.type == "cuda" and not torch.cuda.is_available())
        or (parsed.type == "cuda" and (parsed.index or 0) >= torch.cuda.device_count())
        or (parsed.type == "mps" and "mps" not in available)
        or parsed.type not in ("cpu", "cuda", "mps")
    )
    if missing:
        why = ""
        if parsed.type == "cuda" and torch.version.cuda is None:
            why = f" (this PyTorch {torch.__version__} is built without CUDA)"
        raise ValueError(
            f"device={device!r} is not available on this machine{why}; available: "
            f"{available}. Use device='auto' to take a GPU when there is one."
        )
    return device


# One lock for every thread-count change made by skattn in this process, so
# that two fits running in threads do not restore each other's setting.
_THREADS_LOCK = threading.RLock()


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run a block with ``threads`` intra-op PyTorch threads, then restore.

    PyTorch's thread count is process-wide: the change is visible to other
    threads of the process while the block runs. skattn's own blocks hold
    one lock, so concurrent fits in threads run one after the other rather
    than race; ``threads=None`` leaves PyTorch's setting alone and takes no
    lock.

    Parameters
    ----------
    threads : int or None

    Examples
    --------
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    """
    if threads is None:
        yield
        return
    with _THREADS_LOCK:
        previous = torch.get_num_threads()
        if previous != threads:
            torch.set_num_threads(threads)
        try:
            yield
        finally:
            if torch.get_num_threads() != previous:
                torch.set_num_threads(previous)


@contextlib.contextmanager
def seeded(seed: int, device: str | None) -> Iterator[None]:
    """Seed PyTorch's generators for a block; put their states back after it.

    Only the CPU generator and, for a CUDA ``device``, that GPU's
    generator are seeded and restored; other GPUs are never touched (a
    plain ``torch.manual_seed`` would reseed every GPU of the process).

    Parameters
    ----------
    seed : int
    device : str or None

    Examples
    --------
    >>> before = torch.random.get_rng_state()
    >>> with seeded(0, "cpu"):
    ...     first = torch.rand(1)
    >>> bool((torch.random.get_rng_state() == before).all())
    True
    """
    cuda = device is not None and torch.device(device).type == "cuda"
    gpus = [torch.device(device).index or 0] if cuda else []
    with torch.random.fork_rng(devices=gpus):
        torch.random.default_generator.manual_seed(seed)
        for gpu in gpus:
            torch.cuda.default_generators[gpu].manual_seed(seed)
        yield
