"""Serving: the exported artefact answers as the estimator does, without the training stack."""

import json
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from skattn import (  # noqa: E402
    HierarchicalAttentionClassifier,
    HierarchicalAttentionRegressor,
    SelfAttentiveClassifier,
    SelfAttentiveEmbedder,
    SelfAttentivePairClassifier,
    SelfAttentivePairRegressor,
    SelfAttentiveRegressor,
    TextEncoder,
)
from skattn.serving import (  # noqa: E402
    ArtifactError,
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextRegressor,
    export,
)
from skattn.serving.text import TextPipeline  # noqa: E402
from skattn.subwords import ngram_ids  # noqa: E402

WORDS = (
    "good bad film plot acting great awful 好 看 电 影 مرحبا بالعالم café naïve "
    "résumé Ünïcödé 😀 🎬 ❤️ über straße ok no not never . ! ?"
).split()
TRAIN = [
    "a good film . truly great acting !",
    "a bad film . awful plot",
    "电影 很 好看 😀",
    "فيلم سيء جدا",
    "café naïve résumé , good",
    "never good , not great ?",
    "",
    "   ",
] * 6
LABELS = ["pos", "neg", "pos", "neg", "pos", "neg", "neg", "pos"] * 6
TARGETS = np.linspace(-1.0, 2.0, len(TRAIN))
PAIRS = list(zip(TRAIN, TRAIN[3:] + TRAIN[:3]))
SMALL = dict(embedding_dim=8, hidden_size=6, max_epochs=2, random_state=0, embeddings=None)


def _document(rng, n_tokens: int, sentences: int = 1) -> str:
    """A document of ``n_tokens`` tokens in ``sentences`` lines (0 tokens: blank)."""
    if n_tokens == 0:
        return ["", "  ", "\n"][rng.randint(3)]
    tokens = [WORDS[i] for i in rng.randint(len(WORDS), size=n_tokens)]
    cuts = np.array_split(np.arange(n_tokens), min(sentences, n_tokens))
    return "\n".join(" ".join(tokens[i] for i in cut) for cut in cuts)


