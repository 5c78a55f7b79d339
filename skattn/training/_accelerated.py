"""Data-parallel training and mixed precision through Hugging Face accelerate.

The nets an estimator builds when its ``accelerator`` parameter is set
(:func:`skattn.training.build_net` chooses them): skorch's
:class:`~skorch.hf.AccelerateMixin` on :class:`~skattn.training.AttentionNet`
and its multi-label and regression siblings, with training batches shared
out among the processes in an order they all draw alike, validation and
inference in full in every process, and clipping on the averaged, unscaled
gradients; and the checks and seed every process must share
(:func:`check_accelerator`, :func:`shared_seed`). accelerate itself is
imported only when an accelerator is given. See the *Distributed training*
page of the user guide.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from skorch.callbacks import Callback, GradientNormClipping
from skorch.hf import AccelerateMixin
from skorch.utils import to_device

from skattn.training._net import AttentionMultiLabelNet, AttentionNet, AttentionRegressionNet

__all__ = [
    "ACCELERATED_NETS",
    "AcceleratedAttentionMultiLabelNet",
    "AcceleratedAttentionNet",
    "AcceleratedAttentionRegressionNet",
    "AcceleratedGradientNormClipping",
    "ProcessMeanTrainLoss",
    "bf16_recurrent_kernels",
    "check_accelerator",
    "shared_seed",
]


def _module_device(module: torch.nn.Module) -> torch.device | None:
    """Where a module's parameters are (None if it has none)."""
    parameter = next(module.parameters(), None)
    return None if parameter is None else parameter.device


