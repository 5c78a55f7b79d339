"""Explanations you can see: data, tables, HTML and figures.

``estimator.explain(X, method=...)`` returns an :class:`Explanations`: a
plain list with one dict per document (structure below), which also renders
itself. Every method (:mod:`skattn.explain._attribution`) gives the same keys.

Self-attentive documents::

    {"method": str, "tokens": [str, ...], "scores": ndarray (n_tokens,),
     "prediction": label, "proba": ndarray (n_classes,), ["true_label": label],
     ["attention": ndarray (r, n_tokens), ["hop_names": [str, ...]]]}

(``hop_names``: with label attention, whose each row of ``attention`` is,
``"love 1"``, ``"love 2"``, ...; the page and the figure name the rows so.)

Hierarchical documents::

    {"method": str, "sentences": [[str, ...], ...],
     "sentence_scores": ndarray (n_sentences,), "word_scores": [ndarray (n_words,), ...],
     "prediction", "proba", ["true_label"],
     ["sentence_attention": ndarray (n_sentences,), "word_attention": [ndarray, ...]]}

A sentence pair's record (:class:`~skattn.SelfAttentivePairClassifier`,
:class:`~skattn.SelfAttentivePairRegressor`, any method) describes its
first text as above and its second text under ``"second"`` (``tokens``,
``scores``, and ``attention`` for ``method="attention"``); the page, the
frame (a ``text`` column: 0 or 1) and the figure show both, and the
faithfulness test ranks and erases the tokens of both.

``scores`` rank the tokens for the predicted class (positive: the token
supports it), or for the class ``explain(label=...)`` named (then kept as
``explained_label``). A multi-label classifier's ``prediction`` is the list
of its predicted labels, ``label_proba`` their probabilities, and its
scores are for its most probable predicted label (most probable label
when none is predicted) unless ``label`` names one. A
regressor's records hold its predicted value as ``prediction`` and no
``proba``; their scores are for that value (positive: the token raises it).
The attention maps are kept for ``method="attention"``, and records that
hold them are drawn as the papers draw them.

HTML follows the HAN paper's Fig. 5 for hierarchical models (sentence weight
p_s in red; word weight shown as √p_s · p_w in blue) and Lin et al.'s
figures for self-attentive ones (the summed attention over the r hops on the
tokens, and one heat row per hop, each cell under its token). The page is
self-contained (no scripts, fonts or external files), escapes all document
text, is well-formed XHTML, and lets the browser pick each document's
direction (``dir="auto"``), so Arabic and Hebrew read right to left. The
characters XML cannot hold (C0 controls other than tab and line breaks,
lone surrogates, U+FFFE, U+FFFF) are shown as their Python escapes
(``\\x00``, ``\\udcff``); each token is a box of its own, so a bidi control
inside it does not reorder the tokens around it.

Colour scale of attention: every weight is drawn on one fixed, absolute
scale, the same for every document and page. Self-attentive weights: colour
intensity √w for a weight w in [0, 1] (white at 0, full colour at 1; the
square root keeps small weights of long documents visible). Hierarchical
weights: exactly the paper's Fig. 5 values, p_s and √p_s · p_w, on a linear
scale (the paper's square root already lifts words of light sentences).
Uniform attention therefore looks uniform, and a legend on the page shows
the scale.

Colour scale of the other methods' scores, which have no absolute unit:
each score relative to the document's largest absolute score, r = s / max|s|
in [−1, 1], drawn with intensity √|r|, green where the token supports the
prediction and purple where it speaks against it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import numpy as np

from skattn.utils._archives import atomic_write

_CSS = (
    "body{font-family:sans-serif;margin:1em}"
    ".doc{border:1px solid #ccc;border-radius:4px;padding:.5em;margin:.5em 0;overflow-x:auto}"
    ".label{color:#555;font-size:.9em}"
    "span.tok{padding:1px 2px;margin:1px;border-radius:2px;display:inline-block}"
    ".doc b{unicode-bidi:isolate}"
    ".legend{font-size:.85em;color:#333;margin:.3em 0 1em}"
    ".legend span.sw{display:inline-block;min-width:2.2em;padding:0 .15em;text-align:center;"
    "margin-right:2px;border:1px solid #ddd}"
    ".legend span.scale{white-space:nowrap;margin-right:.6em}"
    "table.sa{border-collapse:collapse;margin-top:.3em}"
    "table.sa td{padding:1px 3px;text-align:center;white-space:nowrap;border:1px solid #fff}"
    "table.sa td.cell{height:.9em}"
    "table.sa th{font-weight:normal;color:#555;font-size:.85em;text-align:right;"
    "padding-right:.4em;white-space:nowrap}"
    ".sent{display:flex;align-items:baseline;margin:2px 0}"
    ".sw{width:1.2em;height:1em;margin-right:.5em;flex:none;border:1px solid #eee}"
    ".faith{background:#f4f4f4;padding:.4em;border-left:3px solid #888}"
    ".side{color:#555;font-size:.85em;margin-right:.5em;flex:none}"
)

#: Characters XML 1.0 cannot hold, even as references (C0 controls but tab and
#: line breaks, lone surrogates, U+FFFE and U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _visible(text: str) -> str:
    """``text`` with what XML (and a font) cannot hold shown as its Python escape.

    Examples
    --------
    >>> _visible("\\x00a\\udcff")
    '\\\\x00a\\\\udcff'
    """
    return _NOT_XML.sub(lambda c: repr(c[0])[1:-1], text)


def _escape(text: str) -> str:
    """Text as XHTML: markup escaped, see :func:`_visible` for the rest.

    Examples
    --------
    >>> _escape("<b>\\x00")
    '&lt;b&gt;\\\\x00'
    """
    return _visible(html.escape(text))


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


def linear_intensity(weight: float) -> float:
    """Colour intensity on a linear scale, clipped to [0, 1]: HAN's Fig. 5 weights.

    Yang et al. draw √p_s · p_w (words) and p_s (sentences) directly; a
    second square root would flatten the contrast their formula gives.

    Examples
    --------
    >>> linear_intensity(0.25), linear_intensity(1.5)
    (0.25, 1.0)
    """
    return float(np.clip(weight, 0.0, 1.0))


def _rgba(red: int, green: int, blue: int, alpha: float) -> str:
    return f"rgba({red},{green},{blue},{float(np.clip(alpha, 0, 1)):.3f})"


def _shaded(weight: float, colour, scale=intensity) -> str:
    """Attributes of an element shaded by ``weight``: its value and its colour."""
    shade = scale(weight)
    ink = ";color:#fff" if shade > 0.6 else ""  # readable on dark backgrounds
    return (
        f'data-weight="{weight:.6f}" title="{weight:.4f}" '
        f'style="background-color:{_rgba(*colour, shade)}{ink}"'
    )


def _token(text: str, weight: float, colour=(0, 0, 255), scale=intensity) -> str:
    return f'<span class="tok" {_shaded(weight, colour, scale)}>{_escape(text)}</span>'


def shown_value(value: Any) -> str:
    """A prediction or label as a page shows it: numbers to 4 significant digits, lists joined.

    Examples
    --------
    >>> shown_value("pos"), shown_value(2.718281), shown_value(np.array([1.5, -0.25]))
    ('pos', '2.718', '[1.5, -0.25]')
    >>> shown_value(["joy", "love"]), shown_value([])
    ('joy, love', 'no label')
    """
    if isinstance(value, list):  # a multi-label document's labels
        return ", ".join(shown_value(v) for v in value) or "no label"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return "[" + ", ".join(f"{float(v):.4g}" for v in value) + "]"
    return str(value)


def _header(record: dict) -> str:
    if "label_proba" in record:  # multi-label: every predicted label with its probability
        shown = ", ".join(
            f"<b>{_escape(str(label))}</b> ({p:.2f})"
            for label, p in zip(record["prediction"], record["label_proba"])
        )
        parts = [f"predicted: {shown or '<b>no label</b>'}"]
    else:
        parts = [f"predicted: <b>{_escape(shown_value(record['prediction']))}</b>"]
    if "true_label" in record:
        parts.append(f"true: <b>{_escape(shown_value(record['true_label']))}</b>")
    if "explained_label" in record:
        explained = f"explained: <b>{_escape(shown_value(record['explained_label']))}</b>"
        if "explained_proba" in record:
            explained += f" (p = {record['explained_proba']:.3f})"
        parts.append(explained)
    elif "proba" in record and "label_proba" not in record:
        parts.append(f"p = {float(np.max(record['proba'])):.3f}")
    if "method" in record:
        parts.append(f"method: {_escape(str(record['method']))}")
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


#: Colours of a score that supports the prediction and of one against it.
SUPPORT_COLOUR = (0, 150, 0)
AGAINST_COLOUR = (150, 0, 170)


def relative_scores(scores, largest: float | None = None) -> np.ndarray:
    """Scores divided by ``largest``, by default their largest absolute value (zeros stay zeros).

    Examples
    --------
    >>> relative_scores(np.array([0.5, -2.0, 1.0])).tolist()
    [0.25, -1.0, 0.5]
    >>> relative_scores(np.array([0.5, -1.0]), largest=4.0).tolist()
    [0.125, -0.25]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if largest is None:
        largest = np.abs(scores).max() if scores.size else 0.0
    return scores / largest if largest > 0 else np.zeros_like(scores)


