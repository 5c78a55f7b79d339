"""Batches from an :class:`~skattn.text.EncodedCorpus`.

A :class:`DocumentDataset` indexes documents of the flat corpus; its
``collate`` pads one batch (never the whole corpus) and returns the lengths
the networks need for masking. :class:`BucketBatchSampler` groups documents
of similar length so that little of each batch is padding.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler

from skattn.text._encoder import PAD_ID, EncodedCorpus
from skattn.utils._memory import mapped_file_of


class DocumentDataset(Dataset):
    """Documents of an encoded corpus, with optional labels and weights.

    Parameters
    ----------
    corpus : EncodedCorpus
        The encoded documents.
    y : ndarray, optional
        Encoded labels (int, 0..n_classes-1, shape (n_documents,)) or
        regression targets (float, shape (n_documents, n_outputs)).
    sample_weight : ndarray of float, shape (n_documents,), optional
        Per-document weights of the loss.
    hierarchical : bool, default=False
        Batches keep sentences apart (for the hierarchical network) instead
        of concatenating each document's sentences.

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> corpus = TextEncoder().fit_encode(["a b c", "a"])
    >>> X, y = DocumentDataset(corpus).collate([0, 1])
    >>> X["tokens"].tolist(), X["lengths"].tolist()
    ([[3, 4, 5], [3, 0, 0]], [3, 1])
    """

    def __init__(
        self, corpus: EncodedCorpus, y=None, sample_weight=None, hierarchical=False, index=None
    ):
        self.corpus = corpus
        self.y = None if y is None else _as_targets(np.asarray(y))
        self.sample_weight = (
            None if sample_weight is None else np.asarray(sample_weight, np.float32)
        )
        self.hierarchical = hierarchical
        self.index = np.arange(len(corpus)) if index is None else np.asarray(index, np.int64)
        # int32: one document's tokens or sentences, never the corpus's offsets.
        self.lengths = corpus.document_lengths[self.index].astype(np.int32)
        self.sentence_counts = corpus.sentence_counts[self.index].astype(np.int32)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def labels(self) -> np.ndarray | None:
        """The encoded labels of the documents this dataset exposes, in its order."""
        return None if self.y is None else self.y[self.index]

    def __getitem__(self, index: int) -> int:
        # Items are indices: collate gathers a whole batch in one pass.
        return index

    @property
    def sort_keys(self) -> np.ndarray:
        """What batches are bucketed by: sentences, then tokens, per document."""
        if self.hierarchical:
            counts = self.sentence_counts.astype(np.int64)
            return counts * (int(self.lengths.max()) + 1) + self.lengths
        return self.lengths

    def mapped_arrays(self) -> list[np.ndarray]:
        """The arrays batches read from mapped files (``memmap_dir=``), ids and offsets."""
        corpus = self.corpus
        arrays = (
            corpus.token_ids,
            corpus.token_types,
            corpus.sentence_offsets,
            corpus.document_offsets,
        )
        return [a for a in arrays if a is not None and mapped_file_of(a) is not None]

    def length_order(self) -> np.ndarray:
        """Positions of the documents shortest first (stable): batches in this order pad least.

        Examples
        --------
        >>> from skattn.text._encoder import TextEncoder
        >>> corpus = TextEncoder().fit_encode(["a b c", "a", "a b"])
        >>> DocumentDataset(corpus).length_order().tolist()
        [1, 2, 0]
        """
        return np.argsort(self.sort_keys, kind="stable")

    def collate(self, indices: list[int]):
        """Pad a batch of documents.

        Parameters
        ----------
        indices : list of int
            Positions in this dataset of the batch's documents.

        Returns
        -------
        X : dict of str to Tensor
            Flat: ``tokens`` (batch, max_tokens) and ``lengths`` (batch,).
            Hierarchical: ``tokens`` (batch, max_sentences, max_words) and
            ``lengths`` (batch, max_sentences), words per sentence, 0 for
            padding sentences.
            Plus ``subwords`` (the token shape + (width,)), each token's
            character n-gram ids, when the corpus has subwords, and
            ``sample_weight`` (batch,) when the dataset has weights.
        y : Tensor (int64 labels or float32 targets), or None
        """
        indices = self.index[np.asarray(indices, dtype=np.int64)]
        corpus = self.corpus
        if self.hierarchical:
            counts = corpus.document_offsets[indices + 1] - corpus.document_offsets[indices]
            sentence_ids = _ranges(corpus.document_offsets[indices], counts)
            token_starts = corpus.sentence_offsets[sentence_ids]
            lengths = corpus.sentence_offsets[sentence_ids + 1] - token_starts
            # (documents, sentences) layout: skorch needs one batch dimension.
            slots = np.arange(int(counts.max()))[None, :] < counts[:, None]
            words = _pad(corpus.token_ids, token_starts, lengths)
            tokens = np.full(slots.shape + (words.shape[1],), PAD_ID, dtype=np.int64)
            tokens[slots] = words
            sentence_lengths = np.zeros(slots.shape, dtype=np.int64)
            sentence_lengths[slots] = lengths
            X = {"tokens": torch.from_numpy(tokens), "lengths": torch.from_numpy(sentence_lengths)}
            if corpus.subword_table is not None:
                types = np.zeros(tokens.shape, dtype=np.int64)
                types[slots] = _pad(corpus.token_types, token_starts, lengths)
                X["subwords"] = torch.from_numpy(corpus.subword_table[types])
        else:
            starts, lengths = corpus.document_spans(indices)
            tokens = _pad(corpus.token_ids, starts, lengths)
            X = {"tokens": torch.from_numpy(tokens), "lengths": torch.from_numpy(lengths)}
            if corpus.subword_table is not None:
                types = _pad(corpus.token_types, starts, lengths)
                X["subwords"] = torch.from_numpy(corpus.subword_table[types])
        if self.sample_weight is not None:
            X["sample_weight"] = torch.from_numpy(self.sample_weight[indices])
        y = None if self.y is None else torch.from_numpy(self.y[indices])
        return X, y

    def subset(self, indices: np.ndarray) -> DocumentDataset:
        """The documents at ``indices`` of this dataset, in that order (ids are not copied)."""
        return DocumentDataset(
            self.corpus,
            self.y,
            self.sample_weight,
            self.hierarchical,
            index=self.index[np.asarray(indices, dtype=np.int64)],
        )


def _as_targets(y: np.ndarray) -> np.ndarray:
    """Labels as int64, regression targets as float32 (the dtypes the losses take)."""
    return y.astype(np.int64 if y.dtype.kind in "biu" else np.float32, copy=False)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenate ``arange(s, s + c)`` for each pair, without a Python loop."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    row_starts = np.repeat(starts - np.cumsum(counts) + counts, counts)
    return row_starts + np.arange(total, dtype=np.int64)


def _pad(token_ids: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Gather ragged rows into a (rows, max_length) array padded with PAD_ID."""
    width = int(lengths.max()) if len(lengths) else 0
    columns = np.arange(width, dtype=np.int64)
    inside = columns[None, :] < lengths[:, None]
    padded = np.full((len(lengths), width), PAD_ID, dtype=np.int64)
    padded[inside] = token_ids[(starts[:, None] + columns[None, :])[inside]]
    return padded


