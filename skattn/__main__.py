"""Command line: ``python -m skattn {compare,predict,explain,export,serve} ...``.

Errors are printed as one line (``skattn: error: ...``) with exit status 1;
``--debug`` shows the traceback instead. The commands live in
:mod:`skattn._cli`, one small module each; this module imports nothing
heavy, so ``--help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import sys

from skattn._cli import main
from skattn._cli._parser import (
    DEFAULT_MODELS,
    DEFAULT_MULTILABEL_MODELS,
    DEFAULT_PAIR_MODELS,
    DEFAULT_REGRESSION_MODELS,
)

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_MULTILABEL_MODELS",
    "DEFAULT_PAIR_MODELS",
    "DEFAULT_REGRESSION_MODELS",
    "main",
]

if __name__ == "__main__":
    sys.exit(main())
