"""The main job: the registry, the fold loop, the statistics, the report and the command."""

import csv
import json
import math

import numpy as np
import pytest
from scipy import stats

import skattn.__main__ as cli
from skattn.__main__ import main
from skattn.baselines import bow, fasttext_available, tfidf_logreg
from skattn.baselines._table2 import TABLE_2
from skattn.compare import (
    ATTENTION_MODEL,
    MODEL_KINDS,
    OTHER_BASELINE,
    TABLE_2_BASELINE,
    TUNED_BASELINE,
    ModelEntry,
    add_statistics,
    available_models,
    best_baseline,
    bootstrap_interval,
    compare,
    corrected_resampled_ttest,
    drop_rare_classes,
    format_json,
    format_table,
    load_dataset,
    mcnemar_test,
    model_kind,
    paired_test,
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
    assert printed.count("fold 1/2: accuracy") == 2 and printed.count("fold 2/2: accuracy") == 2
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert [r["model"] for r in results] == ["self_attentive", "tfidf_logreg"]
    assert [r["kind"] for r in results] == [ATTENTION_MODEL, TUNED_BASELINE]
    for r in results:
        assert len(r["accuracies"]) == 2 and 0.4 < r["accuracy_mean"] <= 1.0
        assert r["accuracy_mean"] == pytest.approx(np.mean(r["accuracies"]))
        assert f"{100 * r['accuracy_mean']:.2f}" in printed
    first_line, table = (tmp_path / "results.md").read_text().split("\n\n", 1)
    assert first_line.startswith("sentence_polarity, task classification, QUICK RUN")
    assert table.splitlines()[0].startswith("| model | kind | accuracy")
    accuracy_table = table.split("\n\n")[0]
    assert len(accuracy_table.splitlines()) == 4
    # One faithfulness table, for the attention model only: its three methods and random.
    assert "self_attentive (100 documents)" in table and "tfidf_logreg (100" not in table
    faithfulness = json.loads((tmp_path / "results.json").read_text())["faithfulness"]
    rows = faithfulness["self_attentive"]
    assert [row["method"] for row in rows] == [
        "attention",
        "gradient",
        "integrated_gradients",
        "random",
    ]
    assert all(np.isfinite(row["comprehensiveness"]) for row in rows)
    by_method = {row["method"]: row for row in rows}
    assert (
        by_method["integrated_gradients"]["comprehensiveness"]
        > by_method["random"]["comprehensiveness"]
    )
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
    assert f"{len(X)} documents, 3-fold CV" in out and out.count("fold 3/3: accuracy") == 2


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
    expected = set(MODEL_KINDS) if fasttext_available() else set(MODEL_KINDS) - {OTHER_BASELINE}
    assert set(kinds.values()) == expected
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
    # The legend names the kinds present, "other" last.
    legend = [t.get_text() for t in plot_results(results).legends[0].get_texts()]
    assert legend == [TABLE_2_BASELINE, "other"]
    legend = [t.get_text() for t in plot_results(results[:1]).legends[0].get_texts()]
    assert legend == [TABLE_2_BASELINE]


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
    skipped = ("fit_seconds", "fit_seconds_folds", "predict_docs_per_s", "correct", "test_indices")
    assert {k: v for k, v in first.items() if k not in skipped} == {
        k: v for k, v in again.items() if k not in skipped
    }
    for key in ("correct", "test_indices"):
        np.testing.assert_array_equal(first[key][0], again[key][0])
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

    monkeypatch.setattr("skattn.compare.compare", fake_compare)

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


# --- Statistics: intervals and paired tests, against hand computations -------------------------


def _correct(n_right, n):
    """A correctness vector: the first n_right of n documents right."""
    return np.r_[np.ones(n_right, bool), np.zeros(n - n_right, bool)]


def test_mcnemar_matches_the_exact_binomial_by_hand():
    # 100 documents: both right on 80, only a right on 7, only b right on 2, both wrong on 11.
    a = np.r_[np.ones(80), np.ones(7), np.zeros(2), np.zeros(11)].astype(bool)
    b = np.r_[np.ones(80), np.zeros(7), np.ones(2), np.zeros(11)].astype(bool)
    result = mcnemar_test(a, b)
    assert (result["a_only"], result["b_only"]) == (7, 2)
    # Two-sided: 2 · P(X >= 7), X ~ Binomial(9, 1/2).
    by_hand = 2 * sum(math.comb(9, k) for k in range(7, 10)) / 2**9
    assert by_hand == pytest.approx(92 / 512)
    assert result["p_value"] == pytest.approx(by_hand, rel=1e-12)
    assert mcnemar_test(b, a)["p_value"] == pytest.approx(by_hand, rel=1e-12)
    # Models that never disagree: nothing to test.
    assert mcnemar_test(a, a) == {"a_only": 0, "b_only": 0, "p_value": 1.0}


def test_corrected_t_test_matches_the_formula_by_hand():
    # Five folds of 200 test documents (800 training): per-fold correct counts.
    model_right = [170, 164, 172, 166, 169]
    base_right = [165, 163, 164, 161, 166]
    d = [(m - b) / 200 for m, b in zip(model_right, base_right)]
    mean = sum(d) / 5
    variance = sum((x - mean) ** 2 for x in d) / 4
    t = mean / math.sqrt((1 / 5 + 200 / 800) * variance)
    # The t distribution with 4 degrees of freedom has a closed-form CDF.
    cdf = 0.5 + 3 / 8 * t / math.sqrt(1 + t * t / 4) * (1 - t * t / (12 * (1 + t * t / 4)))
    p_by_hand = 2 * (1 - cdf)
    result = corrected_resampled_ttest(d, n_train=800, n_test=200)
    assert result["df"] == 4
    assert result["t"] == pytest.approx(t, rel=1e-12)
    assert result["p_value"] == pytest.approx(p_by_hand, rel=1e-9)
    # The uncorrected paired t-test on the same folds is more confident: the
    # correction is what keeps it honest.
    naive = stats.ttest_rel(np.array(model_right) / 200, np.array(base_right) / 200)
    assert naive.pvalue < result["p_value"]
    # The same numbers through records of one run.
    model = {"correct": [_correct(k, 200) for k in model_right], "n_train": [800] * 5}
    base = {"model": "bow", "correct": [_correct(k, 200) for k in base_right], "n_train": [800] * 5}
    record = paired_test(model, base)
    assert record["test"] == "corrected resampled t-test" and record["baseline"] == "bow"
    assert record["margin"] == pytest.approx(100 * mean)
    assert record["p_value"] == pytest.approx(p_by_hand, rel=1e-9)
    assert record["significant"] == (p_by_hand < 0.05)


def test_corrected_t_test_without_spread():
    assert corrected_resampled_ttest([0.0, 0.0, 0.0], 80, 20)["p_value"] == 1.0
    assert corrected_resampled_ttest([0.01, 0.01, 0.01], 80, 20)["p_value"] == 0.0
    with pytest.raises(ValueError, match="at least 2 folds"):
        corrected_resampled_ttest([0.01], 80, 20)


def test_single_split_paired_test_is_mcnemar_on_the_documents():
    model = {"correct": [_correct(90, 100)], "n_train": [400]}
    base = {"model": "bow", "correct": [_correct(80, 100)], "n_train": [400]}
    record = paired_test(model, base)
    # Only the model is right on 10 documents, only the baseline on none: p = 2 / 2**10.
    assert (record["model_only"], record["baseline_only"]) == (10, 0)
    assert record["margin"] == pytest.approx(10.0)
    assert record["p_value"] == pytest.approx(2 / 2**10)
    assert record["significant"] is True and record["test"] == "McNemar exact"
    with pytest.raises(ValueError, match="same folds"):
        paired_test(model, {"correct": [_correct(80, 90)], "n_train": [400]})


def test_bootstrap_interval_holds_the_accuracy_and_shrinks_with_more_documents():
    small = bootstrap_interval(_correct(77, 100))
    large = bootstrap_interval(_correct(7700, 10000))
    for low, high in (small, large):
        assert low <= 0.77 <= high
    assert (large[1] - large[0]) < (small[1] - small[0]) / 5  # width ∝ 1/sqrt(n)
    # About ±1.96 standard errors: sqrt(0.77 · 0.23 / 100) = 4.2 points.
    assert small[1] - small[0] == pytest.approx(2 * 1.96 * math.sqrt(0.77 * 0.23 / 100), abs=0.02)
    assert bootstrap_interval(_correct(77, 100)) == small  # fixed seed
    # The same distribution as resampling document indices (the literal bootstrap).
    rng = np.random.default_rng(1)
    correct = _correct(77, 100)
    resampled = correct[rng.integers(0, 100, size=(20000, 100))].mean(axis=1)
    literal = np.quantile(resampled, [0.025, 0.975])
    np.testing.assert_allclose(bootstrap_interval(correct, n_resamples=20000), literal, atol=0.011)


def _record(name, kind, folds):
    accuracies = [float(np.mean(c)) for c in folds]
    return {
        "model": name,
        "kind": kind,
        "accuracies": accuracies,
        "accuracy_mean": float(np.mean(accuracies)),
        "accuracy_std": float(np.std(accuracies)),
        "fit_seconds": 2.5,
        "predict_docs_per_s": 1000.0,
        "correct": folds,
        "n_train": [4 * len(c) for c in folds],
    }


def test_the_best_baseline_is_any_baseline_kind_and_only_attention_models_are_tested():
    results = [
        _record("att", ATTENTION_MODEL, [_correct(85, 100)]),
        _record("bow", TABLE_2_BASELINE, [_correct(78, 100)]),
        _record("tuned", TUNED_BASELINE, [_correct(80, 100)]),
        _record("fasttext", OTHER_BASELINE, [_correct(82, 100)]),
        _record("mystery", None, [_correct(99, 100)]),
    ]
    assert best_baseline(results)["model"] == "fasttext"
    add_statistics(results)
    assert results[0]["paired_test"]["baseline"] == "fasttext"
    assert results[0]["paired_test"]["margin"] == pytest.approx(3.0)
    assert [r["paired_test"] is None for r in results[1:]] == [True] * 4
    assert best_baseline(results[:1]) is None


def test_table_and_json_show_interval_margin_p_value_and_significance():
    single = add_statistics(
        [
            _record("att", ATTENTION_MODEL, [_correct(90, 100)]),
            _record("bow", TABLE_2_BASELINE, [_correct(80, 100)]),
            _record("bow_tuned", TUNED_BASELINE, [_correct(70, 100)]),
        ]
    )
    header, _, att, bow, tuned = format_table(single).splitlines()
    assert header.split(" | ")[2:] == [
        "accuracy (%) [95% bootstrap interval]",
        "fit s / fold",
        "predict docs/s",
        "vs bow (points)",
        "p (McNemar exact)",
        "significant (5%) |",
    ]
    low, high = (100 * x for x in single[0]["accuracy_interval"])
    assert att.split(" | ") == [
        "| att",
        "attention model",
        f"90.00 [{low:.2f}, {high:.2f}]",
        "2.5",
        "1000",
        "+10.00",
        "0.002",
        "yes |",
    ]
    assert bow.endswith("| best baseline | – | – |") and tuned.endswith("| – | – | – |")
    document = json.loads(format_json(single, dataset="toy"))
    att_json = document["results"][0]
    assert att_json["paired_test"]["p_value"] == pytest.approx(2 / 2**10)
    assert att_json["accuracy_interval"] == pytest.approx(single[0]["accuracy_interval"])
    assert att_json["correct"] == ["1" * 90 + "0" * 10]

    folds = add_statistics(
        [
            _record("att", ATTENTION_MODEL, [_correct(k, 100) for k in (81, 79, 80)]),
            _record("bow", TABLE_2_BASELINE, [_correct(k, 100) for k in (80, 80, 80)]),
        ]
    )
    header, _, att, _ = format_table(folds).splitlines()
    assert "mean ± std over folds" in header and "p (corrected resampled t-test)" in header
    assert "| 80.00 ± 0.82 | 2.5 |" in att and att.endswith("| +0.00 | 1.000 | no |")
    assert folds[0]["accuracy_interval"] is None


def _error_bar_extents(figure):
    """(low, high) of each horizontal error bar of a plot_results chart, bottom bar first."""
    [bars] = [c for c in figure.axes[0].containers if hasattr(c, "errorbar")]
    segments = bars.errorbar.lines[2][0].get_segments()
    return [(s[0][0], s[1][0]) for s in segments]


def test_the_chart_draws_the_intervals_as_error_bars():
    single = add_statistics(
        [
            _record("att", ATTENTION_MODEL, [_correct(90, 100)]),
            _record("bow", TABLE_2_BASELINE, [_correct(80, 100)]),
        ]
    )
    figure = plot_results(single)
    extents = _error_bar_extents(figure)  # sorted by accuracy: bow, then att
    for record, (low, high) in zip([single[1], single[0]], extents):
        assert (low, high) == pytest.approx([100 * x for x in record["accuracy_interval"]])
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert texts == ["80.0", "90.0  (+10.0*)"]
    assert "bootstrap interval" in figure.axes[0].get_xlabel()
    assert "McNemar exact" in figure.axes[0].get_xlabel()

    folds = [_record("bow", TABLE_2_BASELINE, [_correct(k, 100) for k in (70, 80, 90)])]
    [(low, high)] = _error_bar_extents(plot_results(add_statistics(folds)))
    std = 100 * np.std([0.7, 0.8, 0.9])
    assert (low, high) == pytest.approx((80 - std, 80 + std))


# --- The fold loop: per-document records, rare classes, one split -----------------------------


def test_records_keep_per_document_correctness_paired_across_models(toy):
    X, y = toy
    results = compare(X, y, {"bow": bow, "tfidf": tfidf_logreg}, cv=3, progress=lambda _: None)
    for r in results:
        assert [c.size for c in r["correct"]] == [80, 80, 80] and r["n_train"] == [160] * 3
        assert r["accuracies"] == pytest.approx([c.mean() for c in r["correct"]])
        assert len(r["fit_seconds_folds"]) == 3
        assert r["fit_seconds"] == pytest.approx(np.mean(r["fit_seconds_folds"]))
    for a, b in zip(results[0]["test_indices"], results[1]["test_indices"]):
        np.testing.assert_array_equal(a, b)
    covered = np.sort(np.concatenate(results[0]["test_indices"]))
    np.testing.assert_array_equal(covered, np.arange(len(X)))


def test_one_fold_is_one_stratified_split(toy):
    X, y = toy
    [record] = compare(X, y, {"bow": bow}, cv=1, test_size=0.25, progress=lambda _: None)
    assert [c.size for c in record["correct"]] == [60] and record["n_train"] == [180]
    low, high = record["accuracy_interval"]
    assert low <= record["accuracy_mean"] <= high
    with pytest.raises(ValueError, match="cv must be None or an int >= 1"):
        compare(X, y, {"bow": bow}, cv=0, progress=lambda _: None)


def test_classes_smaller_than_the_folds_are_refused_by_name_or_dropped(toy):
    X, y = toy
    y = y.astype(object)
    y[:3] = "rare"
    with pytest.raises(ValueError, match=r"5-fold CV needs at least 5 .*'rare': 3"):
        compare(X, y, {"bow": bow}, cv=5, progress=lambda _: None)
    kept_X, kept_y, keep, dropped = drop_rare_classes(X, y, 5)
    assert dropped == {"rare": 3} and len(kept_X) == len(X) - 3 and keep[:3].sum() == 0
    assert "rare" not in set(kept_y)
    # A fixed split needs no stratification.
    mask = np.arange(len(X)) >= 200
    [record] = compare(X, y, {"bow": bow}, cv=None, test_mask=mask, progress=lambda _: None)
    assert record["n_train"] == [200]


def test_the_command_drops_rare_classes_visibly(tmp_path, capsys):
    path = tmp_path / "chat.csv"
    rows = [[f"hello there {i}", "Greet"] for i in range(20)]
    rows += [[f"what is {i}?", "whQuestion"] for i in range(20)]
    rows += [["huh", "Clarify"], ["what?", "Clarify"]]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *rows])
    output = tmp_path / "out"
    options = ["--models", "bow", "--folds", "3", "--output", str(output)]
    code = main(["compare", "--dataset", str(path), *options])
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "dropped 1 class(es) with fewer than 3 documents, 2 document(s) "
        "(class: documents): {'Clarify': 2}" in out
    )
    assert "40 documents, 3-fold CV" in out
    document = json.loads((output / "results.json").read_text())
    assert document["dropped_classes"] == {"Clarify": 2} and document["documents"] == 40


