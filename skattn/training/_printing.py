"""skorch's epoch table with colour only on a terminal, and never under ``NO_COLOR``.

skorch's :class:`~skorch.callbacks.PrintLog` marks each best value with an
ANSI colour code, whatever it writes to; in a log file those codes are
noise. :func:`print_log` gives skorch's own table where colour is wanted
(standard output is a terminal and ``NO_COLOR`` is unset or empty, see
no-color.org), else :class:`PlainPrintLog`.
"""

from __future__ import annotations

import os
import sys

from skorch.callbacks import PrintLog
from skorch.utils import Ansi


def colour_wanted(stream=None) -> bool:
    """Whether to print colour codes to ``stream`` (default: standard output).

    Examples
    --------
    >>> import io
    >>> colour_wanted(io.StringIO())
    False
    """
    stream = sys.stdout if stream is None else stream
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class PlainPrintLog(PrintLog):
    """skorch's epoch table without colour codes.

    Examples
    --------
    >>> log = PlainPrintLog().initialize()
    >>> log.format_row({"valid_loss": 0.5, "valid_loss_best": True}, "valid_loss", "\\x1b[32m")
    '0.5000'
    """

    def format_row(self, row, key, color):
        return super().format_row(row, key, color="").replace(Ansi.ENDC.value, "")


def print_log() -> type[PrintLog]:
    """The table callback for this process: skorch's own on a terminal, else plain.

    Examples
    --------
    >>> import os
    >>> os.environ["NO_COLOR"] = "1"
    >>> print_log().__name__
    'PlainPrintLog'
    >>> del os.environ["NO_COLOR"]
    """
    return PrintLog if colour_wanted() else PlainPrintLog
