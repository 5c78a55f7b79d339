"""scikit-learn conventions, run on every attention estimator."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from threadpoolctl import threadpool_limits

from skattn.estimators._fit_cache import fit_data_cache
from skattn.utils._runtime import blas_thread_counts

from estimators import GRIDS, SMALL_ESTIMATORS

pytestmark = pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)


def test_tags_declare_text_input(make):
    tags = make().__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array


def test_clone_and_params(make):
    est = make(min_count=2)
    copy = clone(est)
    assert copy is not est and copy.get_params() == est.get_params()
    assert copy.set_params(min_count=3).get_params()["min_count"] == 3
    assert est.min_count == 2


def test_same_random_state_gives_identical_models(make, polarity_small):
    X, y = polarity_small
    a = make(random_state=3).fit(X, y).predict_proba(X)
    b = make(random_state=3).fit(X, y).predict_proba(X)
    c = make(random_state=4).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_a_fit_gives_the_same_model_whatever_the_blas_threads_of_its_process(make, polarity):
    """A joblib worker (BLAS on one thread) and the main process (BLAS on every core) fit alike.

    The small models start from PPMI vectors, whose SVD rounds differently on
    one BLAS thread and on two (here, with 2,400 snippets' vocabulary) unless
    ``fit`` holds BLAS to ``threads``.
    """
    if not blas_thread_counts():
        pytest.skip("no BLAS library that threadpoolctl can see")
    X, y = polarity
    sample = np.random.RandomState(0).permutation(len(X))[:2400]
    X, y = [X[i] for i in sample], y[sample]
    probabilities = []
    for blas in (1, 2):
        fit_data_cache.clear()  # vectors made anew each time, not shared by the two fits
        with threadpool_limits(limits=blas, user_api="blas"):
            model = make(max_epochs=1).fit(X, y)
        assert model.choices_["embeddings"]["value"] == "ppmi"
        probabilities.append(model.predict_proba(X[:300]))
    np.testing.assert_array_equal(probabilities[0], probabilities[1])


def test_sample_weight_shifts_predictions(make, polarity_small):
    X, y = polarity_small
    plain = make().fit(X, y).predict_proba(X)
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
