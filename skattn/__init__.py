"""skattn: attention models for text classification and regression as scikit-learn estimators.

The public names below are imported on first use, so that ``import
skattn.modules`` (pure PyTorch) does not load scikit-learn and skorch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from skattn._version import __version__

#: Public name -> the module that defines it.
_PUBLIC = {
    "HierarchicalAttentionClassifier": "skattn.classifiers",
    "HierarchicalAttentionRegressor": "skattn.regressors",
    "SelfAttentiveClassifier": "skattn.classifiers",
    "SelfAttentiveRegressor": "skattn.regressors",
    "SelfAttentiveEmbedder": "skattn.embedders",
    "SelfAttentivePairClassifier": "skattn.pair_models",
    "SelfAttentivePairRegressor": "skattn.pair_models",
    "TextEncoder": "skattn.text",
    "load": "skattn.persistence",
    "save": "skattn.persistence",
}

__all__ = [
    "HierarchicalAttentionClassifier",
    "HierarchicalAttentionRegressor",
    "SelfAttentiveClassifier",
    "SelfAttentiveRegressor",
    "SelfAttentiveEmbedder",
    "SelfAttentivePairClassifier",
    "SelfAttentivePairRegressor",
    "TextEncoder",
    "__version__",
    "load",
    "save",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from skattn.classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    from skattn.embedders import SelfAttentiveEmbedder
    from skattn.pair_models import SelfAttentivePairClassifier, SelfAttentivePairRegressor
    from skattn.persistence import load, save
    from skattn.regressors import HierarchicalAttentionRegressor, SelfAttentiveRegressor
    from skattn.text import TextEncoder


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'skattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
