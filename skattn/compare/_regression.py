"""Regression: the attention regressors against ridge and linear TF-IDF baselines.

The same loop as :func:`~skattn.compare.compare` (every model on the same
splits, timed), on shuffled K-fold or one shuffled hold-out split (a
number has no class to stratify on), scored by R², mean absolute error and
Pearson's r per fold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.svm import LinearSVR

from skattn.compare._evaluation import check_cv, fold_runs
from skattn.compare._registry import (
    ATTENTION_MODEL,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
    ModelEntry,
    set_random_state,
)


def tfidf_ridge(alpha: float = 1.0) -> Pipeline:
    """TF-IDF of 1–2-grams (as :func:`skattn.baselines.tfidf_logreg`) + ridge regression.

    Examples
    --------
    >>> tfidf_ridge().steps[-1][0]
    'ridge'
    """
    features = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    return make_pipeline(features, Ridge(alpha=alpha))


def regression_models(quick: bool = False, random_state: int | None = 0) -> dict[str, ModelEntry]:
    """Name → entry of the models a regression comparison knows.

    ``self_attentive`` and ``han`` (:class:`~skattn.SelfAttentiveRegressor`,
    :class:`~skattn.HierarchicalAttentionRegressor`); ``tfidf_ridge``,
    ``bow_tfidf_ridge`` (word TF-IDF + ridge) and ``tfidf_linear_svr``
    (TF-IDF + a linear support vector regressor).

    Parameters
    ----------
    quick : bool, default=False
        One epoch and 50-dimensional embeddings for the attention models.
    random_state : int or None, default=0

    Returns
    -------
    dict of str to ModelEntry

    Examples
    --------
    >>> sorted(regression_models())
    ['bow_tfidf_ridge', 'han', 'self_attentive', 'tfidf_linear_svr', 'tfidf_ridge']
    """
    from skattn.estimators._regressors import (
        HierarchicalAttentionRegressor,
        SelfAttentiveRegressor,
    )

    params = {"max_epochs": 1, "embedding_dim": 50} if quick else {}

    def entry(build: Callable[[], BaseEstimator], kind: str) -> ModelEntry:
        return ModelEntry(lambda: set_random_state(build(), random_state), kind)

    return {
        "self_attentive": entry(lambda: SelfAttentiveRegressor(**params), ATTENTION_MODEL),
        "han": entry(lambda: HierarchicalAttentionRegressor(**params), ATTENTION_MODEL),
        "tfidf_ridge": entry(tfidf_ridge, TUNED_BASELINE),
        "bow_tfidf_ridge": entry(
            lambda: make_pipeline(TfidfVectorizer(max_features=50_000), Ridge()), TABLE_2_BASELINE
        ),
        "tfidf_linear_svr": entry(
            lambda: make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2), LinearSVR()),
            TUNED_BASELINE,
        ),
    }


def regression_scores(y_true, y_pred) -> dict[str, float]:
    """R², mean absolute error and Pearson's r of one fold.

    Examples
    --------
    >>> scores = regression_scores([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])
    >>> round(scores["mae"], 3), round(scores["pearson"], 3)
    (0.333, 0.982)
    """
    y_true = np.asarray(y_true, dtype=float).ravel()
    y_pred = np.asarray(y_pred, dtype=float).ravel()
    constant = np.std(y_pred) == 0 or np.std(y_true) == 0
    pearson = float("nan") if constant else float(np.corrcoef(y_true, y_pred)[0, 1])
    return {
        "r2": float(r2_score(y_true, y_pred)),
        "mae": float(mean_absolute_error(y_true, y_pred)),
        "pearson": pearson,
    }


def compare_regression(
    X: Sequence[str],
    y,
    models: dict[str, Callable[[], BaseEstimator]],
    *,
    cv: int | None = 5,
    test_size: float = 0.2,
    random_state: int | None = 0,
    progress: Callable[[str], None] = print,
    on_last_fold: Callable[[str, BaseEstimator, np.ndarray, Any], None] | None = None,
) -> list[dict]:
    """Fit and score every regressor on the same shuffled splits.

    Parameters
    ----------
    X : sequence of str
    y : array-like of float
    models : dict of str to callable
        Name → factory of an unfitted regressor (e.g. :func:`regression_models`).
    cv : int or None, default=5
        Shuffled K-fold; None or 1: one hold-out split of ``test_size``.
    test_size : float, default=0.2
    random_state : int or None, default=0
    progress, on_last_fold : callable, optional
        As in :func:`~skattn.compare.compare`.

    Returns
    -------
    list of dict
        Per model: ``model``, ``kind``, per fold ``r2s``, ``maes``,
        ``pearsons``; their means ``r2_mean``, ``mae_mean``,
        ``pearson_mean`` and ``r2_std``; ``fit_seconds``,
        ``predict_docs_per_s``, ``n_train``.

    Examples
    --------
    >>> X = ["awful film", "fine film", "great film"] * 10
    >>> y = [1.0, 2.0, 3.0] * 10
    >>> [r] = compare_regression(X, y, {"ridge": tfidf_ridge}, cv=3, progress=len)
    >>> r["model"], len(r["r2s"]), r["pearson_mean"] > 0.99
    ('ridge', 3, True)
    """
    check_cv(cv)
    X, y = np.asarray(X, dtype=object), np.asarray(y, dtype=float)
    if cv is not None and cv > 1:
        splits = list(KFold(cv, shuffle=True, random_state=random_state).split(X))
    else:
        splits = list(ShuffleSplit(1, test_size=test_size, random_state=random_state).split(X))

    def describe(scores: dict) -> str:
        return f"R² {scores['r2']:.4f}, MAE {scores['mae']:.4g}"

    runs = fold_runs(
        X, y, models, splits, regression_scores, describe, random_state, progress, on_last_fold
    )
    return [_record(run, splits) for run in runs]


def _record(run, splits) -> dict:
    record: dict[str, Any] = {"model": run.name, "kind": run.kind}
    for measure in ("r2", "mae", "pearson"):
        values = [fold[measure] for fold in run.scores]
        record[f"{measure}s"] = values
        record[f"{measure}_mean"] = float(np.mean(values))
    record["r2_std"] = float(np.std(record["r2s"]))
    record.update(
        fit_seconds=float(np.mean(run.fit_seconds)),
        predict_docs_per_s=float(np.mean(run.predict_rates)),
        n_train=[len(train) for train, _ in splits],
    )
    return record


def format_regression_table(results: list[dict]) -> str:
    """A Markdown table of :func:`compare_regression` results, best R² first.

    Examples
    --------
    >>> print(format_regression_table([{"model": "m", "kind": "tuned baseline",
    ...     "r2s": [0.5], "r2_mean": 0.5, "r2_std": 0.0, "mae_mean": 0.25,
    ...     "pearson_mean": 0.75, "fit_seconds": 1.0, "predict_docs_per_s": 900.0}]))
    ... # doctest: +NORMALIZE_WHITESPACE
    | model | kind | R² | MAE | Pearson r | fit s / fold | predict docs/s |
    |---|---|---|---|---|---|---|
    | m | tuned baseline | 0.5000 | 0.25 | 0.7500 | 1.0 | 900 |
    """
    header = ["model", "kind", "R²", "MAE", "Pearson r", "fit s / fold", "predict docs/s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in sorted(results, key=lambda r: -r["r2_mean"]):
        r2 = f"{r['r2_mean']:.4f}" + (f" ± {r['r2_std']:.4f}" if len(r["r2s"]) > 1 else "")
        cells = [
            r["model"],
            r.get("kind") or "other",
            r2,
            f"{r['mae_mean']:.4g}",
            f"{r['pearson_mean']:.4f}",
            f"{r['fit_seconds']:.1f}",
            f"{r['predict_docs_per_s']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