def _pair_largest(record: dict) -> float:
    """The largest absolute score over both texts of a pair: their common colour scale."""
    scores = token_scores_of(record)
    return float(np.abs(scores).max()) if scores.size else 0.0


def _first_text(record: dict) -> dict:
    """A pair's record without its second text: the first text's own record."""
    return {key: value for key, value in record.items() if key != "second"}


def _has_attention(record: dict) -> bool:
    """Whether the record holds attention maps, drawn as the papers draw them."""
    return "attention" in record or "sentence_attention" in record


def token_scores_of(record: dict) -> np.ndarray:
    """One score per token of the document, in order (what the faithfulness test ranks).

    The record's ``scores`` (hierarchical: ``word_scores`` concatenated); for
    records with only attention maps, the summed self-attention or p_s · p_w.
    A sentence pair's: its first text's, then its second's.

    Examples
    --------
    >>> token_scores_of({"sentences": [["a"], ["b", "c"]],
    ...                  "word_scores": [np.array([1.0]), np.array([0.5, -1.0])]}).tolist()
    [1.0, 0.5, -1.0]
    >>> token_scores_of({"tokens": ["a"], "scores": np.array([0.5]),
    ...                  "second": {"tokens": ["b"], "scores": np.array([-1.0])}}).tolist()
    [0.5, -1.0]
    """
    if "second" in record:
        first = {key: value for key, value in record.items() if key != "second"}
        return np.concatenate([token_scores_of(first), token_scores_of(record["second"])])
    if "scores" in record:
        return np.asarray(record["scores"], dtype=np.float64)
    if "word_scores" in record:
        return np.concatenate(record["word_scores"]).astype(np.float64)
    if "sentence_attention" in record:
        return np.concatenate(
            [p_s * w for p_s, w in zip(record["sentence_attention"], record["word_attention"])]
        )
    return summed_attention(record)


