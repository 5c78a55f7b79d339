"""The predict and explain commands read every file format the comparison reads."""

import csv
import json

import numpy as np
import pytest

from skattn import load, save
from skattn.__main__ import main

from estimators import small_self_attentive


@pytest.fixture(scope="module")
def saved_model(toy, tmp_path_factory):
    X, y = toy
    return save(
        small_self_attentive(max_epochs=1).fit(X, y), tmp_path_factory.mktemp("m") / "m.skattn"
    )


@pytest.mark.parametrize("suffix", [".ndjson", ".jsonl"])
def test_predict_reads_json_lines_files(suffix, saved_model, toy, tmp_path):
    X, _ = toy
    documents = [X[0], "", X[1]]
    path = tmp_path / f"docs{suffix}"
    lines = [json.dumps({"id": i, "body": text}) for i, text in enumerate(documents)]
    # Blank lines between records are skipped.
    path.write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    output = tmp_path / "predictions.csv"
    argv = ["predict", str(saved_model), "--file", str(path), "--text-column", "body"]
    assert main([*argv, "--output", str(output)]) == 0
    rows = list(csv.DictReader(open(output, encoding="utf-8")))
    assert [row["text"] for row in rows] == documents
    probabilities = np.array([[float(r["proba_neg"]), float(r["proba_pos"])] for r in rows])
    np.testing.assert_allclose(probabilities, load(saved_model).predict_proba(documents), atol=1e-6)


def test_explain_reads_an_ndjson_file(saved_model, toy, tmp_path):
    X, _ = toy
    path = tmp_path / "docs.ndjson"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in X[:3]), encoding="utf-8")
    output = tmp_path / "page.html"
    assert main(["explain", str(saved_model), "--file", str(path), "--output", str(output)]) == 0
    assert output.read_text(encoding="utf-8").count('class="doc"') == 3


def test_a_missing_text_column_is_named(saved_model, tmp_path, capsys):
    path = tmp_path / "docs.ndjson"
    path.write_text(json.dumps({"body": "a film"}) + "\n", encoding="utf-8")
    assert main(["predict", str(saved_model), "--file", str(path)]) == 1
    assert "has no column 'text'; its columns are ['body']" in capsys.readouterr().err


def test_explain_takes_a_method_and_states_faithfulness(saved_model, toy, tmp_path):
    X, _ = toy
    output = tmp_path / "page.html"
    argv = ["explain", str(saved_model), "--text", X[0], "--text", X[1], "--output", str(output)]
    assert main([*argv, "--method", "occlusion", "--faithfulness"]) == 0
    page = output.read_text(encoding="utf-8")
    assert page.count("method: occlusion") == 2
    assert "Faithfulness of occlusion on these 2 documents" in page
    assert main([*argv, "--method", "attention"]) == 0
    assert "hop 0" in output.read_text(encoding="utf-8")


def test_export_refuses_to_overwrite_the_model_it_reads(saved_model, tmp_path, capsys):
    model = tmp_path / "m.skattn"
    model.write_bytes(saved_model.read_bytes())
    before = model.read_bytes()
    assert main(["export", str(model), str(model)]) == 1
    assert "is the model it reads" in capsys.readouterr().err
    assert model.read_bytes() == before
    assert main(["export", str(model), str(tmp_path / "." / "m.skattn")]) == 1
    assert model.read_bytes() == before and load(model).predict(["a film"]).shape == (1,)


def test_predict_and_explain_refuse_an_output_that_is_an_input(saved_model, tmp_path, capsys):
    model = tmp_path / "m.skattn"
    model.write_bytes(saved_model.read_bytes())
    documents = tmp_path / "docs.jsonl"
    documents.write_text(json.dumps({"text": "a film"}) + "\n", encoding="utf-8")
    before = (model.read_bytes(), documents.read_bytes())
    for argv in (
        ["predict", str(model), str(documents), "--output", str(model)],
        ["predict", str(model), str(documents), "--output", str(documents)],
        ["predict", str(model), "--file", str(documents), "--output", str(documents)],
        ["explain", str(model), "--text", "a film", "--output", str(model)],
    ):
        assert main(argv) == 1
        assert "it reads; write to another path" in capsys.readouterr().err
    assert (model.read_bytes(), documents.read_bytes()) == before


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_predict_on_an_input_without_documents_writes_the_header_only(
    suffix, saved_model, tmp_path
):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    output = tmp_path / f"predictions{suffix}"
    assert main(["predict", str(saved_model), str(empty), "--output", str(output)]) == 0
    text = output.read_text(encoding="utf-8")
    if suffix == ".csv":
        assert text.splitlines() == ["text,label,proba_neg,proba_pos"]
    else:
        assert text == ""  # JSON Lines: no record, no line


def test_a_regressors_predictions_name_their_columns_without_documents(toy, tmp_path):
    from estimators import small_self_attentive_regressor

    X, _ = toy
    model = small_self_attentive_regressor(max_epochs=1).fit(X, np.arange(len(X), dtype=float))
    path = save(model, tmp_path / "r.skattn")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    output = tmp_path / "predictions.csv"
    assert main(["predict", str(path), str(empty), "--output", str(output)]) == 0
    assert output.read_text(encoding="utf-8").splitlines() == ["text,prediction"]
