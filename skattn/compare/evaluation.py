"""The fold loop: every model fitted and scored on the same splits, timed."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from skattn.compare.registry import set_random_state


def _splits(
    y: np.ndarray,
    cv: int | None,
    test_size: float,
    test_mask: np.ndarray | None,
    random_state: int | None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of a comparison (see :func:`compare`)."""
    placeholder = np.zeros(len(y))
    if cv:
        folds = StratifiedKFold(cv, shuffle=True, random_state=random_state)
        return list(folds.split(placeholder, y))
    if test_mask is not None:
        return [(np.flatnonzero(~test_mask), np.flatnonzero(test_mask))]
    splitter = StratifiedShuffleSplit(1, test_size=test_size, random_state=random_state)
    return list(splitter.split(placeholder, y))


def compare(
    X: Sequence[str],
    y,
    models: dict[str, Callable[[], BaseEstimator]],
    *,
    cv: int | None = 5,
    test_size: float = 0.2,
    test_mask: np.ndarray | None = None,
    random_state: int | None = 0,
    progress: Callable[[str], None] = print,
    on_last_fold: Callable[[str, BaseEstimator, np.ndarray, np.ndarray], None] | None = None,
) -> list[dict]:
    """Fit and score every model on the same stratified splits.

    Parameters
    ----------
    X : sequence of str
    y : array-like
    models : dict of str to callable
        Name → factory returning an unfitted estimator, such as the entries
        of :func:`available_models`.
    cv : int or None, default=5
        Stratified K-fold (shuffled with ``random_state``); None: the fixed
        split of ``test_mask`` if given, else one stratified hold-out split
        of ``test_size``.
    test_size : float, default=0.2
    test_mask : ndarray of bool, optional
        A corpus' own test documents (used when ``cv`` is None).
    random_state : int or None, default=0
        Seed of the splits and of every model: each parameter of a model
        whose name ends in ``random_state`` is set to it before each fit
        (see :func:`set_random_state`).
    progress : callable, default=print
        Receives one line per model and fold.
    on_last_fold : callable, optional
        Called as ``on_last_fold(name, fitted_model, X_test, y_test)`` after
        each model's last fold (e.g. to render its attention).

    Returns
    -------
    list of dict
        Per model: ``model`` (its name), ``kind`` (the ``kind`` of its
        factory, None when the factory has none), ``accuracies`` (per
        fold), ``accuracy_mean``, ``accuracy_std``, ``fit_seconds`` (mean
        per fold) and ``predict_docs_per_s``.

    Examples
    --------
    >>> from skattn.baselines import tfidf_logreg
    >>> X = ["good", "fine", "great", "bad", "poor", "awful"] * 5
    >>> y = [1, 1, 1, 0, 0, 0] * 5
    >>> [r["model"] for r in compare(X, y, {"tfidf": tfidf_logreg}, cv=3, progress=len)]
    ['tfidf']
    """
    X = np.asarray(X, dtype=object)
    y = np.asarray(y)
    splits = _splits(y, cv, test_size, test_mask, random_state)
    results = []
    for name, factory in models.items():
        accuracies, fit_seconds, predict_rates = [], [], []
        for fold, (train, test) in enumerate(splits, start=1):
            model = set_random_state(clone(factory()), random_state)
            start = time.perf_counter()
            model.fit(X[train], y[train])
            fit_time = time.perf_counter() - start
            start = time.perf_counter()
            predicted = model.predict(X[test])
            predict_time = time.perf_counter() - start
            accuracies.append(float(np.mean(predicted == y[test])))
            fit_seconds.append(fit_time)
            predict_rates.append(len(test) / predict_time)
            progress(
                f"{name} fold {fold}/{len(splits)}: accuracy {accuracies[-1]:.4f}, "
                f"fit {fit_time:.1f} s, predict {predict_rates[-1]:.0f} docs/s"
            )
        if on_last_fold is not None:
            on_last_fold(name, model, X[test], y[test])
        results.append(
            {
                "model": name,
                "kind": getattr(factory, "kind", None),
                "accuracies": accuracies,
                "accuracy_mean": float(np.mean(accuracies)),
                "accuracy_std": float(np.std(accuracies)),
                "fit_seconds": float(np.mean(fit_seconds)),
                "predict_docs_per_s": float(np.mean(predict_rates)),
            }
        )
    return results