def test_every_shipped_corpus_is_a_dataset():
    corpus = load_dataset("nps_chat")
    assert len(corpus.X) == 10567 and len(set(corpus.y)) == 15 and corpus.test_mask is None
    with pytest.raises(ValueError, match="nps_chat"):
        load_dataset("nope")


@pytest.mark.skipif(not fasttext_available(), reason="needs the fasttext extra")
def test_fasttext_is_a_default_other_baseline_when_installed():
    entry = available_models(random_state=4)["fasttext"]
    assert entry.kind == OTHER_BASELINE and entry().random_state == 4
    assert "fasttext" in cli.DEFAULT_MODELS


def test_sick_is_a_corpus_of_pairs_with_its_fixed_split():
    from skattn.compare import available_models, load_dataset

    corpus = load_dataset("sick")
    assert len(corpus.X) == 4500 + 500 + 4927 and int(corpus.test_mask.sum()) == 4927
    assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in corpus.X[:10])
    models = available_models()
    assert models["self_attentive_pair"].kind == "attention model"
    assert type(models["self_attentive_pair"]()).__name__ == "SelfAttentivePairClassifier"
    assert models["tfidf_pair_logreg"].kind == "tuned baseline"


# --- The task, --quick and the results files, through the public command line ----------------

from test_cli import run_cli  # noqa: E402