def _grid():
    """(batch size, documents) for batch sizes {1, 2, 7, 64} × lengths {blank … 3,000}."""
    rng = np.random.RandomState(0)
    for batch in (1, 2, 7, 64):
        for length in (0, 1, 2, 17, 300, 3000):
            # Lengths vary inside a batch (padding), some documents have many sentences.
            docs = [
                _document(rng, max(0, length - (i % 3) * (length // 3)), sentences=1 + i % 4)
                for i in range(batch)
            ]
            yield batch, docs


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("artifacts")
    han = dict(sentence_split="lines", max_sentences=3, max_sentence_length=40)
    fitted = {
        "self_attentive": SelfAttentiveClassifier(**SMALL, max_length=200).fit(TRAIN, LABELS),
        "han": HierarchicalAttentionClassifier(**SMALL, **han).fit(TRAIN, LABELS),
        "self_attentive_regressor": SelfAttentiveRegressor(**SMALL).fit(TRAIN, TARGETS),
        "han_regressor": HierarchicalAttentionRegressor(**SMALL, sentence_split="lines").fit(
            TRAIN, TARGETS
        ),
        "pair": SelfAttentivePairClassifier(**SMALL, attention_hops=2, gated_dim=4).fit(
            PAIRS, LABELS
        ),
        "pair_regressor": SelfAttentivePairRegressor(
            **SMALL, pair_features="gated", attention_hops=2
        ).fit(PAIRS, TARGETS),
        "embedder": SelfAttentiveEmbedder(
            SelfAttentiveClassifier(**SMALL, subword_buckets=None), output="mean"
        ).fit(TRAIN, LABELS),
    }
    return {
        name: (model, export(model, folder / f"{name}.onnx.zip")) for name, model in fitted.items()
    }


@pytest.mark.parametrize("name", ["self_attentive", "han"])
def test_classifier_probabilities_equal_the_estimators_over_the_grid(artifacts, name):
    model, path = artifacts[name]
    worst = 0.0
    for batch, docs in _grid():
        served = OnnxTextClassifier(path, batch_size=batch)
        expected = model.predict_proba(docs)
        got = served.predict_proba(docs)
        assert got.shape == expected.shape
        worst = max(worst, float(np.abs(got - expected).max()))
        np.testing.assert_array_equal(served.classes_, model.classes_)
    assert worst < 1e-5, worst


@pytest.mark.parametrize("name", ["self_attentive_regressor", "han_regressor"])
def test_regressor_predictions_equal_the_estimators_over_the_grid(artifacts, name):
    model, path = artifacts[name]
    for batch, docs in _grid():
        got = OnnxTextRegressor(path, batch_size=batch).predict(docs)
        expected = model.predict(docs)
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.ptp(TARGETS))


@pytest.mark.parametrize("name", ["pair", "pair_regressor"])
def test_pair_outputs_equal_the_estimators_over_the_grid(artifacts, name):
    model, path = artifacts[name]
    runtime = OnnxTextClassifier if name == "pair" else OnnxTextRegressor
    for batch, docs in _grid():
        pairs = list(zip(docs, docs[::-1]))  # the two texts of a pair differ in length
        served = runtime(path, batch_size=batch)
        if name == "pair":
            got, expected = served.predict_proba(pairs), model.predict_proba(pairs)
            assert np.abs(got - expected).max() < 1e-5
        else:
            np.testing.assert_allclose(served.predict(pairs), model.predict(pairs), atol=1e-5)
    record = OnnxTextClassifier(artifacts["pair"][1]).attention([("good film", "bad plot !")])[0]
    assert record["tokens"] == ["good", "film"] and record["second"]["tokens"] == [
        "bad",
        "plot",
        "!",
    ]
    with pytest.raises(ValueError, match="pair of texts"):
        OnnxTextClassifier(artifacts["pair"][1]).predict([("one", "two", "three")])


def test_embedder_output_equals_transform(artifacts):
    model, path = artifacts["embedder"]
    for batch, docs in _grid():
        got = OnnxTextEmbedder(path, batch_size=batch).transform(docs)
        np.testing.assert_allclose(got, model.transform(docs), rtol=1e-4, atol=1e-5)


def test_attention_is_served_as_the_estimator_explains_it(artifacts):
    model, path = artifacts["self_attentive"]
    docs = ["a good film . truly great acting !", "电影 很 好看 😀", ""]
    served = OnnxTextClassifier(path).attention(docs)
    explained = model.explain(docs, method="attention")
    for record, expected in zip(served, explained):
        assert record["tokens"] == expected["tokens"]
        np.testing.assert_allclose(record["attention"], expected["attention"], atol=1e-5)
    han, han_path = artifacts["han"]
    record = OnnxTextClassifier(han_path).attention(["good film\nbad plot !"])[0]
    assert record["sentences"] == [["good", "film"], ["bad", "plot", "!"]]
    assert record["sentence_attention"].sum() == pytest.approx(1.0, abs=1e-5)
    assert [w.sum() for w in record["word_attention"]] == pytest.approx([1.0, 1.0], abs=1e-5)


TEXTS = [
    "It's GREAT!  Truly.\nSecond line?  Yes",
    "Café naïve résumé — ÜBER straße",
    "这部电影很好看。第二句！第三句？",
    "مرحبا بالعالم؟ نعم",
    "emoji 😀🎬 ❤️ tab\tand\r\nCRLF",
    "",
    "   \n\n ",
    "a " * 50,
]
SETTINGS = [
    {},
    {"lowercase": False},
    {"strip_accents": "unicode"},
    {"strip_accents": "ascii"},
    {"analyzer": "char"},
    {"tokenizer": "whitespace"},
    {"tokenizer": "characters"},
    {"sentence_split": "punctuation", "max_sentences": 2, "max_sentence_length": 3},
    {"sentence_split": "lines", "max_length": 7},
    {"token_pattern": r"(?u)\b\w\w+\b"},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=[str(s) for s in SETTINGS])
def test_the_plain_python_tokenizer_is_the_training_tokenizer(settings):
    encoder = TextEncoder(**settings, subword_buckets=1000).fit(TEXTS[:3])
    config = {
        **{
            k: getattr(encoder, k)
            for k in (
                "lowercase",
                "token_pattern",
                "tokenizer",
                "strip_accents",
                "analyzer",
                "sentence_split",
                "max_length",
                "max_sentences",
                "max_sentence_length",
                "subword_buckets",
            )
        },
        "id_to_token": encoder.id_to_token_,
        "empty_id": encoder.empty_id_,
        "ngram_range": [3, 5],
        "max_ngrams": 32,
    }
    pipeline = TextPipeline(config)
    expected = encoder.tokenize(TEXTS)
    assert [pipeline.tokenize(text) for text in TEXTS] == expected
    corpus = encoder.encode(TEXTS)
    got_ids = [i for text in TEXTS for s in pipeline.ids(pipeline.tokenize(text)) for i in s]
    assert got_ids == corpus.token_ids.tolist()
    for token in {t for doc in expected for s in doc for t in s} - {"<empty>"}:
        assert pipeline.ngram_ids(token) == ngram_ids(token, 1000)


def test_a_tokenizer_written_in_python_is_refused_by_name(tmp_path):
    model = SelfAttentiveClassifier(**SMALL, tokenizer=str.split).fit(TRAIN, LABELS)
    with pytest.raises(ValueError, match="tokenizer=.*Python code"):
        export(model, tmp_path / "model.onnx.zip")


def test_corrupted_and_truncated_artifacts_give_clear_errors(artifacts, tmp_path):
    _, path = artifacts["self_attentive"]
    data = path.read_bytes()
    truncated = tmp_path / "truncated.onnx.zip"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ArtifactError, match="not a readable skattn artefact"):
        OnnxTextClassifier(truncated)
    # Same zip layout, the network's bytes altered: caught by the checksum.
    altered = tmp_path / "altered.onnx.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(altered, "w") as target:
        target.writestr("config.json", source.read("config.json"))
        onnx_bytes = bytearray(source.read("model.onnx"))
        onnx_bytes[len(onnx_bytes) // 2] ^= 0xFF
        target.writestr("model.onnx", bytes(onnx_bytes))
    with pytest.raises(ArtifactError, match="checksum"):
        OnnxTextClassifier(altered)
    not_zip = tmp_path / "model.onnx.zip"
    not_zip.write_text("hello")
    with pytest.raises(ArtifactError):
        OnnxTextClassifier(not_zip)
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert config["format"] == "skattn-onnx" and config["task"] == "classifier"
    with pytest.raises(ArtifactError, match="serves a regressor"):
        OnnxTextRegressor(path)


def test_bad_documents_give_clear_errors(artifacts):
    _, path = artifacts["self_attentive"]
    served = OnnxTextClassifier(path)
    with pytest.raises(TypeError, match="single string"):
        served.predict("a film")
    with pytest.raises(TypeError, match=r"X\[1\] is NoneType"):
        served.predict(["a film", None])
    with pytest.raises(ValueError, match="not UTF-8"):
        served.predict([b"\xff\xfe"])
    assert served.predict([b"good"]).shape == (1,)


def test_serving_imports_neither_torch_skorch_sklearn_nor_scipy(artifacts):
    _, path = artifacts["self_attentive"]
    script = textwrap.dedent(
        f"""
        import sys
        BLOCKED = ("torch", "skorch", "sklearn", "scipy")

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ImportError("blocked: " + name)

        sys.meta_path.insert(0, Block())
        from skattn.serving import OnnxTextClassifier
        import skattn.serving._app  # the HTTP service too
        served = OnnxTextClassifier({str(path)!r})
        print(served.predict(["a good film", ""]).tolist())
        print(sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    predictions, loaded = result.stdout.strip().splitlines()
    assert len(eval(predictions)) == 2
    assert loaded == "[]"


def test_the_command_line_exports_a_saved_model(tmp_path):
    import skattn
    from skattn.__main__ import main

    model = SelfAttentiveClassifier(**SMALL).fit(TRAIN, LABELS)
    saved = skattn.save(model, tmp_path / "model.skattn")
    assert main(["export", str(saved), str(tmp_path / "model.onnx.zip")]) == 0
    served = OnnxTextClassifier(tmp_path / "model.onnx.zip")
    np.testing.assert_allclose(served.predict_proba(TRAIN), model.predict_proba(TRAIN), atol=1e-5)
    assert main(["export", str(tmp_path / "missing.skattn"), str(tmp_path / "x.zip")]) == 1
