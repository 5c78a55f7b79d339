"""A multi-label y with named columns: the names travel with the model to every surface.

``predict`` keeps scikit-learn's answer (the indicator matrix, ``classes_``
the column indices); what lists labels (explanations, the artefact, the
command line, the web service, dask partitions) lists them by name.
"""

import csv
import json

import numpy as np
import pytest

from skattn import load, save
from skattn.decisions import DecisionRule, InvalidDecisionRule
from skattn.persistence import ModelFileError
from skattn.utils.estimator_checks import multilabel_targets

from _common import members, write_csv, write_signed
from estimators import small_self_attentive

pd = pytest.importorskip("pandas")

NAMES = ["positive", "negative", "long"]


@pytest.fixture(scope="module")
def named(toy):
    """The toy corpus with three labels per document, as a DataFrame with named columns."""
    X, y = toy
    return X, pd.DataFrame(multilabel_targets(X, y), columns=NAMES)


@pytest.fixture(scope="module")
def fitted(named):
    X, Y = named
    return small_self_attentive(max_epochs=3).fit(X, Y)


def _names_of(rows) -> list[list[str]]:
    """Each indicator row's labels by name, written out here rather than by the rule."""
    return [[NAMES[j] for j in np.flatnonzero(row)] for row in np.asarray(rows)]


