"""The predict and explain commands read every file format the comparison reads."""

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

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


def test_predict_keeps_the_columns_asked_for_beside_each_prediction(saved_model, toy, tmp_path):
    X, _ = toy
    documents = [X[0], "", "a film, with a comma", X[1]]
    ids = ["r-7", "r-9", "r-11", "r-2"]
    table = tmp_path / "docs.csv"
    with open(table, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["day", "id", "body"])
        writer.writerows(
            [[f"2026-12-0{i}", id_, d] for i, (id_, d) in enumerate(zip(ids, documents))]
        )
    output = tmp_path / "predictions.csv"
    argv = ["predict", str(saved_model), str(table), "--text-column", "body", "--keep", "id"]
    assert main([*argv, "--output", str(output)]) == 0
    with open(output, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    model = load(saved_model)
    assert list(rows[0]) == ["id", "text", "label", "proba_neg", "proba_pos"]
    assert [row["id"] for row in rows] == ids and [row["text"] for row in rows] == documents
    assert [row["label"] for row in rows] == model.predict(documents).tolist()

    # JSON Lines keeps each value's type, null included; a CSV cell holds its JSON.
    lines = tmp_path / "docs.jsonl"
    values = [7, None, {"source": ["web"]}, True]
    lines.write_text(
        "".join(json.dumps({"id": v, "text": d}) + "\n" for v, d in zip(values, documents)), "utf-8"
    )
    as_json = tmp_path / "predictions.jsonl"
    argv = ["predict", str(saved_model), str(lines), "--keep", "id", "--output", str(as_json)]
    assert main(argv) == 0
    written = [json.loads(line) for line in as_json.read_text("utf-8").splitlines()]
    assert [row["id"] for row in written] == values
    argv[-1] = str(output)
    assert main([*argv, "--force"]) == 0
    with open(output, encoding="utf-8") as handle:
        cells = [row["id"] for row in csv.DictReader(handle)]
    assert cells == ["7", "", '{"source": ["web"]}', "true"]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--keep", "id", "--text", "a film"], "--text has none"),
        (["--keep", "body"], "the text is written as the column text"),
        (["--keep", "label"], "the predictions have a column of that name"),
        (["--keep", "id", "--keep", "id"], "--keep id is given twice"),
    ],
)
def test_predict_refuses_a_kept_column_it_cannot_give(extra, said, saved_model, tmp_path, capsys):
    table = tmp_path / "docs.csv"
    table.write_text("id,body,label\n1,a film,pos\n", encoding="utf-8")
    argv = ["predict", str(saved_model), "--text-column", "body", *extra]
    assert main([*argv] if "--text" in extra else [*argv, "--file", str(table)]) == 2
    assert said in capsys.readouterr().err


def test_predict_writes_kept_dates_decimals_and_missing_numbers_as_documented(
    saved_model, tmp_path, capsys
):
    pa = pytest.importorskip("pyarrow")
    import datetime
    import decimal

    import pyarrow.parquet as pq

    day = datetime.date(2026, 12, 7)
    at = datetime.datetime(2026, 12, 7, 10, 30, tzinfo=datetime.timezone.utc)
    columns = {
        "text": ["a fine film", "a dull film"],
        "day": [day, None],
        "amount": [decimal.Decimal("1.10"), decimal.Decimal("-3")],
        "score": [float("nan"), 2.5],
        "at": [at, at],
        "raw": [b"\xff", b"\x00"],
    }
    table = tmp_path / "docs.parquet"
    pq.write_table(pa.table(columns), table)
    kept = ["--keep", "day", "--keep", "amount", "--keep", "score", "--keep", "at"]
    as_json, as_csv = tmp_path / "out.jsonl", tmp_path / "out.csv"
    for output in (as_json, as_csv):
        assert main(["predict", str(saved_model), str(table), *kept, "--output", str(output)]) == 0
    rows = [json.loads(line) for line in as_json.read_text("utf-8").splitlines()]
    stamp = "2026-12-07T10:30:00+00:00"
    assert [(r["day"], r["amount"], r["score"], r["at"]) for r in rows] == [
        ("2026-12-07", "1.10", None, stamp),
        (None, "-3.00", 2.5, stamp),  # the column's decimal type has two places
    ]
    with open(as_csv, encoding="utf-8") as handle:
        cells = [(r["day"], r["amount"], r["score"], r["at"]) for r in csv.DictReader(handle)]
    assert cells == [("2026-12-07", "1.10", "", stamp), ("", "-3.00", "2.5", stamp)]

    # Bytes have no text of their own: refused, naming the document, and no file is left.
    refused = tmp_path / "raw.csv"
    argv = ["predict", str(saved_model), str(table), "--keep", "raw", "--output", str(refused)]
    assert main(argv) == 1
    assert "X[0]: its column 'raw' holds b'\\xff' (bytes)" in capsys.readouterr().err
    assert not refused.exists()