def _write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["text", "label"], *rows])
    return path


@pytest.fixture(scope="module")
def polarity_rows(polarity):
    """200 real snippets (100 of each class), with their class as 0/1."""
    X, y = polarity
    rng = np.random.RandomState(0)
    negative = rng.choice(np.flatnonzero(np.asarray(y) == "neg"), 100, replace=False)
    positive = rng.choice(np.flatnonzero(np.asarray(y) == "pos"), 100, replace=False)
    order = rng.permutation(np.r_[negative, positive])
    return [X[i] for i in order], [int(y[i] == "pos") for i in order]


def test_a_numeric_label_csv_is_compared_as_a_regression(polarity_rows, tmp_path):
    X, y = polarity_rows
    # A score: the class plus a fraction that grows with the length.
    rows = [[x, f"{label + min(len(x), 200) / 400:.3f}"] for x, label in zip(X, y)]
    path = _write_csv(tmp_path / "scores.csv", rows)
    output = tmp_path / "out"
    done = run_cli(
        "compare", "--dataset", path, "--quick", "--models", "tfidf_ridge,self_attentive",
        "--faithfulness", "0", "--output", output,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "task regression: its labels are numbers with fractions" in done.stdout
    assert "'continuous'" in done.stdout
    document = json.loads((output / "results.json").read_text(encoding="utf-8"))
    assert document["task"] == "regression" and document["documents"] == 200
    records = {r["model"]: r for r in document["results"]}
    assert set(records) == {"tfidf_ridge", "self_attentive"}
    for record in records.values():
        assert {"r2_mean", "mae_mean", "pearson_mean"} <= set(record)
        assert record["n_train"] == [160]
    # The scores follow the class and the length: the ridge baseline finds them.
    assert records["tfidf_ridge"]["pearson_mean"] > 0.3
    assert "| R² | MAE | Pearson r |" in (output / "results.md").read_text(encoding="utf-8")


def test_quick_is_recorded_in_the_results_and_the_report(polarity_rows, tmp_path):
    X, y = polarity_rows
    path = _write_csv(tmp_path / "p.csv", [[x, ["neg", "pos"][label]] for x, label in zip(X, y)])
    output = tmp_path / "out"
    argv = ["compare", "--dataset", path, "--models", "bow", "--faithfulness", "0"]
    done = run_cli(*argv, "--quick", "--output", output)
    assert done.returncode == 0, done.stderr
    document = json.loads((output / "results.json").read_text(encoding="utf-8"))
    assert document["quick"] is True and "not for conclusions" in document["quick_settings"]
    first_line = (output / "results.md").read_text(encoding="utf-8").splitlines()[0]
    assert "QUICK RUN" in first_line and "not for conclusions" in first_line
    # An earlier run's results are kept unless --force.
    done = run_cli(*argv, "--output", output)
    assert done.returncode == 1 and "--force overwrites them" in done.stderr
    assert json.loads((output / "results.json").read_text(encoding="utf-8"))["quick"] is True
    done = run_cli(*argv, "--output", output, "--force")
    assert done.returncode == 0, done.stderr
    document = json.loads((output / "results.json").read_text(encoding="utf-8"))
    assert document["quick"] is False and "quick_settings" not in document
    assert (output / "results.md").read_text(encoding="utf-8").splitlines()[0].endswith("full run")


def test_quick_shrinks_every_baseline_and_every_attention_model():
    from skattn._cli._parser import QUICK_SUMMARY

    full, quick = available_models(), available_models(quick=True)
    for name in ("ngrams", "ngrams_tfidf", "ngrams_tuned", "ovr_ngrams"):
        ranges = [v for k, v in quick[name]().get_params().items() if k.endswith("ngram_range")]
        assert ranges == [(1, 2)], name
        assert [v for k, v in full[name]().get_params().items() if k.endswith("ngram_range")] == [
            (1, 5)
        ]
    assert quick["bag_of_means"]().get_params()["bagofmeans__n_means"] == 500
    assert full["bag_of_means"]().get_params()["bagofmeans__n_means"] == 5000
    assert quick["mean_word2vec"]().get_params()["meanwordvectors__vector_size"] == 50
    for name, entry in quick.items():
        if entry.kind == ATTENTION_MODEL:
            assert entry().max_epochs == 1, name
    help_text = " ".join(run_cli("compare", "--help").stdout.split())
    assert " ".join(QUICK_SUMMARY.split()) in help_text
    assert "n-grams up to 2" in help_text and "bag-of-means with 500 means" in help_text


def test_integer_labels_are_a_classification_unless_told(polarity_rows, tmp_path):
    X, y = polarity_rows
    path = _write_csv(tmp_path / "r.csv", [[x, 1 + 4 * label] for x, label in zip(X, y)])
    argv = ["compare", "--dataset", path, "--faithfulness", "0"]
    done = run_cli(*argv, "--models", "bow")
    assert done.returncode == 0, done.stderr
    assert "task classification: its labels are 2 distinct integers" in done.stdout
    assert "'binary'" in done.stdout and "--task regression treats them as numbers" in done.stdout
    done = run_cli(*argv, "--models", "tfidf_ridge", "--task", "regression")
    assert done.returncode == 0, done.stderr
    assert "task regression: asked (--task regression)" in done.stdout
    assert "| R² | MAE | Pearson r |" in done.stdout
    done = run_cli(*argv, "--task", "regression", "--dataset", "sentence_polarity")
    assert done.returncode == 1 and "needs numeric labels" in done.stderr


def test_product_reviews_is_compared_as_the_regression_corpus_it_is():
    # Its targets are whole numbers (-9 to 18), which type_of_target calls classes.
    done = run_cli("compare", "--dataset", "product_reviews", "--models", "tfidf_ridge",
                   "--faithfulness", "0")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "task regression: product_reviews is a regression corpus" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("| tfidf_ridge"))
    assert 0.1 < float(row.split("|")[3]) < 0.6  # R² of a tuned ridge on opinion strengths


