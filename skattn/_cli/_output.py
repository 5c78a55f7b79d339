"""Where a command writes: a file it may write, or standard output."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from skattn.utils._archives import atomic_write, refuse_same_file

#: The input ``-``: standard input, one document a line (``predict`` only).
STDIN = Path("-")


def document_file(args, stdin: bool = False) -> Path | None:
    """The documents' file of ``predict`` or ``explain`` (None: ``--text``), checked.

    The file comes after the model or as ``--file``, once; without either,
    ``--text`` gives the documents. With ``stdin``, ``-`` is standard input.

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
    if source == STDIN:
        if not stdin:
            raise ValueError("'-' (standard input) is predict's; give a file or --text")
        return source
    if source is not None and not source.is_file():
        raise FileNotFoundError(f"{source}: no such file")
    return source


def stdin_documents() -> Iterator[str]:
    """Standard input's lines as documents, as a ``.txt`` file's: UTF-8, one a line.

    Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (as a file read with universal
    newlines); a leading byte order mark is dropped; a byte that is not
    UTF-8 is refused naming its line and column; a blank line is a (blank)
    document.
    """
    from skattn.text._readers import DocumentFileError

    number = 0
    for chunk in sys.stdin.buffer:  # chunks end at a newline; a lone carriage return is split here
        for raw in chunk.splitlines():
            number += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                column = len(raw[: error.start].decode("utf-8")) + 1
                raise DocumentFileError(
                    "standard input", number,
                    f"byte 0x{raw[error.start]:02x} (column {column}) is not UTF-8; "
                    "expected UTF-8 text",
                ) from None  # fmt: skip
            yield line.removeprefix("\ufeff") if number == 1 else line


def check_output(output: Path, force: bool, **inputs: os.PathLike | None) -> None:
    """Refuse an output file that cannot or should not be written.

    That is: one in a folder that does not exist (see
    :func:`check_folder_exists`), a folder, one of the ``inputs``, or an
    existing file unless ``force``.

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
    >>> check_output(existing.parent, force=True)
    Traceback (most recent call last):
    ...
    IsADirectoryError: ... is a folder; expected the path of a file to write.
    """
    check_folder_exists(output)
    refuse_same_file(output, **inputs)
    if output.is_dir():
        raise IsADirectoryError(f"{output} is a folder; expected the path of a file to write.")
    if output.exists() and not force:
        raise FileExistsError(
            f"{output} exists; --force overwrites it, or choose another output path."
        )


def check_folder_exists(output: Path) -> None:
    """Refuse an output whose folder does not exist: a typo must not create folders.

    Examples
    --------
    >>> check_folder_exists(Path("out.csv"))
    >>> check_folder_exists(Path("no/such/out.csv"))
    Traceback (most recent call last):
    ...
    FileNotFoundError: no/such/out.csv: its parent folder no/such does not exist; ...
    """
    folder = output.parent
    if folder.is_dir():
        return
    problem = "is not a folder" if folder.exists() else "does not exist"
    raise FileNotFoundError(
        f"{output}: its parent folder {folder} {problem}; create it first, or correct the path."
    )


def check_suffix(output: Path, suffixes: tuple[str, ...], command: str) -> None:
    """Refuse an output whose suffix, in any case, is not one of the ``suffixes`` written.

    The output's format follows its suffix: any other suffix would get a
    format it does not name.

    Examples
    --------
    >>> check_suffix(Path("OUT.CSV"), (".csv", ".jsonl"), "predict")
    >>> check_suffix(Path("out.parquet"), (".csv", ".jsonl"), "predict")
    Traceback (most recent call last):
    ...
    ValueError: --output out.parquet: predict writes .csv or .jsonl files only ...
    """
    if output.suffix.lower() in suffixes:
        return
    named = ", ".join(suffixes[:-1]) + " or " + suffixes[-1] if len(suffixes) > 1 else suffixes[0]
    given = repr(output.suffix) if output.suffix else "a name without a suffix"
    raise ValueError(
        f"--output {output}: {command} writes {named} files only (the format follows the "
        f"suffix), not {given}; give --output one of those suffixes."
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


def sentence_splitter(value: str):
    """What ``--sentence-split`` names: a built-in name as it is, ``module:function`` imported.

    Examples
    --------
    >>> sentence_splitter("lines"), sentence_splitter("os.path:split").__name__
    ('lines', 'split')
    """
    return import_function("--sentence-split", value) if ":" in value else value
