"""HAN at the papers' sizes: the FLOP rate of a training epoch, as a share of the matmul peak.

    SKATTN_DATA=../shared/data python benchmarks/bench_flops.py [--threads 1]

- **peak**: float32 ``torch.mm`` of two 2,048 × 2,048 matrices at the
  given thread count, the best of 10 (what this machine's BLAS reaches at
  a shape that suits it);
- **at the network's shapes**: the best of 10 of the matrix product the
  word-level GRU does most, a chunk of 256 sentences × 30 words of
  200-dimensional embeddings times the 200 × 300 input weights of both
  directions (an ``addmm``), which sets what a GRU of this width can reach;
- **the epoch**: ``HierarchicalAttentionClassifier`` with the papers'
  settings (``benchmarks/run.py``'s ``("han", "paper")``), 2 epochs on
  movie_reviews' 80 % training split at the given thread count; the
  second epoch's wall time from ``history_``;
- **its FLOPs**: the same fit again under PyTorch's
  ``torch.utils.flop_counter.FlopCounterMode``, which counts the matrix
  products of the forward and backward passes (GRU cells included; the
  element-wise work is not counted), halved to one epoch.

The FLOP rate is an epoch's FLOPs over the second epoch's seconds; the
shares divide it by the two peaks. One JSON line per figure.
"""

from __future__ import annotations

import argparse
import time

import torch
from run import SETTINGS, _corpus
from torch.utils.flop_counter import FlopCounterMode

from skattn import HierarchicalAttentionClassifier

from _common import report


def best_flop_rate(left: torch.Tensor, right: torch.Tensor, bias=None, repeats: int = 10) -> float:
    """FLOP/s of the product ``left @ right`` (plus ``bias``), the best of ``repeats``."""
    product = (
        (lambda: torch.addmm(bias, left, right))
        if bias is not None
        else (lambda: torch.mm(left, right))
    )
    product()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        product()
        best = min(best, time.perf_counter() - start)
    return 2 * left.shape[0] * left.shape[1] * right.shape[1] / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    generator = torch.Generator().manual_seed(0)
    square = torch.randn(2048, 2048, generator=generator)
    peak = best_flop_rate(square, square.T.contiguous())
    report("matmul_peak_gflops", peak / 1e9, "GFLOP/s")
    words = torch.randn(256 * 30, 200, generator=generator)
    weights = torch.randn(200, 300, generator=generator)
    shaped = best_flop_rate(words, weights, bias=torch.zeros(300))
    report("gru_input_product_gflops", shaped / 1e9, "GFLOP/s")

    X_train, _, y_train, _ = _corpus("han")
    settings = {**SETTINGS[("han", "paper")], "max_epochs": 2, "random_state": 0}
    settings["threads"] = args.threads
    timed = HierarchicalAttentionClassifier(**settings).fit(X_train, y_train)
    seconds = float(timed.history_[-1, "dur"])
    report("epoch_2_s", seconds, "s")
    report("train_docs_per_s", len(X_train) / seconds, "docs/s")
    with FlopCounterMode(display=False) as counter:
        HierarchicalAttentionClassifier(**settings).fit(X_train, y_train)
    flops = counter.get_total_flops() / 2
    report("epoch_gflop", flops / 1e9, "GFLOP")
    rate = flops / seconds
    report("epoch_gflops", rate / 1e9, "GFLOP/s")
    report("share_of_matmul_peak", 100 * rate / peak, "%")
    report("share_of_gru_input_product", 100 * rate / shaped, "%")


if __name__ == "__main__":
    main()