class _AcceleratedNetMixin(AccelerateMixin):
    """skorch's :class:`~skorch.hf.AccelerateMixin`, adapted to what skattn's fit needs.

    - The accelerator prepares the module and optimizer when the training
      loop starts (``fit_loop``), not in ``initialize``: ``fit`` loads
      initial word vectors (and freezes them) after ``initialize``, and
      DistributedDataParallel must see the final parameters. Preparing
      broadcasts the main process's weights to every process. When
      training ends, the module and optimizer are unwrapped again: the
      fitted net is a plain one (it pickles, and predicts in one process).
    - Only training batches are shared out among the processes (each
      epoch's batches are drawn in the same order everywhere, see
      :class:`_SharedBatchOrder`). Validation and inference read every
      document in every process, with no gathering: the replicas hold the
      same weights, so every process scores the validation split alike and
      early stopping, the best-epoch checkpoint and tuned thresholds decide
      alike, and ``predict`` returns every document.
    - Checkpoints: every process writes its own file (the main process under
      the usual name, the others with a ``rank<i>_`` prefix): no barrier and
      no shared file system needed.
    - When training ends the accelerator lets go of the module, optimizer
      and data loaders it prepared for this fit (it would otherwise keep
      every fitted model of a grid search alive).
    """

    def _optimizer_device(self) -> str:
        # skorch's device is None here: the accelerator places the network.
        return str(self.accelerator.device)

    def initialize(self):
        # NeuralNet.initialize: nothing is prepared before fit_loop.
        self._wrapped_with_accelerator = False
        self._prepared = []
        self._order_generator = None
        return super(AccelerateMixin, self).initialize()

    def fit_loop(self, X, y=None, epochs=None, **fit_params):
        # Prepared after on_train_begin: callbacks that keep the optimizer (a
        # learning-rate schedule) keep the plain one, which pickles.
        if self.accelerator.num_processes > 1:
            _check_same_training_data(self, X)
            # One seed for the order of every epoch's batches: the main process's.
            seed = int(torch.randint(2**62, ()).item())
            self._order_generator = torch.Generator().manual_seed(
                shared_seed(seed, self.accelerator)
            )
        self._initialize_accelerator()
        try:
            return super().fit_loop(X, y, epochs=epochs, **fit_params)
        except Exception:
            # on_train_end, which unwraps, runs only after a finished or interrupted loop.
            self._unwrap_accelerator()
            self._release_prepared()
            raise

    def _initialize_accelerator(self):
        # As skorch's, but the criterion (no trainable parameters: DDP refuses
        # it) is only placed on the device, and no scheduler is prepared (the
        # schedules step per epoch, not per batch).
        if self._wrapped_with_accelerator:
            return self
        accelerator = self.accelerator
        with self._current_init_context("criterion"):
            for name in self._criteria:
                criterion = getattr(self, name + "_")
                if isinstance(criterion, torch.nn.Module) and accelerator.device_placement:
                    setattr(self, name + "_", criterion.to(accelerator.device))
        for kind, names, cls in (
            ("module", self._modules, torch.nn.Module),
            ("optimizer", self._optimizers, torch.optim.Optimizer),
        ):
            with self._current_init_context(kind):
                for name in names:
                    item = getattr(self, name + "_")
                    if isinstance(item, cls):
                        item = accelerator.prepare(item)
                        setattr(self, name + "_", item)
                        self._prepared.append(item)
        self._wrapped_with_accelerator = True
        return self

    def _training_batches(self, sampler):
        if self.accelerator.num_processes == 1:
            return sampler
        if self._order_generator is None:  # an iterator built outside fit_loop
            seed = shared_seed(int(torch.randint(2**62, ()).item()), self.accelerator)
            self._order_generator = torch.Generator().manual_seed(seed)
        return _SharedBatchOrder(sampler, self.accelerator.num_processes, self._order_generator)

    def training_steps(self, dataset) -> int:
        # Each process steps once per batch of its share (see _SharedBatchOrder).
        return -(-super().training_steps(dataset) // self.accelerator.num_processes)

    def get_iterator(self, dataset, training=False):
        iterator = super(AccelerateMixin, self).get_iterator(dataset, training=training)
        if not training:
            return iterator
        iterator = self.accelerator.prepare(iterator)
        self._prepared.append(iterator)
        return iterator

    def infer(self, x, **fit_params):
        # Training batches come placed by the accelerator; validation and
        # inference batches go where the module is (device is None).
        device = _module_device(self.module_)
        if device is not None:
            x = to_device(x, device)
        return super().infer(x, **fit_params)

    def evaluation_step(self, batch, training=False):
        # Every process evaluates every document: nothing to gather.
        return super(AccelerateMixin, self).evaluation_step(batch, training=training)

    def on_train_end(self, net, X=None, y=None, **kwargs):
        super().on_train_end(net, X=X, y=y, **kwargs)
        self._release_prepared()
        return self

    def _unwrap_accelerator(self):
        # skorch unwraps the module and criterion; the optimizer too here
        # (accelerate's wrapper cannot be pickled), keeping its state.
        if not self._wrapped_with_accelerator:
            return
        super()._unwrap_accelerator()
        from accelerate.optimizer import AcceleratedOptimizer

        for name in self._optimizers:
            optimizer = getattr(self, name + "_")
            if isinstance(optimizer, AcceleratedOptimizer):
                setattr(self, name + "_", optimizer.optimizer)

    def _release_prepared(self) -> None:
        """Drop the accelerator's references to what it prepared for this net."""
        prepared = {id(item) for item in self._prepared}
        for registry in ("_models", "_optimizers", "_dataloaders"):
            items = getattr(self.accelerator, registry, None)
            if isinstance(items, list):
                items[:] = [item for item in items if id(item) not in prepared]
        self._prepared = []

    @contextlib.contextmanager
    def _bare_modules(self):
        """Within the block the module and criterion are unwrapped (plain state-dict keys)."""
        names = [*self._modules, *self._criteria]
        wrapped = {name: getattr(self, name + "_") for name in names}
        try:
            if self._wrapped_with_accelerator:
                for name, module in wrapped.items():
                    if isinstance(module, torch.nn.Module):
                        setattr(self, name + "_", self.accelerator.unwrap_model(module))
            yield
        finally:
            for name, module in wrapped.items():
                setattr(self, name + "_", module)

    def save_params(self, *args, **kwargs):
        # Each process writes its own files (a collective-free save; see the class notes).
        with self._bare_modules():
            super(AccelerateMixin, self).save_params(*args, **kwargs)

    def load_params(self, *args, **kwargs):
        device = self.device
        self.device = device or "cpu"  # skorch maps the tensors to its device
        try:
            with self._bare_modules():
                super(AccelerateMixin, self).load_params(*args, **kwargs)
        finally:
            self.device = device

    def __getstate__(self):
        state = super().__getstate__()
        # What this fit prepared is the accelerator's business, not the fitted model's.
        state["_prepared"] = []
        state["_order_generator"] = None
        # skorch maps the tensors to ``device`` when unpickling: the module's.
        if state.get("device") is None and "module_" in self.__dict__:
            state["device"] = str(_module_device(self.module_) or "cpu")
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.device = None  # the accelerator places the network


class AcceleratedAttentionNet(_AcceleratedNetMixin, AttentionNet):
    """:class:`AttentionNet` trained through an ``accelerate.Accelerator``.

    skorch's :class:`~skorch.hf.AccelerateMixin` with the changes skattn
    needs: the accelerator prepares the network when training starts (after
    ``fit`` has loaded initial word vectors); only training batches are
    shared out among the processes, in an order every process draws alike
    (each epoch's batches split so that their number divides among the
    processes: no document is dropped or repeated); validation and inference
    read every document in every process, so every process decides early
    stopping, checkpoints and thresholds alike and ``predict`` returns every
    document; each process writes its own checkpoint file; gradient clipping
    goes through the accelerator (on unscaled gradients averaged over the
    processes). An estimator's ``accelerator`` parameter makes
    :func:`build_net` choose it.

    Parameters
    ----------
    accelerator : accelerate.Accelerator
    **kwargs
        As :class:`AttentionNet`; ``device`` must stay None (the
        accelerator places the network).

    Examples
    --------
    >>> from accelerate import Accelerator
    >>> from skattn import SelfAttentiveClassifier
    >>> model = SelfAttentiveClassifier(hidden_size=4, accelerator=Accelerator(cpu=True))
    >>> net = model.build_network(n_outputs=2, vocab_size=10)
    >>> type(net).__name__, net.device, net.accelerator.num_processes
    ('AcceleratedAttentionNet', None, 1)
    """


class AcceleratedAttentionRegressionNet(_AcceleratedNetMixin, AttentionRegressionNet):
    """:class:`AttentionRegressionNet` trained through an ``accelerate.Accelerator``.

    As :class:`AcceleratedAttentionNet`, for regressors.

    Examples
    --------
    >>> from accelerate import Accelerator
    >>> from skattn import SelfAttentiveRegressor
    >>> model = SelfAttentiveRegressor(hidden_size=4, accelerator=Accelerator(cpu=True))
    >>> type(model.build_network(n_outputs=1, vocab_size=10)).__name__
    'AcceleratedAttentionRegressionNet'
    """


class AcceleratedAttentionMultiLabelNet(_AcceleratedNetMixin, AttentionMultiLabelNet):
    """:class:`AttentionMultiLabelNet` trained through an ``accelerate.Accelerator``.

    As :class:`AcceleratedAttentionNet`, for multi-label targets.

    Examples
    --------
    >>> from accelerate import Accelerator
    >>> from skattn import SelfAttentiveClassifier
    >>> model = SelfAttentiveClassifier(hidden_size=4, accelerator=Accelerator(cpu=True))
    >>> net = model.build_network(n_outputs=3, vocab_size=10, task="multilabel")
    >>> type(net).__name__
    'AcceleratedAttentionMultiLabelNet'
    """


#: The accelerated class of each net class :func:`build_net` makes.
ACCELERATED_NETS: dict[type, type] = {
    AttentionNet: AcceleratedAttentionNet,
    AttentionRegressionNet: AcceleratedAttentionRegressionNet,
    AttentionMultiLabelNet: AcceleratedAttentionMultiLabelNet,
}


class _SharedBatchOrder:
    """An epoch's training batches, the same on every process, in a number that divides among them.

    Each epoch the wrapped sampler draws its batches with torch's CPU
    generator seeded from ``generator`` (which every process seeds alike),
    inside a fork of that generator (the process's own random stream, which
    dropout draws from, is left alone). While the number of batches is not
    a multiple of ``num_processes``, the largest batch is cut in two.
    accelerate's ``BatchSamplerShard`` then deals the batches out in turn:
    as this sampler declares no fixed ``batch_size``, it neither drops the
    short batches nor repeats documents to even them out, so each process's
    share of an epoch is disjoint from the others' and together they are
    the whole training split.
    """

    def __init__(self, sampler, num_processes: int, generator: torch.Generator):
        self.sampler = sampler
        self.num_processes = num_processes
        self.generator = generator

    def __len__(self) -> int:
        n = len(self.sampler)
        return n + (-n) % self.num_processes

    def __iter__(self) -> Iterator[list[int]]:
        seed = int(torch.randint(2**62, (), generator=self.generator).item())
        with torch.random.fork_rng(devices=[]):
            torch.random.default_generator.manual_seed(seed)
            batches = [list(batch) for batch in self.sampler]
        yield from _split_to_multiple(batches, self.num_processes)


def _split_to_multiple(batches: list[list[int]], n: int) -> list[list[int]]:
    """Cut the largest batches in two until ``n`` divides their number (order otherwise kept).

    Examples
    --------
    >>> _split_to_multiple([[0, 1, 2], [3], [4, 5]], 2)
    [[0], [1, 2], [3], [4, 5]]
    """
    batches = list(batches)
    while len(batches) % n:
        largest = max(range(len(batches)), key=lambda i: len(batches[i]))
        batch = batches[largest]
        if len(batch) < 2:
            raise ValueError(
                f"{sum(map(len, batches))} training documents cannot be shared out among "
                f"{n} processes in whole batches; train on more documents (or fewer processes)."
            )
        half = len(batch) // 2
        batches[largest : largest + 1] = [batch[:half], batch[half:]]
    return batches


def _dataset_digest(dataset) -> int:
    """A 63-bit digest of which documents a dataset holds, in which order, with which targets."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(str(len(dataset)).encode())
    for name in ("index", "lengths", "labels"):
        value = getattr(dataset, name, None)
        if value is not None:
            digest.update(np.ascontiguousarray(value).tobytes())
    return int.from_bytes(digest.digest(), "little") >> 1


def _check_same_training_data(net, train) -> None:
    """Fail on every process alike when the processes would train on different documents."""
    split = getattr(net.train_split, "keywords", {}).get("valid_ds")
    digests = [_dataset_digest(train), 0 if split is None else _dataset_digest(split)]
    accelerator = net.accelerator
    local = torch.tensor(digests, dtype=torch.int64, device=accelerator.device)
    every = accelerator.gather(local).view(accelerator.num_processes, -1)
    if not bool((every == every[0]).all()):
        raise RuntimeError(
            "accelerator: the processes hold different training or validation documents, so "
            "their shares of each epoch would overlap. Give every process the same X and y, "
            "and set random_state to an int so that every process draws the same validation "
            "split."
        )


class ProcessMeanTrainLoss(Callback):
    """Each epoch's ``train_loss``: the mean over the batches of every process.

    Each process trains on its own share of the batches; this replaces the
    mean over its own by the mean over all (one all-reduce of two numbers an
    epoch), so that every process's history holds the same ``train_loss``.
    :func:`~skattn.training.build_net` adds it to nets trained by more than one
    process.

    Examples
    --------
    >>> from skorch.callbacks import Callback
    >>> isinstance(ProcessMeanTrainLoss(), Callback)
    True
    """

    def on_epoch_end(self, net, **kwargs):
        batches = [b for b in net.history[-1, "batches"] if "train_loss" in b]
        sums = [
            sum(b["train_loss"] * b["train_batch_size"] for b in batches),
            sum(b["train_batch_size"] for b in batches),
        ]
        accelerator = net.accelerator
        total = torch.tensor(sums, dtype=torch.float64, device=accelerator.device)
        total = accelerator.reduce(total, reduction="sum")
        loss = float(total[0] / total[1])
        earlier = [epoch["train_loss"] for epoch in net.history[:-1] if "train_loss" in epoch]
        net.history.record("train_loss", loss)
        net.history.record("train_loss_best", not earlier or loss < min(earlier))


class AcceleratedGradientNormClipping(GradientNormClipping):
    """skorch's norm clipping through the accelerator: on unscaled gradients, once accumulated.

    Examples
    --------
    >>> AcceleratedGradientNormClipping(0.5).gradient_clip_value
    0.5
    """

    def on_grad_computed(self, net, named_parameters, **kwargs):
        if self.gradient_clip_value is None or not net.accelerator.sync_gradients:
            return
        net.accelerator.clip_grad_norm_(
            [p for _, p in named_parameters],
            self.gradient_clip_value,
            norm_type=self.gradient_clip_norm_type,
        )


def check_accelerator(accelerator: Any, recurrent_layers: tuple[str, ...] = ()) -> None:
    """Fail before training on an ``accelerator`` skattn cannot train with.

    Parameters
    ----------
    accelerator : accelerate.Accelerator or None
        None (no accelerator) passes.
    recurrent_layers : tuple of str, default=()
        The ``torch.nn`` recurrent layers the network trains (``"LSTM"``,
        ``"GRU"``): with bf16 mixed precision on a CPU, each is probed
        (:func:`bf16_recurrent_kernels`).

    Raises
    ------
    ImportError
        accelerate is not installed.
    TypeError
        ``accelerator`` is not an ``accelerate.Accelerator``.
    ValueError
        It splits or dispatches batches, which skattn's length-bucketed
        batches of varying size cannot follow; or it asks for bf16 mixed
        precision on a CPU whose kernels cannot run the recurrent layers in
        bfloat16 (:func:`bf16_recurrent_kernels`).

    Warns
    -----
    UserWarning
        A launcher started several processes (``WORLD_SIZE``) but the
        accelerator runs alone: each process would train on all the data by
        itself (on CPUs, create it as ``Accelerator(cpu=True)``).

    Examples
    --------
    >>> from accelerate import Accelerator
    >>> check_accelerator(Accelerator(cpu=True))
    >>> check_accelerator("cpu")
    Traceback (most recent call last):
    ...
    TypeError: accelerator must be an accelerate.Accelerator or None, got str...
    """
    if accelerator is None:
        return
    try:
        from accelerate import Accelerator
    except ImportError as error:
        raise ImportError(
            "the accelerator parameter needs Hugging Face accelerate: "
            'pip install "skattn[distributed]"'
        ) from error
    if not isinstance(accelerator, Accelerator):
        raise TypeError(
            f"accelerator must be an accelerate.Accelerator or None, got "
            f"{type(accelerator).__name__} ({accelerator!r})."
        )
    _check_processes(accelerator)
    _check_batch_options(accelerator)
    _check_bf16(accelerator, recurrent_layers)


def _check_processes(accelerator) -> None:
    """Warn when a launcher started several processes but the accelerator runs alone."""
    launched = int(os.environ.get("WORLD_SIZE", "1") or 1)
    if launched > 1 and accelerator.num_processes == 1:
        warnings.warn(
            f"accelerator: the launcher started {launched} processes (WORLD_SIZE) but the "
            "accelerator runs in this one alone, so each process trains on all the data by "
            "itself. On CPUs create it as Accelerator(cpu=True).",
            UserWarning,
            stacklevel=4,
        )


def _check_batch_options(accelerator) -> None:
    """Refuse split or dispatched batches, which skattn's batches cannot follow."""
    config = getattr(accelerator, "dataloader_config", None)
    for option in ("split_batches", "dispatch_batches"):
        if getattr(config, option, False):
            raise ValueError(
                f"accelerator: {option}=True is not supported: skattn's training batches "
                "are grouped by length and vary in size, and each process draws its own "
                "share of them. Leave it off and set batch_size per process (the batch of "
                "one step is batch_size × the number of processes)."
            )


def _check_bf16(accelerator, recurrent_layers: tuple[str, ...]) -> None:
    """Refuse bf16 on a CPU whose kernels cannot train the network's recurrent layers."""
    bf16_on_cpu = getattr(accelerator, "mixed_precision", "no") == "bf16" and (
        accelerator.device.type == "cpu"
    )
    missing = bf16_recurrent_kernels(tuple(recurrent_layers)) if bf16_on_cpu else None
    if recurrent_layers and missing:
        raise ValueError(
            "accelerator: mixed_precision='bf16' cannot train on this CPU: its kernels "
            f"cannot run the recurrent layers in bfloat16 ({missing}). Create the "
            "accelerator without mixed precision (Accelerator(cpu=True)), or train in "
            "bf16 on a CPU with bfloat16 support (AVX512-BF16 or AMX) or a GPU."
        )


#: The recurrent layers :func:`bf16_recurrent_kernels` can probe, by name.
_RECURRENT_LAYERS = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU}