def _signed(relative: float) -> tuple[tuple[int, int, int], float]:
    """Colour and weight on the √ scale of a relative score in [−1, 1]."""
    return (SUPPORT_COLOUR if relative >= 0 else AGAINST_COLOUR), abs(float(relative))


def _scored_token(text: str, score: float, relative: float) -> str:
    colour, weight = _signed(relative)
    shade = intensity(weight)
    ink = ";color:#fff" if shade > 0.6 else ""
    return (
        f'<span class="tok" data-score="{score:.6g}" title="{score:.4g}" '
        f'style="background-color:{_rgba(*colour, shade)}{ink}">{_escape(text)}</span>'
    )


def _score_spans(tokens: list[str], scores, relative) -> str:
    return " ".join(_scored_token(t, s, r) for t, s, r in zip(tokens, scores, relative))


def _pair_scores_html(record: dict) -> str:
    # One scale for both texts: the pair is ranked, and erased, as a whole.
    largest = _pair_largest(record)
    lines = []
    for label, text in (("text 1", record), ("text 2", record["second"])):
        spans = _score_spans(
            text["tokens"], text["scores"], relative_scores(text["scores"], largest)
        )
        lines.append(
            f'<div class="sent"><span class="side">{label}</span>'
            f'<span dir="auto">{spans}</span></div>'
        )
    return "".join(lines)


def _scores_html(record: dict) -> str:
    if "second" in record:
        return _pair_scores_html(record)
    if "sentences" not in record:
        relative = relative_scores(record["scores"])
        return f'<div dir="auto">{_score_spans(record["tokens"], record["scores"], relative)}</div>'
    relative = relative_scores(np.concatenate(record["word_scores"]))
    sentence_relative = relative_scores(record["sentence_scores"])
    lines, position = [], 0
    for tokens, words, sentence_score, sentence_r in zip(
        record["sentences"], record["word_scores"], record["sentence_scores"], sentence_relative
    ):
        spans = " ".join(
            _scored_token(t, s, r)
            for t, s, r in zip(tokens, words, relative[position : position + len(tokens)])
        )
        position += len(tokens)
        colour, weight = _signed(sentence_r)
        lines.append(
            f'<div class="sent"><span class="sw" data-score="{sentence_score:.6g}" '
            f'title="{sentence_score:.4g}" '
            f'style="background-color:{_rgba(*colour, intensity(weight))}"></span>'
            f'<span dir="auto">{spans}</span></div>'
        )
    return "".join(lines)


