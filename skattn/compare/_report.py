"""Reporting a comparison: Markdown and JSON tables, the bar chart, attention pages.

The table and the chart show how sure each figure is: the standard
deviation over folds, or for one split a 95% bootstrap interval over the
test documents; and for each attention model its margin over the best
baseline with the paired test's p-value (:mod:`skattn.compare._stats` says
which test and why).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from skattn.compare._registry import (
    ATTENTION_MODEL,
    OTHER_BASELINE,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
)
from skattn.compare._stats import ALPHA, best_baseline

#: The kinds of model a comparison holds, with their chart colours.
MODEL_KINDS = {
    ATTENTION_MODEL: "#c44e52",
    TABLE_2_BASELINE: "#4c72b0",
    TUNED_BASELINE: "#8c8c8c",
    OTHER_BASELINE: "#55a868",
}
#: What the table and the chart call a model whose kind is not one of MODEL_KINDS.
OTHER_KIND = "other"
_OTHER_COLOUR = "#dd8452"


def _kind(record: dict) -> str:
    kind = record.get("kind")
    return kind if kind in MODEL_KINDS else OTHER_KIND


def _several_folds(results: list[dict]) -> bool:
    return any(len(r.get("accuracies", [])) > 1 for r in results)


def _paired_tests(results: list[dict]) -> list[dict]:
    return [r["paired_test"] for r in results if r.get("paired_test")]


def _p_value(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def format_table(results: list[dict]) -> str:
    """A Markdown table of :func:`compare` results, best accuracy first.

    Columns: the model and its kind; its accuracy ± std over folds, or
    with a 95% bootstrap interval (one split); fit time per fold and
    prediction speed; each attention model's margin over the best baseline
    (points), the paired test's p-value and significance at 5%.

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.

    Returns
    -------
    str

    Examples
    --------
    One split: a bootstrap interval per model, McNemar's test for the
    attention model.

    >>> print(format_table([
    ...     {"model": "bow", "kind": "Table-2 baseline", "accuracies": [0.75],
    ...      "accuracy_mean": 0.75, "accuracy_std": 0.0, "accuracy_interval": [0.73, 0.77],
    ...      "fit_seconds": 1.0, "predict_docs_per_s": 9000.0, "paired_test": None},
    ...     {"model": "han", "kind": "attention model", "accuracies": [0.78],
    ...      "accuracy_mean": 0.78, "accuracy_std": 0.0, "accuracy_interval": [0.76, 0.8],
    ...      "fit_seconds": 90.0, "predict_docs_per_s": 800.0,
    ...      "paired_test": {"baseline": "bow", "margin": 3.0, "test": "McNemar exact",
    ...                      "p_value": 0.0123, "significant": True}}]))
    ... # doctest: +NORMALIZE_WHITESPACE
    | model | kind | accuracy (%) [95% bootstrap interval] | fit s / fold | predict docs/s
      | vs bow (points) | p (McNemar exact) | significant (5%) |
    |---|---|---|---|---|---|---|---|
    | han | attention model | 78.00 [76.00, 80.00] | 90.0 | 800 | +3.00 | 0.012 | yes |
    | bow | Table-2 baseline | 75.00 [73.00, 77.00] | 1.0 | 9000 | best baseline | – | – |
    """
    tests = _paired_tests(results)
    reference = tests[0]["baseline"] if tests else None
    if reference is None:
        # A run without attention models still names its best baseline.
        best = best_baseline(results)
        reference = None if best is None else best["model"]
    spread = "mean ± std over folds" if _several_folds(results) else "[95% bootstrap interval]"
    test_name = tests[0]["test"] if tests else "paired test"
    header = [
        "model",
        "kind",
        f"accuracy (%) {spread}",
        "fit s / fold",
        "predict docs/s",
        f"vs {reference or 'best baseline'} (points)",
        f"p ({test_name})",
        f"significant ({ALPHA:.0%})",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in sorted(results, key=lambda r: -r["accuracy_mean"]):
        lines.append("| " + " | ".join(_table_cells(r, reference)) + " |")
    return "\n".join(lines)


def _table_cells(r: dict, reference: str | None) -> list[str]:
    """One model's cells of :func:`format_table`."""
    accuracy = f"{100 * r['accuracy_mean']:.2f}"
    interval = r.get("accuracy_interval")
    if len(r.get("accuracies", [])) > 1:
        accuracy += f" ± {100 * r['accuracy_std']:.2f}"
    elif interval is not None:
        accuracy += f" [{100 * interval[0]:.2f}, {100 * interval[1]:.2f}]"
    test = r.get("paired_test")
    if test:
        versus = [
            f"{test['margin']:+.2f}",
            _p_value(test["p_value"]),
            "yes" if test["significant"] else "no",
        ]
    elif r["model"] == reference:
        versus = ["best baseline", "–", "–"]
    else:
        versus = ["–", "–", "–"]
    speed = [f"{r['fit_seconds']:.1f}", f"{r['predict_docs_per_s']:.0f}"]
    return [r["model"], _kind(r), accuracy, *speed, *versus]


