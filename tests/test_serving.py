"""Serving: the exported artefact answers as the estimator does, without the training stack."""

import json
import shutil
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from _common import (
    declare_size,
    flip_compressed_byte,
    flip_member_byte,
    members,
    write_members,
    write_signed,
)

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
pd = pytest.importorskip("pandas")

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
from skattn.serving._text import NGRAM_CACHE_SIZE, TextPipeline  # noqa: E402
from skattn.text._subwords import ngram_ids  # noqa: E402

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
DATA = Path(__file__).parent / "data"


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


def _thresholded() -> SelfAttentiveClassifier:
    """A binary classifier deciding at the median probability of ``classes_[1]`` (not 0.5).

    A fixed threshold needs no validation split, so the network is the
    one fitted without it; only the decision differs.
    """
    proba = SelfAttentiveClassifier(**SMALL).fit(TRAIN, LABELS).predict_proba(TRAIN)[:, 1]
    threshold = float(np.median(proba))
    return SelfAttentiveClassifier(**SMALL, threshold=threshold).fit(TRAIN, LABELS)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("artifacts")
    han = dict(sentence_split="lines", max_sentences=3, max_sentence_length=40)
    pairs = pd.DataFrame(PAIRS, columns=["premise", "hypothesis"])
    fitted = {
        "self_attentive": SelfAttentiveClassifier(**SMALL, max_length=200).fit(TRAIN, LABELS),
        "thresholded": _thresholded(),
        "han": HierarchicalAttentionClassifier(**SMALL, **han).fit(TRAIN, LABELS),
        "self_attentive_regressor": SelfAttentiveRegressor(**SMALL).fit(TRAIN, TARGETS),
        "han_regressor": HierarchicalAttentionRegressor(**SMALL, sentence_split="lines").fit(
            TRAIN, TARGETS
        ),
        # Fitted on a DataFrame: it reads one by its column names.
        "pair": SelfAttentivePairClassifier(**SMALL, attention_hops=2, gated_dim=4).fit(
            pairs, LABELS
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
    generator = (pair for pair in PAIRS[:3])  # the runtime reads an iterator of pairs too
    np.testing.assert_array_equal(
        OnnxTextClassifier(artifacts["pair"][1]).predict(generator),
        artifacts["pair"][0].predict(PAIRS[:3]),
    )


def _worst_probability_gap(model, path, batches=(1, 7)) -> float:
    """The largest |served − estimator| probability over the grid's batches of these sizes."""
    worst = 0.0
    for batch, docs in _grid():
        if batch in batches:
            served = OnnxTextClassifier(path, batch_size=batch).predict_proba(docs)
            worst = max(worst, float(np.abs(served - model.predict_proba(docs)).max()))
    return worst


@pytest.mark.parametrize("name", ["self_attentive", "han", "pair"])
def test_a_second_export_in_one_process_answers_as_the_first(artifacts, name, tmp_path):
    # torch 2.13's torch.export-based exporter wrote a graph that failed at batch 1
    # when one network was exported twice in a process; exports now run in process.
    import torch

    model, first = artifacts[name]
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        second = export(model, tmp_path / "again.onnx.zip")
        assert torch.get_num_threads() == 2  # exporting leaves the caller's threads alone
    finally:
        torch.set_num_threads(threads)
    documents = [PAIRS[1]] if name == "pair" else [TRAIN[1]]
    for path in (first, second):
        served = OnnxTextClassifier(path, batch_size=1).predict_proba(documents)
        np.testing.assert_allclose(served, model.predict_proba(documents), atol=1e-5)
    if name != "pair":
        assert _worst_probability_gap(model, second) < 1e-5


def test_exports_from_two_threads_at_once_both_answer_as_their_estimators(artifacts, tmp_path):
    # The in-process exporter keeps process-wide flags: exports take turns.
    import threading
    import warnings

    names, start, paths, errors = ["self_attentive", "han"], threading.Barrier(2), {}, []
    filters = list(warnings.filters)

    def run(name):
        start.wait()
        try:
            paths[name] = export(artifacts[name][0], tmp_path / f"{name}.onnx.zip")
        except Exception as error:  # reported below, with its name
            errors.append((name, error))

    threads = [threading.Thread(target=run, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert warnings.filters == filters  # no thread's "ignore" left behind
    for name in names:
        assert _worst_probability_gap(artifacts[name][0], paths[name], batches=(1,)) < 1e-5


@pytest.mark.parametrize("name", ["self_attentive", "han"])
def test_without_the_torchscript_exporter_a_fresh_process_exports_the_same_answers(
    artifacts, name, tmp_path, monkeypatch
):
    # The fallback for torch releases that no longer ship the TorchScript-based exporter.
    import skattn.serving._export as exporting

    monkeypatch.setattr(exporting, "_has_torchscript_exporter", lambda: False)
    ran = []
    run = subprocess.run
    monkeypatch.setattr(exporting.subprocess, "run", lambda *a, **k: ran.append(a) or run(*a, **k))
    model, _ = artifacts[name]
    path = export(model, tmp_path / "fallback.onnx.zip")
    assert len(ran) == 1 and ran[0][0][1].endswith("_export_worker.py")
    assert _worst_probability_gap(model, path) < 1e-5


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


def test_a_wrong_file_or_task_gives_clear_errors(artifacts, tmp_path):
    _, path = artifacts["self_attentive"]
    not_zip = tmp_path / "model.onnx.zip"
    not_zip.write_text("hello")
    with pytest.raises(ArtifactError, match="not a readable zip archive"):
        OnnxTextClassifier(not_zip)
    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert config["format"] == "skattn-onnx" and config["task"] == "classifier"
    assert config["format_version"] == 2 and config["decision"]["kind"] == "argmax"
    with pytest.raises(ArtifactError, match="serves a regressor"):
        OnnxTextRegressor(path)


@pytest.mark.parametrize("name", ["thresholded", "self_attentive", "han", "pair"])
def test_the_runtime_decides_as_the_estimator(artifacts, name):
    model, path = artifacts[name]
    documents = [doc for _, docs in _grid() for doc in docs][:200]
    if name == "pair":
        documents = list(zip(documents, documents[::-1]))
    served = OnnxTextClassifier(path)
    assert served.decision_rule_ == model.decision_rule_
    np.testing.assert_array_equal(served.predict(documents), model.predict(documents))
    if name == "thresholded":  # the threshold matters: argmax would answer otherwise
        proba = model.predict_proba(documents)
        argmax = model.classes_[proba.argmax(axis=1)]
        assert (argmax != model.predict(documents)).any()
        assert 0.0 < model.thresholds_[0] < 1.0 and model.thresholds_[0] != 0.5


def test_a_version_1_artefact_still_loads_and_answers_the_same():
    """Written by the code before manifests (tests/data/write_old_format_fixtures.py)."""
    expected = json.loads((DATA / "artifact_v1_expected.json").read_text(encoding="utf-8"))
    served = OnnxTextClassifier(DATA / "artifact_v1.onnx.zip")
    proba = served.predict_proba(expected["documents"])
    np.testing.assert_allclose(proba, expected["proba"], rtol=1e-4, atol=1e-6)
    assert served.predict(expected["documents"]).tolist() == expected["predictions"]
    assert expected["predictions"] != expected["argmax_predictions"]
    assert served.decision_rule_.kind == "threshold"


#: tampering -> the member the error must name (None: the file as a whole).
TAMPERING = {
    "config_edited": "config.json",
    "onnx_byte_flipped": "model.onnx",
    "compressed_byte_flipped": "model.onnx",
    "member_missing": "model.onnx",
    "extra_member": "notes.txt",
    "manifest_missing": "manifest.json",
    "truncated": None,
}


@pytest.mark.parametrize("tampering", TAMPERING)
def test_a_tampered_artefact_is_refused_naming_the_file_and_member(artifacts, tampering, tmp_path):
    path = shutil.copy(artifacts["self_attentive"][1], tmp_path / "model.onnx.zip")
    contents = members(path)
    if tampering == "config_edited":  # labels swapped
        config = json.loads(contents["config.json"])
        config["decision"]["classes"]["values"].reverse()
        contents["config.json"] = json.dumps(config).encode()
    elif tampering == "onnx_byte_flipped":
        flip_member_byte(contents, "model.onnx")
    elif tampering == "member_missing":
        del contents["model.onnx"]
    elif tampering == "extra_member":
        contents["notes.txt"] = b"hello"
    elif tampering == "manifest_missing":
        del contents["manifest.json"]
    if tampering == "compressed_byte_flipped":
        flip_compressed_byte(path, "model.onnx")
    elif tampering == "truncated":
        path.write_bytes(path.read_bytes()[:-100])
    else:
        write_members(path, contents)
    with pytest.raises(ArtifactError) as refused:
        OnnxTextClassifier(path)
    assert refused.value.path == path and refused.value.member == TAMPERING[tampering]
    assert str(path) in str(refused.value)


def _with(key, value):
    def edit(config):
        config["text"][key] = value

    return edit


def _add_token(config):
    config["text"]["id_to_token"].append("an-added-word")


def _three_classes(config):
    config["decision"]["classes"]["values"].append("zzz")


#: An edit with fresh digests -> (the member named, what the message says).
SIGNED_EDITS = {
    "labels_swapped": (
        lambda c: c["decision"]["classes"]["values"].reverse(),
        "config.json",
        "not sorted and distinct",
    ),
    "tokenizer_unknown": (_with("tokenizer", "spaces"), "config.json", "tokenizer is 'spaces'"),
    "setting_unknown": (_with("normalise", True), "config.json", "unknown settings"),
    "max_length_negative": (_with("max_length", -3), "config.json", "max_length is -3"),
    "vocabulary_larger_than_the_network": (_add_token, "model.onnx", "does not run on"),
    "three_classes_for_two_logits": (_three_classes, "config.json", "reads 3 scores"),
    "outputs_renamed": (
        lambda c: c.update(outputs=["logits", "attention", "embedding"]),
        "config.json",
        "outputs",
    ),
    "field_missing": (lambda c: c.pop("decision"), "config.json", "missing fields"),
}


@pytest.mark.parametrize("edit", SIGNED_EDITS)
def test_a_config_edit_that_passes_the_digests_fails_validation(artifacts, edit, tmp_path):
    change, member, reason = SIGNED_EDITS[edit]
    path = tmp_path / "model.onnx.zip"
    contents = members(artifacts["self_attentive"][1])
    config = json.loads(contents["config.json"])
    change(config)
    contents["config.json"] = json.dumps(config).encode()
    write_signed(path, contents)
    with pytest.raises(ArtifactError, match=reason) as refused:
        OnnxTextClassifier(path)
    assert refused.value.member == member


def test_a_zip_bomb_is_refused_before_decompression(artifacts, tmp_path):
    path = artifacts["self_attentive"][1]
    declared = shutil.copy(path, tmp_path / "declared.onnx.zip")
    declare_size(declared, "model.onnx", 2**32 - 1)
    with pytest.raises(ArtifactError, match="model.onnx: the archive declares 4294967295"):
        OnnxTextClassifier(declared)
    contents = members(path)
    contents["model.onnx"] = bytes(64 * 2**20)  # 64 MiB that compress to 64 KiB
    bomb = tmp_path / "bomb.onnx.zip"
    write_signed(bomb, contents)
    assert bomb.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ArtifactError, match="over the limit of 16777216"):
            OnnxTextClassifier(bomb, max_bytes=16 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak  # nothing of the 64 MiB was decompressed


def test_bad_documents_give_clear_errors(artifacts):
    _, path = artifacts["self_attentive"]
    served = OnnxTextClassifier(path)
    with pytest.raises(TypeError, match="single str"):
        served.predict("a film")
    with pytest.raises(TypeError, match=r"X\[1\] is None/NaN, not str"):
        served.predict(["a film", None])
    with pytest.raises(ValueError, match="X is empty; at least one document is needed"):
        served.predict([])


@pytest.mark.parametrize(
    "documents",
    [
        [b"good"],
        [b"\xff\xfe"],
        ["a film", float("nan")],
        ["a film", 3],
        [bytearray(b"good")],
        np.array([1.5, 2.5]),
        np.array([1, 2]),
    ],
    ids=["utf8-bytes", "other-bytes", "nan", "number", "bytearray", "numpy-floats", "numpy-ints"],
)
def test_the_runtime_refuses_what_predict_refuses_in_the_same_words(artifacts, documents):
    model, path = artifacts["self_attentive"]
    served = OnnxTextClassifier(path)
    with pytest.raises(TypeError) as by_the_estimator:
        model.predict(documents)
    with pytest.raises(TypeError) as by_the_runtime:
        served.predict(documents)
    assert str(by_the_runtime.value) == str(by_the_estimator.value)
    kind = "bytes" if isinstance(documents[-1], (bytes, bytearray)) else "not str"
    pair_model, pair_path = artifacts["pair"]
    pairs = [("a film", "a plot"), ("a film", documents[-1])]
    with pytest.raises(TypeError, match=rf"X\[1\]\[1\] is .*{kind}") as by_the_estimator:
        pair_model.predict(pairs)
    with pytest.raises(TypeError) as by_the_runtime:
        OnnxTextClassifier(pair_path).predict(pairs)
    assert str(by_the_runtime.value) == str(by_the_estimator.value)


@pytest.mark.parametrize(
    "pairs, words",
    [
        ([("one", "two", "three")], r"X\[0\] holds 3 texts, not 2"),
        (["one two"], r"X\[0\] is a str, not a pair"),
        ([("a", "b"), {"premise": "a", "hypothesis": "b"}], r"X\[1\] is a dict, not a pair"),
        ([("a", "b"), ("c", None)], r"X\[1\]\[1\] is None/NaN, not str; each text of a pair"),
        ([pd.Series(["a", "b"], index=[1, 0])], r"X\[0\] is a Series, not a pair"),
        (pd.DataFrame([["a", "b"]], columns=["x", "x"]), "a column name appears twice"),
        (np.array([["a", "b", "c"]]), r"X has shape \(1, 3\)"),
        ("one two", "X is a str"),
        ([], "X is empty; at least one pair is needed"),
    ],
    ids=[
        "three-texts",
        "a-str",
        "a-dict",
        "none",
        "series-row",
        "repeated-column",
        "three-columns",
        "one-str",
        "empty",
    ],
)
def test_the_runtime_refuses_bad_pairs_as_predict_does(artifacts, pairs, words):
    pair_model, pair_path = artifacts["pair"]
    with pytest.raises((TypeError, ValueError), match=words) as by_the_estimator:
        pair_model.predict(pairs)
    with pytest.raises(by_the_estimator.type) as by_the_runtime:
        OnnxTextClassifier(pair_path).predict(pairs)
    assert str(by_the_runtime.value) == str(by_the_estimator.value)


def test_containers_that_are_not_documents_are_refused(artifacts):
    model, path = artifacts["self_attentive"]
    served = OnnxTextClassifier(path)
    texts = ["a good film", "a bad plot", ""]
    for X, words in [
        ({"text": "a good film"}, "reads its keys"),
        ({"a good film", "a bad plot"}, "order is not fixed"),
        (pd.DataFrame({"text": texts, "id": ["1", "2", "3"]}), "2 columns"),
        ("a good film", "its characters"),
    ]:
        with pytest.raises(TypeError, match=words):
            served.predict(X)
    expected = model.predict(texts)
    np.testing.assert_array_equal(served.predict(pd.Series(texts)), expected)
    np.testing.assert_array_equal(served.predict(pd.DataFrame({"text": texts})), expected)


def test_a_pair_model_reads_a_data_frame_by_its_column_names(artifacts):
    model, path = artifacts["pair"]
    served = OnnxTextClassifier(path)
    assert served.feature_names_in_ == ["premise", "hypothesis"] == model.feature_names_in_.tolist()
    frame = pd.DataFrame(PAIRS[:12], columns=["premise", "hypothesis"])
    expected = model.predict(PAIRS[:12])
    swapped = frame[["hypothesis", "premise"]]  # the same pairs, columns in another order
    for runtime in (model, served):
        np.testing.assert_array_equal(runtime.predict(swapped), expected)
        with pytest.raises(ValueError, match=r"missing: \['premise'\]"):
            runtime.predict(frame.rename(columns={"premise": "first"}))
        with pytest.raises(TypeError, match="is a dict"):
            runtime.predict({"premise": "a cat", "hypothesis": "a dog"})
    with pytest.raises(TypeError, match=r"X\[0\] is a dict, not a pair"):
        served.predict([{"premise": "a cat", "hypothesis": "a dog"}])


def _words_config(**changes) -> dict:
    """The text section of an artefact with subwords and an empty vocabulary."""
    return {
        "lowercase": True,
        "token_pattern": r"(?u)\w+",
        "tokenizer": None,
        "strip_accents": None,
        "analyzer": "word",
        "sentence_split": None,
        "max_length": None,
        "max_sentences": None,
        "max_sentence_length": None,
        "subword_buckets": 1000,
        "ngram_range": [3, 5],
        "max_ngrams": 32,
        "id_to_token": ["<pad>", "<unk>", "<empty>"],
        "empty_id": 1,
        **changes,
    }


def test_the_ngram_cache_never_exceeds_its_limit():
    config = _words_config()
    small = TextPipeline(config, ngram_cache_size=50)
    sizes = []
    for i in range(500):
        assert small.ngram_ids(f"word{i}") == ngram_ids(f"word{i}", 1000)
        sizes.append(len(small._ngram_cache))
    assert max(sizes) == 50 and sizes[49] == 50
    assert small.ngram_ids("word499") == ngram_ids("word499", 1000)  # a hit, still right
    pipeline = TextPipeline(config)  # the default limit
    for i in range(NGRAM_CACHE_SIZE + 1000):
        pipeline.ngram_ids(f"t{i}")
    assert len(pipeline._ngram_cache) == NGRAM_CACHE_SIZE


def test_served_ngrams_follow_the_artefacts_lengths_and_limit():
    """An artefact's own n-gram lengths and limit, hashed as CRC-32 of UTF-8 bytes."""
    import zlib

    config = _words_config(subword_buckets=97, ngram_range=[2, 3], max_ngrams=4)
    # "<été>" cut into 2-grams, then 3-grams; the first four kept.
    grams = ["<é", "ét", "té", "é>"]
    expected = [1 + zlib.crc32(g.encode("utf-8")) % 97 for g in grams]
    pipeline = TextPipeline(config, ngram_cache_size=0)
    assert pipeline.ngram_ids("été") == expected
    assert pipeline.ngram_ids("<unk>") == []


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
