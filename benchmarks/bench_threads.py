"""One or two PyTorch intra-op threads, on a quiet and on a loaded machine.

For both networks at the package defaults (self-attentive on 2,000
sentence_polarity snippets, HAN on 400 movie reviews, one epoch each):
training docs/s (the epoch's own time) and inference docs/s with
``threads=1`` and ``threads=2``; then the same while another process keeps
one core busy (as a second joblib worker or any other job would). Last, two fitted
models with ``threads=1`` predicting from two threads of one process at
once, against the same predictions one after the other (a service that
serves two models). Prints ``name: value unit`` lines; the policy in
``skattn.utils._runtime.torch_threads`` follows from them.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_threads.py [--concurrent-only]
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time

import numpy as np

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity

from _common import report


def _busy(stop) -> None:
    """Keep one core busy until ``stop`` is set (single-threaded numpy)."""
    a = np.random.rand(200, 200)
    while not stop.is_set():
        a = np.tanh(a @ a.T / 200)


def _speeds(make, X, y, threads):
    clf = make(threads=threads).fit(X, y)
    train = len(X) / sum(clf.net_.history[:, "dur"])
    start = time.perf_counter()
    clf.predict(X)
    return train, len(X) / (time.perf_counter() - start)


def _concurrent_predictions(models: dict) -> None:
    """Seconds for two models' predictions one after the other, then from two threads."""
    fitted = [(make(threads=1).fit(X, y), X) for make, X, y in models.values()]
    repeats = 3

    def predict(model, X):
        for _ in range(repeats):
            model.predict(X)

    start = time.perf_counter()
    for model, X in fitted:
        predict(model, X)
    sequential = time.perf_counter() - start
    workers = [threading.Thread(target=predict, args=pair) for pair in fitted]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    concurrent = time.perf_counter() - start
    report("two_models_predict_sequential_s", sequential, "s")
    report("two_models_predict_two_threads_s", concurrent, "s")
    report("two_threads_speedup", sequential / concurrent, "x")


def main() -> None:
    X_sa, y_sa = fetch_sentence_polarity(return_X_y=True)
    X_han, y_han = fetch_movie_reviews(return_X_y=True)
    rng = np.random.RandomState(0)
    sa_rows, han_rows = rng.permutation(len(X_sa))[:2000], rng.permutation(len(X_han))[:400]
    models = {
        "self_attentive": (
            lambda **p: SelfAttentiveClassifier(max_epochs=1, random_state=0, **p),
            [X_sa[i] for i in sa_rows],
            y_sa[sa_rows],
        ),
        "han": (
            lambda **p: HierarchicalAttentionClassifier(
                max_epochs=1, random_state=0, sentence_split="lines", **p
            ),
            [X_han[i] for i in han_rows],
            y_han[han_rows],
        ),
    }
    _concurrent_predictions(models)
    if "--concurrent-only" in sys.argv:
        return
    for load in ("quiet", "loaded"):
        stop, burner = multiprocessing.Event(), None
        if load == "loaded":
            burner = multiprocessing.Process(target=_busy, args=(stop,), daemon=True)
            burner.start()
        try:
            for name, (make, X, y) in models.items():
                for threads in (1, 2):
                    train, predict = _speeds(make, X, y, threads)
                    prefix = f"{name}_{load}_threads{threads}"
                    report(f"{prefix}_train_docs_per_s", train, "docs/s")
                    report(f"{prefix}_predict_docs_per_s", predict, "docs/s")
        finally:
            stop.set()
            if burner is not None:
                burner.join()


if __name__ == "__main__":
    main()
