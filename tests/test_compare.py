"""The main job, end to end on a small real subset."""

import json

import numpy as np
import pytest

from skattn.__main__ import main
from skattn.baselines import tfidf_logreg
from skattn.compare import compare


@pytest.mark.slow
def test_compare_command_writes_table_and_json(tmp_path, capsys):
    code = main(
        [
            "compare",
            "--dataset",
            "sentence_polarity",
            "--models",
            "self_attentive,tfidf_logreg",
            "--quick",
            "--max-docs",
            "600",
            "--cv",
            "2",
            "--output",
            str(tmp_path),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.count("fold 1/2") == 2 and printed.count("fold 2/2") == 2
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [r["model"] for r in results] == ["self_attentive", "tfidf_logreg"]
    for r in results:
        assert len(r["accuracies"]) == 2 and 0.4 < r["accuracy_mean"] <= 1.0
        assert r["accuracy_mean"] == pytest.approx(np.mean(r["accuracies"]))
        assert f"{100 * r['accuracy_mean']:.2f}" in printed
    table = (tmp_path / "results.md").read_text()
    assert table.splitlines()[0].startswith("| model | kind | accuracy")
    assert len(table.splitlines()) == 4
    png = (tmp_path / "results.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    page = (tmp_path / "attention_self_attentive.html").read_text(encoding="utf-8")
    assert page.count('class="doc"') == 8
    assert not (tmp_path / "attention_tfidf_logreg.html").exists()


def test_unknown_model_is_refused(capsys):
    assert main(["compare", "--models", "nope"]) == 2
    assert "unknown model(s) ['nope']" in capsys.readouterr().err


def test_all_models_see_the_same_folds(polarity_small):
    X, y = polarity_small
    results = compare(X, y, {"a": tfidf_logreg, "b": tfidf_logreg}, cv=3, progress=lambda _: None)
    assert results[0]["accuracies"] == results[1]["accuracies"]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_compare_reads_a_csv_or_jsonl_file(fmt, tmp_path, polarity_small, capsys):
    X, y = polarity_small
    path = tmp_path / f"data.{fmt}"
    if fmt == "csv":
        import csv

        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["review", "sentiment"])
            writer.writerows(zip(X, y))
    else:
        path.write_text(
            "".join(json.dumps({"review": t, "sentiment": s}) + "\n" for t, s in zip(X, y)),
            encoding="utf-8",
        )
    code = main(
        [
            "compare",
            "--dataset",
            str(path),
            "--text-column",
            "review",
            "--label-column",
            "sentiment",
            "--models",
            "tfidf_logreg,bow",
            "--cv",
            "3",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert f"{len(X)} documents, 3-fold CV" in out and out.count("fold 3/3") == 2


def test_trec_uses_its_fixed_split(capsys):
    assert main(["compare", "--dataset", "trec", "--models", "bow_tfidf"]) == 0
    out = capsys.readouterr().out
    assert "5952 documents, fixed train/test split" in out and "fold 1/1" in out
    accuracy = float(out.split("accuracy ")[1].split(",")[0])
    assert accuracy > 0.8  # TREC coarse, BOW TFIDF: ~87% published on this copy


def test_paper_names_of_the_variants():
    from skattn.compare import available_models

    models = available_models()
    assert models["HN-AVE"]().pooling == "mean" and models["HN-MAX"]().pooling == "max"
    assert models["HN-ATT"]().pooling == "attention"
