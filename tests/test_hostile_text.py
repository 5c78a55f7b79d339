"""Hostile text is data: every estimator trains, predicts, explains, saves and serves it.

Lone surrogates (what ``errors="surrogateescape"`` gives for undecodable
bytes), NUL and other C0/C1 controls, combining marks with nothing to
combine with, bidi controls, zero-width joiners, 10,000-character tokens
and mixed scripts, among ordinary words. Small models are fitted once per
estimator; hypothesis then draws the documents they read.

``SKATTN_HOSTILE_PROFILE=thorough`` draws ten times as many examples.
"""

import json
import os
import re
import xml.etree.ElementTree as ET
import zlib
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import skattn
from skattn import (
    HierarchicalAttentionClassifier,
    HierarchicalAttentionRegressor,
    SelfAttentiveClassifier,
    SelfAttentiveEmbedder,
    SelfAttentivePairClassifier,
    SelfAttentivePairRegressor,
    SelfAttentiveRegressor,
    TextEncoder,
)
from skattn.embeddings import train_word2vec
from skattn.embeddings._vectors import stable_hash
from skattn.text import char_ngrams
from skattn.text._ordering import text_digest
from skattn.text._subwords import ngram_ids
from skattn.text._unicode import join_surrogate_pairs, json_text, text_bytes

from estimators import HIERARCHICAL, SELF_ATTENTIVE

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from skattn.serving import (  # noqa: E402
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextRegressor,
    export,
)
from skattn.serving._export import _text_config
from skattn.serving._text import TextPipeline

#: The module's profile: no deadline (a fit takes what it takes), failures printed
#: with the blob that reproduces them.
settings.register_profile(
    "hostile", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
PROFILE = settings.get_profile("hostile")
SCALE = 10 if os.environ.get("SKATTN_HOSTILE_PROFILE") == "thorough" else 1


def drawn(max_examples: int) -> settings:
    """The module's profile with ``max_examples`` (ten times as many when thorough)."""
    return settings(PROFILE, max_examples=max_examples * SCALE)


# -- the strategy ----------------------------------------------------------------
SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
CONTROLS = st.sampled_from([chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))])
COMBINING_MARKS = st.integers(0x0300, 0x036F).map(chr)
BIDI_CONTROLS = st.sampled_from(
    [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F)]
)
ZERO_WIDTH = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
HOSTILE_CHARACTERS = st.one_of(SURROGATES, CONTROLS, COMBINING_MARKS, BIDI_CONTROLS, ZERO_WIDTH)
#: Ordinary words of several scripts (Latin, Cyrillic, Arabic, CJK, emoji).
WORDS = (
    "good bad film plot great awful naïve straße привет фильм плохо مرحبا فيلم جميل "
    "好看 电影 😀 🎬 👍🏽 👨\u200d👩\u200d👧"
).split()
WORD = st.sampled_from(WORDS)
MIXED_SCRIPT_WORD = st.lists(WORD, min_size=2, max_size=3).map("".join)
HOSTILE_WORD = st.tuples(
    st.lists(HOSTILE_CHARACTERS, max_size=2), WORD, st.lists(HOSTILE_CHARACTERS, max_size=2)
).map(lambda parts: "".join(parts[0]) + parts[1] + "".join(parts[2]))
LONG_TOKEN = st.tuples(st.sampled_from(["x", "ж", "ب", "é"]), st.lists(SURROGATES, max_size=1)).map(
    lambda parts: parts[0] * 10_000 + "".join(parts[1])
)
BLANK = st.sampled_from(["", " ", "\n", "\t\u3000 ", "\r\n"])
SEPARATOR = st.sampled_from([" ", "  ", "\n", ". ", "! ", "。", ""])
PIECE = st.one_of(WORD, MIXED_SCRIPT_WORD, HOSTILE_WORD, HOSTILE_CHARACTERS, LONG_TOKEN)
WRITTEN = st.lists(st.tuples(PIECE, SEPARATOR), min_size=1, max_size=6).map(
    lambda pieces: "".join(piece + separator for piece, separator in pieces)
)
DOCUMENT = st.one_of(
    WRITTEN,
    st.tuples(COMBINING_MARKS, WRITTEN).map("".join),  # a mark with nothing before it
    BLANK,
)
DOCUMENTS = st.lists(DOCUMENT, min_size=1, max_size=5)