@functools.lru_cache(maxsize=8)
def bf16_recurrent_kernels(layers: tuple[str, ...] = ("LSTM", "GRU")) -> str | None:
    """Why this CPU cannot train ``layers`` in bfloat16, or None if it can.

    CPU autocast runs ``nn.LSTM`` in bfloat16 through oneDNN, which has no
    bfloat16 recurrent kernel on CPUs without bfloat16 instructions (it
    fails mid-training with "could not create a primitive descriptor").
    This runs a tiny bidirectional layer of each kind forward and backward
    under bfloat16 autocast, once per process and set of layers, and
    reports the error.

    Parameters
    ----------
    layers : tuple of {"LSTM", "GRU"}, default=("LSTM", "GRU")
        The ``torch.nn`` recurrent layers to probe.

    Returns
    -------
    str or None
        The first layer that failed and its error; None if all ran.

    Examples
    --------
    >>> bf16_recurrent_kernels() is None or "bfloat16" in bf16_recurrent_kernels()
    True
    """
    if not torch.amp.is_autocast_available("cpu"):
        return "this PyTorch has no bfloat16 autocast on the CPU"
    generator = torch.Generator().manual_seed(0)
    for name in layers:
        layer = _RECURRENT_LAYERS[name]
        module = layer(4, 4, batch_first=True, bidirectional=True)
        inputs = torch.randn(2, 3, 4, generator=generator, requires_grad=True)
        try:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                outputs, _ = module(inputs)
            outputs.float().sum().backward()
        except RuntimeError as error:
            return f"{name} in bfloat16: {str(error).splitlines()[0]}"
    return None


def shared_seed(seed: int, accelerator: Any = None) -> int:
    """The main process's ``seed``, on every process of ``accelerator``.

    Parameters
    ----------
    seed : int
        This process's seed (non-negative, below 2**63).
    accelerator : accelerate.Accelerator or None, default=None
        None, or a single process: ``seed`` itself.

    Returns
    -------
    int

    Examples
    --------
    >>> shared_seed(7)
    7
    """
    if accelerator is None or accelerator.num_processes == 1:
        return seed
    from accelerate.utils import broadcast

    value = torch.tensor([seed], dtype=torch.int64, device=accelerator.device)
    return int(broadcast(value, from_process=0).item())
