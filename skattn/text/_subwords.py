"""Character n-grams of words, hashed into buckets (fastText's subword information).

A word's vector can be completed by the mean of the vectors of its
character n-grams (Bojanowski et al. 2017): the word is wrapped in ``<`` and
``>`` and cut into every n-gram with n from :data:`NGRAM_RANGE`, and each
n-gram is hashed (CRC-32 of its UTF-8 bytes, a lone surrogate as its
three-byte form: :func:`skattn.text._unicode.text_bytes`) into one of ``buckets``
learned vectors. Words outside the vocabulary (misspellings, names, chat
spellings) then still get a vector made of pieces seen in training.

:func:`subword_table` gives, for a list of distinct words, a padded table of
n-gram ids: row 0 and the rows of reserved tokens are all padding (id 0),
and real n-gram ids run from 1 to ``buckets``. A word with more than
:data:`MAX_NGRAMS` n-grams keeps the shorter ones first (all 3-grams, then
the 4-grams, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from skattn.text._unicode import text_crc32

#: Lengths of the character n-grams (fastText's default minn=3, maxn=6 trimmed to 5).
NGRAM_RANGE = (3, 5)
#: Most n-grams kept per word (a 12-letter word has 33 of lengths 3 to 5).
MAX_NGRAMS = 32
#: Distinct (word, buckets) whose n-gram ids a process keeps between tables:
#: a search scores the same held-out fold once per candidate, and hashing is
#: most of encoding. About 25 MiB when full of words of 3 to 12 letters. A
#: table of more distinct words than this gains nothing when built again:
#: least-recently-used eviction drops each word just before it is needed.
KEPT_WORDS = 1 << 16
#: Longer words are hashed every time, so that the kept words' bytes stay bounded.
KEPT_WORD_MAX_LENGTH = 40


def char_ngrams(word: str, ngram_range: tuple[int, int] = NGRAM_RANGE) -> list[str]:
    """Character n-grams of ``<word>``, shortest first.

    Examples
    --------
    >>> char_ngrams("film", (3, 4))
    ['<fi', 'fil', 'ilm', 'lm>', '<fil', 'film', 'ilm>']
    """
    wrapped = f"<{word}>"
    low, high = ngram_range
    return [wrapped[i : i + n] for n in range(low, high + 1) for i in range(len(wrapped) - n + 1)]


def ngram_ids(
    word: str,
    buckets: int,
    ngram_range: tuple[int, int] = NGRAM_RANGE,
    max_ngrams: int = MAX_NGRAMS,
) -> list[int]:
    """Bucket ids (1 … ``buckets``) of a word's n-grams, the first ``max_ngrams``.

    The served runtime passes the lengths and the limit its artefact
    records; training uses the module's constants.

    Examples
    --------
    >>> ids = ngram_ids("film", 1000)
    >>> len(ids), all(1 <= i <= 1000 for i in ids), ids == ngram_ids("film", 1000)
    (9, True, True)
    """
    return [1 + text_crc32(gram) % buckets for gram in char_ngrams(word, ngram_range)[:max_ngrams]]


def subword_table(words: Sequence[str | None], buckets: int) -> np.ndarray:
    """A padded (len(words), width) int64 table of each word's n-gram ids.

    Parameters
    ----------
    words : sequence of str or None
        Distinct words; None for a row without n-grams (padding, reserved
        tokens).
    buckets : int
        Number of hash buckets.

    Returns
    -------
    ndarray of int64
        0 pads each row; width is the longest row (at least 1).

    Examples
    --------
    >>> table = subword_table([None, "ok", "film"], buckets=50)
    >>> table.shape, bool(table[0].any()), int((table[1] > 0).sum())
    ((3, 9), False, 3)
    """
    rows = [_ngram_id_bytes(word, buckets) for word in words]
    row_bytes = 8 * max([1, *(len(row) // 8 for row in rows)])
    # A bytearray: the table is writable and its own, with no second copy.
    padded = bytearray().join(row.ljust(row_bytes, b"\0") for row in rows)
    return np.frombuffer(padded, dtype=np.int64).reshape(len(rows), row_bytes // 8)


def _ngram_id_bytes(word: str | None, buckets: int) -> bytes:
    """:func:`ngram_ids` as native int64 bytes (none for None), kept for short words."""
    if word is None:
        return b""
    if len(word) > KEPT_WORD_MAX_LENGTH:
        return _as_bytes(ngram_ids(word, buckets))
    return _kept_ngram_id_bytes(word, buckets)


@lru_cache(maxsize=KEPT_WORDS)
def _kept_ngram_id_bytes(word: str, buckets: int) -> bytes:
    return _as_bytes(ngram_ids(word, buckets))


def _as_bytes(ids: list[int]) -> bytes:
    return np.asarray(ids, dtype=np.int64).tobytes()