#: One document of each kind, always tried (and part of the training texts).
FIXED = [
    "a\udcff good film",
    "\ud800 bad \udfff plot \udbff\udc00",
    "nul\x00 great\x01 film\x7f\x85\x9f",
    "\u0301good film \u0308",
    "\u202ebad\u202c plot \u2066awful\u2069 \u200f",
    "zero\u200dwidth\u200b good \ufeff",
    "x" * 10_000 + " bad",
    "привет фильм مرحبا 好看 😀 good filmфильм",
    "हिन्दी फ़िल्म अच्छी मُحَمَّد cafe\u0301",  # words with combining marks
    "",
    "  \t\n ",
    "\ud83c\udfac great film",
]
ORDINARY = ["good film great plot", "bad film awful plot", "great good film", "awful bad plot"]
TRAIN = [*FIXED, *ORDINARY] * 2
LABELS = np.array(["pos", "neg"])[np.arange(len(TRAIN)) % 2]
TARGETS = np.linspace(-1.0, 2.0, len(TRAIN))
TINY = dict(embeddings=None, min_count=1, subword_buckets=512, max_epochs=1, batch_size=8)


def _self_attentive(**params):
    return {**SELF_ATTENTIVE, **TINY, **params}


ESTIMATORS = {
    "SelfAttentiveClassifier": lambda: SelfAttentiveClassifier(**_self_attentive()),
    "HierarchicalAttentionClassifier": lambda: HierarchicalAttentionClassifier(
        **{**HIERARCHICAL, **TINY}
    ),
    "SelfAttentiveRegressor": lambda: SelfAttentiveRegressor(**_self_attentive()),
    "HierarchicalAttentionRegressor": lambda: HierarchicalAttentionRegressor(
        **{**HIERARCHICAL, **TINY}
    ),
    "SelfAttentiveEmbedder": lambda: SelfAttentiveEmbedder(
        SelfAttentiveClassifier(**_self_attentive()), output="mean"
    ),
    "SelfAttentivePairClassifier": lambda: SelfAttentivePairClassifier(
        **_self_attentive(), gated_dim=4
    ),
    "SelfAttentivePairRegressor": lambda: SelfAttentivePairRegressor(**_self_attentive()),
}
PAIRS = ("SelfAttentivePairClassifier", "SelfAttentivePairRegressor")
REGRESSORS = ("SelfAttentiveRegressor", "HierarchicalAttentionRegressor", *PAIRS[1:])
RUNTIMES = {"Embedder": OnnxTextEmbedder, "Regressor": OnnxTextRegressor}


def _samples(name: str, documents: list[str]) -> list:
    """The documents as the estimator reads them: pairs of hostile texts for a pair model."""
    if name in PAIRS:
        return list(zip(documents, documents[::-1]))
    return documents


def _targets(name: str, n: int) -> np.ndarray:
    return np.linspace(-1.0, 2.0, n) if name in REGRESSORS else LABELS[np.arange(n) % 2]


