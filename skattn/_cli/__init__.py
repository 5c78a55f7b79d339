"""The command line of ``python -m skattn``, one small module per job.

- :mod:`skattn._cli._parser`: the arguments (light imports: ``--help`` and
  ``--version`` load neither torch nor scikit-learn);
- :mod:`skattn._cli._fit`, :mod:`skattn._cli._predict`, :mod:`skattn._cli._explain`,
  :mod:`skattn._cli._export`, :mod:`skattn._cli._compare`: the commands,
  each importing what it needs when it runs;
- :mod:`skattn._cli._extras`: the one-line hint naming the extra to install;
- :mod:`skattn._cli._output`: files written only when asked, never over an
  existing one without ``--force``.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import select
import sys
import warnings
from collections.abc import Iterator

#: Subcommand -> "module:function" that runs it.
COMMANDS = {
    "compare": "skattn._cli._compare:compare",
    "fit": "skattn._cli._fit:fit",
    "predict": "skattn._cli._predict:predict",
    "explain": "skattn._cli._explain:explain",
    "export": "skattn._cli._export:export",
    "serve": "skattn._cli._export:serve",
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m skattn`` and of the ``skattn`` script.

    Errors are printed as one line (``skattn: error: ...``), and so are
    the warnings shown while the command runs in this process (``skattn:
    warning: ...``, with the category named unless it is a plain
    ``UserWarning``), without Python's echo of the source line that raised
    them; ``--debug`` keeps Python's forms. The server of ``serve`` runs in
    a process of its own and keeps Python's form.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, 1 after an error (printed as one line), 2 for
        wrong arguments. A reader that closes standard output early
        (``| head``) ends the command quietly, with status 1.

    Examples
    --------
    >>> main(["compare", "--list"]) == 0  # doctest: +SKIP
    True
    """
    from skattn._cli._parser import parser

    args = parser().parse_args(argv)
    with _warnings_in_one_line(not args.debug):
        return _run(args)


def _run(args) -> int:
    """Run the parsed command; an error becomes one line and an exit status."""
    from skattn._cli._extras import hint
    from skattn._cli._parser import UsageError

    module, _, function = COMMANDS[args.command].partition(":")
    try:
        status = getattr(importlib.import_module(module), function)(args)
        # Flushed here, not at exit, so that a closed pipe is caught below.
        if sys.stdout is not None:
            sys.stdout.flush()
        return status
    except UsageError as error:  # a wrong argument: one line and status 2, as argparse's
        if args.debug:
            raise
        print(f"skattn: error: {error}", file=sys.stderr)
        return 2
    except (Exception, KeyboardInterrupt) as error:
        if isinstance(error, BrokenPipeError) and _stdout_is_closed():
            _silence_stdout()
            return 1
        if args.debug:
            raise
        message = hint(error, args.command) or str(error) or type(error).__name__
        print(f"skattn: error: {message} (--debug shows the traceback)", file=sys.stderr)
        return 1


@contextlib.contextmanager
def _warnings_in_one_line(enabled: bool) -> Iterator[None]:
    """Print each warning shown while the command runs as ``skattn: warning: MESSAGE``.

    Python's default form names a file and line of the library and echoes
    that source line, which on a terminal reads like a crash. Only the
    printed form changes: filters, and code that records warnings (pytest's
    ``warns``), see the same warnings; ``logging.captureWarnings`` logs the
    one-line form. With ``enabled`` false (``--debug``) nothing changes.
    Like :class:`warnings.catch_warnings`, it is not safe to enter from two
    threads at once.
    """
    if not enabled:
        yield
        return
    formatting = warnings.formatwarning
    warnings.formatwarning = _one_line
    try:
        yield
    finally:
        warnings.formatwarning = formatting


def _one_line(message, category, filename, lineno, line=None) -> str:
    """``skattn: warning: [Category: ]message`` on one line (its whitespace collapsed)."""
    kind = "" if category is UserWarning else f"{category.__name__}: "
    return f"skattn: warning: {kind}{' '.join(str(message).split())}\n"


def _stdout_is_closed() -> bool:
    """Whether standard output's reader has gone, not some other pipe or socket.

    Writing what is still buffered fails again on a closed pipe; when nothing
    is buffered, ``poll`` reports an error on a pipe without a reader.
    """
    if sys.stdout is None:
        return False
    try:
        sys.stdout.flush()
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except BrokenPipeError:
        return True
    except (AttributeError, OSError, ValueError):  # no descriptor, or no poll (Windows)
        return False


def _silence_stdout() -> None:
    """Point standard output at the null device: its reader has gone (``| head``).

    Python's own advice for a closed pipe (see "Note on SIGPIPE" in the
    ``signal`` module's documentation): the interpreter flushes standard
    output at exit, and would fail on the closed pipe again.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
