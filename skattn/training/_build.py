"""From an estimator's settings to its skorch net: the task's loss, the callbacks, accelerate.

:func:`build_net` is the one place that chooses the net class (by task, and
its accelerated sibling under an ``accelerate.Accelerator``), the loss, the
callbacks and the skorch arguments. It sits beside the nets
(``_net.py``) and the accelerated nets (``_accelerated.py``) and imports
both, so neither imports the other's chooser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import torch
from skorch.callbacks import GradientNormClipping
from skorch.helper import predefined_split

from skattn.text._batching import DocumentDataset
from skattn.training._net import (
    AttentionMultiLabelNet,
    AttentionNet,
    AttentionRegressionNet,
    NetConfig,
    optimizer_arguments,
    training_callbacks,
    validation_callbacks,
)
from skattn.training._printing import print_log, progress_callbacks
from skattn.utils._runtime import resolve_device

__all__ = ["build_net"]


class _Head(NamedTuple):
    """What a task asks of the net: its class, its loss and their arguments."""

    net_class: type
    criterion: type[torch.nn.Module]
    arguments: dict[str, Any]
    class_weight: Sequence[float] | None


def _head(task: str, n_classes: int, class_weight: Sequence[float] | None) -> _Head:
    """The net class, loss and arguments of ``task``."""
    if task == "classification":
        classes = {"classes": list(range(n_classes))}
        return _Head(AttentionNet, torch.nn.CrossEntropyLoss, classes, class_weight)
    if task == "multilabel":
        # class_weight: the weight of each label's positive examples.
        arguments = {}
        if class_weight is not None:
            arguments["criterion__pos_weight"] = torch.as_tensor(class_weight, dtype=torch.float32)
        return _Head(AttentionMultiLabelNet, torch.nn.BCEWithLogitsLoss, arguments, None)
    return _Head(AttentionRegressionNet, torch.nn.MSELoss, {}, class_weight)


def _accelerator_arguments(config: NetConfig, callbacks: list) -> dict[str, Any]:
    """The accelerator and its printing for the net; a cross-process loss callback."""
    from skattn.training import _accelerated as accelerated

    accelerator = config.accelerator
    accelerated.check_accelerator(accelerator)
    if accelerator.num_processes > 1:
        callbacks.insert(0, ("train_loss_over_processes", accelerated.ProcessMeanTrainLoss()))
    # skorch's PrintLog writes to any sink but prints whatever the verbosity:
    # the main process prints only when asked to.
    sink = accelerator.print if config.verbose else print
    return {"accelerator": accelerator, "callbacks__print_log__sink": sink}


def _placement(config: NetConfig, net_class: type, callbacks: list):
    """The net class, its device and the accelerator's arguments."""
    if config.accelerator is None:
        return net_class, resolve_device(config.device), {}
    from skattn.training._accelerated import ACCELERATED_NETS

    extra = _accelerator_arguments(config, callbacks)
    # The accelerator places the network (skorch wants device=None).
    return ACCELERATED_NETS[net_class], None, extra


def _callbacks(config: NetConfig, checkpoint_dir, task: str, valid) -> list:
    """Training, validation and the user's callbacks, in that order."""
    clipping = GradientNormClipping
    if config.accelerator is not None:
        # On the unscaled gradients, averaged over the processes.
        from skattn.training._accelerated import AcceleratedGradientNormClipping as clipping
    return [
        *training_callbacks(config, clipping),
        *validation_callbacks(config, checkpoint_dir, task, valid),
        *progress_callbacks(int(config.verbose), config.callbacks),
        *(config.callbacks or []),
    ]


def build_net(
    config: NetConfig,
    *,
    module: type[torch.nn.Module],
    module_params: Mapping[str, Any],
    n_classes: int,
    valid: DocumentDataset | None = None,
    checkpoint_dir=None,
    penalty: float = 0.0,
    class_weight: Sequence[float] | None = None,
    task: str = "classification",
) -> AttentionNet | AttentionRegressionNet | AttentionMultiLabelNet:
    """The skorch net, not initialised, for an estimator's settings.

    Parameters
    ----------
    config : NetConfig
        The training settings.
    module : torch.nn.Module class
    module_params : mapping
        Its constructor arguments.
    n_classes : int
        Classes, labels (multi-label) or outputs (regression): the head's size.
    valid, checkpoint_dir : DocumentDataset, str or None
        The validation split, if any, and where its best epoch is kept.
    penalty : float
        Coefficient of the module's penalty output.
    class_weight : sequence of float or None
        Loss weight of each class (multi-label: of each label's positives).
    task : {"classification", "multilabel", "regression"}, default="classification"

    Examples
    --------
    >>> from skattn.nn import SelfAttentiveNet
    >>> net = build_net(NetConfig(lr=0.1), module=SelfAttentiveNet, n_classes=2,
    ...                 module_params={"vocab_size": 10, "n_classes": 2})
    >>> net.lr, type(net.initialize().optimizer_).__name__
    (0.1, 'Adam')
    """
    callbacks = _callbacks(config, checkpoint_dir, task, valid)
    head = _head(task, n_classes, class_weight)
    net_class, device, extra = _placement(config, head.net_class, callbacks)
    return net_class(
        module=module,
        **{f"module__{k}": v for k, v in module_params.items()},
        **head.arguments,
        criterion=head.criterion,
        class_weight=head.class_weight,
        penalty=penalty,
        train_split=None if valid is None else predefined_split(valid),
        callbacks=callbacks,
        device=device,
        **_training_arguments(config),
        **extra,
        # The user's skorch arguments win over ours (e.g. optimizer__fused=False).
        **{**optimizer_arguments(config), **(config.net_params or {})},
    )


def _training_arguments(config: NetConfig) -> dict[str, Any]:
    """The skorch arguments that come straight from the settings."""
    return {
        "criterion__reduction": "none",  # the nets weigh and average the losses
        "optimizer": config.optimizer_class,
        "lr": config.lr,
        "max_epochs": config.max_epochs,
        "batch_size": config.batch_size,
        "batch_tokens": config.batch_tokens,
        "verbose": config.verbose,
        # Colour codes only on a terminal, never under NO_COLOR.
        "callbacks__print_log": print_log(),
    }
