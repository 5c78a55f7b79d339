"""scikit-learn conventions, run on every attention estimator."""

import pickle

import numpy as np
import pytest
import sklearn.utils.estimator_checks as sk_checks
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline

from estimators import GRIDS, SMALL_ESTIMATORS

DATA_FREE_CHECKS = [
    "check_estimator_cloneable",
    "check_estimator_repr",
    "check_no_attributes_set_in_init",
    "check_do_not_raise_errors_in_init_or_set_params",
    "check_mixin_order",
    "check_valid_tag_types",
    "check_estimator_tags_renamed",
    "check_get_params_invariance",
    "check_set_params",
    "check_parameters_default_constructible",
    "check_param_validation",
    "check_estimator_sparse_tag",
]

pytestmark = pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)


@pytest.mark.parametrize("check", DATA_FREE_CHECKS)
def test_scikit_learn_data_free_checks(make, check):
    estimator = make()
    getattr(sk_checks, check)(type(estimator).__name__, estimator)


def test_tags_declare_text_input(make):
    tags = make().__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array


def test_clone_and_params(make):
    est = make(min_count=2)
    copy = clone(est)
    assert copy is not est and copy.get_params() == est.get_params()
    assert copy.set_params(min_count=3).get_params()["min_count"] == 3
    assert est.min_count == 2


def test_unfitted_estimator_raises_not_fitted(make, polarity_small):
    X, _ = polarity_small
    est = make()
    for method in ("predict", "predict_proba", "decision_function", "transform"):
        with pytest.raises(NotFittedError):
            getattr(est, method)(X[:3])


def test_fit_returns_self_and_predicts_values_of_classes(make, polarity_small):
    X, y = polarity_small
    est = make()
    assert est.fit(X, y) is est
    assert set(est.predict(X)) <= set(est.classes_) and list(est.classes_) == ["neg", "pos"]


@pytest.mark.parametrize("kind", ["int", "bool", "str3"])
def test_label_types_round_trip(make, kind, polarity_small):
    X, y = polarity_small
    labels = {
        "int": np.where(y == "pos", 7, -3),
        "bool": y == "pos",
        "str3": np.array(["a", "b", "c"])[np.arange(len(y)) % 3],
    }[kind]
    est = make().fit(X, labels)
    pred = est.predict(X[:50])
    assert pred.dtype == labels.dtype and set(pred) <= set(labels)
    assert est.predict_proba(X[:50]).shape == (50, len(set(labels)))


def test_probabilities_and_decision_function_agree_with_predict(make, polarity_small):
    X, y = polarity_small
    est = make().fit(X, y)
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    decision = est.decision_function(X)
    np.testing.assert_allclose(expit(decision), proba[:, 1], rtol=1e-6)
    np.testing.assert_array_equal(est.classes_[(decision > 0).astype(int)], est.predict(X))


def test_pickle_round_trip_keeps_predictions(make, polarity_small):
    X, y = polarity_small
    est = make().fit(X, y)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict_proba(X), est.predict_proba(X))


def test_same_random_state_gives_identical_models(make, polarity_small):
    X, y = polarity_small
    a = make(random_state=3).fit(X, y).predict_proba(X)
    b = make(random_state=3).fit(X, y).predict_proba(X)
    c = make(random_state=4).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sample_weight_of_ones_equals_none_and_weights_shift_predictions(make, polarity_small):
    X, y = polarity_small
    plain = make().fit(X, y).predict_proba(X)
    ones = make().fit(X, y, sample_weight=np.ones(len(y))).predict_proba(X)
    np.testing.assert_array_equal(plain, ones)
    favour_pos = make().fit(X, y, sample_weight=np.where(y == "pos", 20.0, 1.0))
    assert favour_pos.predict_proba(X)[:, 1].mean() > plain[:, 1].mean() + 0.05


def test_grid_search_parallel_matches_serial(make, polarity_small):
    X, y = polarity_small
    grid = GRIDS[type(make()).__name__]
    parallel = GridSearchCV(make(max_epochs=1), grid, cv=2, n_jobs=2).fit(X, y)
    serial = GridSearchCV(make(max_epochs=1), grid, cv=2, n_jobs=1).fit(X, y)
    assert len(parallel.cv_results_["params"]) == 8
    np.testing.assert_array_equal(
        parallel.cv_results_["mean_test_score"], serial.cv_results_["mean_test_score"]
    )
    assert parallel.best_params_ in grid_points(grid)


def grid_points(grid):
    from sklearn.model_selection import ParameterGrid

    return list(ParameterGrid(grid))


def test_pipeline_and_cross_val_score(make, polarity_small):
    X, y = polarity_small
    scores = cross_val_score(Pipeline([("clf", make())]), np.array(X, dtype=object), y, cv=3)
    assert scores.shape == (3,) and np.all((scores > 0.3) & (scores <= 1.0))


def test_validation_split_and_early_stopping_use_held_out_data(make, polarity_small):
    X, y = polarity_small
    est = make(max_epochs=30, early_stopping=True, n_iter_no_change=2, lr=0.05).fit(X, y)
    history = est.net_.history
    assert len(history) < 30  # stopped early
    assert all("valid_loss" in epoch and "valid_acc" in epoch for epoch in history)
    best = int(np.argmax(history[:, "valid_acc"]))
    assert history[best, "valid_acc_best"]
    assert len(history) - 1 - best == 2  # stopped after n_iter_no_change epochs without gain


def test_no_hold_out_unless_asked(make, polarity_small):
    X, y = polarity_small
    est = make().fit(X, y)
    assert "valid_loss" not in est.net_.history[-1]