def test_predict_reads_the_input_before_loading_the_model(tmp_path, capsys):
    lines = tmp_path / "docs.txt"
    lines.write_text("a film\n", encoding="utf-8")
    missing_model = tmp_path / "nowhere.skattn"
    assert main(["predict", str(missing_model), str(lines), "--keep", "id"]) == 1
    assert "docs.txt: holds one document a line: it has no 'id'" in capsys.readouterr().err
    assert main(["predict", str(missing_model), str(lines), "--keep="]) == 2
    assert "--keep needs a column's name" in capsys.readouterr().err


def test_predict_names_a_kept_column_the_input_lacks(saved_model, tmp_path, capsys):
    table = tmp_path / "docs.csv"
    table.write_text("id,text\n1,a film\n", encoding="utf-8")
    assert main(["predict", str(saved_model), str(table), "--keep", "user"]) == 1
    said = capsys.readouterr()
    assert "no column 'user'" in said.err and said.out == ""


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
    assert main([*argv, "--method", "attention", "--force"]) == 0
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


@pytest.mark.parametrize("name", ["m.onnx", "m.ONNX"])
def test_export_refuses_an_onnx_name_for_its_zip_before_loading(
    saved_model, tmp_path, capsys, name
):
    # An artefact is a zip archive: written as "m.onnx", onnx.load failed on it.
    assert main(["export", str(saved_model), str(tmp_path / name)]) == 1
    assert "an artefact is a zip archive" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    from skattn.serving import export

    with pytest.raises(ValueError, match=r"an artefact is a zip archive.*NAME\.onnx\.zip"):
        export(load(saved_model), tmp_path / "m.onnx")
    assert list(tmp_path.iterdir()) == []


def test_predict_reads_standard_input_as_a_file_of_lines(saved_model, tmp_path):
    documents = ["a fine film", "", "a poor plot, \u00e9t\u00e9", "fine"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "skattn", "predict", str(saved_model), "-"]
    # A byte order mark (as Windows tools write) and every line ending a .txt file knows.
    piped = ("\ufeff" + "a fine film\r\n\ra poor plot, \u00e9t\u00e9\nfine").encode()
    done = subprocess.run(command, input=piped, capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(done.stdout.decode("utf-8").splitlines()))
    model = load(saved_model)
    assert [row["text"] for row in rows] == documents
    assert [row["label"] for row in rows] == [str(label) for label in model.predict(documents)]
    column = next(name for name in rows[0] if name.startswith("proba_"))
    classes = [str(label) for label in model.classes_]
    expected = model.predict_proba(documents)[:, classes.index(column.removeprefix("proba_"))]
    np.testing.assert_allclose([float(row[column]) for row in rows], expected, rtol=1e-5)
    text_file = tmp_path / "same.txt"
    text_file.write_bytes(piped)
    from_file = subprocess.run([*command[:-1], str(text_file)], capture_output=True, env=env)
    assert from_file.returncode == 0 and from_file.stdout == done.stdout
    bad = subprocess.run(command, input=b"fine\n\xff film\n", capture_output=True, env=env)
    assert bad.returncode == 1
    assert b"standard input: line 2: byte 0xff (column 1) is not UTF-8" in bad.stderr
    explain = subprocess.run([*command[:3], "explain", *command[4:]], capture_output=True, env=env)
    assert explain.returncode == 1 and b"'-' (standard input) is predict's" in explain.stderr


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


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_predicted_numbers_read_back_as_what_predict_returns(suffix, saved_model, toy, tmp_path):
    from estimators import small_self_attentive_regressor

    X, _ = toy
    documents = [X[0], "", X[1], X[2]]
    regressor = small_self_attentive_regressor(max_epochs=1).fit(X, np.linspace(0, 1e4, len(X)))
    for model_path, model in [
        (saved_model, load(saved_model)),
        (save(regressor, tmp_path / "r.skattn"), regressor),
    ]:
        output = tmp_path / f"predictions{suffix}"
        inputs = tmp_path / "docs.jsonl"
        inputs.write_text("".join(json.dumps({"text": d}) + "\n" for d in documents), "utf-8")
        argv = ["predict", str(model_path), str(inputs), "--output", str(output), "--force"]
        assert main(argv) == 0
        if suffix == ".csv":
            rows = list(csv.DictReader(open(output, encoding="utf-8")))
        else:
            rows = [json.loads(line) for line in output.read_text("utf-8").splitlines()]
        if model is regressor:
            written = np.array([float(row["prediction"]) for row in rows])
            np.testing.assert_array_equal(written, model.predict(documents))
        else:
            written = np.array([[float(row["proba_neg"]), float(row["proba_pos"])] for row in rows])
            np.testing.assert_array_equal(written, model.predict_proba(documents))
            assert [row["label"] for row in rows] == model.predict(documents).tolist()


