"""The canonical order of training samples: by a digest of each text, then by target.

``fit`` trains on its samples in one order whatever order they came in, so
the fitted model does not depend on how the caller shuffled them. The order
is taken from a 64-bit digest of each text (then the encoded target, then
the sample weight), not from the texts themselves: a digest is computed as
each document streams past and kept in 8 bytes, so a corpus read from a file
once, chunk by chunk, is put in the same order as the same corpus given as a
list, without holding its texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from skattn.text._unicode import text_bytes

__all__ = ["DigestRecorder", "canonical_order", "text_digest", "text_digests"]

#: Digests are recorded in arrays of this many documents while a stream lasts.
_BLOCK = 1 << 16


def text_digest(text: str) -> int:
    """A 64-bit digest of ``text`` (BLAKE2b): the same on every machine and Python run.

    Examples
    --------
    >>> text_digest("good film") == text_digest("good film") != text_digest("good film.")
    True
    """
    return int.from_bytes(hashlib.blake2b(text_bytes(text), digest_size=8).digest(), "little")


def text_digests(texts: Iterable[str]) -> np.ndarray:
    """:func:`text_digest` of each text, as uint64.

    Examples
    --------
    >>> text_digests(["a", "b", "a"]).dtype, len(set(text_digests(["a", "b", "a"])))
    (dtype('uint64'), 2)
    """
    return np.fromiter(map(text_digest, texts), dtype=np.uint64)


class DigestRecorder:
    """Pass a stream of documents through, recording each text's digest on the way.

    Items that are not str are passed on with the digest 0: the reader
    downstream refuses them with its own message.

    Parameters
    ----------
    documents : iterable
        Read once.

    Examples
    --------
    >>> recorder = DigestRecorder(iter(["a", "b"]))
    >>> list(recorder), recorder.digests().tolist() == text_digests(["a", "b"]).tolist()
    (['a', 'b'], True)
    """

    def __init__(self, documents: Iterable[Any]):
        self._documents = documents
        self._blocks: list[np.ndarray] = []
        self._block = np.zeros(_BLOCK, dtype=np.uint64)
        self._filled = 0

    def __iter__(self) -> Iterator[Any]:
        for document in self._documents:
            if self._filled == _BLOCK:
                self._blocks.append(self._block)
                self._block, self._filled = np.zeros(_BLOCK, dtype=np.uint64), 0
            self._block[self._filled] = text_digest(document) if isinstance(document, str) else 0
            self._filled += 1
            yield document

    def digests(self) -> np.ndarray:
        """The digests of the documents passed so far, in order."""
        return np.concatenate([*self._blocks, self._block[: self._filled]])


def canonical_order(digests: np.ndarray, targets: np.ndarray, sample_weight=None) -> np.ndarray:
    """Positions of the samples sorted by text digest, then target (columns in order), then weight.

    Parameters
    ----------
    digests : ndarray of uint64, shape (n_samples,)
    targets : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Encoded labels, indicator rows or regression targets.
    sample_weight : ndarray of shape (n_samples,), optional

    Returns
    -------
    ndarray of int64
        Samples that tie on every key are identical; they keep their
        relative order.

    Examples
    --------
    >>> digests = np.array([7, 3, 7], dtype=np.uint64)
    >>> canonical_order(digests, np.array([1, 0, 0])).tolist()
    [1, 2, 0]
    """
    columns = np.asarray(targets).reshape(len(digests), -1)
    keys = [] if sample_weight is None else [np.asarray(sample_weight)]
    keys += [columns[:, j] for j in reversed(range(columns.shape[1]))]
    # np.lexsort sorts by its last key first.
    return np.lexsort([*keys, digests]).astype(np.int64)
