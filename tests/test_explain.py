"""Explanations: data equal to the forward pass, HTML that parses, figures that render."""

import io
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest

from skattn.explain import hierarchical_word_weights, summed_attention

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
    for record in fitted.explain(X[:20], y[:20]):
        assert record["true_label"] in ("neg", "pos")
        if "sentences" in record:
            np.testing.assert_allclose(record["sentence_attention"].sum(), 1, rtol=1e-5)
            for words in record["word_attention"]:
                np.testing.assert_allclose(words.sum(), 1, rtol=1e-5)
        else:
            np.testing.assert_allclose(record["attention"].sum(axis=1), 1, rtol=1e-5)
            np.testing.assert_allclose(summed_attention(record).sum(), 1, rtol=1e-6)


def test_frame_has_one_row_per_token(fitted, polarity_small):
    X, _ = polarity_small
    explanations = fitted.explain(X[:5])
    frame = fitted.explain(X[:5], as_frame=True)
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
    explanations = fitted.explain([HOSTILE, "a dull film"], ["pos", "neg"])
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
    from skattn.explain import intensity, to_html

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
    figure = fitted.explain(X[:2]).plot(1)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n" and len(buffer.getvalue()) > 2000
    path = fitted.explain(X[:2]).save_html(tmp_path / "attention.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
