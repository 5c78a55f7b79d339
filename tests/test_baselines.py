"""The HAN paper's linear baselines are the pipelines their docs describe, and learn."""

import pytest
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skattn.baselines import MeanWordVectors, linear_baselines

INDEPENDENT = {
    "bow": lambda: make_pipeline(
        CountVectorizer(max_features=50_000), LogisticRegression(C=1.0, max_iter=2000)
    ),
    "bow_tfidf": lambda: make_pipeline(
        TfidfVectorizer(max_features=50_000), LogisticRegression(C=10.0, max_iter=2000)
    ),
    "ngrams": lambda: make_pipeline(
        CountVectorizer(ngram_range=(1, 5), max_features=500_000),
        LogisticRegression(C=1.0, max_iter=2000),
    ),
    "ngrams_tfidf": lambda: make_pipeline(
        TfidfVectorizer(ngram_range=(1, 5), max_features=500_000),
        LogisticRegression(C=10.0, max_iter=2000),
    ),
}


def _comparable(params):
    """get_params without the step objects themselves (compared through their params)."""
    return {k: v for k, v in params.items() if "__" in k and not hasattr(v, "get_params")}


@pytest.mark.parametrize("name", list(INDEPENDENT))
def test_sparse_baselines_have_the_documented_settings(name):
    ours = linear_baselines()[name].get_params()
    theirs = INDEPENDENT[name]().get_params()
    assert set(_comparable(ours).values()) and [
        type(step) for _, step in linear_baselines()[name].steps
    ] == [type(step) for _, step in INDEPENDENT[name]().steps]
    ours_values = [v for k, v in sorted(_comparable(ours).items())]
    theirs_values = [v for k, v in sorted(_comparable(theirs).items())]
    assert ours_values == theirs_values


@pytest.mark.parametrize("name", list(INDEPENDENT))
def test_sparse_baselines_learn_on_a_real_subset(name, polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    model = linear_baselines()[name].fit(X_train[:2000], y_train[:2000])
    assert model.score(X_test[:500], y_test[:500]) > 0.65


def test_mean_word_vectors_is_a_transformer_on_its_own(polarity_split):
    X_train, X_test, _, _ = polarity_split
    transformer = MeanWordVectors(vector_size=20, epochs=2).fit(X_train[:2000])
    features = transformer.transform(X_test[:5] + ["zzzunknownzzz"])
    assert features.shape == (6, 20) and not features[-1].any() and features[:5].any()