def _jsonable(record: dict) -> dict:
    """A record as JSON holds it: per-document correctness as one 0/1 string per fold."""
    out = {}
    for key, value in record.items():
        if key in ("test_indices", "counts"):
            continue  # reproducible from the seed; long
        if key == "correct":
            value = ["".join("1" if c else "0" for c in np.asarray(fold)) for fold in value]
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        elif isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out


def format_json(results: list[dict], **metadata: Any) -> str:
    """The JSON document of :func:`compare` results: ``metadata`` first, then ``results``.

    Each record keeps its numbers (accuracies per fold, mean, std,
    ``accuracy_interval``, fit times, ``paired_test`` with margin, test,
    statistic, p-value and significance) and, per fold, ``correct`` as a
    string of ``0``/``1``, one character per test document (the same
    documents, in the same order, for every model of a run: enough to run
    other paired tests later). ``test_indices`` are left out (the seed
    reproduces the folds).

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.
    **metadata
        What the run was (dataset, split, seed, ...), in order.

    Returns
    -------
    str

    Examples
    --------
    >>> import json, numpy as np
    >>> text = format_json([{"model": "m", "correct": [np.array([True, False])]}],
    ...                    dataset="trec", seed=0)
    >>> document = json.loads(text)
    >>> list(document), document["results"][0]["correct"]
    (['dataset', 'seed', 'results'], ['10'])
    """
    return json.dumps({**metadata, "results": [_jsonable(r) for r in results]}, indent=2)


#: What :func:`plot_results` can chart: record key prefix → axis label.
MEASURES = {"accuracy": "accuracy", "macro_f1": "macro-F1", "micro_f1": "micro-F1"}


def _error_bars(ordered: list[dict], measure: str) -> tuple[np.ndarray | None, str]:
    """Error bars (2 × n, points) and what they are: std over folds, or the bootstrap interval."""
    several = any(len(r.get(f"{measure}s", r.get("accuracies", []))) > 1 for r in ordered)
    if several:
        std = np.array([100 * r.get(f"{measure}_std", 0.0) for r in ordered])
        return np.vstack([std, std]), "mean, error bars: std over folds"
    if any(r.get(f"{measure}_interval") is not None for r in ordered):
        bars = np.zeros((2, len(ordered)))
        for i, r in enumerate(ordered):
            if r.get(f"{measure}_interval") is not None:
                low, high = r[f"{measure}_interval"]
                mean = r[f"{measure}_mean"]
                bars[:, i] = 100 * (mean - low), 100 * (high - mean)
        return bars, "error bars: 95% bootstrap interval over test documents"
    return None, ""


def plot_results(
    results: list[dict],
    path: str | os.PathLike | None = None,
    title: str = "",
    measure: str = "accuracy",
):
    """A bar chart of a measure per model (mean accuracy) with its interval, best first.

    Bars start at 0 and carry their value; error bars show the std over
    folds, or the 95% bootstrap interval of one split. An attention model's
    value is followed by its margin over the best baseline (``*``:
    significant at 5%). Colours tell the kinds of model apart.

    Parameters
    ----------
    results : list of dict
        What :func:`compare` (or :func:`~skattn.compare.compare_multilabel`) returns.
    path : str, path-like or None, default=None
        Where to save the chart as PNG.
    title : str, default=""
    measure : {"accuracy", "macro_f1", "micro_f1"}, default="accuracy"
        The records' measure to chart (the F1 scores: multi-label results).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> figure = plot_results([{"model": "m", "kind": "tuned baseline", "accuracies": [0.8],
    ...     "accuracy_mean": 0.8, "accuracy_std": 0.0, "accuracy_interval": [0.78, 0.82]}])
    >>> [label.get_text() for label in figure.axes[0].get_yticklabels()]
    ['m']
    >>> figure.axes[0].get_xlabel()
    'accuracy (%); error bars: 95% bootstrap interval over test documents'
    """
    from matplotlib.figure import Figure

    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}.")
    ordered = sorted(results, key=lambda r: r[f"{measure}_mean"])
    colours = _colours({_kind(r) for r in ordered})
    # A Figure of its own (no pyplot): the caller's backend is never touched.
    fig = Figure(figsize=(8.0, 0.42 * len(ordered) + 2.2))
    ax = fig.subplots()
    errors, what = _error_bars(ordered, measure)
    means = np.array([100 * r[f"{measure}_mean"] for r in ordered])
    ax.barh(
        [r["model"] for r in ordered],
        means,
        xerr=errors,
        color=[colours[_kind(r)] for r in ordered],
        error_kw={"ecolor": "#222222", "elinewidth": 1.2, "capsize": 3},
    )
    tests = _bar_labels(ax, ordered, means, errors)
    ax.set_title(title)
    _axis_and_legend(fig, ax, measure, what, tests, colours)
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def _colours(present: set) -> dict[str, str]:
    """The colour of each kind present (records of no known kind: "other")."""
    colours = {k: c for k, c in MODEL_KINDS.items() if k in present}
    if OTHER_KIND in present:
        colours[OTHER_KIND] = _OTHER_COLOUR
    return colours


