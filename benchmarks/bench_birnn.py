"""Exact bidirectional RNNs on CPU: our reverse-in-place encoder vs pack_padded_sequence.

Times forward and backward of training batches with real lengths, drawn
at random or as length buckets (neighbours in sorted order, as the
training sampler builds them), for these encoders of the same sizes:

- ``gather``: skattn's BiRNNEncoder (exact), one call over the batch;
- ``gather_chunked``: the same, rows sorted by length and run in chunks
  of ``--chunk`` rows, each padded to its own longest (HAN's word level);
- ``packed``: torch's bidirectional RNN on pack_padded_sequence (exact);
- ``packed_chunked``: the same, in the same sorted chunks;
- ``padded``: torch's bidirectional RNN on the padded batch (inexact: the
  backward direction reads pads first), the speed floor.

The default mode is a BiLSTM 100+100 over sentence_polarity snippets, one
batch of 64 snippets per step. ``--han-paper`` is the word level of HAN at
the papers' sizes (a BiGRU 50+50 over 200-d inputs) over the sentences of
64 movie_reviews documents a step (``benchmarks/run.py``'s training split,
one sentence a line): which part of the word level makes the estimator
faster than a plain packed reproduction (``plain_han.py``). The variants
run in turn on each batch, a different one first on each, so a slower
spell of the machine hits all.

Usage: python benchmarks/bench_birnn.py [--han-paper] [--batch 64] [--repeat 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity
from skattn.nn import BiRNNEncoder
from skattn.nn._encoders import inverse_permutation
from skattn.text import TextEncoder

from _common import report


def snippet_lengths() -> list[np.ndarray]:
    """Tokens of each sentence_polarity snippet: one row per document."""
    X, _ = fetch_sentence_polarity(return_X_y=True)
    return [np.array([n]) for n in TextEncoder().fit_encode(X).document_lengths]


def review_sentence_lengths() -> list[np.ndarray]:
    """Tokens of each sentence of each movie_reviews training document (run.py's split)."""
    from sklearn.model_selection import train_test_split

    X, y = fetch_movie_reviews(return_X_y=True)
    X_train, *_ = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    # The estimator's truncation defaults: 60 sentences of 60 words.
    corpus = TextEncoder(
        sentence_split="lines", min_count=1, max_sentences=60, max_sentence_length=60
    ).fit_encode(X_train)
    sentence_lengths = np.diff(corpus.sentence_offsets)
    return np.split(sentence_lengths, corpus.document_offsets[1:-1])


def batch_compositions(documents: list[np.ndarray], batch: int, repeat: int, seed: int = 0):
    """Random and bucketed batches of ``batch`` documents: each batch's row lengths."""
    rng = np.random.RandomState(seed)
    # The training sampler's keys: sentences, then tokens, per document.
    by_size = sorted(documents, key=lambda rows: (len(rows), rows.sum()))
    return {
        "random": [
            np.concatenate([documents[i] for i in rng.choice(len(documents), batch)])
            for _ in range(repeat)
        ],
        # neighbours in sorted order: what the bucketing sampler builds
        "bucketed": [
            np.concatenate(by_size[start : start + batch])
            for start in rng.randint(0, len(by_size) - batch, repeat)
        ],
    }


def encoders(cell: str, dim: int, hidden: int, chunk: int) -> dict:
    """The variants, as functions (inputs, lengths) -> states, sharing one set of weights."""
    ours = BiRNNEncoder(dim, hidden, cell=cell)
    ours_chunked = BiRNNEncoder(dim, hidden, cell=cell, chunk_size=chunk)
    ours_chunked.load_state_dict(ours.state_dict())
    rnn = {"lstm": nn.LSTM, "gru": nn.GRU}[cell]
    theirs = rnn(dim, hidden, batch_first=True, bidirectional=True)

    def packed(x, n):
        sequence = pack_padded_sequence(x, n, batch_first=True, enforce_sorted=False)
        return pad_packed_sequence(theirs(sequence)[0], batch_first=True, total_length=x.shape[1])[
            0
        ]

    def packed_chunked(x, n):
        # Permuted once and put back once, as BiRNNEncoder does: indexing the
        # whole input per chunk would zero-fill a batch-sized gradient per chunk.
        order = torch.argsort(n, descending=True, stable=True)
        width = x.shape[1]
        states = [
            packed(chunk[:, : int(lengths[0])], lengths)
            for chunk, lengths in zip(torch.split(x[order], chunk), torch.split(n[order], chunk))
        ]
        states = torch.cat([nn.functional.pad(s, (0, 0, 0, width - s.shape[1])) for s in states])
        return states[inverse_permutation(order)]

    return {
        "gather": ours,
        "gather_chunked": ours_chunked,
        "packed": packed,
        "packed_chunked": packed_chunked,
        "padded": lambda x, n: theirs(x)[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--han-paper", action="store_true", help="HAN's word level, paper sizes")
    parser.add_argument("--batch", type=int, default=64, help="documents per batch")
    parser.add_argument("--repeat", type=int, default=None, help="batches (20; 8 --han-paper)")
    parser.add_argument("--chunk", type=int, default=256, help="rows per chunk")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.han_paper:
        cell, dim, hidden, documents = "gru", 200, 50, review_sentence_lengths()
    else:
        cell, dim, hidden, documents = "lstm", 100, 100, snippet_lengths()
    repeat = args.repeat or (8 if args.han_paper else 20)
    variants = encoders(cell, dim, hidden, args.chunk)

    report("threads", args.threads)
    report("batch", args.batch)
    for batches_name, batches in batch_compositions(documents, args.batch, repeat).items():
        forward = dict.fromkeys(variants, 0.0)
        backward = dict.fromkeys(variants, 0.0)
        rows = 0
        names = list(variants)
        for step, n in enumerate(batches):
            n = torch.from_numpy(np.ascontiguousarray(n))
            rows += len(n)
            # A different variant first on each batch: no variant always follows another.
            for name in names[step % len(names) :] + names[: step % len(names)]:
                fn = variants[name]
                x = torch.randn(len(n), int(n.max()), dim, requires_grad=True)
                start = time.perf_counter()
                out = fn(x, n)
                mid = time.perf_counter()
                out.sum().backward()
                forward[name] += mid - start
                backward[name] += time.perf_counter() - mid
        report(f"{batches_name}_rows_per_batch", rows / len(batches))
        for name in variants:
            prefix = f"{batches_name}_{name}"
            report(f"{prefix}_forward_ms_per_batch", 1000 * forward[name] / len(batches), "ms")
            report(f"{prefix}_backward_ms_per_batch", 1000 * backward[name] / len(batches), "ms")


if __name__ == "__main__":
    main()
