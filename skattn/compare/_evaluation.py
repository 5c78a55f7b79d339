"""The fold loop: every model fitted and scored on the same splits, timed.

Stratified splits need every class on both sides of every split: K-fold
needs at least K documents of each class, a hold-out split at least 2.
:func:`compare` refuses a corpus with smaller classes, naming them;
:func:`drop_rare_classes` removes them beforehand (the command line does so
and says which classes it dropped, e.g. on a ``--max-docs`` sample of
nps_chat, whose rarest dialogue acts have 35 and 38 posts).

The records of :func:`compare`, one per model: ``model`` (its name),
``kind`` (the ``kind`` of its factory, None when the factory has none),
``accuracies`` (per fold), ``accuracy_mean``, ``accuracy_std`` (population
std over folds), ``fit_seconds`` (mean per fold) with
``fit_seconds_folds`` (per fold), ``predict_docs_per_s``; per fold,
``n_train`` (training documents), ``test_indices`` and ``correct`` (bool
per test document, in ``test_indices`` order: every model sees the same
folds, so these pair the models document by document); and what
:func:`~skattn.compare.add_statistics` adds: ``accuracy_interval`` (95%
bootstrap interval for one split) and ``paired_test`` (each attention
model against the best baseline).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from skattn.compare._registry import set_random_state
from skattn.compare._stats import add_statistics


def min_class_size(cv: int | None, test_mask: np.ndarray | None = None) -> int:
    """The fewest documents a class needs for the splits of :func:`compare`.

    Parameters
    ----------
    cv : int or None
        As in :func:`compare`.
    test_mask : ndarray of bool, optional
        A fixed split (used when ``cv`` is None or 1) needs no stratification.

    Returns
    -------
    int
        ``cv`` for K-fold (K ≥ 2), 2 for a stratified hold-out split, 1 for
        a fixed split.

    Examples
    --------
    >>> min_class_size(5), min_class_size(1), min_class_size(None, test_mask=[True, False])
    (5, 2, 1)
    """
    if cv is not None and cv > 1:
        return cv
    return 1 if test_mask is not None else 2


def rare_classes(y, min_count: int) -> dict:
    """The classes of ``y`` with fewer than ``min_count`` documents, with their counts.

    Parameters
    ----------
    y : array-like
    min_count : int

    Returns
    -------
    dict
        Class → count, rarest first.

    Examples
    --------
    >>> rare_classes(["a", "a", "a", "b", "c", "c"], 3)
    {'b': 1, 'c': 2}
    """
    labels, counts = np.unique(np.asarray(y), return_counts=True)
    order = np.argsort(counts, kind="stable")
    # Plain Python labels (str, int), so the dict prints and serialises as users wrote them.
    plain = labels.tolist()
    return {plain[i]: int(counts[i]) for i in order if counts[i] < min_count}


def drop_rare_classes(X: Sequence[str], y, min_count: int):
    """Remove the documents of classes with fewer than ``min_count`` documents.

    Parameters
    ----------
    X : sequence of str
    y : array-like
    min_count : int
        E.g. :func:`min_class_size` of the planned splits.

    Returns
    -------
    X : list of str
    y : ndarray
    keep : ndarray of bool
        Which documents were kept (to subset a ``test_mask`` too).
    dropped : dict
        Class → count of the classes removed (see :func:`rare_classes`).

    Examples
    --------
    >>> X, y, keep, dropped = drop_rare_classes(["a", "b", "c", "d"], [0, 0, 1, 0], 2)
    >>> X, y.tolist(), dropped
    (['a', 'b', 'd'], [0, 0, 0], {1: 1})
    """
    y = np.asarray(y)
    dropped = rare_classes(y, min_count)
    keep = ~np.isin(y, list(dropped))
    return [doc for doc, kept in zip(X, keep) if kept], y[keep], keep, dropped


def check_cv(cv) -> None:
    """Raise unless ``cv`` is None or an int ≥ 1 (the folds of a comparison).

    Examples
    --------
    >>> check_cv(5)
    >>> check_cv(0)
    Traceback (most recent call last):
    ...
    ValueError: cv must be None or an int >= 1 (1: a single split), got 0.
    """
    if cv is not None and (isinstance(cv, bool) or not isinstance(cv, Integral) or cv < 1):
        raise ValueError(f"cv must be None or an int >= 1 (1: a single split), got {cv!r}.")


def _splits(
    y: np.ndarray,
    cv: int | None,
    test_size: float,
    test_mask: np.ndarray | None,
    random_state: int | None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of a comparison (see :func:`compare`)."""
    check_cv(cv)
    stratified = (cv is not None and cv > 1) or test_mask is None
    too_small = rare_classes(y, min_class_size(cv, test_mask)) if stratified else {}
    if too_small:
        split = f"{cv}-fold CV" if cv and cv > 1 else "a stratified hold-out split"
        raise ValueError(
            f"{split} needs at least {min_class_size(cv, test_mask)} documents of each class; "
            f"class(es) {too_small} (class: documents) have fewer. Drop them first "
            "(skattn.compare.drop_rare_classes) or use fewer folds."
        )
    placeholder = np.zeros(len(y))
    if cv is not None and cv > 1:
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
        Name → factory of an unfitted estimator (e.g. :func:`available_models`).
    cv : int or None, default=5
        Stratified K-fold (shuffled with ``random_state``); None or 1: one
        split, ``test_mask``'s if given, else a stratified hold-out split of
        ``test_size``. Every class needs K documents (2 for a hold-out split).
    test_size : float, default=0.2
    test_mask : ndarray of bool, optional
        A corpus' own test documents (used when ``cv`` is None or 1).
    random_state : int or None, default=0
        Seed of the splits and of every model (:func:`set_random_state`).
    progress : callable, default=print
        Receives one line per model and fold.
    on_last_fold : callable, optional
        ``on_last_fold(name, model, X_test, y_test)`` after each model's last fold.

    Returns
    -------
    list of dict
        One record per model, as the module docstring describes.

    Raises
    ------
    ValueError
        If ``cv`` is not None or an int ≥ 1, or a class is too small for the splits.

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> X = ["good", "fine", "great", "bad", "poor", "awful"] * 5
    >>> y = [1, 1, 1, 0, 0, 0] * 5
    >>> [record] = compare(X, y, {"tfidf": tfidf_logreg}, cv=3, progress=len)
    >>> record["model"], record["n_train"], [c.size for c in record["correct"]]
    ('tfidf', [20, 20, 20], [10, 10, 10])
    """
    X = np.asarray(X, dtype=object)
    y = np.asarray(y)
    splits = _splits(y, cv, test_size, test_mask, random_state)
    runs = fold_runs(
        X, y, models, splits, _correct, _accuracy, random_state, progress, on_last_fold
    )
    return add_statistics([_record(run, splits) for run in runs])


def _correct(y_test, predicted) -> np.ndarray:
    """Whether each test document's prediction is right (what a fold keeps)."""
    return np.asarray(predicted == y_test, dtype=bool)