def _cell(weight: float, colour=(255, 0, 0), text: str | None = None) -> str:
    kind = "cell" if text is None else "cell tok"
    return f'<td class="{kind}" {_shaded(weight, colour)}>{_escape(text or "")}</td>'


def _self_attentive_html(record: dict, label: str = "sum") -> str:
    # One table: the tokens (shaded by the summed attention) on the first
    # row, one row per hop below, so every cell sits under its token.
    tokens = (
        f"<tr><th>{_escape(label)}</th>"
        + "".join(_cell(w, text=t) for t, w in zip(record["tokens"], summed_attention(record)))
        + "</tr>"
    )
    names = record.get("hop_names") or [f"hop {h}" for h in range(len(record["attention"]))]
    hops = "".join(
        f"<tr><th>{_escape(str(name))}</th>" + "".join(_cell(w) for w in hop) + "</tr>"
        for name, hop in zip(names, record["attention"])
    )
    return f'<table class="sa" dir="auto">{tokens}{hops}</table>'


def _hierarchical_html(record: dict) -> str:
    words = hierarchical_word_weights(record)
    lines = []
    for tokens, p_s, weights in zip(record["sentences"], record["sentence_attention"], words):
        spans = " ".join(_token(t, w, scale=linear_intensity) for t, w in zip(tokens, weights))
        lines.append(
            f'<div class="sent"><span class="sw" data-weight="{p_s:.6f}" title="{p_s:.4f}" '
            f'style="background-color:{_rgba(255, 0, 0, linear_intensity(p_s))}"></span>'
            f'<span dir="auto">{spans}</span></div>'
        )
    return "".join(lines)


def _swatches(colour, weights=_LEGEND_WEIGHTS, labels=None, scale=intensity, name: str = "") -> str:
    """One colour scale of the legend, on one line, after its ``name``."""
    labels = labels or [f"{w:g}" for w in weights]
    cells = "".join(
        f'<span class="sw" style="background-color:{_rgba(*colour, scale(w))}'
        f'{";color:#fff" if scale(w) > 0.6 else ""}">{label}</span>'
        for w, label in zip(weights, labels)
    )
    return f'<span class="scale">{name + " " if name else ""}{cells}</span>'


def _legend(records: list[dict]) -> str:
    parts = []
    if any("sentence_attention" in r for r in records):
        parts.append(
            "Sentence weight p<sub>s</sub> in red (left of each sentence); word weight shown as "
            "√p<sub>s</sub>·p<sub>w</sub> in blue (Yang et al. 2016, Fig. 5), both on a linear "
            "scale. "
            + _swatches((255, 0, 0), scale=linear_intensity, name="sentences")
            + _swatches((0, 0, 255), scale=linear_intensity, name="words")
        )
    if any("attention" in r for r in records):
        parts.append(
            "Attention A of each hop (rows) and their sum over hops, normalised (top row). "
            + _swatches((255, 0, 0))
            + " Attention colour scale, fixed and the same for every document: intensity "
            "√weight, white at 0."
        )
    if any(not _has_attention(r) for r in records):
        parts.append(
            "Scores relative to the document's (a pair: both texts') largest absolute score: "
            + _for_and_against(records)
            + " (intensity √|relative score|; hover for the "
            "score); hierarchical documents show each sentence's score left of it. "
            + _swatches(AGAINST_COLOUR, (1.0, 0.5, 0.1), ["−1", "−0.5", "−0.1"])
            + _swatches(SUPPORT_COLOUR, (0.1, 0.5, 1.0), ["0.1", "0.5", "1"])
        )
    return "".join(f'<div class="legend">{part}</div>' for part in parts)


def _for_and_against(records: list[dict]) -> str:
    """What green and purple mean: for the prediction, or for the label each document names."""
    if not any("explained_label" in r for r in records):
        return "green supports the prediction, purple speaks against it"
    return (
        "green raises the probability of the label named after 'explained' above each "
        "document, purple lowers it. Each label is scored on its own: a word can be for one "
        "label and against another. A label the model thinks unlikely for a document "
        "(a low p) often has most of its words against it: the scores say how each word "
        "moves that label's probability, and in such a document most words move it down"
    )


