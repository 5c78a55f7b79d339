"""One decision rule: scores to predictions, the same in the estimators, the CLI and serving."""

import csv
import inspect
import json

import numpy as np
import pytest

import skattn.__main__
from skattn import load, save
from skattn.__main__ import main
from skattn.decisions import DecisionRule, InvalidDecisionRule

from estimators import small_self_attentive, small_self_attentive_regressor

PROBA = np.array([[0.9, 0.1], [0.65, 0.35], [0.45, 0.55], [0.2, 0.8]])


def test_each_rule_decides_as_documented():
    assert DecisionRule.argmax(["neg", "pos"]).decide(PROBA).tolist() == [
        "neg",
        "neg",
        "pos",
        "pos",
    ]
    # classes_[1] from 0.3 on: the second document too, though "neg" is more probable.
    assert DecisionRule.threshold(["neg", "pos"], 0.3).decide(PROBA).tolist() == [
        "neg",
        "pos",
        "pos",
        "pos",
    ]
    assert DecisionRule.threshold([0, 1], 0.7).decide(PROBA).tolist() == [0, 0, 0, 1]
    tags = DecisionRule.multilabel(3, [0.5, 0.2, 0.9], "<i4")
    decided = tags.decide(np.array([[0.6, 0.1, 0.95], [0.4, 0.2, 0.5]]))
    assert decided.tolist() == [[1, 0, 1], [0, 1, 0]] and decided.dtype == np.int32
    assert tags.labels(decided) == [[0, 2], [1]]
    scale = DecisionRule.regression([10.0, 0.0], [2.0, 0.5], 2)
    np.testing.assert_allclose(scale.decide(np.array([[1.0, 4.0]])), [[12.0, 2.0]], rtol=1e-15)
    one = DecisionRule.regression([10.0], [2.0], 1).decide(np.array([[1.0], [-1.0]]))
    assert one.shape == (2,) and one.tolist() == [12.0, 8.0]


@pytest.mark.parametrize(
    "rule",
    [
        DecisionRule.argmax(["neg", "pos"]),
        DecisionRule.argmax(np.array([3, 7, 11])),
        DecisionRule.argmax(np.array([0.5, 1.5])),
        DecisionRule.threshold([False, True], 0.25),
        DecisionRule.multilabel(4, [0.1, 0.2, 0.3, 0.4], "<f4"),
        DecisionRule.regression([1.0, 2.0], [3.0, 4.0], 2),
    ],
    ids=lambda rule: rule.kind,
)
def test_a_rule_survives_a_json_round_trip(rule):
    config = json.loads(json.dumps(rule.to_config()))
    again = DecisionRule.from_config(config)
    assert again == rule
    if rule.classes is not None:
        assert again.classes_array.dtype == rule.classes_array.dtype


def _argmax(values, dtype="<U3"):
    return {"kind": "argmax", "classes": {"values": values, "dtype": dtype}}