def test_explain_prints_a_regressors_prediction_whole(toy, tmp_path, capsys):
    from estimators import small_self_attentive_regressor

    X, _ = toy
    regressor = small_self_attentive_regressor(max_epochs=1).fit(X, np.linspace(0, 1e4, len(X)))
    path = save(regressor, tmp_path / "r.skattn")
    assert main(["explain", str(path), "--text", X[0], "--method", "attention"]) == 0
    [record] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # A float, not the 4-digit text shown on pages; equal within float32 rounding.
    assert isinstance(record["prediction"], float)
    assert record["prediction"] == pytest.approx(float(regressor.predict([X[0]])[0]), rel=1e-6)


@pytest.mark.parametrize("name", ["out.parquet", "out.txt", "out"])
def test_predict_refuses_an_output_suffix_it_does_not_write(name, saved_model, tmp_path, capsys):
    output = tmp_path / name
    assert main(["predict", str(saved_model), "--text", "a film", "--output", str(output)]) == 1
    captured = capsys.readouterr()
    assert "predict writes .csv, .jsonl or .ndjson files only" in captured.err
    assert captured.out == "" and not output.exists()


def test_predict_reads_the_output_suffix_in_any_case(saved_model, tmp_path):
    argv = ["predict", str(saved_model), "--text", "a film", "--output"]
    assert main([*argv, str(tmp_path / "P.JSONL")]) == 0
    assert json.loads((tmp_path / "P.JSONL").read_text(encoding="utf-8"))["text"] == "a film"
    assert main([*argv, str(tmp_path / "P.CSV")]) == 0
    rows = list(csv.DictReader(open(tmp_path / "P.CSV", encoding="utf-8")))
    assert [row["text"] for row in rows] == ["a film"]


def _tiny_corpus(path: Path) -> Path:
    rows = [[f"a superb film {i}", "pos"] for i in range(10)]
    rows += [[f"a dull film {i}", "neg"] for i in range(10)]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *rows])
    return path


@pytest.mark.parametrize("command", ["predict", "explain", "export", "compare"])
def test_an_output_in_a_folder_that_does_not_exist_is_refused_not_created(
    command, saved_model, tmp_path, capsys
):
    corpus = _tiny_corpus(tmp_path / "corpus.csv")
    missing = tmp_path / "typo" / "deeper"
    text = ["--text", "a film", "--output"]
    argv = {
        "predict": ["predict", str(saved_model), *text, str(missing / "p.csv")],
        "explain": ["explain", str(saved_model), *text, str(missing / "p.html")],
        "export": ["export", str(saved_model), str(missing / "m.onnx.zip")],
        "compare": ["compare", "--dataset", str(corpus), "--models", "bow", "--output"]
        + [str(missing / "results")],
    }[command]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert f"its parent folder {missing} does not exist" in captured.err
    assert captured.out == ""  # compare: refused before its first line, let alone training
    assert [path.name for path in tmp_path.iterdir()] == ["corpus.csv"]