def _accuracy(correct) -> str:
    return f"accuracy {np.mean(correct):.4f}"


def _record(run: FoldRun, splits: list) -> dict:
    """One model's record of :func:`compare` (before the statistics)."""
    accuracies = [float(np.mean(correct)) for correct in run.scores]
    return {
        "model": run.name,
        "kind": run.kind,
        "accuracies": accuracies,
        "accuracy_mean": float(np.mean(accuracies)),
        "accuracy_std": float(np.std(accuracies)),
        "fit_seconds": float(np.mean(run.fit_seconds)),
        "fit_seconds_folds": run.fit_seconds,
        "predict_docs_per_s": float(np.mean(run.predict_rates)),
        "n_train": [len(train) for train, _ in splits],
        "test_indices": [test for _, test in splits],
        "correct": run.scores,
    }


@dataclass
class FoldRun:
    """One model's pass over the splits of a comparison (see :func:`fold_runs`).

    Attributes
    ----------
    name : str
    kind : str or None
        The ``kind`` of the model's factory.
    scores : list
        What ``score`` returned for each fold.
    fit_seconds, predict_rates : list of float
        Fit time and predicted documents per second of each fold.

    Examples
    --------
    >>> run = FoldRun("lr", None, scores=[0.75, 0.25])
    >>> run.name, sum(run.scores) / len(run.scores)
    ('lr', 0.5)
    """

    name: str
    kind: str | None
    scores: list = field(default_factory=list)
    fit_seconds: list = field(default_factory=list)
    predict_rates: list = field(default_factory=list)


