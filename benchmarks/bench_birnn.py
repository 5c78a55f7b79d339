"""Exact bidirectional LSTM on CPU: our reverse-in-place encoder vs pack_padded_sequence.

Times forward and backward of training batches with real sentence lengths
(sentence_polarity), drawn at random or as length buckets (neighbours in
sorted order, as the training sampler builds them), for three encoders:
- ``gather``: skattn's BiRNNEncoder (exact);
- ``packed``: torch's bidirectional LSTM on pack_padded_sequence (exact);
- ``padded``: torch's bidirectional LSTM on the padded batch (inexact: the
  backward direction reads pads first), the speed floor.

Usage: python benchmarks/bench_birnn.py [--batch 64] [--repeat 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from skattn.datasets import fetch_sentence_polarity
from skattn.nn import BiRNNEncoder
from skattn.text import TextEncoder

from _common import report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=100)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    X, _ = fetch_sentence_polarity(return_X_y=True)
    lengths = np.sort(TextEncoder().fit_encode(X).document_lengths)
    rng = np.random.RandomState(0)
    compositions = {
        "random": [rng.choice(lengths, args.batch) for _ in range(args.repeat)],
        # neighbours in the sorted lengths: what the bucketing sampler builds
        "bucketed": [
            lengths[start : start + args.batch]
            for start in rng.randint(0, len(lengths) - args.batch, args.repeat)
        ],
    }

    ours = BiRNNEncoder(args.dim, args.hidden)
    torch_lstm = nn.LSTM(args.dim, args.hidden, batch_first=True, bidirectional=True)

    def run_gather(x, n):
        return ours(x, n)

    def run_packed(x, n):
        packed = pack_padded_sequence(x, n, batch_first=True, enforce_sorted=False)
        out, _ = torch_lstm(packed)
        return pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])[0]

    def run_padded(x, n):
        return torch_lstm(x)[0]

    report("threads", args.threads)
    report("batch", args.batch)
    for batches_name, batches in compositions.items():
        for name, fn in [("gather", run_gather), ("packed", run_packed), ("padded", run_padded)]:
            forward = backward = 0.0
            for n in batches:
                n = torch.from_numpy(np.ascontiguousarray(n))
                x = torch.randn(len(n), int(n.max()), args.dim, requires_grad=True)
                start = time.perf_counter()
                out = fn(x, n)
                mid = time.perf_counter()
                out.sum().backward()
                forward += mid - start
                backward += time.perf_counter() - mid
            prefix = f"{batches_name}_{name}"
            report(f"{prefix}_forward_ms_per_batch", 1000 * forward / len(batches), "ms")
            report(f"{prefix}_backward_ms_per_batch", 1000 * backward / len(batches), "ms")


if __name__ == "__main__":
    main()