def faithfulness_summary(report) -> str:
    """One sentence on a faithfulness report's first method, against the random ranking.

    Examples
    --------
    >>> class Report:
    ...     n_documents = 40
    ...     rows = [{"method": "gradient", "comprehensiveness": 0.3, "sufficiency": 0.1},
    ...             {"method": "random", "comprehensiveness": 0.05, "sufficiency": 0.25}]
    >>> import textwrap
    >>> print(textwrap.fill(faithfulness_summary(Report()), 72))
    Faithfulness of gradient on these 40 documents (ERASER erasure test):
    comprehensiveness 0.300 (random ranking 0.050, 6.0×), sufficiency 0.100
    (random 0.250; lower is better).
    """
    method = report.rows[0]
    random_row = next(r for r in report.rows if r["method"] == "random")
    ratio = (
        f", {method['comprehensiveness'] / random_row['comprehensiveness']:.1f}×"
        if random_row["comprehensiveness"] > 0
        else ""
    )
    return (
        f"Faithfulness of {method['method']} on these {report.n_documents} documents "
        f"(ERASER erasure test): comprehensiveness {method['comprehensiveness']:.3f} "
        f"(random ranking {random_row['comprehensiveness']:.3f}{ratio}), sufficiency "
        f"{method['sufficiency']:.3f} (random {random_row['sufficiency']:.3f}; lower is better)."
    )


def to_html(records: list[dict], title: str = "skattn explanations", faithfulness=None) -> str:
    """A self-contained, well-formed XHTML page of the explanations.

    Parameters
    ----------
    records : list of dict
        What ``explain`` returns.
    title : str, default="skattn explanations"
    faithfulness : skattn.explain._explanations.FaithfulnessReport, optional
        Stated at the top of the page (see :func:`faithfulness_summary`).

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
    body = [_legend(records)] if records else []
    if faithfulness is not None:
        body.insert(0, f'<p class="faith">{_escape(faithfulness_summary(faithfulness))}</p>')
    for i, record in enumerate(records):
        if "sentence_attention" in record:
            inner = _hierarchical_html(record)
        elif "attention" in record:
            if "second" in record:  # a sentence pair: each text's attention
                inner = _self_attentive_html(record, "text 1") + _self_attentive_html(
                    record["second"], "text 2"
                )
            else:
                inner = _self_attentive_html(record)
        else:
            inner = _scores_html(record)
        body.append(f'<div class="doc" id="doc{i}">{_header(record)}{inner}</div>')
    return (
        '<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f'<meta charset="utf-8"/><title>{_escape(title)}</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>"
    )


def _hierarchical_rows(document: int, record: dict, scores: np.ndarray) -> list[dict]:
    """The frame's rows of a hierarchical record, a token a row."""
    method = record.get("method", "attention")
    shown = hierarchical_word_weights(record) if "sentence_attention" in record else None
    sentence_scores = record.get("sentence_scores", record.get("sentence_attention"))
    rows, position_in_document = [], 0
    for s, tokens in enumerate(record["sentences"]):
        for position, token in enumerate(tokens):
            row = {
                "document": document,
                "sentence": s,
                "position": position,
                "token": token,
                "method": method,
                "score": float(scores[position_in_document]),
                "sentence_score": float(sentence_scores[s]),
            }
            position_in_document += 1
            if shown is not None:
                row.update(
                    word_weight=float(record["word_attention"][s][position]),
                    sentence_weight=float(record["sentence_attention"][s]),
                    weight=float(shown[s][position]),
                )
            rows.append(row)
    return rows


def _text_rows(document: int, record: dict, scores: np.ndarray, text: int | None = None):
    """The frame's rows of one text (``text``: which of a pair's), a token a row."""
    method = record.get("method", "attention")
    summed = summed_attention(record) if "attention" in record else None
    rows = []
    for position, token in enumerate(record["tokens"]):
        row: dict[str, Any] = {"document": document}
        if text is not None:
            row["text"] = text
        row.update(
            sentence=0, position=position, token=token, method=method, score=float(scores[position])
        )
        if summed is not None:
            row["weight"] = float(summed[position])
            row.update({f"hop_{h}": float(a[position]) for h, a in enumerate(record["attention"])})
        rows.append(row)
    return rows


def _record_rows(document: int, record: dict) -> list[dict]:
    """The frame's rows of one record."""
    scores = token_scores_of(record)
    if "sentences" in record:
        return _hierarchical_rows(document, record, scores)
    if "second" not in record:
        return _text_rows(document, record, scores)
    n_first = len(record["tokens"])
    second = {"method": record.get("method", "attention"), **record["second"]}
    return _text_rows(document, _first_text(record), scores[:n_first], text=0) + _text_rows(
        document, second, scores[n_first:], text=1
    )