@pytest.mark.parametrize(
    "config, words",
    [
        ({"kind": "vote"}, "kind is 'vote'"),
        ([1, 2], "expected a JSON object"),
        (_argmax(["pos", "neg"]), "not sorted and distinct"),
        (_argmax(["neg", "neg"]), "not sorted and distinct"),
        (_argmax(["pos"]), "at least 2"),
        (_argmax(["a", "b"], "<M8[s]"), "are not labels"),
        (_argmax(["a", "b"], "float128x"), "not a numpy dtype"),
        ({**_argmax(["neg", "pos"]), "thresholds": [0.5]}, "unknown fields"),
        ({**_argmax(["neg", "pos"]), "kind": "threshold"}, "0 thresholds"),
        ({**_argmax(["neg", "pos"]), "kind": "threshold", "thresholds": [1.2]}, "in \\[0, 1\\]"),
        ({**_argmax(["neg", "pos"]), "kind": "threshold", "thresholds": [None]}, "numbers"),
        ({**_argmax(["a", "b", "c"]), "kind": "threshold", "thresholds": [0.5]}, "between 2"),
        (
            {
                "kind": "multilabel",
                "classes": {"values": [0, 2], "dtype": "<i8"},
                "thresholds": [0.5, 0.5],
            },
            "column indices",
        ),
        (
            {"kind": "regression", "target_mean": [0.0], "target_scale": [0.0], "target_ndim": 1},
            "> 0",
        ),
        (
            {
                "kind": "regression",
                "target_mean": [0.0, 1.0],
                "target_scale": [1.0],
                "target_ndim": 2,
            },
            "2 means for 1 scales",
        ),
        (
            {
                "kind": "regression",
                "target_mean": [0.0, 1.0],
                "target_scale": [1.0, 1.0],
                "target_ndim": 1,
            },
            "one output",
        ),
        (
            {
                "kind": "regression",
                "target_mean": [float("nan")],
                "target_scale": [1.0],
                "target_ndim": 1,
            },
            "finite",
        ),
    ],
)
def test_an_invalid_rule_is_refused_naming_what_is_wrong(config, words):
    with pytest.raises(InvalidDecisionRule, match=words):
        DecisionRule.from_config(config)


def test_scores_of_the_wrong_shape_are_refused():
    with pytest.raises(
        ValueError, match=r"shape \(4, 2\); this argmax rule reads \(n_documents, 3\)"
    ):
        DecisionRule.argmax(["a", "b", "c"]).decide(PROBA)


@pytest.fixture(scope="module")
def thresholded(toy):
    """A classifier fitted with a threshold that makes it answer unlike argmax on ``toy``."""
    X, y = toy
    proba = small_self_attentive(max_epochs=1).fit(X, y).predict_proba(X)[:, 1]
    return small_self_attentive(max_epochs=1, threshold=float(np.median(proba))).fit(X, y)


def test_the_estimators_predict_through_their_rule(thresholded, toy):
    X, y = toy
    rule = thresholded.decision_rule_
    proba = thresholded.predict_proba(X)
    assert rule.kind == "threshold" and rule.thresholds == (thresholded.thresholds_[0],)
    np.testing.assert_array_equal(thresholded.predict(X), rule.decide(proba))
    assert (thresholded.predict(X) != thresholded.classes_[proba.argmax(axis=1)]).any()
    regressor = small_self_attentive_regressor(max_epochs=1).fit(X, np.arange(len(X), dtype=float))
    logits = regressor.document_outputs(X)["logits"]
    np.testing.assert_array_equal(regressor.predict(X), regressor.decision_rule_.decide(logits))
    assert regressor.decision_rule_.target_mean == (np.mean(np.arange(len(X))),)


def test_the_predict_command_decides_as_predict(thresholded, toy, tmp_path):
    X, _ = toy
    saved = save(thresholded, tmp_path / "m.skattn")
    output = tmp_path / "p.csv"
    argv = ["predict", str(saved), "--output", str(output)]
    assert main([*argv, *[arg for text in X[:40] for arg in ("--text", text)]]) == 0
    with open(output, newline="", encoding="utf-8") as handle:
        labels = [row["label"] for row in csv.DictReader(handle)]
    assert labels == load(saved).predict(X[:40]).tolist() == thresholded.predict(X[:40]).tolist()
    proba = thresholded.predict_proba(X[:40])
    assert labels != thresholded.classes_[proba.argmax(axis=1)].tolist()


def test_the_command_line_calls_no_private_estimator_method():
    # The command line is skattn.__main__ and the modules of skattn._cli.
    import importlib
    import pkgutil

    from skattn import _cli

    modules = [skattn.__main__, _cli] + [
        importlib.import_module(f"skattn._cli.{info.name}")
        for info in pkgutil.iter_modules(_cli.__path__)
    ]
    source = "".join(inspect.getsource(module) for module in modules)
    for private in ("._decide", "._multilabel", "._thresholds", "._target_dtype"):
        assert private not in source
