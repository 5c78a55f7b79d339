"""Sentence pairs as input: validation, encoding and batches.

A pair estimator takes ``X`` as pairs of texts: a list of 2-tuples (or
2-lists), a 2-column numpy array or a 2-column pandas DataFrame. Both
sides share one vocabulary; each is encoded as its own
:class:`~skattn.text.EncodedCorpus`, and a :class:`PairDataset` pads a
batch of both sides (``tokens``/``lengths`` and ``tokens_b``/``lengths_b``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.utils.data import Dataset

from skattn.text._batching import DocumentDataset
from skattn.text._encoder import EncodedCorpus, TextEncoder
from skattn.utils._documents import check_pairs

__all__ = ["PairCorpus", "PairDataset", "check_pair_input", "pair_column_names"]


def pair_column_names(X: Any) -> list[str] | None:
    """The two column names of a DataFrame of pairs (when both are str), else None.

    What a pair estimator fitted on ``X`` records as ``feature_names_in_``.

    Examples
    --------
    >>> pair_column_names([("a", "b")]) is None
    True
    """
    if not (hasattr(X, "iloc") and hasattr(X, "columns")):
        return None
    names = list(X.columns)
    return names if len(names) == 2 and all(isinstance(n, str) for n in names) else None


def check_pair_input(
    X: Any, *, name: str = "X", feature_names: Sequence[str] | None = None
) -> list[tuple[str, str]]:
    """Validate pairs of texts; return them as a list of ``(first, second)`` tuples.

    Each text must be a str (no None, NaN or bytes). The rule is
    :func:`skattn.utils._documents.check_pairs`, which the ONNX runtime
    shares, so both refuse the same input in the same words.

    Parameters
    ----------
    X : list of 2-tuples, 2-column ndarray or 2-column DataFrame
    name : str, default="X"
        How errors name the input.
    feature_names : sequence of 2 str, optional
        The columns a DataFrame is read by, in this order (a fitted
        model's ``feature_names_in_``); a DataFrame must then hold exactly
        these columns. Without it, a DataFrame's two columns in order.

    Returns
    -------
    list of (str, str)

    Raises
    ------
    TypeError, ValueError
        Naming what is wrong and where.

    Examples
    --------
    >>> check_pair_input([("a man sings", "a person sings")])
    [('a man sings', 'a person sings')]
    >>> check_pair_input(["a man sings"])
    Traceback (most recent call last):
    ...
    TypeError: X[0] is a str, not a pair; expected pairs of texts: ...
    """
    return check_pairs(X, feature_names, name)


@dataclass
class PairCorpus:
    """Both sides of encoded pairs, with the counts a fit reports.

    Attributes
    ----------
    first, second : EncodedCorpus
        The first and the second text of every pair.

    Examples
    --------
    >>> corpus = PairCorpus.fit_encode(TextEncoder(), [("a b", "b c")])
    >>> len(corpus), corpus.first.document_lengths.tolist(), corpus.n_blank
    (1, [2], 0)
    """

    first: EncodedCorpus
    second: EncodedCorpus

    @classmethod
    def fit_encode(cls, encoder: TextEncoder, pairs: list[tuple[str, str]]) -> PairCorpus:
        """Fit ``encoder``'s vocabulary on both sides of ``pairs`` and encode them."""
        encoder.fit([text for pair in pairs for text in pair])
        return cls.encode(encoder, pairs)

    @classmethod
    def encode(cls, encoder: TextEncoder, pairs: list[tuple[str, str]]) -> PairCorpus:
        """Encode both sides of validated ``pairs`` with a fitted encoder."""
        return cls(
            encoder.encode([a for a, _ in pairs], validated=True),
            encoder.encode([b for _, b in pairs], validated=True),
        )

    def __len__(self) -> int:
        return len(self.first)

    @property
    def n_texts(self) -> int:
        """Texts of both sides: what ``n_blank`` and ``n_truncated`` count among."""
        return 2 * len(self)

    @property
    def n_blank(self) -> int:
        """Texts (of either side) that were blank or yielded no token."""
        return int(self.first.n_blank + self.second.n_blank)

    @property
    def n_truncated(self) -> int:
        """Texts (of either side) that the length limit shortened."""
        return int(self.first.n_truncated + self.second.n_truncated)

    @property
    def truncated_by(self) -> dict[str, int]:
        """Texts cut, by the parameter that cut them."""
        counts = dict(self.first.truncated_by)
        for limit, count in self.second.truncated_by.items():
            counts[limit] = counts.get(limit, 0) + count
        return counts


class PairDataset(Dataset):
    """Pairs of an encoded :class:`PairCorpus`, with optional labels and weights.

    Parameters
    ----------
    corpus : PairCorpus
    y, sample_weight : ndarray, optional
        As :class:`~skattn.text._encoder.DocumentDataset`'s.
    index : ndarray of int, optional
        The pairs this dataset exposes (default: all).

    Examples
    --------
    >>> corpus = PairCorpus.fit_encode(TextEncoder(), [("a b c", "b"), ("a", "c c")])
    >>> X, y = PairDataset(corpus).collate([0, 1])
    >>> X["lengths"].tolist(), X["lengths_b"].tolist(), y is None
    ([3, 1], [1, 2], True)
    """

    def __init__(self, corpus: PairCorpus, y=None, sample_weight=None, index=None):
        self.corpus = corpus
        self.first = DocumentDataset(corpus.first, y, sample_weight, index=index)
        self.second = DocumentDataset(corpus.second, index=self.first.index)

    def mapped_arrays(self) -> list[np.ndarray]:
        """The id arrays of both texts that live in memory-mapped files; else empty."""
        return self.first.mapped_arrays() + self.second.mapped_arrays()

    def __len__(self) -> int:
        return len(self.first)

    def __getitem__(self, index: int) -> int:
        return index

    @property
    def labels(self) -> np.ndarray | None:
        """The encoded labels of the pairs this dataset exposes, in its order."""
        return self.first.labels

    @property
    def lengths(self) -> np.ndarray:
        """Tokens of each pair, both sides."""
        return self.first.lengths + self.second.lengths

    @property
    def sort_keys(self) -> np.ndarray:
        """What batches are bucketed by: the longer side, then the shorter."""
        longer = np.maximum(self.first.lengths, self.second.lengths)
        shorter = np.minimum(self.first.lengths, self.second.lengths)
        return longer * (int(shorter.max(initial=0)) + 1) + shorter

    def length_order(self) -> np.ndarray:
        """Positions of the pairs shortest first (stable)."""
        return np.argsort(self.sort_keys, kind="stable")

    def collate(self, indices: list[int]) -> tuple[dict[str, torch.Tensor], torch.Tensor | None]:
        """Pad a batch of pairs: the first side's keys, and the second's with ``_b``."""
        X, y = self.first.collate(indices)
        second, _ = self.second.collate(indices)
        X.update({f"{key}_b": value for key, value in second.items()})
        return X, y

    def subset(self, indices: np.ndarray) -> PairDataset:
        """The pairs at ``indices`` of this dataset, in that order."""
        return PairDataset(
            self.corpus,
            self.first.y,
            self.first.sample_weight,
            index=self.first.index[np.asarray(indices, dtype=np.int64)],
        )
