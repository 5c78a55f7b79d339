"""Training and inference speed of an attention estimator, measured one way for all."""

from __future__ import annotations

import time

import numpy as np
from sklearn.model_selection import train_test_split

from skattn.utils._runtime import torch_threads

from _common import peak_rss_mb, report


def split(X, y, seed: int = 0):
    """The stratified 80/20 split every benchmark uses."""
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=seed)


def measure(estimator, X_train, y_train, X_test, y_test, prefix: str = "") -> None:
    """Fit, then report training/inference docs/s and tokens/s, accuracy and peak RSS.

    Training speed counts the epochs' own durations (skorch's history), not
    the vocabulary building before them.
    """
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    epoch_seconds = sum(estimator.net_.history[:, "dur"])
    epochs = len(estimator.net_.history)
    train_tokens = int(estimator.encoder_.encode(X_train).document_lengths.sum())
    start = time.perf_counter()
    predicted = estimator.predict(X_test)
    predict_seconds = time.perf_counter() - start
    test_tokens = int(estimator.encoder_.encode(X_test).document_lengths.sum())
    report(f"{prefix}threads", estimator.threads)
    report(f"{prefix}epochs", epochs)
    report(f"{prefix}fit_seconds", fit_seconds, "s")
    report(f"{prefix}train_docs_per_s", len(X_train) * epochs / epoch_seconds, "docs/s")
    report(f"{prefix}train_tokens_per_s", train_tokens * epochs / epoch_seconds, "tokens/s")
    report(f"{prefix}predict_docs_per_s", len(X_test) / predict_seconds, "docs/s")
    report(f"{prefix}predict_tokens_per_s", test_tokens / predict_seconds, "tokens/s")
    report(f"{prefix}test_accuracy", float(np.mean(predicted == np.asarray(y_test))))
    report(f"{prefix}peak_rss_mb", peak_rss_mb(), "MiB")


def unbucketed_train_docs_per_s(estimator, X_train, y_train, epochs: int = 1) -> float:
    """Training docs/s of a fitted estimator's network retrained on plain random batches."""
    dataset = estimator.to_dataset(X_train, y_train)
    net = estimator.net_
    net.set_params(bucket_pool=1, max_epochs=epochs, callbacks=[], train_split=None)
    with torch_threads(estimator.threads):
        net.fit(dataset, y=None)
    return len(X_train) * epochs / sum(net.history[:, "dur"])
