"""The main job, end to end on a small real subset."""

import json

import numpy as np
import pytest

from skattn.__main__ import main
from skattn.compare import compare, tfidf_logreg


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
    assert table.splitlines()[0].startswith("| model | accuracy")
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