def test_compare_refuses_an_output_that_is_a_file_even_with_force(tmp_path, capsys):
    corpus = _tiny_corpus(tmp_path / "corpus.csv")
    output = tmp_path / "d.csv"
    output.write_text("keep me", encoding="utf-8")
    argv = ["compare", "--dataset", str(corpus), "--models", "bow", "--force", "--output"]
    assert main([*argv, str(output)]) == 1
    captured = capsys.readouterr()
    assert f"--output {output} is a file; compare writes its results" in captured.err
    assert "into a folder: give the path of a folder" in captured.err
    assert captured.out == "" and output.read_text(encoding="utf-8") == "keep me"
    # A results folder inside that file: its parent is not a folder.
    assert main([*argv, str(output / "results")]) == 1
    assert f"its parent folder {output} is not a folder" in capsys.readouterr().err


def test_explain_text_states_faithfulness_on_standard_error(saved_model, toy, capsys):
    X, _ = toy
    argv = ["explain", str(saved_model), "--text", X[0], "--text", X[1], "--method", "occlusion"]
    assert main([*argv, "--faithfulness"]) == 0
    captured = capsys.readouterr()
    # Standard output stays one JSON object per document.
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert [record["text"] for record in records] == X[:2]
    assert "Faithfulness of occlusion on these 2 documents" in captured.err
    assert "comprehensiveness" in captured.err and "random ranking" in captured.err
    assert main(argv) == 0
    assert "Faithfulness" not in capsys.readouterr().err


