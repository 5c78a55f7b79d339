"""Explanations: data equal to the forward pass, HTML that parses, figures that render."""

import io
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

from skattn.explain._explanations import hierarchical_word_weights, summed_attention

from estimators import SMALL_ESTIMATORS

HOSTILE = "<script>alert('x')</script> a fine & moving film"


@pytest.fixture(scope="module", params=list(SMALL_ESTIMATORS))
def fitted(request, polarity_small):
    X, y = polarity_small
    return SMALL_ESTIMATORS[request.param]().fit(X, y)


def _parse_strict(page: str) -> ET.Element:
    return ET.fromstring(page.split("\n", 1)[1])  # drop the doctype line


def test_weights_sum_as_they_must(fitted, polarity_small):
    X, y = polarity_small
    for record, label in zip(fitted.explain(X[:20], y[:20], method="attention"), y[:20]):
        assert record["true_label"] == label
        if "sentences" in record:
            np.testing.assert_allclose(record["sentence_attention"].sum(), 1, rtol=1e-5)
            for words in record["word_attention"]:
                np.testing.assert_allclose(words.sum(), 1, rtol=1e-5)
        else:
            np.testing.assert_allclose(record["attention"].sum(axis=1), 1, rtol=1e-5)
            np.testing.assert_allclose(summed_attention(record).sum(), 1, rtol=1e-6)


#: Documents of distinct lengths (out of length order) and their sentences,
#: tokenised by hand.
ALIGNMENT_CASES = [
    ("A fine, moving film!", [["a", "fine", ",", "moving", "film", "!"]]),
    ("Bad", [["bad"]]),
    (
        "Too long. Far too slow? I left early.",
        [["too", "long", "."], ["far", "too", "slow", "?"], ["i", "left", "early", "."]],
    ),
    ("Dull.", [["dull", "."]]),
]


def test_each_record_holds_its_own_documents_tokens_weights_and_label(fitted):
    docs = [doc for doc, _ in ALIGNMENT_CASES]
    # explain shows any true label: distinct ones make a label given to the
    # wrong record visible.
    y = np.array(["first", "second", "third", "fourth"])
    records = fitted.explain(docs, y, method="attention")
    assert len(records) == len(docs)
    probabilities, predictions = fitted.predict_proba(docs), fitted.predict(docs)
    for i, (record, (doc, sentences)) in enumerate(zip(records, ALIGNMENT_CASES)):
        assert record["true_label"] == y[i]
        assert record["prediction"] == predictions[i]
        np.testing.assert_allclose(record["proba"], probabilities[i], rtol=1e-5)
        alone = fitted.explain([doc], method="attention")[0]
        if "sentences" in record:
            assert record["sentences"] == sentences
            assert record["sentence_attention"].shape == (len(sentences),)
            assert [w.shape for w in record["word_attention"]] == [(len(s),) for s in sentences]
            weights = [record["sentence_attention"], *record["word_attention"]]
            expected = [alone["sentence_attention"], *alone["word_attention"]]
        else:
            tokens = [token for sentence in sentences for token in sentence]
            assert record["tokens"] == tokens
            assert record["attention"].shape == (2, len(tokens))  # 2 hops
            weights, expected = [record["attention"]], [alone["attention"]]
        for got, want in zip(weights, expected):  # the weights are this document's
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_frame_has_one_row_per_token(fitted, polarity_small):
    X, _ = polarity_small
    explanations = fitted.explain(X[:5], method="attention")
    frame = fitted.explain(X[:5], method="attention", as_frame=True)
    n_tokens = sum(
        sum(len(s) for s in r["sentences"]) if "sentences" in r else len(r["tokens"])
        for r in explanations
    )
    assert len(frame) == n_tokens and set(frame["document"]) == set(range(5))
    first = explanations[0]
    weights = (
        np.concatenate(hierarchical_word_weights(first))
        if "sentences" in first
        else summed_attention(first)
    )
    np.testing.assert_allclose(frame[frame.document == 0]["weight"], weights, rtol=1e-6)


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.tokens, self.data = [], [], []
        self._in_token = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        self._in_token = "tok" in (attrs.get("class") or "").split()
        if self._in_token:
            self.tokens.append([attrs["style"], ""])

    def handle_data(self, data):
        self.data.append(data)
        if self._in_token:
            self.tokens[-1][1] += data

    def handle_endtag(self, tag):
        self._in_token = False


def test_html_is_well_formed_escaped_and_shows_each_token_once(fitted):
    explanations = fitted.explain([HOSTILE, "a dull film"], ["pos", "neg"], method="attention")
    page = explanations.to_html()
    root = _parse_strict(page)  # well-formed XHTML or this raises
    assert not root.findall(".//{http://www.w3.org/1999/xhtml}script")
    assert "<script" not in page and "&lt;" in page  # the tokens "<", "script", ">" as text
    collector = _Collector()
    collector.feed(page)
    assert "script" not in collector.tags
    shown = [text for _, text in collector.tokens]
    expected = [
        token
        for record in explanations
        for token in (
            [t for s in record["sentences"] for t in s]
            if "sentences" in record
            else record["tokens"]
        )
    ]
    assert shown == expected  # each token exactly once, in order, as text
    styles = [style for style, _ in collector.tokens]
    assert all("background-color:rgba(" in s for s in styles)
    assert len(set(styles)) > 1  # colours follow the weights
    assert explanations._repr_html_() == page
    assert "true: <b>pos</b>" in page


