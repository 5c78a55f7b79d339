"""``python -m skattn fit``: a model trained from the command line is the one Python trains."""

import csv
import importlib
import json

import numpy as np
import pytest

from skattn import (
    HierarchicalAttentionClassifier,
    SelfAttentiveClassifier,
    SelfAttentiveRegressor,
    load,
)
from skattn.__main__ import main
from skattn.datasets import fetch_sentence_polarity

from _common import write_csv

SMALL = ["max_epochs=2", "embedding_dim=16", "hidden_size=8", "embeddings=None"]


def _table(path, texts, labels):
    return write_csv(path, texts, labels, columns=("body", "stars"))


def _fit(*argv):
    return main(["fit", *map(str, argv), "--progress", "never"])


def _settings(*extra):
    return [part for setting in [*SMALL, *extra] for part in ("--set", setting)]


def test_fit_saves_the_model_python_fits_and_predict_reads_it(toy, tmp_path, capsys):
    X, y = toy
    data = _table(tmp_path / "reviews.csv", X, y)
    output = tmp_path / "model.skattn"
    argv = [output, "--dataset", data, "--text-column", "body", "--label-column", "stars"]
    assert _fit(*argv, *_settings(), "--seed", 3) == 0
    said = capsys.readouterr().out
    assert "task classification" in said and f"wrote {output}" in said
    fitted = load(output)
    assert type(fitted) is SelfAttentiveClassifier
    assert fitted.get_params()["max_epochs"] == 2 and fitted.random_state == 3
    same = SelfAttentiveClassifier(
        max_epochs=2, embedding_dim=16, hidden_size=8, embeddings=None, random_state=3
    ).fit(X, np.asarray(y))
    np.testing.assert_allclose(fitted.predict_proba(X), same.predict_proba(X), rtol=1e-5, atol=1e-6)
    assert main(["predict", str(output), "--text", X[0]]) == 0
    [row] = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert row["label"] == str(same.predict([X[0]])[0])


def test_fit_decides_regression_and_takes_the_han_model(toy, tmp_path, capsys):
    X, _ = toy
    scores = np.linspace(0.5, 4.5, len(X))
    data = _table(tmp_path / "scores.csv", X, scores)
    output = tmp_path / "regressor.skattn"
    columns = ["--text-column", "body", "--label-column", "stars"]
    assert _fit(output, "--dataset", data, *columns, *_settings()) == 0
    regressor = load(output)
    assert type(regressor) is SelfAttentiveRegressor
    assert regressor.predict(X).dtype.kind == "f"
    assert "task regression: its labels are numbers with fractions" in capsys.readouterr().out
    # Whole numbers are classes unless asked otherwise; HAN takes its sentence splitter.
    stars = _table(tmp_path / "stars.csv", X, np.round(scores).astype(int))
    output = tmp_path / "han.skattn"
    argv = [output, "--dataset", stars, *columns, "--model", "han", "--sentence-split", "lines"]
    assert _fit(*argv, *_settings()) == 0
    han = load(output)
    assert type(han) is HierarchicalAttentionClassifier and han.sentence_split == "lines"
    assert han.classes_.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--set", "lr"], "'lr' is not NAME=VALUE"),
        (["--set", "learning_rate=0.1"], "has no ['learning_rate']"),
        (["--set", "random_state=5"], "give the seed as --seed"),
        (["--sentence-split", "lines"], "the HAN model's"),
        (["--dataset", "sick", "--task", "regression"], "holds judgments of pairs"),
    ],
    ids=["no-value", "unknown-parameter", "seed-twice", "split", "pairs-task"],
)
def test_fit_refuses_wrong_arguments_in_one_line_with_status_2(extra, words, tmp_path, capsys):
    output = tmp_path / "model.skattn"
    assert _fit(output, *extra) == 2
    error = capsys.readouterr().err
    assert error.startswith("skattn: error: ") and words in error
    assert not output.exists()


def test_fit_refuses_a_bad_value_before_training_and_keeps_an_existing_file(toy, tmp_path, capsys):
    X, y = toy
    data = _table(tmp_path / "reviews.csv", X, y)
    output = tmp_path / "model.skattn"
    output.write_bytes(b"an earlier model")
    columns = ["--text-column", "body", "--label-column", "stars"]
    assert _fit(output, "--dataset", data, *columns, *_settings()) == 1
    assert "--force overwrites it" in capsys.readouterr().err
    argv = [output, "--dataset", data, *columns, *_settings("lr=-1"), "--force"]
    assert _fit(*argv) == 1
    error = capsys.readouterr()
    assert "lr" in error.err and "fitting" not in error.out  # refused before the data is read
    assert output.read_bytes() == b"an earlier model"


def test_a_model_fitted_from_the_command_line_learns_real_text(tmp_path):
    texts, labels = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    order = np.random.default_rng(0).permutation(len(texts))
    train, test = order[:3000], order[3000:4000]
    data = tmp_path / "snippets.jsonl"
    data.write_text(
        "".join(json.dumps({"text": texts[i], "label": labels[i]}) + "\n" for i in train),
        encoding="utf-8",
    )
    output = tmp_path / "model.skattn"
    assert _fit(output, "--dataset", data, "--set", "max_epochs=2") == 0
    accuracy = load(output).score([texts[i] for i in test], np.asarray(labels)[test])
    print(f"accuracy of a command-line fit on 3,000 snippets: {accuracy:.4f}")
    assert accuracy > 0.68, accuracy  # chance is 0.5; the main job's full fit reaches 0.79


