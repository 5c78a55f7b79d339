"""Attention you can see: explanations as data, tables, HTML and figures.

``estimator.explain(X)`` returns an :class:`Explanations`: a plain list with
one dict per document (structure below), which also renders itself.

Self-attentive documents::

    {"tokens": [str, ...], "attention": ndarray (r, n_tokens),
     "prediction": label, "proba": ndarray (n_classes,), ["true_label": label]}

Hierarchical documents::

    {"sentences": [[str, ...], ...], "sentence_attention": ndarray (n_sentences,),
     "word_attention": [ndarray (n_words,), ...], "prediction", "proba", ["true_label"]}

HTML follows the HAN paper's Fig. 5 for hierarchical models (sentence weight
p_s in red; word weight shown as √p_s · p_w in blue) and Lin et al.'s
figures for self-attentive ones (the summed attention over the r hops on the
tokens, and one heat row per hop, each cell under its token). The page is
self-contained (no scripts, fonts or external files), escapes all document
text, is well-formed XHTML, and lets the browser pick each document's
direction (``dir="auto"``), so Arabic and Hebrew read right to left.

Colour scale: every weight is drawn on one fixed, absolute scale, the same
for every document and page: colour intensity √w for a weight w in [0, 1]
(white at 0, full colour at 1; the square root keeps small weights of long
documents visible). Uniform attention therefore looks uniform, and a legend
on the page shows the scale.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np

_CSS = (
    "body{font-family:sans-serif;margin:1em}"
    ".doc{border:1px solid #ccc;border-radius:4px;padding:.5em;margin:.5em 0;overflow-x:auto}"
    ".label{color:#555;font-size:.9em}"
    "span.tok{padding:1px 2px;margin:1px;border-radius:2px;display:inline-block}"
    ".legend{font-size:.85em;color:#333;margin:.3em 0 1em}"
    ".legend span.sw{display:inline-block;width:2.2em;text-align:center;margin-right:2px;"
    "border:1px solid #ddd}"
    "table.sa{border-collapse:collapse;margin-top:.3em}"
    "table.sa td{padding:1px 3px;text-align:center;white-space:nowrap;border:1px solid #fff}"
    "table.sa td.cell{height:.9em}"
    "table.sa th{font-weight:normal;color:#555;font-size:.85em;text-align:right;"
    "padding-right:.4em;white-space:nowrap}"
    ".sent{display:flex;align-items:baseline;margin:2px 0}"
    ".sw{width:1.2em;height:1em;margin-right:.5em;flex:none;border:1px solid #eee}"
)

#: Weights shown in the page's legend.
_LEGEND_WEIGHTS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0)


def intensity(weight: float) -> float:
    """Colour intensity of an attention weight on the fixed scale: √w, clipped to [0, 1].

    Examples
    --------
    >>> intensity(0.25), intensity(1.0), intensity(0.0)
    (0.5, 1.0, 0.0)
    """
    return float(np.sqrt(np.clip(weight, 0.0, 1.0)))


def _rgba(red: int, green: int, blue: int, alpha: float) -> str:
    return f"rgba({red},{green},{blue},{float(np.clip(alpha, 0, 1)):.3f})"


def _shaded(weight: float, colour) -> str:
    """Attributes of an element shaded by ``weight``: its value and its colour."""
    shade = intensity(weight)
    ink = ";color:#fff" if shade > 0.6 else ""  # readable on dark backgrounds
    return (
        f'data-weight="{weight:.6f}" title="{weight:.4f}" '
        f'style="background-color:{_rgba(*colour, shade)}{ink}"'
    )


def _token(text: str, weight: float, colour=(0, 0, 255)) -> str:
    return f'<span class="tok" {_shaded(weight, colour)}>{html.escape(text)}</span>'


def _header(record: dict) -> str:
    parts = [f"predicted: <b>{html.escape(str(record['prediction']))}</b>"]
    if "true_label" in record:
        parts.append(f"true: <b>{html.escape(str(record['true_label']))}</b>")
    parts.append(f"p = {float(np.max(record['proba'])):.3f}")
    return f'<div class="label">{" · ".join(parts)}</div>'


def summed_attention(record: dict) -> np.ndarray:
    """Self-attentive: the r hops summed per token, normalised to sum 1 (Lin et al.'s view).

    Examples
    --------
    >>> summed_attention({"attention": np.array([[1.0, 0.0], [0.5, 0.5]])}).tolist()
    [0.75, 0.25]
    """
    summed = record["attention"].sum(axis=0)
    return summed / summed.sum()


def hierarchical_word_weights(record: dict) -> list[np.ndarray]:
    """Hierarchical: each word's displayed weight √p_s · p_w (Yang et al.'s Fig. 5).

    Examples
    --------
    >>> r = {"sentence_attention": np.array([0.25, 0.75]),
    ...      "word_attention": [np.array([1.0]), np.array([0.5, 0.5])]}
    >>> [w.tolist() for w in hierarchical_word_weights(r)]
    [[0.5], [0.4330127018922193, 0.4330127018922193]]
    """
    return [
        np.sqrt(p_s) * words
        for p_s, words in zip(record["sentence_attention"], record["word_attention"])
    ]


def _cell(weight: float, colour=(255, 0, 0), text: str | None = None) -> str:
    kind = "cell" if text is None else "cell tok"
    return f'<td class="{kind}" {_shaded(weight, colour)}>{html.escape(text or "")}</td>'


def _self_attentive_html(record: dict) -> str:
    # One table: the tokens (shaded by the summed attention) on the first
    # row, one row per hop below, so every cell sits under its token.
    tokens = (
        "<tr><th>sum</th>"
        + "".join(_cell(w, text=t) for t, w in zip(record["tokens"], summed_attention(record)))
        + "</tr>"
    )
    hops = "".join(
        f"<tr><th>hop {h}</th>" + "".join(_cell(w) for w in hop) + "</tr>"
        for h, hop in enumerate(record["attention"])
    )
    return f'<table class="sa" dir="auto">{tokens}{hops}</table>'


def _hierarchical_html(record: dict) -> str:
    words = hierarchical_word_weights(record)
    lines = []
    for tokens, p_s, weights in zip(record["sentences"], record["sentence_attention"], words):
        spans = " ".join(_token(t, w) for t, w in zip(tokens, weights))
        lines.append(
            f'<div class="sent"><span class="sw" data-weight="{p_s:.6f}" title="{p_s:.4f}" '
            f'style="background-color:{_rgba(255, 0, 0, intensity(p_s))}"></span>'
            f'<span dir="auto">{spans}</span></div>'
        )
    return "".join(lines)


def _legend(hierarchical: bool) -> str:
    colours = [(255, 0, 0), (0, 0, 255)] if hierarchical else [(255, 0, 0)]
    rows = []
    for colour in colours:
        swatches = "".join(
            f'<span class="sw" style="background-color:{_rgba(*colour, intensity(w))}'
            f'{";color:#fff" if intensity(w) > 0.6 else ""}">{w:g}</span>'
            for w in _LEGEND_WEIGHTS
        )
        rows.append(swatches)
    what = (
        "Sentence weight p<sub>s</sub> in red (left of each sentence); word weight shown as "
        "√p<sub>s</sub>·p<sub>w</sub> in blue (Yang et al. 2016, Fig. 5)."
        if hierarchical
        else "Attention A of each hop (rows) and their sum over hops, normalised (top row)."
    )
    return (
        f'<div class="legend">{what} Colour scale, fixed and the same for every document: '
        f"intensity √weight, white at 0. {' '.join(rows)}</div>"
    )


def to_html(records: list[dict], title: str = "skattn attention") -> str:
    """A self-contained, well-formed XHTML page of the explanations.

    Parameters
    ----------
    records : list of dict
        What ``explain`` returns.
    title : str, default="skattn attention"

    Returns
    -------
    str

    Examples
    --------
    >>> page = to_html([{"tokens": ["<b>"], "attention": np.array([[1.0]]),
    ...                  "prediction": "pos", "proba": np.array([0.2, 0.8])}])
    >>> "&lt;b&gt;" in page and "<b>" not in page.split("<body>")[1].split("predicted")[0]
    True
    """
    body = [_legend(any("sentences" in record for record in records))] if records else []
    for i, record in enumerate(records):
        inner = (
            _hierarchical_html(record) if "sentences" in record else _self_attentive_html(record)
        )
        body.append(f'<div class="doc" id="doc{i}">{_header(record)}{inner}</div>')
    return (
        '<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f'<meta charset="utf-8"/><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>"
    )


def to_frame(records: list[dict]):
    """One row per token: document, sentence, position, token and weights.

    Self-attentive rows carry ``weight`` (summed attention over hops,
    normalised) and ``hop_0`` … ``hop_{r-1}``; hierarchical rows carry
    ``word_weight`` (p_w), ``sentence_weight`` (p_s) and ``weight``
    (√p_s · p_w).

    Parameters
    ----------
    records : list of dict

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> record = {"tokens": ["a", "fine", "film"], "prediction": "pos",
    ...           "attention": np.array([[0.2, 0.6, 0.2], [0.0, 1.0, 0.0]])}
    >>> frame = to_frame([record])
    >>> frame[["token", "weight", "hop_1"]].to_dict("list")
    {'token': ['a', 'fine', 'film'], 'weight': [0.1, 0.8, 0.1], 'hop_1': [0.0, 1.0, 0.0]}
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for doc, record in enumerate(records):
        if "sentences" in record:
            shown = hierarchical_word_weights(record)
            for s, (tokens, p_w, w) in enumerate(
                zip(record["sentences"], record["word_attention"], shown)
            ):
                p_s = float(record["sentence_attention"][s])
                for position, token in enumerate(tokens):
                    rows.append(
                        {
                            "document": doc,
                            "sentence": s,
                            "position": position,
                            "token": token,
                            "word_weight": float(p_w[position]),
                            "sentence_weight": p_s,
                            "weight": float(w[position]),
                        }
                    )
        else:
            summed = summed_attention(record)
            for position, token in enumerate(record["tokens"]):
                row = {
                    "document": doc,
                    "sentence": 0,
                    "position": position,
                    "token": token,
                    "weight": float(summed[position]),
                }
                row.update(
                    {f"hop_{h}": float(a[position]) for h, a in enumerate(record["attention"])}
                )
                rows.append(row)
    return pd.DataFrame(rows)


