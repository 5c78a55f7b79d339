"""skattn: attention models for text classification and regression as scikit-learn estimators.

The public names below are imported on first use, so that ``import
skattn.nn`` (pure PyTorch) does not load scikit-learn and skorch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from skattn import _compat
from skattn._version import __version__

# The module paths of skattn 0.3 keep importing (with a FutureWarning).
_compat.install()

#: Public name -> the module that defines it.
_PUBLIC = {
    "HierarchicalAttentionClassifier": "skattn.estimators._classifiers",
    "HierarchicalAttentionRegressor": "skattn.estimators._regressors",
    "SelfAttentiveClassifier": "skattn.estimators._classifiers",
    "SelfAttentiveRegressor": "skattn.estimators._regressors",
    "SelfAttentiveEmbedder": "skattn.estimators._embedder",
    "SelfAttentivePairClassifier": "skattn.estimators._pairs",
    "SelfAttentivePairRegressor": "skattn.estimators._pairs",
    "TextEncoder": "skattn.text._encoder",
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
    from skattn.estimators._classifiers import (
        HierarchicalAttentionClassifier,
        SelfAttentiveClassifier,
    )
    from skattn.estimators._embedder import SelfAttentiveEmbedder
    from skattn.estimators._pairs import SelfAttentivePairClassifier, SelfAttentivePairRegressor
    from skattn.estimators._regressors import (
        HierarchicalAttentionRegressor,
        SelfAttentiveRegressor,
    )
    from skattn.persistence import load, save
    from skattn.text._encoder import TextEncoder


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'skattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
