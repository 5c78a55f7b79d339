"""Encodings and initial word vectors shared by fits of the same documents.

A grid search fits many candidates on each fold, and every candidate used
to tokenise the fold, build its vocabulary and learn its initial word
vectors again, although those depend only on the documents and the text
parameters, not on the network. ``fit`` now keeps the last few results in
this process and reuses them when the documents (by their digests, in
order) and every parameter they depend on are the same: a search over
network settings encodes each fold once.

What is kept is copied on the way out (the encoder, the vectors), or never
written to (the encoded corpus), so a reused result gives the same model,
bit for bit, as a fresh one. Streams, memory-mapped fits, warm starts and
what is kept holds at most :data:`MAX_CACHED_TOKENS` token ids and offsets
in all (the least recently used go first), and
nothing is kept in a process started with the environment variable
``SKATTN_FIT_CACHE=0``.
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["MAX_CACHED_TOKENS", "MAX_ENTRIES", "FitDataCache", "fit_data_cache"]

#: The most token ids (and offsets) the kept corpora hold together.
MAX_CACHED_TOKENS = 5_000_000
#: The most encodings kept at once (a 5-fold search keeps every fold).
MAX_ENTRIES = 8


def documents_key(digests: np.ndarray) -> str:
    """One digest of a whole list of documents, in their order.

    Examples
    --------
    >>> a = documents_key(np.array([1, 2], dtype=np.uint64))
    >>> a == documents_key(np.array([2, 1], dtype=np.uint64))
    False
    """
    return hashlib.sha256(np.ascontiguousarray(digests).tobytes()).hexdigest()


def parameters_key(values: dict[str, Any]) -> str:
    """A key for parameter values: their reprs (a callable is known by its identity).

    Examples
    --------
    >>> parameters_key({"min_count": 2}) == parameters_key({"min_count": 3})
    False
    """
    return repr(sorted(values.items()))


class FitDataCache:
    """The last encodings (encoder, corpus) and initial vectors of ``fit``, least recent out.

    Examples
    --------
    >>> from skattn.text import TextEncoder
    >>> encoder = TextEncoder()
    >>> corpus = encoder.fit_encode(["a good film", "a dull film"])
    >>> cache = FitDataCache(max_entries=1)
    >>> cache.put_encoding("k", encoder, corpus)
    >>> kept_encoder, kept_corpus = cache.get_encoding("k")
    >>> kept_encoder.vocab_size_ == encoder.vocab_size_, kept_corpus is corpus
    (True, True)
    >>> corpus.token_ids.flags.writeable
    False
    >>> cache.put_encoding("other", encoder, encoder.encode(["film"]))
    >>> cache.get_encoding("k") is None  # pushed out
    True
    """

    def __init__(self, max_entries: int = MAX_ENTRIES, max_tokens: int = MAX_CACHED_TOKENS):
        self.max_entries = max_entries
        self.max_tokens = max_tokens
        self._encodings: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self._vectors: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get_encoding(self, key: str) -> tuple[Any, Any] | None:
        """A copy of the kept encoder and the kept (read-only) corpus, or None."""
        with self._lock:
            found = self._encodings.get(key)
            if found is None:
                return None
            self._encodings.move_to_end(key)
        encoder, corpus, _ = found
        return copy.deepcopy(encoder), corpus

    def put_encoding(self, key: str, encoder: Any, corpus: Any) -> None:
        """Keep a copy of a fitted encoder and its corpus, made read-only (not a large one)."""
        arrays = _corpus_arrays(corpus)
        size = sum(len(array) for array in arrays)
        if not self.max_entries or size > self.max_tokens:
            return
        for array in arrays:
            # A write to a shared corpus would change every later fit: make it fail.
            array.setflags(write=False)
        kept = (copy.deepcopy(encoder), corpus, size)
        with self._lock:
            self._encodings[key] = kept
            _trim(self._encodings, self.max_entries)
            while sum(entry[2] for entry in self._encodings.values()) > self.max_tokens:
                self._encodings.popitem(last=False)

    def get_vectors(self, key: str) -> Any:
        """A copy of the kept initial vectors, or None."""
        with self._lock:
            found = self._vectors.get(key)
            if found is not None:
                self._vectors.move_to_end(key)
        return None if found is None else copy.deepcopy(found)

    def put_vectors(self, key: str, vectors: Any) -> None:
        """Keep a copy of initial vectors (their matrix, coverage and choice)."""
        if not self.max_entries:
            return
        kept = copy.deepcopy(vectors)
        with self._lock:
            self._vectors[key] = kept
            _trim(self._vectors, self.max_entries)

    def clear(self) -> None:
        """Forget everything kept."""
        with self._lock:
            self._encodings.clear()
            self._vectors.clear()

    def __len__(self) -> int:
        return len(self._encodings)


def _corpus_arrays(corpus: Any) -> list[np.ndarray]:
    """The arrays of an encoded corpus (both sides of a pair corpus)."""
    parts = (corpus.first, corpus.second) if hasattr(corpus, "first") else (corpus,)
    names = ("token_ids", "sentence_offsets", "document_offsets", "token_types", "subword_table")
    return [
        getattr(part, name)
        for part in parts
        for name in names
        if isinstance(getattr(part, name, None), np.ndarray)
    ]


def _trim(entries: OrderedDict, max_entries: int) -> None:
    while len(entries) > max_entries:
        entries.popitem(last=False)


#: The cache every estimator of this process shares.
fit_data_cache = FitDataCache(0 if os.environ.get("SKATTN_FIT_CACHE") == "0" else MAX_ENTRIES)
