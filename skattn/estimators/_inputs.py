"""What an estimator reads: one text per sample, or a pair of texts.

An :class:`Input` is one part an estimator is built from (beside its
network and its :mod:`task <skattn.estimators._tasks>`). It owns the
validation of ``X`` (once per call), its encoding into ids with the
estimator's fitted :class:`~skattn.text.TextEncoder`, the dataset the
network reads, the digest each sample is put in canonical order by, the
texts word vectors learn from, and the documents explanations erase.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from skattn.explain._erasure import ModelDocuments, PairDocuments
from skattn.text._batching import DocumentDataset
from skattn.text._encoder import EncodedCorpus, TextEncoder
from skattn.text._ordering import text_digests
from skattn.text._pairs import PairCorpus, PairDataset, check_pair_input, pair_column_names
from skattn.utils._documents import check_text_column, text_column_name
from skattn.utils._validation import check_text_input

__all__ = ["Input", "PairInput", "TextInput"]


class Input(abc.ABC):
    """How an estimator reads its samples: checks, encoding, datasets, digests.

    Examples
    --------
    >>> TextInput().check(["a good film", ""])
    ['a good film', '']
    >>> PairInput().check([("a dog runs", "an animal moves")])
    [('a dog runs', 'an animal moves')]
    """

    #: Whether ``fit`` may read a stream of samples (a file, an iterator) a chunk at a time.
    reads_streams: bool = False

    @abc.abstractmethod
    def check(self, X: Any, feature_names: Sequence[str] | None = None) -> list:
        """``X`` validated: a list, a sample per row (a DataFrame read by ``feature_names``)."""

    def check_fit(self, X: Any) -> tuple[list, list[str] | None]:
        """``X`` validated for ``fit``, and the column names it was read by (or None)."""
        return self.check(X), None

    def stream(self, X: Any, feature_names: Sequence[str] | None = None) -> Iterable:
        """What ``predict_iter`` and its siblings iterate over (read lazily where it can be)."""
        return X

    @abc.abstractmethod
    def fit_encode(self, encoder: TextEncoder, X: Iterable, memmap_dir=None):
        """Fit ``encoder`` on the samples and encode them."""

    @abc.abstractmethod
    def encode(self, encoder: TextEncoder, X: list, memmap_dir=None):
        """Encode validated samples with a fitted ``encoder``."""

    @abc.abstractmethod
    def dataset(self, corpus, y=None, sample_weight=None, hierarchical: bool = False):
        """The network's dataset over an encoded corpus."""

    @abc.abstractmethod
    def digests(self, X: list) -> np.ndarray:
        """The digest of each validated sample, which the canonical order sorts by."""

    def vector_corpus(self, encoder: TextEncoder, X: list, corpus) -> EncodedCorpus:
        """The encoded texts count-based word vectors learn from."""
        return corpus

    def vector_texts(self, order: np.ndarray) -> np.ndarray:
        """Positions in :meth:`vector_corpus` of the texts of samples ``order``, in order."""
        return order

    @abc.abstractmethod
    def documents(self, estimator, X: Sequence, column: int | None = None):
        """The samples explanations score and erase, explained for ``column``."""


class TextInput(Input):
    """One document (a str) per sample: lists, arrays, Series, streams and files.

    Examples
    --------
    >>> encoder = TextEncoder()
    >>> corpus = TextInput().fit_encode(encoder, ["good film", "bad film"])
    >>> len(corpus), encoder.vocab_size_
    (2, 6)
    """

    reads_streams = True

    def check(self, X: Any, feature_names: Sequence[str] | None = None) -> list:
        check_text_column(X, feature_names)
        return check_text_input(X)

    def check_fit(self, X: Any) -> tuple[list, list[str] | None]:
        return check_text_input(X), text_column_name(X)

    def stream(self, X: Any, feature_names: Sequence[str] | None = None) -> Iterable:
        check_text_column(X, feature_names)
        return X

    def fit_encode(self, encoder: TextEncoder, X: Iterable, memmap_dir=None) -> EncodedCorpus:
        # Validated a chunk at a time, as a stream is read.
        return encoder.fit_encode_stream(X, memmap_dir=memmap_dir)

    def encode(self, encoder: TextEncoder, X: Iterable, memmap_dir=None) -> EncodedCorpus:
        if memmap_dir is not None:
            return encoder.encode_stream(X, memmap_dir=memmap_dir)
        return encoder.encode(X, validated=True)

    def dataset(self, corpus, y=None, sample_weight=None, hierarchical: bool = False):
        return DocumentDataset(corpus, y, sample_weight, hierarchical=hierarchical)

    def digests(self, X: list) -> np.ndarray:
        return text_digests(X)

    def documents(self, estimator, X: Sequence, column: int | None = None) -> ModelDocuments:
        return ModelDocuments(estimator, X, column)


class PairInput(Input):
    """A pair of texts per sample: a list of pairs, or a two-column table read by its names.

    Pairs are read whole (never streamed). A DataFrame seen at ``fit`` is
    read by the same column names afterwards (``feature_names_in_``).

    Examples
    --------
    >>> PairInput().digests([("ab", "c")]) != PairInput().digests([("a", "bc")])
    array([ True])
    """

    def check(self, X: Any, feature_names: Sequence[str] | None = None) -> list:
        names = None if feature_names is None else list(feature_names)
        return check_pair_input(X, feature_names=names)

    def check_fit(self, X: Any) -> tuple[list, list[str] | None]:
        return check_pair_input(X), pair_column_names(X)

    def stream(self, X: Any, feature_names: Sequence[str] | None = None) -> list:
        # A DataFrame by its rows, not its column names.
        return self.check(X, feature_names)

    def fit_encode(self, encoder: TextEncoder, X: list, memmap_dir=None) -> PairCorpus:
        return PairCorpus.fit_encode(encoder, X)

    def encode(self, encoder: TextEncoder, X: list, memmap_dir=None) -> PairCorpus:
        return PairCorpus.encode(encoder, X)

    def dataset(self, corpus, y=None, sample_weight=None, hierarchical: bool = False):
        return PairDataset(corpus, y, sample_weight)

    def digests(self, X: list) -> np.ndarray:
        # The length of the first text keeps ("ab", "c") apart from ("a", "bc").
        return text_digests(f"{len(a)}:{a}{b}" for a, b in X)

    def vector_corpus(self, encoder: TextEncoder, X: list, corpus) -> EncodedCorpus:
        return encoder.encode([text for pair in X for text in pair], validated=True)

    def vector_texts(self, order: np.ndarray) -> np.ndarray:
        # Pair i is texts 2i and 2i + 1 of vector_corpus.
        return np.stack([2 * order, 2 * order + 1], axis=1).ravel()

    def documents(self, estimator, X: Sequence, column: int | None = None) -> PairDocuments:
        return PairDocuments(estimator, X, column)