def to_frame(records: list[dict]):
    """One row per token: document, sentence, position, token, method and scores.

    Every row carries ``method`` and ``score`` (the token's score, what the
    faithfulness test ranks; hierarchical rows also ``sentence_score``).
    Attention records add their weights: self-attentive rows ``weight``
    (summed attention over hops, normalised) and ``hop_0`` … ``hop_{r-1}``;
    hierarchical rows ``word_weight`` (p_w), ``sentence_weight`` (p_s) and
    ``weight`` (√p_s · p_w, as drawn). A sentence pair has rows for both
    texts, ``text`` saying which (0: the first, 1: the second;
    ``position`` counts within the text).

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
    >>> pair = {"tokens": ["a", "dog"], "scores": np.array([0.1, 0.9]), "prediction": 1,
    ...         "second": {"tokens": ["an", "animal"], "scores": np.array([0.0, -0.5])}}
    >>> to_frame([pair])[["text", "position", "token", "score"]].values.tolist()
    [[0, 0, 'a', 0.1], [0, 1, 'dog', 0.9], [1, 0, 'an', 0.0], [1, 1, 'animal', -0.5]]
    """
    import pandas as pd

    rows = [
        row for document, record in enumerate(records) for row in _record_rows(document, record)
    ]
    return _token_frame(pd, rows)


def _token_frame(pd, rows: list[dict[str, Any]]):
    """The DataFrame of ``rows``, tokens in a str column stored as Python strings.

    pandas' default (Arrow) strings must be valid UTF-8, which a token
    holding a lone surrogate is not; Python storage holds any str.
    """
    if not rows:
        return pd.DataFrame(rows)
    frame = pd.DataFrame([{k: v for k, v in row.items() if k != "token"} for row in rows])
    tokens = pd.array([row["token"] for row in rows], dtype=_python_strings(pd))
    frame.insert(list(rows[0]).index("token"), "token", tokens)
    return frame


def _python_strings(pd):
    """The dtype pandas gives strings, with Python storage where it would use Arrow's."""
    inferred = pd.Series(["token"]).dtype
    if getattr(inferred, "storage", None) != "pyarrow":
        return inferred
    return pd.StringDtype("python", na_value=inferred.na_value)


#: Figure layout, in inches: width of one character of a token at the
#: figures' font size, padding of a cell, height of a row, widest line.
_CHAR_WIDTH = 0.075
_CELL_PADDING = 0.14
_ROW_HEIGHT = 0.3
_LINE_WIDTH = 11.0
_FONT_SIZE = 8


def _cell_widths(tokens: list[str]) -> list[float]:
    """Each token's cell width: from its own length, so no label runs into the next."""
    return [_CELL_PADDING + _CHAR_WIDTH * max(len(_visible(token)), 1) for token in tokens]


def _wrapped(widths: list[float], width: float = _LINE_WIDTH) -> list[tuple[int, int]]:
    """Cut cells into lines no wider than ``width`` (a cell wider than a line gets its own).

    Examples
    --------
    >>> _wrapped([4.0, 4.0, 4.0, 12.0, 1.0], width=10.0)
    [(0, 2), (2, 3), (3, 4), (4, 5)]
    """
    lines, start, used = [], 0, 0.0
    for i, w in enumerate(widths):
        if i > start and used + w > width:
            lines.append((start, i))
            start, used = i, 0.0
        used += w
    if widths:
        lines.append((start, len(widths)))
    return lines


#: A figure row: (row label, [(cell text, RGBA colour, cell width)]).
_Row = tuple[str, list[tuple[str, tuple, float]]]


def _shade(colour, weight: float, scale=intensity) -> tuple:
    """RGBA of ``colour`` at ``weight`` on ``scale``."""
    return (*(c / 255 for c in colour), scale(weight))


def _signed_shade(relative: float) -> tuple:
    """RGBA of a relative score: green for, purple against, on the √ scale."""
    colour, weight = _signed(relative)
    return _shade(colour, weight)


