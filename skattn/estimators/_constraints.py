"""The parameter constraints every attention estimator shares (checked by validate_params)."""

from __future__ import annotations

import os
from numbers import Integral, Real

from skattn.training._net import OPTIMIZERS
from skattn.training._thresholds import THRESHOLD_OPTIONS
from skattn.utils._params import POSITIVE_INT, Interval, Options

__all__ = ["COMMON_CONSTRAINTS", "NOTABLE_SHARE"]

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
    # An accelerate.Accelerator: checked by skattn.training._net when the net is built.
    "accelerator": "no_validation",
    "threads": [POSITIVE_INT, None],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}
