"""The comparison for multi-label corpora: macro- and micro-F1 on the same splits.

Accuracy, the measure of :func:`~skattn.compare.compare`, says little when a
document has several labels and most labels are rare. Multi-label corpora
(``y`` an indicator matrix) are scored by **macro-F1** (the mean of the
labels' F1: every label counts the same, so rare labels matter) and
**micro-F1** (F1 over all the label decisions pooled: frequent labels
dominate). Macro-F1 is the headline measure, as in the GoEmotions paper.

How sure a result is (one split): a percentile bootstrap interval of each
model's macro-F1 over the test documents, and a paired bootstrap test of
each attention model against the best baseline (the same resampled
documents for both; two-sided p-value, twice the share of resamples on the
wrong side of zero). Several folds: the mean ± std over folds and the
corrected resampled t-test of :mod:`skattn.compare._stats` on the per-fold
macro-F1 differences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold, ShuffleSplit

from skattn.compare._evaluation import check_cv, fold_runs
from skattn.compare._registry import ATTENTION_MODEL, BASELINE_KINDS
from skattn.compare._stats import ALPHA, corrected_resampled_ttest

__all__ = ["compare_multilabel", "f1_scores", "format_multilabel_table"]

#: Bootstrap resamples of the intervals and the paired test.
N_RESAMPLES = 1000


def f1_scores(Y_true: np.ndarray, Y_pred: np.ndarray) -> tuple[float, float]:
    """Macro- and micro-F1 of an indicator matrix of predictions (0 for a label never
    predicted nor present, as ``zero_division=0`` in scikit-learn).

    Examples
    --------
    >>> f1_scores(np.array([[1, 0], [0, 1]]), np.array([[1, 0], [1, 1]]))
    (0.8333333333333333, 0.8)
    """
    counts = _counts(np.asarray(Y_true, bool), np.asarray(Y_pred, bool))
    return _macro(counts), _micro(counts)


def _counts(Y_true: np.ndarray, Y_pred: np.ndarray) -> np.ndarray:
    """Per document and label: true positive, false positive, false negative (n, 3, L)."""
    return np.stack([Y_true & Y_pred, ~Y_true & Y_pred, Y_true & ~Y_pred], axis=1).astype(np.int32)


def _macro(counts: np.ndarray) -> float:
    tp, fp, fn = counts.sum(axis=0).astype(np.float64)
    denominator = 2 * tp + fp + fn
    f1 = np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)
    return float(f1.mean())


def _micro(counts: np.ndarray) -> float:
    tp, fp, fn = counts.sum(axis=(0, 2)).astype(np.float64)
    return float(2 * tp / (2 * tp + fp + fn)) if tp + fp + fn else 0.0


def _splits(n: int, cv, test_size: float, test_mask, random_state):
    """Unstratified folds: a multi-label row has no single class to stratify on."""
    check_cv(cv)
    placeholder = np.zeros(n)
    if cv is not None and cv > 1:
        return list(KFold(cv, shuffle=True, random_state=random_state).split(placeholder))
    if test_mask is not None:
        return [(np.flatnonzero(~test_mask), np.flatnonzero(test_mask))]
    splitter = ShuffleSplit(1, test_size=test_size, random_state=random_state)
    return list(splitter.split(placeholder))


def compare_multilabel(
    X: Sequence[str],
    Y,
    models: dict[str, Callable[[], BaseEstimator]],
    *,
    cv: int | None = None,
    test_size: float = 0.2,
    test_mask: np.ndarray | None = None,
    random_state: int | None = 0,
    progress: Callable[[str], None] = print,
    on_last_fold: Callable[[str, BaseEstimator, np.ndarray, np.ndarray], None] | None = None,
    label_names: Sequence[str] | None = None,
) -> list[dict]:
    """Fit every model on the same splits of a multi-label corpus; macro- and micro-F1.

    Parameters
    ----------
    X : sequence of str
    Y : array-like or sparse matrix of shape (n_documents, n_labels)
        0/1 indicator matrix.
    models : dict of str to callable
        Name → factory of an unfitted multi-label classifier.
    cv : int or None, default=None
        K-fold (shuffled; multi-label folds are not stratified); None or 1:
        ``test_mask``'s split if given, else a shuffled hold-out split.
    test_size : float, default=0.2
    test_mask : ndarray of bool, optional
        The corpus' own test documents.
    random_state : int or None, default=0
        Seed of the splits, the bootstrap and every model.
    progress : callable, default=print
    on_last_fold : callable, optional
        ``on_last_fold(name, fitted_model, X_test, Y_test)`` after each model's last fold.
    label_names : sequence of str, optional
        One per column of ``Y``: the fitted DataFrame's columns, the labels' names.

    Returns
    -------
    list of dict
        Per model: ``model``, ``kind``, ``macro_f1s``, ``micro_f1s`` (per fold,
        with ``_mean``, ``_std``; one split: ``_interval``, 95% bootstrap),
        ``fit_seconds``, ``predict_docs_per_s``, ``n_train``; attention models
        ``paired_test`` against the best baseline.

    Examples
    --------
    >>> from skattn.compare._registry import one_vs_rest
    >>> from skattn.baselines._table2 import bow_tfidf
    >>> X = ["good fun", "good", "sad fun", "sad"] * 10
    >>> Y = np.array([[1, 1], [1, 0], [0, 1], [0, 0]] * 10)
    >>> models = {"ovr": lambda: one_vs_rest(bow_tfidf())}
    >>> compare_multilabel(X, Y, models, progress=len)[0]["macro_f1_mean"]
    1.0
    """
    X = np.asarray(X, dtype=object)
    Y = (Y.toarray() if sp.issparse(Y) else np.asarray(Y)).astype(np.int64)
    splits = _splits(len(X), cv, test_size, test_mask, random_state)
    loop = dict(on_last_fold=on_last_fold, fit_target=_named(label_names, Y.shape[1]))
    runs = fold_runs(X, Y, models, splits, _score, _describe, random_state, progress, **loop)
    return _add_statistics([_record(run, splits) for run in runs], random_state)


def _named(label_names: Sequence[str] | None, n_labels: int) -> Callable | None:
    """Fit targets as a DataFrame whose columns are ``label_names`` (None: as they are)."""
    if label_names is None:
        return None
    if len(label_names) != n_labels:
        raise ValueError(f"label_names has {len(label_names)} names for {n_labels} labels")
    try:
        import pandas as pd
    except ImportError:  # the scores need no names: the arrays do
        return None
    columns = [str(name) for name in label_names]
    return lambda Y: pd.DataFrame(Y, columns=columns)


def _score(Y_test, predicted) -> np.ndarray:
    """A fold's per-document, per-label counts (what a fold keeps)."""
    predicted = predicted.toarray() if sp.issparse(predicted) else np.asarray(predicted)
    return _counts(Y_test.astype(bool), predicted.astype(bool))


