"""CSV rows of any length, and CSV errors that name the file and the row.

Python's :mod:`csv` refuses a field over 131,072 characters (its
``field_size_limit``) with an error that names neither the file nor the
row. :func:`csv_rows` reads fields of any length: while any of its readers
is open, the module's limit is raised to the largest the platform allows,
and put back as it was when the last one finishes (a count under a lock,
so that threads reading at once do not undo each other's). Quoting is read
strictly: without the limit, an unterminated quote would otherwise make the
rest of the file one silent field. Any CSV error is raised as a
``ValueError`` naming the file and the line.
"""

from __future__ import annotations

import contextlib
import csv
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["csv_rows"]

_lock = threading.Lock()
_readers = 0
_previous_limit: int | None = None


def _raise_the_limit() -> int:
    """Set the largest field size this platform's csv module takes (a C long); return it."""
    for limit in (sys.maxsize, 2**31 - 1):
        try:
            csv.field_size_limit(limit)
        except OverflowError:
            continue
        return limit
    raise OverflowError("the csv module takes no field size limit")  # pragma: no cover


@contextlib.contextmanager
def _fields_of_any_length() -> Iterator[None]:
    global _readers, _previous_limit
    with _lock:
        if _readers == 0:
            _previous_limit = csv.field_size_limit()
            _raise_the_limit()
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0:
                csv.field_size_limit(_previous_limit)


def csv_rows(
    lines: Iterable[str], path: str | os.PathLike, *, as_dicts: bool = True, **options: Any
) -> Iterator[Any]:
    """The rows of CSV text: dicts by the header (``as_dicts``) or lists, fields of any length.

    Parameters
    ----------
    lines : iterable of str
        A file opened with ``newline=""``.
    path : str or path-like
        The file's name, for error messages.
    as_dicts : bool, default=True
        Rows as dicts keyed by the header row (:class:`csv.DictReader`),
        else lists (:func:`csv.reader`).
    **options
        Passed to the reader (``delimiter``...); ``strict`` is True unless
        given.

    Yields
    ------
    dict or list

    Raises
    ------
    ValueError
        The CSV is malformed: the message names the file and the line.

    Examples
    --------
    >>> rows = csv_rows(["text,label\\n", '"' + "a" * 200_000 + '",pos\\n'], "big.csv")
    >>> [(len(row["text"]), row["label"]) for row in rows]
    [(200000, 'pos')]
    """
    options.setdefault("strict", True)
    with _fields_of_any_length():
        reader = csv.DictReader(lines, **options) if as_dicts else csv.reader(lines, **options)
        try:
            yield from reader
        except csv.Error as error:
            raise ValueError(f"{os.fspath(path)}: line {reader.line_num}: {error}.") from error
