"""Lazy public packages, and the import paths of skattn 0.3 kept working with one warning.

skattn 0.4 keeps each package's code in private modules behind a public
``__init__`` (:func:`lazy_exports`). The 0.3 layout was flat; its module
paths (``skattn.classifiers``, ``skattn.net``, ...) still import, through a
finder that aliases each to its new module and warns once with a
``FutureWarning`` that names the new place. Models pickled by 0.3 name
their classes by those paths, so they load too.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: 0.3 module -> the 0.4 module that holds its code (or modules, searched in order).
MOVED_MODULES = {
    "skattn.base": "skattn.estimators._base",
    "skattn.classifiers": "skattn.estimators._classifiers",
    "skattn.regressors": "skattn.estimators._regressors",
    "skattn.models": "skattn.estimators._architectures",
    "skattn.pair_models": "skattn.estimators._pairs",
    "skattn.embedders": "skattn.estimators._embedder",
    "skattn._docstrings": "skattn.estimators._docstrings",
    "skattn.thresholds": "skattn.training._thresholds",
    "skattn.text": "skattn.text._encoder",
    "skattn.subwords": "skattn.text._subwords",
    "skattn.truncation": "skattn.text._truncation",
    "skattn.data": "skattn.text._batching",
    "skattn.pair_data": "skattn.text._pairs",
    "skattn.streaming": "skattn.text._streaming",
    "skattn.utils.ordering": "skattn.text._ordering",
    "skattn.embeddings": "skattn.embeddings._vectors",
    "skattn.pretrained": "skattn.embeddings._pretrained",
    "skattn.modules": "skattn.nn",
    "skattn.modules.attention": "skattn.nn._attention",
    "skattn.modules.encoders": "skattn.nn._encoders",
    "skattn.modules.hierarchical": "skattn.nn._hierarchical",
    "skattn.modules.outputs": "skattn.nn._outputs",
    "skattn.modules.pair": "skattn.nn._pair",
    "skattn.modules.pruned": "skattn.nn._pruned",
    "skattn.modules.self_attentive": "skattn.nn._self_attentive",
    "skattn.net": ("skattn.training._net", "skattn.training._build"),
    "skattn.net.accelerated": "skattn.training._accelerated",
    "skattn.epochs": "skattn.training._epochs",
    "skattn.explain": "skattn.explain._explanations",
    "skattn.attribution": "skattn.explain._attribution",
    "skattn.erasure": "skattn.explain._erasure",
    "skattn.faithfulness": "skattn.explain._faithfulness",
    "skattn.baselines": "skattn.baselines._table2",
    "skattn.pair_baselines": "skattn.baselines._pairs",
    "skattn.fasttext_baseline": "skattn.baselines._fasttext",
    "skattn._fasttext_worker": "skattn.baselines._fasttext_worker",
    "skattn.compare.evaluation": "skattn.compare._evaluation",
    "skattn.compare.io": "skattn.compare._io",
    "skattn.compare.multilabel": "skattn.compare._multilabel",
    "skattn.compare.registry": "skattn.compare._registry",
    "skattn.compare.report": "skattn.compare._report",
    "skattn.compare.stats": "skattn.compare._stats",
    "skattn.serving.exporting": "skattn.serving._export",
    "skattn.serving.runtime": "skattn.serving._runtime",
    "skattn.serving.text": "skattn.serving._text",
    "skattn._export_worker": "skattn.serving._export_worker",
    "skattn.partitions": "skattn.serving._partitions",
    "skattn.datasets": "skattn.datasets._corpora",
    "skattn.model_selection": "skattn.model_selection._learning_rate",
    "skattn.utils.params": "skattn.utils._params",
    "skattn.utils.validation": "skattn.utils._validation",
    "skattn.utils.runtime": "skattn.utils._runtime",
}

#: 0.3 modules that were packages (their submodules moved too).
_OLD_PACKAGES = {"skattn.modules", "skattn.net"}

#: The release the 0.3 paths are removed in.
REMOVAL = "0.5"


def public_home(module: str) -> str:
    """The public package a module belongs to (its path up to the first private part).

    Examples
    --------
    >>> public_home("skattn.text._encoder")
    'skattn.text'
    """
    parts = module.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_"):
            return ".".join(parts[:i])
    return module


def _warn(message: str) -> None:
    warnings.warn(message, FutureWarning, stacklevel=3)


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for a package whose names are imported on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        Public name -> the module that defines it.

    Returns
    -------
    tuple of callables
        Module-level ``__getattr__`` (PEP 562) and ``__dir__``. A name that
        0.3 defined in the module this package replaced, but that is not
        public any more, is still given, with a ``FutureWarning``.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("pkg", {"sqrt": "math"})
    >>> getattr_("sqrt")(4.0), dir_()
    (2.0, ['sqrt'])
    """
    namespace = sys.modules.get(package)
    former = MOVED_MODULES.get(package)
    if former is not None and not isinstance(former, str):
        former = former[0]

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
            if namespace is not None:
                setattr(namespace, name, value)
            return value
        if former is not None and not name.startswith("__"):
            module = importlib.import_module(former)
            if hasattr(module, name):
                _warn(
                    f"{package}.{name} is no longer part of skattn's public API; it goes "
                    f"in {REMOVAL}."
                )
                return getattr(module, name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__


class _MovedModule(importlib.abc.Loader):
    """A 0.3 module path: a module that hands every attribute on to the new module."""

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        new = MOVED_MODULES[old]
        homes = (new,) if isinstance(new, str) else new
        _warn(
            f"{old} moved in skattn 0.4: import from {public_home(homes[0])} instead; the old "
            f"path goes in {REMOVAL}."
        )
        targets = [importlib.import_module(home) for home in homes]

        def __getattr__(name: str) -> Any:
            for target in targets:
                if hasattr(target, name):
                    return getattr(target, name)
            raise AttributeError(f"module {old!r} has no attribute {name!r}")

        module.__getattr__ = __getattr__
        module.__dir__ = lambda: sorted({n for target in targets for n in dir(target)})
        if old in _OLD_PACKAGES:
            module.__path__ = []  # a package: its old submodules import through the finder


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the 0.3 module paths of :data:`MOVED_MODULES`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(
            fullname, _MovedModule(), is_package=fullname in _OLD_PACKAGES
        )


def install() -> None:
    """Make the 0.3 module paths importable (once per process).

    Examples
    --------
    >>> install()
    >>> sum(isinstance(f, _MovedModuleFinder) for f in sys.meta_path)
    1
    """
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
