"""Reporting a comparison: Markdown and JSON tables, the bar chart, attention pages."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from skattn.compare.registry import ATTENTION_MODEL, TABLE_2_BASELINE, TUNED_BASELINE

#: The kinds of model a comparison holds, with their chart colours.
MODEL_KINDS = {
    ATTENTION_MODEL: "#c44e52",
    TABLE_2_BASELINE: "#4c72b0",
    TUNED_BASELINE: "#8c8c8c",
}
#: What the table and the chart call a model whose kind is not one of MODEL_KINDS.
OTHER_KIND = "other"
_OTHER_COLOUR = "#dd8452"


def _kind(record: dict) -> str:
    kind = record.get("kind")
    return kind if kind in MODEL_KINDS else OTHER_KIND


def format_table(results: list[dict]) -> str:
    """A Markdown table of :func:`compare` results, best accuracy first.

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.

    Returns
    -------
    str

    Examples
    --------
    Several folds give mean ± std; one split gives one figure per model (a
    standard deviation needs several folds).

    >>> print(format_table([{"model": "m", "kind": "tuned baseline", "accuracies": [0.5, 0.6],
    ...     "accuracy_mean": 0.55, "accuracy_std": 0.05, "fit_seconds": 1.0,
    ...     "predict_docs_per_s": 10.0}]))
    | model | kind | accuracy (%) | fit s / fold | predict docs/s |
    |---|---|---|---|---|
    | m | tuned baseline | 55.00 ± 5.00 | 1.0 | 10 |
    """
    lines = [
        "| model | kind | accuracy (%) | fit s / fold | predict docs/s |",
        "|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: -r["accuracy_mean"]):
        accuracy = f"{100 * r['accuracy_mean']:.2f}"
        if len(r["accuracies"]) > 1:
            accuracy += f" ± {100 * r['accuracy_std']:.2f}"
        lines.append(
            f"| {r['model']} | {_kind(r)} | {accuracy} | {r['fit_seconds']:.1f} | "
            f"{r['predict_docs_per_s']:.0f} |"
        )
    return "\n".join(lines)


def format_json(results: list[dict], **metadata: Any) -> str:
    """The JSON document of :func:`compare` results: ``metadata`` first, then ``results``.

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
    >>> import json
    >>> text = format_json([{"model": "m"}], dataset="trec", seed=0)
    >>> list(json.loads(text))
    ['dataset', 'seed', 'results']
    """
    return json.dumps({**metadata, "results": results}, indent=2)


def plot_results(results: list[dict], path: str | os.PathLike | None = None, title: str = ""):
    """A bar chart of mean accuracy (± std over folds) per model, best first.

    Bars start at 0 and carry their value; colours tell attention models,
    Table-2 baselines and tuned baselines apart (a legend says which);
    records without one of these kinds are drawn as "other".

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.
    path : str, path-like or None, default=None
        Where to save the chart as PNG.
    title : str, default=""

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> figure = plot_results([{"model": "m", "kind": "tuned baseline", "accuracies": [0.8],
    ...     "accuracy_mean": 0.8, "accuracy_std": 0.0}])
    >>> [label.get_text() for label in figure.axes[0].get_yticklabels()]
    ['m']
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    colours = dict(MODEL_KINDS)
    ordered = sorted(results, key=lambda r: r["accuracy_mean"])
    if any(_kind(r) == OTHER_KIND for r in ordered):
        colours[OTHER_KIND] = _OTHER_COLOUR
    # A Figure of its own (no pyplot): the caller's backend is never touched.
    fig = Figure(figsize=(7.5, 0.4 * len(ordered) + 2.0))
    ax = fig.subplots()
    several_folds = any(len(r.get("accuracies", [])) > 1 for r in ordered)
    bars = ax.barh(
        [r["model"] for r in ordered],
        [100 * r["accuracy_mean"] for r in ordered],
        xerr=[100 * r["accuracy_std"] for r in ordered] if several_folds else None,
        color=[colours[_kind(r)] for r in ordered],
    )
    ax.bar_label(bars, labels=[f"{100 * r['accuracy_mean']:.1f}" for r in ordered], padding=3)
    # Bars start at 0, so their lengths compare honestly; the labels carry the digits.
    ax.set_xlim(0, 100)
    ax.set_xlabel("accuracy (%)" + (" — mean ± std over folds" if several_folds else ""))
    # Below the axis, so that it never hides a bar or its value.
    ax.legend(
        handles=[Patch(color=c, label=k) for k, c in colours.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.22 if len(ordered) < 8 else -0.12),
        ncol=len(colours),
        frameon=False,
    )
    ax.set_title(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


def save_attention_page(
    model: BaseEstimator,
    X: np.ndarray,
    y: np.ndarray,
    path: str | os.PathLike,
    n_documents: int = 8,
) -> Path | None:
    """The attention of a fitted model on its first ``n_documents`` as an HTML page.

    Parameters
    ----------
    model : fitted estimator
        Models without an ``explain`` method (the baselines) get no page.
    X : array-like of str
        Documents, e.g. the test documents of a fold.
    y : array-like
        Their true labels, shown on the page.
    path : str or path-like
        Where to write the page.
    n_documents : int, default=8

    Returns
    -------
    Path or None
        The page written, or None when the model has no attention to show.

    Examples
    --------
    >>> from skattn.baselines import tfidf_logreg
    >>> baseline = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> save_attention_page(baseline, ["good"], [1], "attention.html") is None
    True
    """
    if not hasattr(model, "explain"):
        return None
    return model.explain(list(X[:n_documents]), y[:n_documents]).save_html(path)