def _hierarchical_layout(record: dict) -> list[_Row]:
    """One row per sentence (wrapped): its swatch, then its words."""
    hierarchical = "sentence_attention" in record
    if hierarchical:
        words = hierarchical_word_weights(record)
        sentence_values = record["sentence_attention"]
    else:
        flat = relative_scores(np.concatenate(record["word_scores"]))
        words = np.split(flat, np.cumsum([len(s) for s in record["sentences"]])[:-1])
        sentence_values = relative_scores(record["sentence_scores"])
    rows: list[_Row] = []
    for s, (tokens, weights) in enumerate(zip(record["sentences"], words)):
        value = sentence_values[s]
        swatch = (
            f"{value:.2f}",
            _shade((255, 0, 0), value, linear_intensity) if hierarchical else _signed_shade(value),
            _CELL_PADDING + 4 * _CHAR_WIDTH,
        )
        colours = [
            _shade((0, 0, 255), w, linear_intensity) if hierarchical else _signed_shade(w)
            for w in weights
        ]
        widths = _cell_widths(tokens)
        for line, (start, end) in enumerate(_wrapped(widths, _LINE_WIDTH - swatch[2])):
            cells = list(zip(tokens[start:end], colours[start:end], widths[start:end]))
            lead = swatch if line == 0 else ("", (1, 1, 1, 0), swatch[2])
            rows.append((f"s{s}" if line == 0 else "", [lead, *cells]))
    return rows


def _attention_layout(record: dict) -> list[_Row]:
    """Per wrapped line: the summed attention under the tokens, then one row per hop."""
    tokens, summed = record["tokens"], summed_attention(record)
    names = record.get("hop_names") or [f"hop {h}" for h in range(len(record["attention"]))]
    widths = _cell_widths(tokens)
    rows: list[_Row] = []
    for start, end in _wrapped(widths):
        span = slice(start, end)
        cells = zip(tokens[span], summed[span], widths[span])
        rows.append(("sum", [(t, _shade((255, 0, 0), w), c) for t, w, c in cells]))
        for name, hop in zip(names, record["attention"]):
            hop_cells = [("", _shade((255, 0, 0), w), c) for w, c in zip(hop[span], widths[span])]
            rows.append((str(name), hop_cells))
        rows.append(("", []))
    return rows[:-1]


def _scores_layout(record: dict, largest: float | None = None) -> list[_Row]:
    """The tokens, wrapped, each shaded by its score relative to ``largest``."""
    tokens = record["tokens"]
    widths = _cell_widths(tokens)
    relative = relative_scores(record["scores"], largest)
    return [
        (
            "",
            [
                (t, _signed_shade(r), c)
                for t, r, c in zip(tokens[start:end], relative[start:end], widths[start:end])
            ],
        )
        for start, end in _wrapped(widths)
    ]


def _pair_layout(record: dict) -> list[_Row]:
    """The first text's rows under a "text 1" row, then the second's under "text 2"."""
    first, second = _first_text(record), record["second"]
    if "attention" in record:
        parts = _attention_layout(first), _attention_layout(second)
    else:  # one scale for both texts, as on the page
        largest = _pair_largest(record)
        parts = _scores_layout(first, largest), _scores_layout(second, largest)
    return [("text 1", []), *parts[0], ("text 2", []), *parts[1]]


def _layout(record: dict) -> list[_Row]:
    """Rows of the figure: (row label, [(cell text, RGBA colour, cell width)])."""
    if "sentences" in record:
        return _hierarchical_layout(record)
    if "second" in record:
        return _pair_layout(record)
    if "attention" in record:
        return _attention_layout(record)
    return _scores_layout(record)


def _colour_bars(fig, ax, record: dict) -> None:
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import FuncNorm, LinearSegmentedColormap, Normalize, PowerNorm

    def ramp(colour):
        return LinearSegmentedColormap.from_list("", [(1, 1, 1), tuple(c / 255 for c in colour)])

    if "sentence_attention" in record:
        bars = [(ramp((255, 0, 0)), "sentence weight p_s"), (ramp((0, 0, 255)), "word √p_s·p_w")]
        norm = Normalize(0, 1)
    elif "attention" in record:
        bars, norm = [(ramp((255, 0, 0)), "attention weight (√ scale)")], PowerNorm(0.5, 0, 1)
    else:
        colours = [
            tuple(c / 255 for c in AGAINST_COLOUR),
            (1, 1, 1),
            tuple(c / 255 for c in SUPPORT_COLOUR),
        ]
        bars = [(LinearSegmentedColormap.from_list("", colours), "score / max |score|")]
        norm = FuncNorm(
            (lambda r: np.sign(r) * np.sqrt(np.abs(r)), lambda r: np.sign(r) * r**2), -1, 1
        )
    for i, (cmap, label) in enumerate(bars):
        # Each bar takes its room next to the axes, so the first drawn ends up
        # outermost: its pad leaves room for the inner bar's ticks and title.
        fig.colorbar(
            ScalarMappable(norm, cmap),
            ax=ax,
            label=label,
            pad=0.01 if i == len(bars) - 1 else 0.07,
            fraction=0.03,
            aspect=15,
        )


