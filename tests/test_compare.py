"""The main job: the registry, the fold loop, the report and the command, on small data."""

import csv
import json

import numpy as np
import pytest

import skattn.__main__ as cli
from skattn.__main__ import main
from skattn.baselines import TABLE_2, tfidf_logreg
from skattn.compare import (
    ATTENTION_MODEL,
    MODEL_KINDS,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
    ModelEntry,
    available_models,
    compare,
    format_table,
    model_kind,
    plot_results,
)
from skattn.text import split_lines


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
    assert [r["kind"] for r in results] == [ATTENTION_MODEL, TUNED_BASELINE]
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


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "ndjson"])
def test_compare_reads_a_csv_jsonl_or_ndjson_file(fmt, tmp_path, polarity_small, capsys):
    X, y = polarity_small
    path = tmp_path / f"data.{fmt}"
    if fmt == "csv":
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


@pytest.mark.slow
def test_trec_uses_its_fixed_split(capsys):
    assert main(["compare", "--dataset", "trec", "--models", "bow_tfidf"]) == 0
    out = capsys.readouterr().out
    assert "5952 documents, fixed train/test split" in out and "fold 1/1" in out
    accuracy = float(out.split("accuracy ")[1].split(",")[0])
    assert accuracy > 0.8  # TREC coarse, BOW TFIDF: ~87% published on this copy


def test_paper_names_of_the_variants():
    models = available_models()
    assert models["HN-AVE"]().pooling == "mean" and models["HN-MAX"]().pooling == "max"
    assert models["HN-ATT"]().pooling == "attention"


def test_every_random_state_of_a_factory_model_is_the_seed():
    models = available_models(quick=True, random_state=7)
    for name in ["self_attentive", "han_w2v", "bag_of_means", "mean_word2vec", "tfidf_logreg"]:
        seeds = {k: v for k, v in models[name]().get_params().items() if k.endswith("random_state")}
        assert seeds and set(seeds.values()) == {7}, (name, seeds)
    assert models["HN-MAX"]().random_state == 7
    assert available_models()["han"]().random_state == 0


def test_kinds_are_stored_in_the_registry():
    models = available_models(vectors={"good": [0.0, 1.0]}, vectors_dim=2)
    kinds = {name: entry.kind for name, entry in models.items()}
    assert {kinds[name] for name in TABLE_2} == {TABLE_2_BASELINE}
    assert kinds["self_attentive_vectors"] == kinds["HN-AVE"] == ATTENTION_MODEL
    assert kinds["mean_word2vec"] == kinds["bow_tuned"] == TUNED_BASELINE
    assert set(kinds.values()) == set(MODEL_KINDS)
    # A name alone decides nothing: the kind is whatever the registry holds.
    assert model_kind("han_custom", {"han_custom": ModelEntry(tfidf_logreg, TUNED_BASELINE)}) == (
        TUNED_BASELINE
    )
    with pytest.raises(KeyError, match="han_custom"):
        model_kind("han_custom")


def test_records_carry_the_kind_of_their_factory_into_the_report(toy):
    X, y = toy
    models = {"registered": available_models()["bow"], "plain": tfidf_logreg}
    results = compare(X, y, models, cv=2, progress=lambda _: None)
    assert [r["kind"] for r in results] == [TABLE_2_BASELINE, None]
    rows = {
        line.split(" | ")[0][2:]: line.split(" | ")[1]
        for line in format_table(results).splitlines()[2:]
    }
    assert rows == {"registered": TABLE_2_BASELINE, "plain": "other"}
    legend = [t.get_text() for t in plot_results(results).axes[0].get_legend().get_texts()]
    assert legend == [*MODEL_KINDS, "other"]
    legend = [t.get_text() for t in plot_results(results[:1]).axes[0].get_legend().get_texts()]
    assert legend == list(MODEL_KINDS)


def _attention_run(X, y, random_state):
    """A quick self-attentive model on a fixed split: its record and test probabilities."""
    X, y = X[:120], y[:120]
    fixed_split = np.arange(len(X)) >= 90
    seen = {}

    def keep(name, model, X_test, y_test):
        seen.update(random_state=model.random_state, proba=model.predict_proba(X_test))

    # The registry's seed (0) is replaced by the comparison's.
    models = {"self_attentive": available_models(quick=True)["self_attentive"]}
    [record] = compare(
        X,
        y,
        models,
        cv=None,
        test_mask=fixed_split,
        random_state=random_state,
        progress=lambda _: None,
        on_last_fold=keep,
    )
    return record, seen


def test_the_seed_of_a_comparison_seeds_the_models(toy):
    first, first_seen = _attention_run(*toy, random_state=0)
    again, again_seen = _attention_run(*toy, random_state=0)
    other, other_seen = _attention_run(*toy, random_state=1)
    timings = ("fit_seconds", "predict_docs_per_s")
    assert {k: v for k, v in first.items() if k not in timings} == {
        k: v for k, v in again.items() if k not in timings
    }
    np.testing.assert_array_equal(first_seen["proba"], again_seen["proba"])
    assert (first_seen["random_state"], other_seen["random_state"]) == (0, 1)
    assert np.abs(first_seen["proba"] - other_seen["proba"]).max() > 1e-3


@pytest.fixture
def captured_compare(monkeypatch, tmp_path):
    """Run the compare command on a tiny file, keeping what it passes to compare()."""
    path = tmp_path / "tiny.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *[[f"doc {i}", i % 2] for i in range(20)]])
    captured = {}

    def fake_compare(X, y, models, **options):
        captured.update(models=models, **options)
        return []

    monkeypatch.setattr(cli, "compare", fake_compare)

    def run(*options):
        names = "han,HN-AVE,self_attentive,bag_of_means"
        code = main(["compare", "--dataset", str(path), "--models", names, *options])
        return code, captured

    return run


def test_seed_option_seeds_splits_and_models(captured_compare):
    code, captured = captured_compare("--seed", "5")
    assert code == 0 and captured["random_state"] == 5
    models = captured["models"]
    assert models["han"]().random_state == models["self_attentive"]().random_state == 5
    assert models["bag_of_means"]().get_params()["bagofmeans__random_state"] == 5


def test_sentence_split_option_reaches_the_han_models_only(captured_compare):
    code, captured = captured_compare("--sentence-split", "lines")
    models = captured["models"]
    assert code == 0
    assert models["han"]().sentence_split == models["HN-AVE"]().sentence_split == "lines"
    assert "sentence_split" not in models["self_attentive"]().get_params()
    code, captured = captured_compare("--sentence-split", "skattn.text:split_lines")
    assert code == 0 and captured["models"]["han"]().sentence_split is split_lines
    code, _ = captured_compare()
    assert code == 0 and captured["models"]["han"]().sentence_split == "punctuation"


def test_a_wrong_sentence_split_fails_before_reading_data(captured_compare, capsys):
    code, captured = captured_compare("--sentence-split", "paragraphs")
    error = capsys.readouterr().err
    assert code == 1 and "sentence_split" in error and "'paragraphs'" in error
    assert "models" not in captured