def plot(record: dict, ax=None):
    """A matplotlib heat map of one document's attention.

    Self-attentive: the r hops (rows) over the tokens, with the summed view
    as the top row. Every weight is on the fixed √ scale from 0 to 1 of the
    HTML pages, shown by a colour bar. Hierarchical: sentences
    (rows) × words in blue by √p_s · p_w, the sentence weight p_s in red in
    the first column (the HAN paper's Fig. 5).

    Parameters
    ----------
    record : dict
        One element of ``explain``'s result.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> record = {"tokens": ["a", "fine", "film"], "prediction": "pos",
    ...           "attention": np.array([[0.2, 0.6, 0.2], [0.0, 1.0, 0.0]])}
    >>> figure = plot(record)
    >>> figure.axes[0].get_title()
    'predicted: pos'
    >>> figure.savefig("attention.png")  # doctest: +SKIP
    """
    try:
        from matplotlib.colors import PowerNorm
        from matplotlib.figure import Figure
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'skattn[plot]'") from error
    if ax is None:
        width = (
            max(len(s) for s in record["sentences"]) + 1
            if "sentences" in record
            else len(record["tokens"])
        )
        rows = len(record["sentences"]) if "sentences" in record else 1 + len(record["attention"])
        # A Figure of its own (no pyplot): the caller's backend is never
        # touched, and Jupyter still shows the returned figure inline.
        fig = Figure(figsize=(min(20, 1 + 0.55 * width), 1 + 0.4 * rows))
        ax = fig.subplots()
    else:
        fig = ax.figure
    if "sentences" in record:
        words = hierarchical_word_weights(record)
        grid = np.full((len(words), max(len(w) for w in words) + 1), np.nan)
        for i, w in enumerate(words):
            grid[i, 1 : 1 + len(w)] = w
        sentence_column = np.full_like(grid, np.nan)
        sentence_column[:, 0] = record["sentence_attention"]
        # Fig. 5: sentence weight in red, word weight √p_s·p_w in blue, both
        # on the page's fixed √ scale from 0 to 1.
        words_image = ax.imshow(
            np.ma.masked_invalid(grid), aspect="auto", cmap="Blues", norm=PowerNorm(0.5, 0, 1)
        )
        sentence_image = ax.imshow(
            np.ma.masked_invalid(sentence_column),
            aspect="auto",
            cmap="Reds",
            norm=PowerNorm(0.5, 0, 1),
        )
        fig.colorbar(sentence_image, ax=ax, label="sentence weight p_s", pad=0.01)
        fig.colorbar(words_image, ax=ax, label="word weight √p_s·p_w")
        for i, tokens in enumerate(record["sentences"]):
            ax.text(
                0, i, f"{record['sentence_attention'][i]:.2f}", ha="center", va="center", fontsize=7
            )
            for j, token in enumerate(tokens, start=1):
                ax.text(j, i, token, ha="center", va="center", fontsize=7)
        ax.set_yticks(range(len(grid)), [f"s{i}" for i in range(len(grid))])
        ax.set_xticks([])
    else:
        grid = np.vstack([summed_attention(record), record["attention"]])
        image = ax.imshow(grid, aspect="auto", cmap="Reds", norm=PowerNorm(0.5, 0, 1))
        fig.colorbar(image, ax=ax, label="attention weight (√ scale)")
        ax.set_xticks(range(grid.shape[1]), record["tokens"], rotation=90, fontsize=8)
        ax.set_yticks(range(len(grid)), ["sum"] + [f"hop {h}" for h in range(len(grid) - 1)])
    ax.set_title(f"predicted: {record['prediction']}")
    fig.tight_layout()
    return fig


