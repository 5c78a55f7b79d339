"""Where a command writes: a file it may write, or standard output."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from skattn.utils._archives import atomic_write, refuse_same_file


def document_file(args) -> Path | None:
    """The documents' file of ``predict`` or ``explain`` (None: ``--text``), checked.

    The file comes after the model or as ``--file``, once; without either,
    ``--text`` gives the documents.

    Examples
    --------
    >>> from argparse import Namespace
    >>> document_file(Namespace(input=None, file=None, text=["a film"])) is None
    True
    >>> document_file(Namespace(input=None, file=None, text=None))
    Traceback (most recent call last):
    ...
    ValueError: no documents: give an input file, --file or --text
    """
    if args.input is not None and (args.text or args.file):
        raise ValueError("give the documents once: an input file, --file or --text")
    source = args.input or args.file
    if source is None and not args.text:
        raise ValueError("no documents: give an input file, --file or --text")
    if source is not None and not source.is_file():
        raise FileNotFoundError(f"{source}: no such file")
    return source


def check_output(output: Path, force: bool, **inputs: os.PathLike | None) -> None:
    """Refuse an output that is an input, or that exists (unless ``force``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> existing = pathlib.Path(tempfile.mkdtemp()) / "out.csv"
    >>> _ = existing.write_text("")
    >>> check_output(existing, force=True)
    >>> check_output(existing, force=False)
    Traceback (most recent call last):
    ...
    FileExistsError: ... exists; --force overwrites it, or choose another output path.
    """
    refuse_same_file(output, **inputs)
    if output.exists() and not force:
        raise FileExistsError(
            f"{output} exists; --force overwrites it, or choose another output path."
        )


@contextlib.contextmanager
def opened(output: Path | None, newline: str | None = None) -> Iterator[IO[str]]:
    """A file written beside ``output`` and moved over it at the end, or standard output."""
    if output is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    with atomic_write(output, newline=newline) as handle:
        yield handle


def import_function(option: str, value: str):
    """The function named ``module:function`` by a command-line option."""
    import importlib

    module, _, function = value.partition(":")
    if not function:
        raise ValueError(f"{option} {value!r}: expected module:function")
    return getattr(importlib.import_module(module), function)
