"""What a fit prints: skorch's epoch table, coloured only on a terminal, and a progress bar.

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


def colour_wanted(stream=None, honour_no_color: bool = True) -> bool:
    """Whether ``stream`` (default: standard output) is a terminal without ``NO_COLOR``.

    Examples
    --------
    >>> import io
    >>> colour_wanted(io.StringIO())
    False
    """
    stream = sys.stdout if stream is None else stream
    if honour_no_color and os.environ.get("NO_COLOR"):
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


def progress_callbacks(verbose: int, user_callbacks=None) -> list:
    """A progress bar per epoch (skorch's, on tqdm) when ``verbose`` asks for one.

    ``verbose=1`` shows it on a terminal only (standard error, where tqdm
    writes); ``verbose >= 2`` everywhere; 0 never. A :class:`ProgressBar`
    among the user's callbacks is not doubled.

    Examples
    --------
    >>> progress_callbacks(0), [name for name, _ in progress_callbacks(2)]
    ([], ['progress_bar'])
    """
    from skorch.callbacks import ProgressBar

    if any(isinstance(cb, ProgressBar) for cb in _callbacks_of(user_callbacks)):
        return []
    if verbose >= 2 or (verbose >= 1 and colour_wanted(sys.stderr, honour_no_color=False)):
        return [("progress_bar", ProgressBar())]
    return []


def _callbacks_of(callbacks) -> list:
    """The callback objects of a list of callbacks or (name, callback) pairs."""
    return [cb[1] if isinstance(cb, tuple) else cb for cb in (callbacks or [])]