def _describe(counts) -> str:
    return f"macro-F1 {_macro(counts):.4f}, micro-F1 {_micro(counts):.4f}"


def _record(run, splits) -> dict:
    """One model's record of :func:`compare_multilabel` (before the statistics)."""
    macro = [_macro(counts) for counts in run.scores]
    micro = [_micro(counts) for counts in run.scores]
    return {
        "model": run.name,
        "kind": run.kind,
        "macro_f1s": macro,
        "micro_f1s": micro,
        "macro_f1_mean": float(np.mean(macro)),
        "macro_f1_std": float(np.std(macro)),
        "micro_f1_mean": float(np.mean(micro)),
        "micro_f1_std": float(np.std(micro)),
        "fit_seconds": float(np.mean(run.fit_seconds)),
        "predict_docs_per_s": float(np.mean(run.predict_rates)),
        "n_train": [len(train) for train, _ in splits],
        "n_test": [len(test) for _, test in splits],
        "counts": run.scores,
    }


def _add_statistics(results: list[dict], random_state: int | None) -> list[dict]:
    """Bootstrap intervals (one split) and paired tests against the best baseline."""
    rng = np.random.default_rng(random_state)
    one_split = all(len(r["counts"]) == 1 for r in results)
    resamples = None
    if one_split and results:
        n_test = results[0]["counts"][0].shape[0]
        resamples = rng.integers(0, n_test, size=(N_RESAMPLES, n_test))
    for record in results:
        if resamples is not None:
            counts = record["counts"][0]
            for measure, score in (("macro_f1", _macro), ("micro_f1", _micro)):
                values = [score(counts[rows]) for rows in resamples]
                low, high = np.percentile(values, [2.5, 97.5])
                record[f"{measure}_interval"] = [float(low), float(high)]
    baselines = [r for r in results if r["kind"] in BASELINE_KINDS]
    best = max(baselines, key=lambda r: r["macro_f1_mean"]) if baselines else None
    for record in results:
        if best is None or record["kind"] != ATTENTION_MODEL:
            continue
        margin = record["macro_f1_mean"] - best["macro_f1_mean"]
        if resamples is not None:
            ours, theirs = record["counts"][0], best["counts"][0]
            differences = np.array(
                [_macro(ours[rows]) - _macro(theirs[rows]) for rows in resamples]
            )
            tail = min((differences <= 0).mean(), (differences >= 0).mean())
            test, p_value = "paired bootstrap", float(min(1.0, 2 * tail))
        else:
            differences = np.subtract(record["macro_f1s"], best["macro_f1s"])
            numbers = corrected_resampled_ttest(
                differences, np.mean(record["n_train"]), np.mean(record["n_test"])
            )
            test, p_value = "corrected resampled t-test", numbers["p_value"]
        record["paired_test"] = {
            "baseline": best["model"],
            "margin": float(100 * margin),
            "test": test,
            "p_value": p_value,
            "significant": bool(p_value < ALPHA),
        }
    return results