class BucketBatchSampler(Sampler):
    """Batches of documents of similar length, in random order for training.

    Training: documents are shuffled, cut into pools of ``pool_batches``
    batches, each pool is sorted by length and cut into batches, and the
    batch order is shuffled. Every document appears exactly once per epoch.
    Randomness comes from torch's global generator (as DataLoader's own
    shuffling), so ``torch.manual_seed`` makes it reproducible.

    Parameters
    ----------
    sort_keys : ndarray of shape (n_documents,)
        Length of each document (what to bucket by).
    batch_size : int
        Documents per batch.
    shuffle : bool, default=True
        False: one sorted pass (shortest first), for inference.
    pool_batches : int, default=50
        Batches per sorting pool; larger pools pad less but mix less.
    sizes : ndarray of shape (n_documents,), optional
        Tokens of each document, for ``max_tokens``.
    max_tokens : int or None, default=None
        Token-budget batching: a batch holds documents of the sorted pool
        until the next would take it over ``max_tokens`` tokens (a longer
        document makes a batch of its own). ``batch_size`` then only sets
        the pool size (``batch_size * pool_batches`` documents), unless
        ``cap_documents``.
    cap_documents : bool, default=False
        With ``max_tokens``: a batch also holds at most ``batch_size``
        documents (short documents come ``batch_size`` at a time, long
        ones fewer at a time).

    Examples
    --------
    >>> sampler = BucketBatchSampler(np.array([5, 1, 4, 2]), 2, shuffle=False)
    >>> list(sampler)
    [[1, 3], [2, 0]]
    >>> lengths = np.array([5, 1, 4, 2])
    >>> list(BucketBatchSampler(lengths, 2, False, sizes=lengths, max_tokens=5))
    [[1, 3], [2], [0]]
    >>> list(BucketBatchSampler(lengths, 1, False, sizes=lengths, max_tokens=5, cap_documents=True))
    [[1], [3], [2], [0]]
    """

    def __init__(
        self,
        sort_keys,
        batch_size: int,
        shuffle: bool = True,
        pool_batches: int = 50,
        sizes=None,
        max_tokens: int | None = None,
        cap_documents: bool = False,
    ):
        self.sort_keys = np.asarray(sort_keys)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.pool_batches = pool_batches
        self.sizes = None if sizes is None else np.asarray(sizes)
        self.max_tokens = max_tokens
        self.cap_documents = cap_documents

    def __len__(self) -> int:
        """The number of batches (with ``max_tokens``: of one sorted pass, an estimate)."""
        if self.max_tokens is None:
            return -(-len(self.sort_keys) // self.batch_size)
        return len(self._cut(np.argsort(self.sort_keys, kind="stable")))

    def _cut(self, ordered: np.ndarray) -> list[np.ndarray]:
        """Consecutive batches of ``ordered`` documents: fixed counts, or token budgets."""
        if self.max_tokens is None:
            return [
                ordered[i : i + self.batch_size] for i in range(0, len(ordered), self.batch_size)
            ]
        most = self.batch_size if self.cap_documents else len(ordered)
        batches, start, tokens = [], 0, 0
        for position, size in enumerate(self.sizes[ordered].tolist()):
            full = tokens + size > self.max_tokens or position - start >= most
            if full and position > start:
                batches.append(ordered[start:position])
                start, tokens = position, 0
            tokens += size
        batches.append(ordered[start:])
        return batches

    def __iter__(self) -> Iterator[list[int]]:
        if not self.shuffle:
            for batch in self._cut(np.argsort(self.sort_keys, kind="stable")):
                yield batch.tolist()
            return
        order = torch.randperm(len(self.sort_keys)).numpy()
        pool = self.batch_size * self.pool_batches
        batches = []
        for start in range(0, len(order), pool):
            chunk = order[start : start + pool]
            batches.extend(self._cut(chunk[np.argsort(self.sort_keys[chunk], kind="stable")]))
        for b in torch.randperm(len(batches)).tolist():
            yield batches[b].tolist()
