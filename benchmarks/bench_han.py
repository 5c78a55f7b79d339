"""HierarchicalAttentionClassifier on movie_reviews: speed, memory, bucketing gain.

Default configuration with the corpus' own sentences (one per line),
stratified 80/20 split (seed 0), one intra-op thread. After the normal
(bucketed) fit, the same network trains as many epochs again on plain
random batches, so both speeds come from the same run. Prints ``name: value unit``.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_han.py [--epochs 4]
"""

from __future__ import annotations

import argparse

from skattn import HierarchicalAttentionClassifier
from skattn.datasets import fetch_movie_reviews

from _common import report
from _training import measure, split, unbucketed_train_docs_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=None, help="default: the estimator's")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pooling", default="attention")
    args = parser.parse_args()
    X, y = fetch_movie_reviews(return_X_y=True)
    X_train, X_test, y_train, y_test = split(X, y)
    params = {
        "threads": args.threads,
        "random_state": 0,
        "sentence_split": "lines",
        "pooling": args.pooling,
    }
    if args.epochs:
        params["max_epochs"] = args.epochs
    print("dataset: movie_reviews", flush=True)
    clf = HierarchicalAttentionClassifier(**params)
    measure(clf, X_train, y_train, X_test, y_test)
    bucketed = len(X_train) * len(clf.net_.history) / sum(clf.net_.history[:, "dur"])
    unbucketed = unbucketed_train_docs_per_s(clf, X_train, y_train, epochs=len(clf.net_.history))
    report("unbucketed_train_docs_per_s", unbucketed, "docs/s")
    report("bucketing_speedup", bucketed / unbucketed, "x")


if __name__ == "__main__":
    main()