def _draw_rows(ax, rows: list[_Row]) -> None:
    """Each row's cells as coloured rectangles with their text, on axes of unit rows."""
    from matplotlib.patches import Rectangle

    for y, (_, cells) in enumerate(rows):
        x = 0.0
        for text, colour, cell_width in cells:
            ax.add_patch(Rectangle((x, y - 0.45), cell_width, 0.9, facecolor=colour, lw=0))
            if text:
                ink = "white" if colour[3] > 0.6 else "black"
                ax.text(
                    x + cell_width / 2,
                    y,
                    _visible(text),
                    ha="center",
                    va="center",
                    fontsize=_FONT_SIZE,
                    color=ink,
                    parse_math=False,  # a token is text: "$" is no mathtext
                )
            x += cell_width


def _frame_axes(ax, rows: list[_Row], width: float, record: dict) -> None:
    """Limits, row labels and title; no ticks or spines."""
    ax.set_xlim(0, width)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize=_FONT_SIZE)
    ax.set_xticks([])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.tick_params(left=False)
    title = f"predicted: {_visible(shown_value(record['prediction']))}"
    if "method" in record:
        title += f" · method: {record['method']}"
    ax.set_title(title, fontsize=_FONT_SIZE + 1, parse_math=False)


def plot(record: dict, ax=None, faithfulness=None):
    """A matplotlib figure of one document's explanation, every word legible.

    Each token sits in a cell as wide as the token, lines wrap at 11
    inches, and colours are those of the HTML page. Self-attentive
    attention: the summed view, then one row per hop, each cell under its
    token. Hierarchical attention: one row per sentence, the sentence
    weight p_s in red left of it, words in blue by √p_s · p_w (the HAN
    paper's Fig. 5). Other methods: scores relative to the document's
    largest, green for, purple against the prediction (hierarchical: the
    sentence's score left of it). A sentence pair: its first text, then
    its second (scores on one scale for both). A colour bar shows the
    scale.

    Parameters
    ----------
    record : dict
        One element of ``explain``'s result.
    ax : matplotlib Axes, optional
    faithfulness : skattn.explain._explanations.FaithfulnessReport, optional
        Stated under the figure (see :func:`faithfulness_summary`).

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
        from matplotlib.figure import Figure
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'skattn[plot]'") from error
    rows = _layout(record)
    width = max((sum(c[2] for c in cells) for _, cells in rows), default=1.0)
    if ax is None:
        # A Figure of its own (no pyplot): the caller's backend is never
        # touched, and Jupyter still shows the returned figure inline.
        fig = Figure(
            figsize=(width + 2.2, 0.9 + _ROW_HEIGHT * len(rows) + 0.3 * bool(faithfulness))
        )
        ax = fig.subplots()
    else:
        fig = ax.figure
    _draw_rows(ax, rows)
    _frame_axes(ax, rows, width, record)
    _colour_bars(fig, ax, record)
    if faithfulness is not None:
        summary = faithfulness_summary(faithfulness)
        fig.text(0.01, 0.01, summary, fontsize=_FONT_SIZE - 1, wrap=True, va="bottom")
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

    def __init__(self, records=(), faithfulness=None):
        super().__init__(records)
        #: The :class:`~skattn.explain._explanations.FaithfulnessReport` measured on
        #: these documents (``explain(..., faithfulness=True)``), or None.
        self.faithfulness = faithfulness

    def to_frame(self):
        """One row per token, see :func:`to_frame`."""
        return to_frame(self)

    def to_html(self, title: str = "skattn explanations") -> str:
        """The HTML page, see :func:`to_html`."""
        return to_html(self, title, self.faithfulness)

    def save_html(self, path) -> Path:
        """Write the HTML page to ``path`` (UTF-8, atomically) and return the path."""
        path = Path(path)
        page = self.to_html()
        with atomic_write(path) as handle:
            handle.write(page)
        return path

    def plot(self, index: int = 0, ax=None):
        """The matplotlib figure of document ``index``, see :func:`plot`."""
        return plot(self[index], ax=ax, faithfulness=self.faithfulness)

    def _repr_html_(self) -> str:
        return self.to_html()