def test_predict_refuses_a_chunk_size_below_one_before_printing(saved_model, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["predict", str(saved_model), "--text", "a film", "--chunk-size", "0"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert "argument --chunk-size: must be 1 or more, got 0" in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("bad", ["undecodable file", "lone surrogate"])
def test_predict_prints_no_header_when_the_first_documents_fail(bad, saved_model, tmp_path, capsys):
    if bad == "undecodable file":
        source = tmp_path / "docs.txt"
        source.write_bytes(b"a film\n\xff\xfe dull\n")
        documents, message = [str(source)], "is not UTF-8"
    else:  # standard output is CSV, which cannot hold a lone surrogate
        documents, message = ["--text", "ok", "--text", "a\udcff"], "X[1]"
    assert main(["predict", str(saved_model), *documents]) == 1
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


# --- Through the public command line, in a process of its own -------------------------------

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sklearn", "skorch", "scipy")


def run_cli(*argv, cwd=None, python_options=(), prelude=None):
    """``python -m skattn ARGV`` with this checkout first on the path (``prelude`` run first)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if prelude is None:
        command = [sys.executable, *python_options, "-m", "skattn", *map(str, argv)]
    else:
        code = (
            f"{prelude}\nimport sys\nfrom skattn.__main__ import main\nsys.exit(main(sys.argv[1:]))"
        )
        command = [sys.executable, *python_options, "-c", code, *map(str, argv)]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def imported_modules(importtime_stderr: str) -> set[str]:
    """The module names that ``python -X importtime`` reports."""
    return {
        line.rsplit("|", 1)[-1].strip() for line in importtime_stderr.splitlines() if "|" in line
    }


@pytest.fixture(scope="module")
def artefact(saved_model, tmp_path_factory):
    path = tmp_path_factory.mktemp("a") / "m.onnx.zip"
    done = run_cli("export", saved_model, path)
    assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize(
    ("option", "value"), [("--tokenizer", "whitespace"), ("--sentence-split", "os.path:split")]
)
def test_an_artefact_refuses_text_settings_of_its_own(option, value, artefact, capsys):
    argv = ["predict", str(artefact), "--text", "a fine film", option, value]
    assert main(argv) == 2
    said = capsys.readouterr()
    assert f"{option} is for a model file saved with code" in said.err and said.out == ""


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_neither_torch_nor_sklearn(flag):
    done = run_cli(flag, python_options=["-X", "importtime"])
    assert done.returncode == 0
    assert "skattn" in done.stdout
    assert not imported_modules(done.stderr) & set(HEAVY)


def test_predict_from_an_artefact_imports_neither_torch_nor_sklearn(artefact, saved_model, toy):
    X, _ = toy
    done = run_cli(
        "predict", artefact, "--text", X[0], "--text", X[1], python_options=["-X", "importtime"]
    )
    assert done.returncode == 0, done.stderr
    assert not imported_modules(done.stderr) & set(HEAVY)
    rows = list(csv.DictReader(done.stdout.splitlines()))
    assert [row["text"] for row in rows] == X[:2]
    # The artefact answers as the saved model does.
    assert [row["label"] for row in rows] == load(saved_model).predict(X[:2]).tolist()
    # A saved model needs the training stack: the check above can see it.
    done = run_cli("predict", saved_model, "--text", X[0], python_options=["-X", "importtime"])
    assert done.returncode == 0 and "torch" in imported_modules(done.stderr)


def test_predict_and_explain_text_print_and_leave_the_folder_unchanged(saved_model, toy, tmp_path):
    X, _ = toy
    done = run_cli("predict", saved_model, "--text", X[0], "--text", X[1], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(done.stdout.splitlines()))
    assert [row["label"] for row in rows] == load(saved_model).predict(X[:2]).tolist()
    done = run_cli("explain", saved_model, "--text", X[0], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [record] = [json.loads(line) for line in done.stdout.splitlines()]
    assert record["text"] == X[0] and record["method"] == "integrated_gradients"
    assert record["prediction"] == load(saved_model).predict([X[0]])[0]
    assert "superb" in [token for token, _ in record["tokens"]]
    # Scores written whole: they read back as the explanation's own (not rounded to 6 places).
    from skattn.explain._explanations import token_scores_of

    [expected] = load(saved_model).explain([X[0]], method="integrated_gradients")
    written = np.array([score for _, score in record["tokens"]])
    np.testing.assert_allclose(written, token_scores_of(expected), rtol=1e-5, atol=1e-9)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_a_closed_standard_output_ends_the_command_quietly(command, saved_model):
    # A pipe whose reader has gone before the command writes (as in "| head -0").
    reader, writer = os.pipe()
    os.close(reader)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "skattn", command, str(saved_model), "--text", "a film"]
    try:
        done = subprocess.run(argv, stdout=writer, stderr=subprocess.PIPE, env=env, timeout=300)
    finally:
        os.close(writer)
    assert done.stderr.decode() == ""
    assert done.returncode == 1


def test_a_broken_pipe_that_is_not_standard_output_is_an_error(monkeypatch, capfd):
    import skattn._cli._predict

    def fails(args):
        raise BrokenPipeError(32, "Broken pipe (a socket, not standard output)")

    monkeypatch.setattr(skattn._cli._predict, "predict", fails)
    assert main(["predict", "m.skattn", "--text", "a"]) == 1
    assert "skattn: error: [Errno 32] Broken pipe (a socket" in capfd.readouterr().err


def test_a_command_without_standard_output_still_succeeds(saved_model, tmp_path):
    # Started with standard output closed (cron, daemons): sys.stdout is None.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    output = tmp_path / "p.csv"
    argv = [sys.executable, "-m", "skattn", "predict", str(saved_model), "--text", "a film"]
    done = subprocess.run(
        [*argv, "--output", str(output)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        timeout=300,
        close_fds=True,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 0, done.stderr
    assert len(list(csv.DictReader(output.read_text(encoding="utf-8").splitlines()))) == 1


def test_predict_of_a_file_prints_unless_output_is_given(saved_model, toy, tmp_path):
    X, _ = toy
    documents = tmp_path / "docs.txt"
    documents.write_text("\n".join(X[:3]) + "\n", encoding="utf-8")
    done = run_cli("predict", saved_model, documents, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(list(csv.DictReader(done.stdout.splitlines()))) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.txt"]


def test_explain_of_a_file_needs_an_html_output(saved_model, toy, tmp_path):
    documents = tmp_path / "docs.txt"
    documents.write_text("a film\n", encoding="utf-8")
    done = run_cli("explain", saved_model, "--file", documents, cwd=tmp_path)
    assert done.returncode == 1 and "give --output PAGE.html" in done.stderr
    done = run_cli("explain", saved_model, "--file", documents, "--output", tmp_path / "e.pdf")
    assert done.returncode == 1 and "explain writes .html or .htm files only" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.txt"]
    done = run_cli("explain", "--help")
    assert "--output OUTPUT the HTML page to write (.html)" in " ".join(done.stdout.split())


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_an_existing_output_is_overwritten_only_with_force(command, saved_model, tmp_path):
    output = tmp_path / ("out.csv" if command == "predict" else "out.html")
    output.write_text("keep me", encoding="utf-8")
    done = run_cli(command, saved_model, "--text", "a film", "--output", output)
    assert done.returncode == 1 and "exists; --force overwrites it" in done.stderr
    assert output.read_text(encoding="utf-8") == "keep me"
    done = run_cli(command, saved_model, "--text", "a film", "--output", output, "--force")
    assert done.returncode == 0, done.stderr
    assert "film" in output.read_text(encoding="utf-8")
    assert "keep me" not in output.read_text(encoding="utf-8")


def test_export_refuses_an_existing_output_without_force(saved_model, artefact):
    before = artefact.read_bytes()
    done = run_cli("export", saved_model, artefact)
    assert done.returncode == 1 and "exists; --force overwrites it" in done.stderr
    assert artefact.read_bytes() == before


@pytest.mark.parametrize(
    "hidden, argv, extra",
    [
        ("onnxscript", ["export", "{model}", "{tmp}/new.onnx.zip"], "export"),
        ("onnxruntime", ["predict", "{artefact}", "--text", "a film"], "serving"),
    ],
)
def test_a_missing_optional_module_is_one_line_naming_the_extra(
    hidden, argv, extra, saved_model, artefact, tmp_path
):
    values = {"model": saved_model, "artefact": artefact, "tmp": tmp_path}
    argv = [part.format(**values) for part in argv]
    done = run_cli(*argv, prelude=f"import sys; sys.modules[{hidden!r}] = None")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert f"needs {hidden}, which is not installed: pip install 'skattn[{extra}]'" in line
    assert not (tmp_path / "new.onnx.zip").exists()


def test_an_import_error_of_any_extra_module_names_an_extra_that_installs_it():
    from skattn._cli._extras import EXTRA_MODULES, hint

    for modules in EXTRA_MODULES.values():
        for module in modules:
            message = hint(ModuleNotFoundError(f"No module named {module!r}", name=module), "x")
            named = re.search(r"skattn\[(\w+)\]", message).group(1)
            assert module in EXTRA_MODULES[named]
    # The command's own extra first: export's onnxruntime is the export extra's.
    error = ModuleNotFoundError("No module named 'onnxruntime'", name="onnxruntime")
    assert "skattn[export]" in hint(error, "export") and "skattn[serving]" in hint(error, "predict")
    assert hint(ModuleNotFoundError("No module named 'nope'", name="nope"), "x") is None


def _extras_of_pyproject() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["optional-dependencies"]


def _distribution(requirement: str) -> str:
    return re.split(r"[<>=!;\[ ]", requirement, maxsplit=1)[0].lower()


#: Distributions whose module is not their name with "_" for "-".
MODULE_OF_DISTRIBUTION = {"fasttext-numpy2-wheel": ("fasttext",), "dask": ("dask", "distributed")}


def test_the_extras_hints_agree_with_pyproject():
    from skattn._cli._extras import EXTRA_MODULES

    extras = _extras_of_pyproject()
    assert set(EXTRA_MODULES) == set(extras) - {"docs", "dev"}
    for extra, requirements in extras.items():
        if extra in ("docs", "dev"):
            continue
        modules = []
        for requirement in requirements:
            name = _distribution(requirement)
            modules += MODULE_OF_DISTRIBUTION.get(name, (name.replace("-", "_"),))
        assert sorted(EXTRA_MODULES[extra]) == sorted(modules), extra


def test_the_parser_spells_the_names_of_the_modules_it_does_not_import():
    from skattn._cli import _parser
    from skattn.explain._attribution import DEFAULT_METHOD, METHODS
    from skattn.text._encoder import TOKENIZERS

    assert _parser.METHODS == METHODS and _parser.DEFAULT_METHOD == DEFAULT_METHOD
    assert sorted(_parser.TOKENIZER_NAMES) == sorted(TOKENIZERS)
    done = run_cli("explain", "--help")
    assert f"(default: {DEFAULT_METHOD})" in done.stdout


def test_the_embedder_says_where_training_parameters_go():
    from skattn import SelfAttentiveClassifier, SelfAttentiveEmbedder

    with pytest.raises(TypeError, match=r"classifier=SelfAttentiveClassifier\(max_epochs=\.\.\.\)"):
        SelfAttentiveEmbedder(max_epochs=3)
    embedder = SelfAttentiveEmbedder(classifier=SelfAttentiveClassifier(max_epochs=3))
    assert embedder.get_params()["classifier__max_epochs"] == 3


@pytest.mark.parametrize("verbose", [0, 1])
def test_a_verbose_fit_prints_its_table_without_colour_codes_off_a_terminal(verbose, tmp_path):
    code = (
        "from estimators import small_self_attentive\n"
        "from conftest import make_toy_corpus\n"
        "X, y = make_toy_corpus()\n"
        f"small_self_attentive(max_epochs=2, verbose={verbose}).fit(X, y)\n"
    )
    # tests/ first on the path and run outside the root, whose conftest.py would
    # otherwise be the `conftest` imported (make_toy_corpus is in tests/conftest.py).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    if verbose:
        assert "train_loss" in done.stdout and "\x1b[" not in done.stdout
        assert "%|" not in done.stderr  # a bar only on a terminal (or verbose=2)
    else:
        assert done.stdout == ""


def test_a_multilabel_warning_names_labels_by_the_users_names(toy):
    pd = pytest.importorskip("pandas")
    from estimators import small_self_attentive

    X, y = toy
    Y = pd.DataFrame({"positive": (y == "pos").astype(int), "never": 0, "negative": 0})
    Y["negative"] = 1 - Y["positive"]
    with pytest.warns(UserWarning, match=r"labels \['never'\] are 0 in every document"):
        small_self_attentive(max_epochs=1).fit(X, Y)
    with pytest.warns(UserWarning, match=r"labels \[1\] are 0 in every document"):
        small_self_attentive(max_epochs=1).fit(X, Y.to_numpy())  # no names: the index


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_predict_and_explain_take_the_input_file_the_same_way(command, saved_model, tmp_path):
    documents = tmp_path / "docs.txt"
    documents.write_text("a film\na dull one\n", encoding="utf-8")
    page = tmp_path / "page.html"
    output = [] if command == "predict" else ["--output", page]
    positional = run_cli(command, saved_model, documents, *output, cwd=tmp_path)
    assert positional.returncode == 0, positional.stderr
    twice = run_cli(command, saved_model, documents, "--text", "x", *output, "--force")
    assert twice.returncode == 1 and "give the documents once" in twice.stderr
    none = run_cli(command, saved_model, *output, "--force")
    assert none.returncode == 1 and "no documents" in none.stderr
    if command == "explain":
        assert ">dull</span>" in page.read_text(encoding="utf-8")
    else:
        assert positional.stdout.splitlines()[1].startswith("a film,")


# --- Wrong kinds of files, wrong arguments, help texts ---------------------------------------


def test_serve_refuses_a_model_file_naming_export_before_importing_the_runtime(saved_model):
    done = run_cli("serve", saved_model, python_options=["-X", "importtime"])
    assert done.returncode == 1
    [line] = [line for line in done.stderr.splitlines() if "|" not in line]
    assert (
        f"skattn: error: {saved_model} is a model file written by skattn.save; serve reads " in line
    )
    exported = saved_model.with_name("m.onnx.zip")
    assert f"run `python -m skattn export {saved_model} {exported}` first" in line
    # Told by the archive's members: neither the training stack nor onnxruntime is imported.
    assert not imported_modules(done.stderr) & {*HEAVY, "onnxruntime"}


def test_export_predict_and_explain_name_the_kind_of_file_they_were_given(
    saved_model, artefact, tmp_path, capsys
):
    output = tmp_path / "out.onnx.zip"
    assert main(["export", str(artefact), str(output)]) == 1
    err = capsys.readouterr().err
    assert f"{artefact} is an artefact written by export; export reads a model file " in err
    assert not output.exists()
    assert main(["explain", str(artefact), "--text", "a film"]) == 1
    assert "explain reads a model file written by skattn.save" in capsys.readouterr().err
    # A zip archive of neither kind is named as such, by every command.
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("notes.txt", "hello")
    for argv in (["predict", other, "--text", "a film"], ["export", other, output]):
        assert main([str(part) for part in argv]) == 1
        err = capsys.readouterr().err
        assert f"{other} is a zip archive, but neither a model file written by skattn.save" in err
        assert "nor an artefact written by export" in err


def test_the_cli_spells_the_members_of_model_files_and_artefacts_as_they_are_written():
    from skattn._cli._models import ARTEFACT_MEMBERS, MODEL_MEMBER
    from skattn.persistence import METADATA
    from skattn.serving._artifact import CONFIG, NETWORK

    assert MODEL_MEMBER == METADATA and ARTEFACT_MEMBERS == (CONFIG, NETWORK)


def _numeric_corpus(path: Path) -> Path:
    rows = [[f"a film of {i} scenes", f"{i + 0.5}"] for i in range(20)]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *rows])
    return path


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_compare_refuses_an_unknown_model_in_one_error_line(task, tmp_path, capsys):
    corpus = (_tiny_corpus if task == "classification" else _numeric_corpus)(tmp_path / "c.csv")
    argv = ["compare", "--dataset", str(corpus), "--models", "nosuch,bow_tfidf_ridge,bow"]
    assert main(argv) == 2
    [line] = capsys.readouterr().err.splitlines()
    unknown = ["bow", "nosuch"] if task == "regression" else ["bow_tfidf_ridge", "nosuch"]
    assert line.startswith(f"skattn: error: argument --models: unknown model(s) {unknown}; known: ")
    assert ("'tfidf_ridge'" in line) == (task == "regression")


@pytest.mark.parametrize("value", ["1.5", "1", "0", "-0.2", "nan", "a fifth"])
def test_compare_refuses_a_test_size_outside_0_and_1_when_parsing(value, tmp_path, capsys):
    corpus = _tiny_corpus(tmp_path / "corpus.csv")
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "--dataset", str(corpus), "--models", "bow", "--test-size", value])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert "argument --test-size: must be a fraction between 0 and 1" in captured.err
    assert captured.out == ""


def test_every_option_of_every_command_has_a_help_text():
    from skattn._cli._parser import parser

    root = parser()
    [commands] = [a for a in root._actions if isinstance(a, argparse._SubParsersAction)]
    assert sorted(commands.choices) == ["compare", "explain", "export", "fit", "predict", "serve"]
    for name, command in commands.choices.items():
        for action in command._actions:
            assert action.help and action.help != argparse.SUPPRESS, (name, action.dest)
    # These state their default.
    for name, option in [
        ("compare", "--test-size"),
        ("serve", "--host"),
        ("serve", "--port"),
        ("serve", "--max-body-bytes"),
        ("serve", "--max-texts"),
    ]:
        [action] = [a for a in commands.choices[name]._actions if option in a.option_strings]
        assert "(default: %(default)s)" in action.help, option
    assert parser().parse_args(["compare", "--test-size", "0.3"]).test_size == 0.3


def test_a_warnings_category_is_named_unless_plain_and_its_text_is_one_line():
    from skattn._cli import _one_line

    assert _one_line("two\n  lines", UserWarning, "f.py", 1) == "skattn: warning: two lines\n"
    assert _one_line("old", FutureWarning, "f.py", 1) == "skattn: warning: FutureWarning: old\n"


def test_a_warning_is_one_line_and_debug_keeps_pythons_form(tmp_path):
    rows = [("a good film", 1), ("a dull film", 0), ("", 1), ("   ", 0)] * 6
    data = tmp_path / "reviews.csv"
    with open(data, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([("body", "stars"), *rows])
    small = ["max_epochs=1", "embeddings=None", "embedding_dim=8", "hidden_size=4"]
    argv = ["fit", tmp_path / "m.skattn", "--dataset", data, "--text-column", "body"]
    argv += ["--label-column", "stars", "--progress", "never"]
    argv += [part for setting in small for part in ("--set", setting)]
    shown = ("-W", "default::UserWarning")  # whatever PYTHONWARNINGS says
    plain = run_cli(*argv, cwd=tmp_path, python_options=shown)
    assert plain.returncode == 0, plain.stderr
    said = [line for line in plain.stderr.splitlines() if "blank" in line]
    assert said == [
        "skattn: warning: 12 of 24 training documents (50.0%) are blank or yield no token; "
        "each is encoded as the reserved token '<empty>' (see n_blank_)."
    ]
    assert "UserWarning" not in plain.stderr and ".py:" not in plain.stderr  # no file, no echo
    debug = run_cli("--debug", *argv, "--force", cwd=tmp_path, python_options=shown)
    assert debug.returncode == 0, debug.stderr
    assert re.search(r"\.py:\d+: UserWarning: 12 of 24 training documents", debug.stderr)
    assert "skattn: warning:" not in debug.stderr
