"""SelfAttentiveClassifier on sentence_polarity: training and inference speed, memory.

Default configuration, stratified 80/20 split (seed 0), one intra-op thread
unless --threads says otherwise. Prints ``name: value unit`` lines.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_self_attentive.py [--epochs 8]
"""

from __future__ import annotations

import argparse

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity

from _training import measure, split


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=None, help="default: the estimator's")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    X, y = fetch_sentence_polarity(return_X_y=True)
    X_train, X_test, y_train, y_test = split(X, y)
    params = {"threads": args.threads, "random_state": 0}
    if args.epochs:
        params["max_epochs"] = args.epochs
    print("dataset: sentence_polarity", flush=True)
    measure(SelfAttentiveClassifier(**params), X_train, y_train, X_test, y_test)


if __name__ == "__main__":
    main()
