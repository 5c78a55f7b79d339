"""Searches a user can afford: encodings shared by fits of the same documents, and
successive halving over epochs."""

import numpy as np
import pytest
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import HalvingGridSearchCV, StratifiedKFold

from skattn.estimators._base import AttentionEstimatorBase
from skattn.estimators._fit_cache import FitDataCache, _corpus_arrays, fit_data_cache
from skattn.text import TextEncoder

from estimators import small_hierarchical, small_self_attentive


@pytest.fixture
def encodings_counted(monkeypatch):
    """How many times fit tokenises a corpus and builds its vocabulary."""
    calls = []
    fit_encode_stream = TextEncoder.fit_encode_stream

    def counted(self, *args, **kwargs):
        calls.append(self.min_count)
        return fit_encode_stream(self, *args, **kwargs)

    monkeypatch.setattr(TextEncoder, "fit_encode_stream", counted)
    fit_data_cache.clear()
    yield calls
    fit_data_cache.clear()


@pytest.mark.parametrize("make", [small_self_attentive, small_hierarchical])
def test_a_second_fit_of_the_same_documents_reuses_the_encoding_and_equals_a_fresh_fit(
    make, polarity_small, encodings_counted
):
    X, y = polarity_small
    first = make(attention_hops=3) if make is small_self_attentive else make(hidden_size=12)
    first.fit(X, y)
    again = make(attention_hops=3) if make is small_self_attentive else make(hidden_size=12)
    again.fit(X, y)
    assert len(encodings_counted) == 1
    fit_data_cache.clear()
    fresh = make(attention_hops=3) if make is small_self_attentive else make(hidden_size=12)
    fresh.fit(X, y)
    assert len(encodings_counted) == 2
    np.testing.assert_array_equal(again.predict_proba(X[:100]), fresh.predict_proba(X[:100]))
    assert again.choices_ == fresh.choices_
    assert again.encoder_.vocab_size_ == fresh.encoder_.vocab_size_


def test_other_documents_or_text_parameters_are_encoded_anew(polarity_small, encodings_counted):
    X, y = polarity_small
    small_self_attentive().fit(X, y)
    small_self_attentive(min_count=1).fit(X, y)  # another vocabulary
    small_self_attentive().fit(X[:-1], y[:-1])  # other documents
    small_self_attentive().fit(X[::-1], y[::-1])  # the same documents, in another order
    small_self_attentive(attention_hops=3, max_epochs=1).fit(X, y)  # a network setting only
    assert encodings_counted == [2, 1, 2, 2]


def test_initial_vectors_are_made_anew_for_other_blas_threads(polarity_small, monkeypatch):
    """The vectors' rounding depends on the BLAS threads they are made with: so does their key."""
    made = []
    new_vectors = AttentionEstimatorBase._new_vectors

    def counted(self, *args, **kwargs):
        made.append(self.threads)
        return new_vectors(self, *args, **kwargs)

    monkeypatch.setattr(AttentionEstimatorBase, "_new_vectors", counted)
    fit_data_cache.clear()
    X, y = polarity_small
    for threads in (1, 1, 2, None, None):
        small_self_attentive(threads=threads, max_epochs=1).fit(X, y)
    fit_data_cache.clear()
    assert made == [1, 2, None]


def test_a_fitted_model_shares_nothing_it_could_change_with_later_fits(
    polarity_small, encodings_counted
):
    X, y = polarity_small
    first = small_self_attentive().fit(X, y)
    vocabulary = dict(first.encoder_.vocabulary_)
    first.encoder_.vocabulary_["<a word added later>"] = 10**6
    second = small_self_attentive().fit(X, y)
    assert second.encoder_.vocabulary_ == vocabulary
    assert second.encoder_ is not first.encoder_
    # The kept corpus is read-only: a write would otherwise change every later fit.
    key = next(iter(fit_data_cache._encodings))
    corpus = fit_data_cache._encodings[key][1]
    with pytest.raises(ValueError, match="read-only"):
        corpus.token_ids[0] = 0


def test_streams_and_large_corpora_are_not_kept(polarity_small, encodings_counted):
    X, y = polarity_small
    small_self_attentive().fit(iter(X), y)
    small_self_attentive().fit(iter(X), y)
    assert len(encodings_counted) == 2 and len(fit_data_cache) == 0
    tiny = FitDataCache(max_tokens=10)
    encoder = TextEncoder()
    tiny.put_encoding("k", encoder, encoder.fit_encode(X))
    assert tiny.get_encoding("k") is None
    # Together the kept corpora stay within the budget: the older goes.
    corpus = encoder.fit_encode(X[:50])
    size = sum(len(array) for array in _corpus_arrays(corpus))
    pair = FitDataCache(max_tokens=size + size // 2)
    pair.put_encoding("first", encoder, corpus)
    pair.put_encoding("second", encoder, encoder.fit_encode(X[:50]))
    assert pair.get_encoding("first") is None and pair.get_encoding("second") is not None


def test_the_least_recently_used_encoding_is_forgotten_first():
    cache = FitDataCache(max_entries=2)
    encoder = TextEncoder()
    for key in ("a", "b"):
        cache.put_encoding(key, encoder, encoder.fit_encode([key]))
    cache.get_encoding("a")  # "b" is now the least recent
    cache.put_encoding("c", encoder, encoder.fit_encode(["c"]))
    assert cache.get_encoding("b") is None
    assert cache.get_encoding("a") is not None and cache.get_encoding("c") is not None


@pytest.mark.slow
def test_halving_over_max_epochs_trains_survivors_longer_and_refits_the_best(polarity):
    # Learning on real data: 1,500 sentence_polarity snippets, two widths, two rates.
    X, y = polarity
    rng = np.random.RandomState(1)
    idx = rng.permutation(len(X))[:1500]
    X, y = [X[i] for i in idx], np.asarray(y)[idx]
    search = HalvingGridSearchCV(
        small_self_attentive(max_epochs=1),
        {"hidden_size": [8, 16], "lr": [1e-4, 8e-3]},
        resource="max_epochs",
        min_resources=1,
        max_resources=3,
        factor=3,
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
        random_state=0,
    ).fit(X, y)
    assert search.n_resources_ == [1, 3]
    assert search.n_candidates_ == [4, 2]
    # The learning rate that barely moves the weights is dropped at the first rung.
    survivors = [
        params
        for params, rung in zip(search.cv_results_["params"], search.cv_results_["iter"])
        if rung == 1
    ]
    assert all(params["lr"] == 8e-3 for params in survivors)
    best = search.best_estimator_
    assert best.choices_["max_epochs"]["value"] == search.best_params_["max_epochs"] == 3
    # Above chance (the folds hold 500 snippets, half of each class).
    assert search.best_score_ > 0.55
