"""Giving back memory a fit no longer uses, so that a long fit's footprint stays flat.

Two kinds of memory outlive their use in a fit from a large corpus:

- pages the C allocator keeps after the arrays in them are freed (glibc
  keeps freed blocks in its heap for reuse, and the many short-lived
  tensors of varying size that batches of varying length make leave it
  fragmented, so the resident size creeps up through an epoch);
  :func:`release_free_memory` hands them back (glibc's ``malloc_trim``);
- pages of memory-mapped files (``memmap_dir=``) that a pass has read:
  they stay resident, and counted in the process's memory, until the
  system needs them; :func:`release_mapped_pages` drops them from the
  process (the data stays in the file, and in the page cache while there
  is room, and is read back on the next access).

Both are safe at any time: nothing in use is touched, only the resident
size changes. Elsewhere than on glibc (macOS, Windows, musl) the first
does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import sys
from collections.abc import Iterable

import numpy as np

__all__ = ["mapped_file_of", "release_free_memory", "release_mapped_pages"]


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # glibc's; musl has none
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Hand the pages the C allocator holds free back to the system.

    Returns
    -------
    bool
        Whether this platform's allocator can (glibc: True).

    Examples
    --------
    >>> import sys
    >>> release_free_memory() or not sys.platform.startswith("linux")
    True
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def mapped_file_of(array: np.ndarray) -> mmap.mmap | None:
    """The memory map ``array``'s data lives in (``np.load(..., mmap_mode=...)``), or None.

    Parameters
    ----------
    array : ndarray

    Returns
    -------
    mmap.mmap or None

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.npy")
    >>> np.save(path, np.arange(3))
    >>> mapped_file_of(np.load(path, mmap_mode="r")[1:]) is not None
    True
    >>> mapped_file_of(np.arange(3)) is None
    True
    """
    return _walk_to_mapping(array)[0]


def _walk_to_mapping(array: np.ndarray) -> tuple[mmap.mmap | None, bool]:
    """The map behind ``array`` (or None), and whether every memmap on the way is read-only."""
    read_only = True
    base = array
    while base is not None:
        if isinstance(base, mmap.mmap):
            return base, read_only
        if isinstance(base, np.memmap) and base.mode != "r":
            read_only = False
        base = getattr(base, "base", None)
    return None, read_only


def release_mapped_pages(arrays: Iterable[np.ndarray | None]) -> int:
    """Drop the resident pages of the memory-mapped files behind ``arrays``.

    Parameters
    ----------
    arrays : iterable of ndarray or None
        Arrays that are not memory-mapped (and None) are skipped.

    Returns
    -------
    int
        How many mappings were released.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "a.npy")
    >>> np.save(path, np.arange(1000))
    >>> ids = np.load(path, mmap_mode="r")
    >>> int(ids.sum()), release_mapped_pages([ids, np.arange(3), None]), int(ids.sum())
    (499500, 1, 499500)
    """
    if not hasattr(mmap, "MADV_DONTNEED"):
        return 0
    released = 0
    seen: set[int] = set()
    for array in arrays:
        # Only read-only maps: dropping pages of a private (copy-on-write)
        # map would lose what was written to it.
        if array is None or array.flags.writeable:
            continue
        mapping, read_only = _walk_to_mapping(array)
        if mapping is None or not read_only or id(mapping) in seen:
            continue
        seen.add(id(mapping))
        mapping.madvise(mmap.MADV_DONTNEED)
        released += 1
    return released