def test_fit_trains_a_pair_model_on_the_training_part_and_says_how_to_serve_it(tmp_path, capsys):
    output = tmp_path / "pairs.skattn"
    assert _fit(output, "--dataset", "sick", *_settings()) == 0
    said = capsys.readouterr().out
    assert "fitting on its training part (5000 of 9927)" in said
    assert "on 5000 pairs" in said and "skattn export" in said and "skattn predict" not in said
    model = load(output)
    assert type(model).__name__ == "SelfAttentivePairClassifier"
    assert model.predict([("a man sings", "a person sings")]).shape == (1,)


def test_fit_never_writes_over_its_own_data(toy, tmp_path, capsys):
    X, y = toy
    data = _table(tmp_path / "reviews.csv", X, y)
    before = data.read_bytes()
    columns = ["--text-column", "body", "--label-column", "stars"]
    assert _fit(data, "--dataset", data, *columns, *_settings(), "--force") == 1
    assert "is the dataset it reads; write to another path" in capsys.readouterr().err
    assert data.read_bytes() == before


def test_a_setting_a_model_file_cannot_hold_is_refused_before_training(toy, tmp_path, capsys):
    X, y = toy
    # Digits in a CSV file are int labels, and a dict with int keys cannot be stored as JSON.
    data = _table(tmp_path / "reviews.csv", X, [int(label == y[0]) for label in y])
    weights = "class_weight={0: 2.0, 1: 1.0}"
    output = tmp_path / "model.skattn"
    columns = ["--text-column", "body", "--label-column", "stars"]
    assert _fit(output, "--dataset", data, *columns, *_settings(weights)) == 1
    said = capsys.readouterr()
    assert "cannot hold safely" in said.err and "fitting" not in said.out
    assert not output.exists()


@pytest.mark.parametrize(
    ("dataset", "setting", "said", "status"),
    [
        ("goemotions", "hiden_size=8", "has no ['hiden_size']", 2),
        ("goemotions", "max_epochs=0", "'max_epochs' parameter", 1),
        # Only the pair model takes it, and only a corpus of pairs makes one.
        ("goemotions", "gated_dim=2", "SelfAttentiveClassifier has no ['gated_dim']", 2),
        ("sick", "gated_dim=0", "'gated_dim' parameter of SelfAttentivePairClassifier", 1),
        ("sick", "sentence_split='lines'", "SelfAttentivePairClassifier has no", 2),
    ],
)
def test_a_setting_no_estimator_takes_is_refused_before_the_data_is_read(
    tmp_path, capsys, monkeypatch, dataset, setting, said, status
):
    read = []
    monkeypatch.setattr("skattn._cli._fit.training_data", lambda args: read.append(args))
    output = tmp_path / "model.skattn"
    assert _fit(output, "--dataset", dataset, "--set", setting) == status  # 2: usage
    assert said in capsys.readouterr().err
    assert read == [] and not output.exists()


def test_a_task_a_pair_corpus_cannot_be_is_refused_before_the_data_is_read(
    tmp_path, capsys, monkeypatch
):
    read = []
    monkeypatch.setattr("skattn._cli._fit.training_data", lambda args: read.append(args))
    argv = ["--dataset", "sick", "--task", "regression", "--set", "max_epochs=0"]
    assert _fit(tmp_path / "model.skattn", *argv) == 2
    assert "sick holds judgments of pairs; --task regression is not" in capsys.readouterr().err
    assert read == []


def test_whole_number_labels_with_a_missing_one_are_read_as_ints(toy, tmp_path, capsys):
    # JSON's null leaves the other labels as Python ints in an object array.
    X, y = toy
    labels = [int(label == y[0]) for label in y]
    labels[3] = None
    data = tmp_path / "reviews.jsonl"
    with open(data, "w", encoding="utf-8") as handle:
        for text, label in zip(X, labels):
            handle.write(json.dumps({"text": text, "label": label}) + "\n")
    output = tmp_path / "model.skattn"
    assert _fit(output, "--dataset", data, *_settings()) == 0
    assert "left out 1 row(s) with an empty label" in capsys.readouterr().out
    assert load(output).classes_.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["3", "-1"], [-1, 3]),
        (["007", "7"], ["007", "7"]),
        (["1.0", "2.0"], ["1.0", "2.0"]),
        (["²", "٣"], ["²", "٣"]),
        ([True, False], [False, True]),
    ],
    ids=["whole-numbers", "leading-zero", "decimal-text", "other-digits", "json-booleans"],
)
def test_labels_are_read_as_whole_numbers_only_when_written_as_one(labels, expected, toy, tmp_path):
    X, _ = toy
    data = tmp_path / "labels.jsonl"
    rows = [{"text": text, "label": labels[i % 2]} for i, text in enumerate(X)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    output = tmp_path / "model.skattn"
    assert _fit(output, "--dataset", data, "--task", "classification", *_settings()) == 0
    assert load(output).classes_.tolist() == expected


def test_a_han_model_with_its_own_splitter_is_predicted_as_fit_says(
    toy, tmp_path, capsys, monkeypatch
):
    X, y = toy
    (tmp_path / "my_splitter.py").write_text(
        "def split(text):\n    return [part for part in text.split(';') if part.strip()] or ['']\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    data = _table(tmp_path / "reviews.csv", X, y)
    output = tmp_path / "han.skattn"
    argv = [output, "--dataset", data, "--text-column", "body", "--label-column", "stars"]
    assert _fit(*argv, "--model", "han", "--sentence-split", "my_splitter:split", *_settings()) == 0
    [hint] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next:")]
    command = hint.removeprefix("next: python -m skattn ").split()
    assert command[:4] == ["predict", str(output), "--sentence-split", "my_splitter:split"]
    assert (
        main(["predict", str(output), "--sentence-split", "my_splitter:split", "--text", X[0]]) == 0
    )
    [row] = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    split = importlib.import_module("my_splitter").split  # written above, not installed
    assert row["label"] == load(output, sentence_split=split).predict([X[0]])[0]