def fold_runs(
    X: np.ndarray,
    y,
    models: dict[str, Callable[[], BaseEstimator]],
    splits: list[tuple[np.ndarray, np.ndarray]],
    score: Callable[[Any, Any], Any],
    describe: Callable[[Any], str],
    random_state: int | None = 0,
    progress: Callable[[str], None] = print,
    on_last_fold: Callable[[str, BaseEstimator, np.ndarray, Any], None] | None = None,
    fit_target: Callable[[Any], Any] | None = None,
) -> Iterator[FoldRun]:
    """Fit, time and score every model on every split: the loop both comparisons share.

    Parameters
    ----------
    X : ndarray of str (object)
    y : ndarray or matrix indexable by rows
    models : dict of str to callable
        Name → factory of an unfitted estimator.
    splits : list of (train indices, test indices)
    score : callable
        ``score(y_test, predicted)``: what a fold keeps.
    describe : callable
        ``describe(score)``: the measure in the fold's progress line.
    random_state : int or None, default=0
        Set on every model before each fit (:func:`set_random_state`).
    progress : callable, default=print
    on_last_fold : callable, optional
        ``on_last_fold(name, fitted_model, X_test, y_test)`` after each model's last fold.
    fit_target : callable, optional
        Models are fitted on ``fit_target(y_train)`` (default: ``y_train``).

    Yields
    ------
    FoldRun
        One per model, after its last fold.

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> X, y = np.array(["good", "bad"] * 6, dtype=object), np.array([1, 0] * 6)
    >>> splits = [(np.arange(8), np.arange(8, 12))]
    >>> [run] = fold_runs(X, y, {"lr": tfidf_logreg}, splits,
    ...                   score=lambda t, p: np.mean(t == p), describe=str, progress=len)
    >>> run.name, [float(score) for score in run.scores]
    ('lr', [1.0])
    """
    for name, factory in models.items():
        run = FoldRun(name, getattr(factory, "kind", None))
        for fold, (train, test) in enumerate(splits, start=1):
            progress(f"{name} fold {fold}/{len(splits)}: training on {len(train)} documents")
            model = _fit_and_score(
                run, factory, X, y, (train, test), score, random_state, fit_target
            )
            progress(f"{name} fold {fold}/{len(splits)}: {_fold_summary(run, describe)}")
        if on_last_fold is not None:
            on_last_fold(name, model, X[test], y[test])
        yield run


def _fold_summary(run: FoldRun, describe) -> str:
    """The last fold's score, fit time and prediction rate, for its progress line."""
    return (
        f"{describe(run.scores[-1])}, fit {run.fit_seconds[-1]:.1f} s, "
        f"predict {run.predict_rates[-1]:.0f} docs/s"
    )


def _fit_and_score(run: FoldRun, factory, X, y, split, score, random_state, fit_target):
    """Fit a new model on one fold, time it, score its predictions into ``run``."""
    train, test = split
    model = set_random_state(clone(factory()), random_state)
    target = y[train] if fit_target is None else fit_target(y[train])
    start = time.perf_counter()
    model.fit(X[train], target)
    run.fit_seconds.append(time.perf_counter() - start)
    start = time.perf_counter()
    predicted = model.predict(X[test])
    run.predict_rates.append(len(test) / (time.perf_counter() - start))
    run.scores.append(score(y[test], predicted))
    return model