class Explanations(list):
    """The per-document explanation dicts, with views: frame, HTML, figures.

    A plain ``list`` of dicts (see the module docstring for their keys);
    ``_repr_html_`` shows the HTML inline in Jupyter. Estimators'
    ``explain`` returns one.

    Examples
    --------
    >>> explanations = Explanations([
    ...     {"tokens": ["a", "fine", "film"], "prediction": "pos",
    ...      "proba": np.array([0.1, 0.9]),
    ...      "attention": np.array([[0.2, 0.6, 0.2]])},
    ... ])
    >>> explanations[0]["tokens"]
    ['a', 'fine', 'film']
    >>> explanations.to_frame()["weight"].tolist()
    [0.2, 0.6, 0.2]
    >>> explanations.to_html().startswith("<!DOCTYPE html>")
    True
    >>> explanations.save_html("attention.html")  # doctest: +SKIP
    PosixPath('attention.html')
    """

    def to_frame(self):
        """One row per token, see :func:`to_frame`."""
        return to_frame(self)

    def to_html(self, title: str = "skattn attention") -> str:
        """The HTML page, see :func:`to_html`."""
        return to_html(self, title)

    def save_html(self, path) -> Path:
        """Write the HTML page to ``path`` (UTF-8) and return the path."""
        path = Path(path)
        path.write_text(self.to_html(), encoding="utf-8")
        return path

    def plot(self, index: int = 0, ax=None):
        """The matplotlib figure of document ``index``, see :func:`plot`."""
        return plot(self[index], ax=ax)

    def _repr_html_(self) -> str:
        return self.to_html()