def test_named_columns_change_no_prediction_and_name_the_labels(named, fitted):
    X, Y = named
    same = small_self_attentive(max_epochs=3).fit(X, Y.to_numpy())
    np.testing.assert_allclose(fitted.predict_proba(X), same.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(fitted.predict(X), same.predict(X))
    assert fitted.classes_.tolist() == [0, 1, 2]  # scikit-learn's convention stays
    assert fitted.label_names_.tolist() == NAMES
    assert not hasattr(same, "label_names_")
    rule = fitted.decision_rule_
    assert rule.labels(fitted.predict(X)) == _names_of(fitted.predict(X))
    assert rule.column_labels == NAMES
    assert any(rule.labels(fitted.predict(X)))  # some labels to compare, not only []


def test_explanations_name_the_labels_and_take_a_name(named, fitted):
    X, Y = named
    records = fitted.explain(X[:3], Y[:3], method="occlusion")
    assert records[0]["true_label"] == _names_of(Y.to_numpy()[:1])[0]
    assert all(r["prediction"] == _names_of([p])[0] for r, p in zip(records, fitted.predict(X[:3])))
    assert all(r["explained_label"] in NAMES for r in records)
    by_name = fitted.explain(X[:2], label="long", method="occlusion")
    by_index = fitted.explain(X[:2], label=2, method="occlusion")
    assert [r["explained_label"] for r in by_name] == ["long", "long"]
    np.testing.assert_allclose(by_name[0]["scores"], by_index[0]["scores"], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="'short' is not one of the model's labels"):
        fitted.explain(X[:1], label="short")


def test_the_names_are_saved_and_a_refit_on_an_array_drops_them(named, fitted, tmp_path):
    X, Y = named
    loaded = load(save(fitted, tmp_path / "m.skattn"))
    assert loaded.label_names_.tolist() == NAMES
    assert loaded.decision_rule_ == fitted.decision_rule_
    model = small_self_attentive(max_epochs=1).fit(X, Y)
    model.fit(X, Y.to_numpy())
    assert not hasattr(model, "label_names_")
    # Columns that are not all strings are not names (scikit-learn's rule).
    model.fit(X, pd.DataFrame(Y.to_numpy()))
    assert not hasattr(model, "label_names_")


@pytest.mark.parametrize(
    ("names", "words"),
    [(["positive", "positive", "long"], "must be distinct"), ("positive", "expected a list")],
)
def test_a_file_whose_names_were_altered_is_refused_at_load(fitted, tmp_path, names, words):
    path = save(fitted, tmp_path / "m.skattn")
    contents = members(path)
    metadata = json.loads(contents["metadata.json"])
    metadata["state"]["attributes"]["label_names"] = names
    contents["metadata.json"] = json.dumps(metadata).encode()
    write_signed(path, contents)
    with pytest.raises(ModelFileError, match=words):
        load(path)


@pytest.mark.parametrize(
    ("columns", "words"),
    [(["a", "a", "b"], r"repeated: \['a'\]"), (["a", "", "b"], "one is empty")],
)
def test_names_that_repeat_or_are_empty_are_refused_before_training(named, columns, words):
    X, Y = named
    model = small_self_attentive(max_epochs=1)
    with pytest.raises(ValueError, match=words):
        model.fit(X, pd.DataFrame(Y.to_numpy(), columns=columns))
    assert not hasattr(model, "net_")


def test_a_warm_start_keeps_the_names_and_refuses_others(named):
    X, Y = named
    model = small_self_attentive(max_epochs=1, warm_start=True).fit(X, Y)
    model.fit(X, Y.to_numpy())
    assert model.label_names_.tolist() == NAMES
    swapped = Y[["negative", "positive", "long"]]
    with pytest.raises(ValueError, match="warm_start: y's columns"):
        model.fit(X, swapped)


def test_a_named_rule_round_trips_and_refuses_names_that_do_not_fit():
    rule = DecisionRule.multilabel(2, [0.3, 0.6], label_names=["joy", "anger"])
    assert DecisionRule.from_config(rule.to_config()) == rule
    assert rule.labels(rule.decide(np.array([[0.4, 0.7], [0.2, 0.5]]))) == [["joy", "anger"], []]
    config = rule.to_config()
    for names, words in [
        (["joy"], "1 label names for 2 labels"),
        (["joy", "joy"], "must be distinct"),
        (["joy", 3], "must be distinct, non-empty strings"),
        ("joy", "expected a list"),
    ]:
        with pytest.raises(InvalidDecisionRule, match=words):
            DecisionRule.from_config({**config, "label_names": names})
    argmax = {"kind": "argmax", "classes": {"values": [0, 1], "dtype": "<i8"}}
    with pytest.raises(InvalidDecisionRule, match="unknown fields"):
        DecisionRule.from_config({**argmax, "label_names": ["a", "b"]})


def test_the_artefact_and_the_service_answer_the_names(named, fitted, tmp_path):
    pytest.importorskip("onnxruntime")
    from skattn.serving import OnnxTextClassifier, create_app, export

    X, _ = named
    path = export(fitted, tmp_path / "m.onnx.zip")
    runtime = OnnxTextClassifier(path)
    assert runtime.label_names_.tolist() == NAMES
    np.testing.assert_array_equal(runtime.predict(X), fitted.predict(X))
    testclient = pytest.importorskip("fastapi.testclient")
    client = testclient.TestClient(create_app(path))
    answer = client.post("/predict", json={"texts": X[:6]})
    assert answer.status_code == 200
    assert answer.json()["predictions"] == _names_of(fitted.predict(X[:6]))
    proba = client.post("/predict_proba", json={"texts": X[:1]}).json()
    assert proba["classes"] == NAMES
    assert client.get("/model").json()["classes"] == NAMES


def test_dask_partitions_name_the_columns(named, fitted):
    dd = pytest.importorskip("dask.dataframe")
    from skattn.serving import predict_partitions

    X, _ = named
    texts = dd.from_pandas(pd.Series(X[:8]), npartitions=2)
    labels = predict_partitions(fitted, texts, "predict").compute()
    assert labels.columns.tolist() == [f"predict_{name}" for name in NAMES]
    np.testing.assert_array_equal(labels.to_numpy(), fitted.predict(X[:8]))
    proba = predict_partitions(fitted, texts, "predict_proba").compute()
    assert proba.columns.tolist() == [f"proba_{name}" for name in NAMES]


def test_fit_on_a_file_of_label_lists_answers_the_names(named, tmp_path, capsys):
    from skattn.__main__ import main

    X, Y = named
    data = tmp_path / "tags.jsonl"
    with open(data, "w", encoding="utf-8") as handle:
        for text, row in zip(X, _names_of(Y.to_numpy())):
            handle.write(json.dumps({"text": text, "label": row}) + "\n")
    output = tmp_path / "tags.skattn"
    settings = ["max_epochs=3", "embedding_dim=16", "hidden_size=8", "embeddings=None"]
    argv = [str(output), "--dataset", str(data), "--progress", "never"]
    assert main(["fit", *argv, *[p for s in settings for p in ("--set", s)]]) == 0
    assert "task multilabel" in capsys.readouterr().out
    model = load(output)
    assert model.label_names_.tolist() == sorted(NAMES)  # a file's labels, sorted
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(output), "--file", str(data), "--output", str(predictions)]) == 0
    with open(predictions, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    expected = [[model.label_names_[j] for j in np.flatnonzero(r)] for r in model.predict(list(X))]
    assert [json.loads(row["label"]) for row in rows] == expected
    assert any(expected)
    assert [c for c in rows[0] if c.startswith("proba_")] == [f"proba_{n}" for n in sorted(NAMES)]
    # A null, a boolean or a list among a document's labels names no label.
    for bad in ("null", "true", '["x"]'):
        wrong = tmp_path / "wrong.jsonl"
        wrong.write_text(f'{{"text": "a", "label": ["x"]}}\n{{"text": "b", "label": [{bad}]}}\n')
        assert main(["fit", str(tmp_path / "w.skattn"), "--dataset", str(wrong)]) == 1
        assert f"row 2 holds {bad} among its labels" in capsys.readouterr().err
    assert (
        main(["fit", str(tmp_path / "r.skattn"), "--dataset", str(data), "--task", "regression"])
        == 1
    )
    assert "holds lists of labels (multi-label); --task regression" in capsys.readouterr().err


def test_fit_task_multilabel_keeps_an_empty_cell_as_a_document_without_labels(
    named, tmp_path, capsys
):
    from skattn.__main__ import main

    X, Y = named
    cells = [";".join(row) for row in _names_of(Y.to_numpy())]
    cells[:5] = [""] * 5  # five documents without labels
    data = write_csv(tmp_path / "tags.csv", X, cells)
    n_empty = sum(cell == "" for cell in cells)
    argv = ["fit", str(tmp_path / "m.skattn"), "--dataset", str(data), "--task", "multilabel"]
    settings = ["max_epochs=1", "embedding_dim=8", "hidden_size=4", "embeddings=None"]
    argv += ["--label-separator", ";", "--progress", "never"]
    assert main([*argv, *[p for s in settings for p in ("--set", s)]]) == 0
    said = capsys.readouterr().out
    assert f"{n_empty} empty cell(s) read as documents without labels" in said
    assert f"on {len(X)} documents" in said
    assert load(tmp_path / "m.skattn").label_names_.tolist() == sorted(NAMES)


def test_a_task_pickled_by_a_development_build_answers_indices(named):
    # Development builds of 0.4 kept any columns' text (RangeIndex: "0", "1"...)
    # for warnings only; unpickled now, those texts must not become names.
    import pickle

    X, Y = named
    model = small_self_attentive(max_epochs=1).fit(X, Y.to_numpy())
    task = model.task_
    del task.names
    task.label_names = ["0", "1", "2"]
    restored = pickle.loads(pickle.dumps(model))
    assert restored.task_.names is None
    assert restored.decision_rule_.labels(np.eye(3, dtype=int)) == [[0], [1], [2]]


def test_tuned_thresholds_of_any_estimator_keep_the_names(named):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline

    from skattn.model_selection import TunedThresholdMultiLabelClassifier

    X, Y = named
    linear = make_pipeline(TfidfVectorizer(), OneVsRestClassifier(LogisticRegression()))
    tuned = TunedThresholdMultiLabelClassifier(linear, random_state=0).fit(X, Y)
    assert tuned.label_names_.tolist() == NAMES
    rows = tuned.predict(X)
    assert tuned.decision_rule_.labels(rows) == _names_of(rows)
    assert any(_names_of(rows))
    tuned.fit(X, Y.to_numpy())
    assert not hasattr(tuned, "label_names_")
    assert tuned.decision_rule_.labels(tuned.predict(X[:1])) == [
        np.flatnonzero(tuned.predict(X[:1])[0]).tolist()
    ]


def test_label_attention_rows_are_named_by_their_label(named, fitted):
    X, _ = named
    assert fitted.choices_["label_attention"]["value"]  # the multi-label default
    record = fitted.explain(X[:1], method="attention")[0]
    hops = fitted.label_hops
    assert record["hop_names"] == [f"{n} {k + 1}" for n in NAMES for k in range(hops)]
    assert len(record["hop_names"]) == len(record["attention"])
    html = fitted.explain(X[:1], method="attention").to_html()
    assert "<th>negative 2</th>" in html and "<th>hop 0</th>" not in html
    # Without label attention the rows are hops, named by their number.
    shared = small_self_attentive(max_epochs=1, label_attention=False).fit(X, named[1])
    assert "hop_names" not in shared.explain(X[:1], method="attention")[0]


def test_the_rows_named_are_the_fitted_rows_whatever_label_hops_says_now(named):
    X, Y = named
    model = small_self_attentive(max_epochs=1, label_hops=2).fit(X, Y)
    model.set_params(label_hops=1)  # a parameter changed after fit: the network keeps two
    record = model.explain(X[:1], method="attention")[0]
    assert len(record["attention"]) == 6
    assert record["hop_names"] == [f"{n} {k}" for n in NAMES for k in (1, 2)]


def test_a_pickle_whose_task_kept_label_names_answers_them(named, fitted):
    # Builds between the names' first commit and the task's "names" kept them
    # in the task's "label_names" and in the estimator's label_names_.
    import pickle

    X, Y = named
    model = pickle.loads(pickle.dumps(fitted))
    model.task_.__dict__.pop("names")
    restored = pickle.loads(pickle.dumps(model))
    assert restored.task_.names == NAMES
    rows = restored.predict(X)
    assert restored.decision_rule_.labels(rows) == _names_of(rows)
    with pytest.raises(ValueError, match="in that order"):
        restored.score(X, Y[["long", "negative", "positive"]])


def test_tuned_thresholds_refuse_a_reordered_y_at_score(named):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline

    from skattn.model_selection import TunedThresholdMultiLabelClassifier

    X, Y = named
    linear = make_pipeline(TfidfVectorizer(), OneVsRestClassifier(LogisticRegression()))
    tuned = TunedThresholdMultiLabelClassifier(linear, random_state=0).fit(X, Y)
    assert tuned.score(X, Y) == tuned.score(X, Y.to_numpy())
    with pytest.raises(ValueError, match="in that order"):
        tuned.score(X, Y[["long", "negative", "positive"]])


def test_a_label_list_holding_bytes_is_refused_naming_its_row():
    from skattn.compare._io import _multilabel_corpus

    with pytest.raises(ValueError, match=r"row 2 holds b'y' among its labels"):
        _multilabel_corpus("tags.parquet", ["a", "b"], [["x"], [b"y"]], [["x"], [b"y"]])