def format_multilabel_table(results: list[dict]) -> str:
    """A Markdown table of :func:`compare_multilabel` results, best macro-F1 first.

    Examples
    --------
    >>> print(format_multilabel_table([{"model": "ovr", "kind": "tuned baseline",
    ...     "macro_f1_mean": 0.45, "macro_f1_std": 0.0, "macro_f1_interval": [0.43, 0.47],
    ...     "micro_f1_mean": 0.55, "micro_f1_std": 0.0, "micro_f1_interval": [0.54, 0.56],
    ...     "fit_seconds": 12.0, "predict_docs_per_s": 9000.0}]))
    | model | kind | macro-F1 (%) [95% bootstrap interval] | micro-F1 (%) | fit s / fold | predict docs/s | Δ macro-F1 vs best baseline | p |
    |---|---|---|---|---|---|---|---|
    | ovr | tuned baseline | 45.00 [43.00, 47.00] | 55.00 [54.00, 56.00] | 12.0 | 9,000 |  |  |
    """  # noqa: E501
    several = any(r.get("macro_f1_interval") is None for r in results)
    spread = "± std over folds" if several else "[95% bootstrap interval]"
    lines = [
        f"| model | kind | macro-F1 (%) {spread} | micro-F1 (%) | fit s / fold | predict docs/s "
        "| Δ macro-F1 vs best baseline | p |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: -r["macro_f1_mean"]):
        cells = []
        for measure in ("macro_f1", "micro_f1"):
            text = f"{100 * r[f'{measure}_mean']:.2f}"
            interval = r.get(f"{measure}_interval")
            if interval is None:
                text += f" ± {100 * r[f'{measure}_std']:.2f}"
            else:
                text += f" [{100 * interval[0]:.2f}, {100 * interval[1]:.2f}]"
            cells.append(text)
        test = r.get("paired_test")
        margin = f"{test['margin']:+.2f} vs {test['baseline']}" if test else ""
        p_value = (
            "" if not test else "<0.001" if test["p_value"] < 0.001 else f"{test['p_value']:.3f}"
        )
        lines.append(
            f"| {r['model']} | {r['kind'] or ''} | {cells[0]} | {cells[1]} | "
            f"{r['fit_seconds']:.1f} | {r['predict_docs_per_s']:,.0f} | {margin} | {p_value} |"
        )
    return "\n".join(lines)