def _bar_labels(ax, ordered: list[dict], means: np.ndarray, errors) -> list[dict]:
    """Each bar's value (and an attention model's margin), right of its error bar."""
    # Right of the error bar's end, so that the bar never hides them.
    ends = means + (errors[1] if errors is not None else 0)
    tests = []
    for i, (r, end) in enumerate(zip(ordered, ends)):
        label = f"{means[i]:.1f}"
        test = r.get("paired_test")
        if test:
            tests.append(test)
            label += f"  ({test['margin']:+.1f}{'*' if test['significant'] else ''})"
        ax.text(end + 1.0, i, label, va="center", fontsize=9)
    return tests


def _axis_and_legend(fig, ax, measure: str, what: str, tests: list, colours: dict) -> None:
    """The x axis (0 to 100, what the bars and marks mean) and the legend below it."""
    from matplotlib.patches import Patch

    # Bars start at 0, so their lengths compare honestly; the labels carry the digits.
    ax.set_xlim(0, 100)
    xlabel = f"{MEASURES[measure]} (%)" + (f"; {what}" if what else "")
    if tests:
        xlabel += (
            f"\n(±x.x): points vs the best baseline, {tests[0]['baseline']}"
            f"\n*: significant at {ALPHA:.0%} ({tests[0]['test']})"
        )
    ax.set_xlabel(xlabel)
    # The legend in a band of its own below the axes: it never hides a bar or its value.
    fig.legend(
        handles=[Patch(color=c, label=k) for k, c in colours.items()],
        loc="lower center",
        ncol=len(colours),
        frameon=False,
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0.4 / fig.get_figheight(), 1, 1))


def save_attention_page(
    model: BaseEstimator,
    X: np.ndarray,
    y: np.ndarray,
    path: str | os.PathLike,
    n_documents: int = 8,
    target_names: list | None = None,
) -> Path | None:
    """The attention of a fitted model on its first ``n_documents`` as an HTML page.

    Parameters
    ----------
    model : fitted estimator
        Models without an ``explain`` method (the baselines) get no page.
    X : array-like of str
        Documents, e.g. the test documents of a fold.
    y : array-like
        Their true labels, shown on the page (multi-label: an indicator matrix).
    path : str or path-like
        Where to write the page.
    n_documents : int, default=8
    target_names : list, optional
        A multi-label model's label names (see ``explain``).

    Returns
    -------
    Path or None
        The page written, or None when the model has no attention to show.

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> baseline = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> save_attention_page(baseline, ["good"], [1], "attention.html") is None
    True
    """
    if not hasattr(model, "explain"):
        return None
    names = {} if target_names is None else {"target_names": target_names}
    explanations = model.explain(
        list(X[:n_documents]), y[:n_documents], method="attention", **names
    )
    return explanations.save_html(path)


#: Methods the comparison measures on each attention model (plus a random ranking).
FAITHFULNESS_METHODS = ("attention", "gradient", "integrated_gradients")


def faithfulness_section(reports: dict[str, Any]) -> str:
    """Markdown: one faithfulness table per attention model (see :mod:`skattn.explain`).

    Parameters
    ----------
    reports : dict of str to FaithfulnessReport
        Model name → its report on test documents.

    Returns
    -------
    str
        Empty when there is no report.

    Examples
    --------
    >>> faithfulness_section({})
    ''
    """
    if not reports:
        return ""
    parts = [
        "Faithfulness of each explanation method (ERASER erasure test on test documents of "
        "the last fold: comprehensiveness ↑ and sufficiency ↓, AOPC over 1/5/10/20/50% of "
        "the tokens, 95% bootstrap intervals over documents):"
    ]
    for name, report in reports.items():
        parts.append(f"{name} ({report.n_documents} documents):\n\n{report.to_markdown()}")
    return "\n\n".join(parts)
