"""Speed and memory of the sentence-pair model on SICK, at the defaults and at the paper's sizes.

    SKATTN_DATA=../shared/data python benchmarks/bench_pairs.py [--epochs 2]

Fits :class:`~skattn.SelfAttentivePairClassifier` on SICK's 4,500 training
pairs for ``--epochs`` epochs (one PyTorch thread), then predicts the 4,927
test pairs, and prints one JSON line per configuration: training pairs/s
of the last epoch (skorch's epoch duration), the whole fit's seconds,
prediction pairs/s, and the process's peak RSS so far. "paper" takes the
encoder sizes of Lin et al.'s Yelp model (u = 300, d_a = 350, r = 30, a
3,000-unit MLP); the paper does not give its gated width, which stays at
the default. Each configuration runs in its own process (``--only``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

SETTINGS = {
    "defaults": {},
    "paper": {"hidden_size": 300, "attention_dim": 350, "attention_hops": 30, "mlp_hidden": 3000},
}


def run(configuration: str, epochs: int) -> dict:
    import torch

    from skattn import SelfAttentivePairClassifier
    from skattn.datasets import fetch_sick

    torch.set_num_threads(1)
    train = fetch_sick(subset="train", download_if_missing=False)
    test = fetch_sick(subset="test", download_if_missing=False)
    params = {**SETTINGS[configuration], "max_epochs": epochs, "random_state": 0}
    start = time.perf_counter()
    model = SelfAttentivePairClassifier(**params).fit(train.data, train.target)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    accuracy = model.score(test.data, test.target)
    predict_seconds = time.perf_counter() - start
    return {
        "configuration": configuration,
        "epochs": epochs,
        "train_pairs_per_s_last_epoch": len(train.data) / model.history_[-1, "dur"],
        "fit_s": fit_seconds,
        "predict_pairs_per_s": len(test.data) / predict_seconds,
        "accuracy": accuracy,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--only", choices=sorted(SETTINGS))
    args = parser.parse_args()
    if args.only:
        print(json.dumps(run(args.only, args.epochs)), flush=True)
        return
    for configuration in SETTINGS:
        command = [sys.executable, __file__, "--only", configuration, "--epochs", str(args.epochs)]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
