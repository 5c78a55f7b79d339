"""CSV fields of any length, while a reader needs them.

Python's :mod:`csv` refuses a field over 131,072 characters (its
``field_size_limit``) with an error that names neither the file nor the
row. While any :func:`fields_of_any_length` block is open, the module's
limit is raised to the largest the platform allows, and put back as it was
when the last one finishes (a count under a lock, so that threads reading
at once do not undo each other's). The reader that uses it is
:mod:`skattn.text._readers`.
"""

from __future__ import annotations

import contextlib
import csv
import sys
import threading
from collections.abc import Iterator

__all__ = ["fields_of_any_length"]

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
def fields_of_any_length() -> Iterator[None]:
    """Within this block, :mod:`csv` readers take fields of any length.

    Examples
    --------
    >>> import csv
    >>> with fields_of_any_length():
    ...     [len(field) for field in next(csv.reader(["a" * 200_000 + ",b"]))]
    [200000, 1]
    """
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