def test_html_colour_scale_is_absolute_and_hop_rows_line_up_with_tokens():
    from skattn.explain._explanations import intensity, to_html

    uniform = {
        "tokens": ["a", "b", "c", "d", "e"],
        "attention": np.full((2, 5), 0.2),
        "prediction": "pos",
        "proba": np.array([0.4, 0.6]),
    }
    peaked = {**uniform, "attention": np.array([[0.96, 0.01, 0.01, 0.01, 0.01]] * 2)}
    page = to_html([uniform, peaked])
    root = _parse_strict(page)
    ns = "{http://www.w3.org/1999/xhtml}"
    tables = root.findall(f".//{ns}table")
    assert len(tables) == 2 and all(t.get("dir") == "auto" for t in tables)
    for table in tables:  # every hop row has one cell per token, under it
        rows = table.findall(f"{ns}tr")
        assert len(rows) == 3 and {len(r.findall(f"{ns}td")) for r in rows} == {5}
    uniform_cells = tables[0].findall(f".//{ns}td")
    styles = {cell.get("style") for cell in uniform_cells}
    assert len(styles) == 1  # uniform attention: one shade everywhere
    assert f"{intensity(0.2):.3f}" in styles.pop()  # √0.2 ≈ 0.447, not full colour
    peak = tables[1].findall(f".//{ns}td")[0].get("style")
    assert f"{intensity(0.96):.3f}" in peak
    assert "fixed and the same for every document" in page


def test_matplotlib_figures_render_to_png(fitted, polarity_small, tmp_path):
    X, _ = polarity_small
    figure = fitted.explain(X[:2], method="attention").plot(1)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n" and len(buffer.getvalue()) > 2000
    path = fitted.explain(X[:2], method="attention").save_html(tmp_path / "attention.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    "record",
    [
        {
            "tokens": ["soon", "encounter", "cinematography", "a", "despise", "batman"] * 4,
            "attention": np.full((2, 24), 1 / 24),
            "prediction": "pos",
        },
        {
            "sentences": [["soon", "encounter", "cinematography"] * 5, ["despise", "batman"]],
            "sentence_attention": np.array([0.7, 0.3]),
            "word_attention": [np.full(15, 1 / 15), np.array([0.5, 0.5])],
            "prediction": "neg",
        },
        {
            "tokens": ["cinematography", "despise", "a"],
            "scores": np.array([0.3, -0.2, 0.0]),
            "method": "gradient",
            "prediction": "pos",
        },
    ],
)
def test_figure_words_never_run_into_each_other(record):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from skattn.explain._explanations import plot

    figure = plot(record)
    renderer = FigureCanvasAgg(figure).get_renderer()
    boxes = {}
    for text in figure.axes[0].texts:
        if text.get_text():
            box = text.get_window_extent(renderer)
            boxes.setdefault(round(box.y0), []).append((box.x0, box.x1))
    assert sum(len(row) for row in boxes.values()) >= 3
    for row in boxes.values():
        row.sort()
        for (_, right), (left, _) in zip(row, row[1:]):
            assert right <= left + 0.5  # pixels: touching at most, never overlapping


def test_han_colours_are_the_papers_figure_5_values_on_a_linear_scale():
    import re

    from skattn.explain import Explanations

    # p_s = 0.25 and p_w = 0.5: the word's Fig. 5 value is √0.25 · 0.5 = 0.25,
    # drawn at intensity 0.25 (a second square root would draw it at 0.5).
    record = {
        "sentences": [["dull", "film"], ["fine"]],
        "sentence_attention": np.array([0.25, 0.75]),
        "word_attention": [np.array([0.5, 0.5]), np.array([1.0])],
        "prediction": "neg",
        "proba": np.array([0.8, 0.2]),
    }
    page = Explanations([record]).to_html()
    shades = dict(re.findall(r'data-weight="([0-9.]+)"[^>]*rgba\(0,0,255,([0-9.]+)\)', page))
    assert float(shades["0.250000"]) == pytest.approx(0.25)
    assert float(shades["0.866025"]) == pytest.approx(np.sqrt(0.75) * 1.0, abs=1e-3)
    sentence = dict(re.findall(r'data-weight="([0-9.]+)"[^>]*rgba\(255,0,0,([0-9.]+)\)', page))
    assert float(sentence["0.250000"]) == pytest.approx(0.25)


def test_the_legend_says_what_the_colours_are_for():
    from skattn.explain import Explanations

    plain = {"tokens": ["dull", "film"], "scores": np.array([-0.5, 0.2]), "prediction": "neg"}
    per_label = dict(plain, explained_label="joy", explained_proba=0.04)
    assert "green supports the prediction" in Explanations([plain]).to_html()
    page = Explanations([per_label]).to_html()
    assert "green supports the prediction" not in page
    assert "a word can be for one label and against another" in page