def test_a_separator_joined_label_column_is_multilabel(polarity_rows, tmp_path):
    X, y = polarity_rows
    # Each snippet: its class, and "long" when it has more than 100 characters.
    rows = [
        [x, ["neg", "pos"][label] + (";long" if len(x) > 100 else "")] for x, label in zip(X, y)
    ]
    rows[0][1] = ""  # a document without labels: kept, and counted
    path = _write_csv(tmp_path / "m.csv", rows)
    output = tmp_path / "out"
    done = run_cli(
        "compare", "--dataset", path, "--task", "multilabel", "--label-separator", ";",
        "--models", "ovr_bow_tfidf", "--faithfulness", "0", "--output", output,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "left out" not in done.stdout
    assert (
        "task multilabel: asked (--task multilabel): label cells split at ';'; "
        "1 empty cell(s) read as documents without labels"
    ) in done.stdout
    document = json.loads((output / "results.json").read_text(encoding="utf-8"))
    assert document["labels"] == ["long", "neg", "pos"] and document["documents"] == 200
    assert document["results"][0]["macro_f1_mean"] > 0.0


def test_compare_help_names_the_default_columns_and_dataset():
    help_text = " ".join(run_cli("compare", "--help").stdout.split())
    assert "text column of a file (default: text)" in help_text
    assert "label column of a file (default: label)" in help_text
    assert "sentence_polarity (default)" in help_text


def test_progress_is_shown_when_asked_and_not_off_a_terminal(polarity_rows, tmp_path):
    X, y = polarity_rows
    path = _write_csv(tmp_path / "p.csv", [[x, ["neg", "pos"][label]] for x, label in zip(X, y)])
    argv = ["compare", "--dataset", path, "--quick", "--models", "self_attentive,bow"]
    argv += ["--faithfulness", "0"]
    quiet = run_cli(*argv)  # not a terminal: no bar, no epoch table
    assert quiet.returncode == 0, quiet.stderr
    assert "self_attentive fold 1/1: training on 160 documents" in quiet.stdout
    assert "%|" not in quiet.stderr and "train_loss" not in quiet.stdout
    shown = run_cli(*argv, "--progress", "always")
    assert shown.returncode == 0, shown.stderr
    assert "%|" in shown.stderr and "train_loss" in shown.stdout  # skorch's bar and table
    assert "\x1b[" not in shown.stdout  # no colour codes off a terminal