def _outputs(model, samples) -> np.ndarray:
    """What a model answers: probabilities, predicted values or embeddings."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(samples)
    if hasattr(model, "predict"):
        return np.asarray(model.predict(samples), dtype=np.float64)
    return model.transform(samples)


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="module", params=list(ESTIMATORS))
def fitted(request):
    """(name, estimator fitted on hostile and ordinary texts)."""
    name = request.param
    samples = _samples(name, TRAIN)
    return name, ESTIMATORS[name]().fit(samples, _targets(name, len(samples)))


@pytest.fixture(scope="module")
def loaded(fitted, tmp_path_factory):
    name, model = fitted
    return skattn.load(skattn.save(model, tmp_path_factory.mktemp("saved") / f"{name}.skattn"))


@pytest.fixture(scope="module")
def served(fitted, tmp_path_factory):
    name, model = fitted
    path = export(model, tmp_path_factory.mktemp("exported") / f"{name}.onnx.zip")
    runtime = next((r for suffix, r in RUNTIMES.items() if suffix in name), OnnxTextClassifier)
    return runtime(path)


def _check_outputs(name: str, model, samples: list) -> None:
    n = len(samples)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(samples)
        assert proba.shape == (n, len(model.classes_)) and np.isfinite(proba).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)
        assert set(model.predict(samples)) <= set(model.classes_)
    if hasattr(model, "predict") and name in REGRESSORS:
        predicted = np.asarray(model.predict(samples))
        assert predicted.shape == (n,) and np.isfinite(predicted).all()
    embedding = model.transform(samples)
    assert embedding.shape[0] == n and embedding.ndim == 2 and np.isfinite(embedding).all()


@drawn(10)
@example(documents=FIXED)
@given(documents=DOCUMENTS)
def test_every_estimator_answers_every_hostile_document(fitted, documents):
    name, model = fitted
    _check_outputs(name, model, _samples(name, documents))


def _expected_tokens(text: str) -> str:
    """All the text's characters but white space, lowercased: what the default pattern keeps.

    Surrogate pairs read as their character (UTF-16's reading), written
    here without the package's helper.
    """
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return re.sub(r"\s", "", text.lower())


def _check_tokens(encoder: TextEncoder, text: str, sentences: list[list[str]]) -> None:
    """The record's sentences are the encoder's, and they hold every character kept."""
    assert sentences == encoder.tokenize([text])[0]
    flat = [token for sentence in sentences for token in sentence]
    if not _expected_tokens(text):
        assert flat == ["<empty>"]
    elif encoder.encode([text]).n_truncated == 0:
        assert "".join(flat) == _expected_tokens(text)


def _explainer(model):
    """The model, or an embedder's fitted classifier (whose attention it embeds with)."""
    return getattr(model, "classifier_", model)


def _frame_sentences(record) -> list[list[str]]:
    """The token rows ``to_frame`` gives a record: a pair's second text after its first."""
    second = [record["second"]["tokens"]] if "second" in record else []
    return _record_sentences(record) + second


def _record_sentences(record: dict) -> list[list[str]]:
    return record["sentences"] if "sentences" in record else [record["tokens"]]


@drawn(10)
@example(documents=FIXED)
@given(documents=DOCUMENTS)
def test_explanations_hold_the_tokens_the_encoder_produced(fitted, documents):
    name, model = fitted
    model = _explainer(model)
    samples = _samples(name, documents)
    explanations = model.explain(samples)
    assert len(explanations) == len(samples)
    for sample, record in zip(samples, explanations):
        if name in PAIRS:
            _check_tokens(model.encoder_, sample[0], [record["tokens"]])
            _check_tokens(model.encoder_, sample[1], [record["second"]["tokens"]])
        else:
            _check_tokens(model.encoder_, sample, _record_sentences(record))
    page = explanations.to_html()
    page.encode("utf-8")  # valid UTF-8
    ET.fromstring(page.split("\n", 1)[1])  # and well-formed XHTML
    frame = explanations.to_frame()
    # A pair's rows: its first text's tokens, then its second's.
    expected = [t for record in explanations for s in _frame_sentences(record) for t in s]
    assert frame["token"].tolist() == expected


@drawn(10)
@example(documents=FIXED)
@given(documents=DOCUMENTS)
def test_a_loaded_model_answers_as_the_estimator(fitted, loaded, documents):
    name, model = fitted
    samples = _samples(name, documents)
    np.testing.assert_allclose(_outputs(loaded, samples), _outputs(model, samples), atol=1e-5)
    if hasattr(model, "predict"):
        np.testing.assert_array_equal(loaded.predict(samples), model.predict(samples))


@drawn(10)
@example(documents=FIXED)
@given(documents=DOCUMENTS)
def test_an_exported_model_answers_as_the_estimator(fitted, served, documents):
    name, model = fitted
    samples = _samples(name, documents)
    expected, got = _outputs(model, samples), _outputs(served, samples)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    if hasattr(model, "predict_proba"):
        top = np.sort(expected, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-4  # labels agree unless the classes tie
        assert (served.predict(samples) == model.predict(samples))[clear].all()
    explained = _explainer(model).explain(samples, method="attention")
    for record, expected in zip(served.attention(samples), explained):
        assert _record_sentences(record) == _record_sentences(expected)
        if "attention" in record:
            np.testing.assert_allclose(record["attention"], expected["attention"], atol=1e-5)


@pytest.mark.parametrize("name", list(ESTIMATORS))
@drawn(2)
@given(documents=st.lists(DOCUMENT, min_size=2, max_size=8))
def test_every_estimator_fits_hostile_training_texts(name, documents, tmp_path_factory):
    samples = _samples(name, [*documents, *ORDINARY])  # some words, so a vocabulary exists
    model = ESTIMATORS[name]().fit(samples, _targets(name, len(samples)))
    _check_outputs(name, model, samples)
    path = skattn.save(model, tmp_path_factory.mktemp("fit") / "model.skattn")
    np.testing.assert_allclose(
        _outputs(skattn.load(path), samples), _outputs(model, samples), atol=1e-5
    )


@pytest.mark.parametrize("estimator", [SelfAttentiveClassifier, HierarchicalAttentionClassifier])
def test_classifiers_fit_texts_with_an_undecodable_byte(estimator):
    # b"a\xff".decode("utf-8", "surrogateescape"): subword hashing raised UnicodeEncodeError.
    X = ["a\udcff good film", "bad plot", "good a\udcff", "awful film"] * 4
    y = ["pos", "neg"] * 8
    settings_ = SELF_ATTENTIVE if estimator is SelfAttentiveClassifier else HIERARCHICAL
    model = estimator(**{**settings_, "max_epochs": 1, "embeddings": None}).fit(X, y)
    assert "\udcff" in model.encoder_.vocabulary_
    predicted = model.predict(["a\udcff", "\udcff good"])
    assert predicted.shape == (2,) and set(predicted) <= {"pos", "neg"}


# -- one hash, one JSON, for training and serving ----------------------------------
TEXT_WITH_SURROGATES = st.text(
    alphabet=st.one_of(st.characters(), SURROGATES, HOSTILE_CHARACTERS), max_size=40
)


def _utf8_of_surrogate(code: int) -> bytes:
    """UTF-8's three-byte pattern applied to a surrogate (written out, not encoded)."""
    return bytes([0xE0 | code >> 12, 0x80 | (code >> 6) & 0x3F, 0x80 | code & 0x3F])


@drawn(200)
@given(text=st.text(max_size=40))
def test_hashes_of_ordinary_text_are_unchanged(text):
    # st.text() draws no surrogate: these are the bytes every saved model hashed.
    assert text_bytes(text) == text.encode("utf-8")
    assert stable_hash(text) == zlib.crc32(text.encode("utf-8"))
    grams = char_ngrams(text)[:32]
    assert ngram_ids(text, 997) == [1 + zlib.crc32(g.encode("utf-8")) % 997 for g in grams]


@drawn(200)
@given(code=st.integers(0xD800, 0xDFFF), text=TEXT_WITH_SURROGATES)
def test_a_lone_surrogate_is_hashed_as_its_three_bytes(code, text):
    assert text_bytes(chr(code)) == _utf8_of_surrogate(code)
    assert text_bytes(text + chr(code)) == text_bytes(text) + _utf8_of_surrogate(code)
    assert text_digest(text + chr(code)) != text_digest(text)


def _pipeline(encoder: TextEncoder) -> TextPipeline:
    return TextPipeline(_text_config(SimpleNamespace(encoder_=encoder)))


TOKENIZER_SETTINGS = [
    {},
    {"lowercase": False},
    {"strip_accents": "unicode"},
    {"strip_accents": "ascii"},
    {"analyzer": "char"},
    {"tokenizer": "whitespace"},
    {"tokenizer": "characters"},
    {"sentence_split": "punctuation", "max_sentences": 2, "max_sentence_length": 3},
    {"sentence_split": "lines", "max_length": 7},
]


@pytest.mark.parametrize("options", TOKENIZER_SETTINGS, ids=str)
@drawn(15)
@example(documents=FIXED)
@given(documents=DOCUMENTS)
def test_the_serving_tokenizer_reads_hostile_text_as_training_does(options, documents):
    encoder = TextEncoder(**options, subword_buckets=1000).fit([*FIXED, *documents])
    pipeline = _pipeline(encoder)
    expected = encoder.tokenize(documents)
    assert [pipeline.tokenize(text) for text in documents] == expected
    for token in {t for doc in expected for s in doc for t in s} - {"<empty>"}:
        assert pipeline.ngram_ids(token) == ngram_ids(token, 1000)
    corpus = encoder.encode(documents)
    ids = [i for text in documents for s in pipeline.ids(pipeline.tokenize(text)) for i in s]
    assert ids == corpus.token_ids.tolist()


@drawn(200)
@given(text=TEXT_WITH_SURROGATES)
def test_json_keeps_lone_surrogates(text):
    # JSON reads an escaped high-low pair as one character, as the tokenizers do.
    joined = join_surrogate_pairs(text)
    assert joined == text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    written = json_text({"text": joined, "tokens": [joined, "café"]})
    written.encode("utf-8")  # no UnicodeEncodeError
    assert len(written.splitlines()) == 1  # one JSON line for any line reader
    assert json.loads(written) == {"text": joined, "tokens": [joined, "café"]}


def test_a_surrogate_pair_reads_as_its_character():
    for options in ({}, {"tokenizer": "whitespace"}, {"analyzer": "char"}):
        encoder = TextEncoder(**options)
        assert encoder.tokenize(["a\ud83d\ude00b"]) == encoder.tokenize(["a😀b"])


def test_word2vec_learns_hostile_words():
    sentences = [["a\udcff", "good", "\x00", "film"], ["\u202e", "good", "x" * 10_000]] * 10
    vectors = train_word2vec(sentences, vector_size=4, epochs=1)
    again = train_word2vec(sentences, vector_size=4, epochs=1)
    assert vectors["a\udcff"].shape == (4,)
    np.testing.assert_array_equal(vectors["a\udcff"], again["a\udcff"])


# -- the command line and the HTTP service ----------------------------------------
@pytest.fixture(scope="module")
def saved_classifier(tmp_path_factory):
    model = SelfAttentiveClassifier(**_self_attentive()).fit(TRAIN, LABELS)
    return model, skattn.save(model, tmp_path_factory.mktemp("cli") / "model.skattn")


def test_the_command_line_writes_hostile_predictions_as_json_lines(saved_classifier, tmp_path):
    from skattn.__main__ import main

    model, path = saved_classifier
    # sys.argv gives "\udcff" for an undecodable byte; --text takes it as is.
    texts = [FIXED[0], FIXED[2], FIXED[4], ""]
    options = [option for text in texts for option in ("--text", text)]
    output = tmp_path / "predictions.jsonl"
    assert main(["predict", str(path), *options, "--output", str(output)]) == 0
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [row["text"] for row in rows] == texts
    assert [row["label"] for row in rows] == model.predict(texts).tolist()
    got = [[row[f"proba_{c}"] for c in model.classes_] for row in rows]
    np.testing.assert_allclose(got, model.predict_proba(texts), atol=1e-6)


def test_the_command_line_refuses_a_lone_surrogate_in_csv_naming_it(
    saved_classifier, tmp_path, capsys
):
    from skattn.__main__ import main

    _, path = saved_classifier
    output = tmp_path / "predictions.csv"
    status = main(
        ["predict", str(path), "--text", "ok", "--text", "a\udcff", "--output", str(output)]
    )
    assert status == 1 and not output.exists()
    message = capsys.readouterr().err
    assert "X[1]" in message and "U+DCFF" in message and ".jsonl" in message


def test_the_http_service_answers_hostile_texts(fitted, served):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from skattn.serving import create_app

    name, _ = fitted
    samples = _samples(name, FIXED)
    # JSON escapes the lone surrogates (\\udcff), so the body is ASCII.
    body = {"pairs": [list(s) for s in samples]} if name in PAIRS else {"texts": samples}
    with TestClient(create_app(served.path)) as client:
        response = client.post(
            "/attention",
            content=json.dumps(body).encode("ascii"),
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 200, response.text
    answered = response.json()["attention"]
    expected = served.attention(samples)
    assert [_record_sentences(r) for r in answered] == [_record_sentences(r) for r in expected]
