"""The HAN paper's linear baselines equal pipelines built by hand from their parts."""

import numpy as np
import pytest
from gensim.models import Word2Vec
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from skattn.baselines import MeanWordVectors, linear_baselines, stable_hash
from skattn.text import TextEncoder


@pytest.fixture(scope="module")
def data(polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    return X_train[:2000], X_test[:500], y_train[:2000], y_test[:500]


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


@pytest.mark.parametrize("name", list(INDEPENDENT))
def test_sparse_baselines_equal_hand_built_pipelines(name, data):
    X_train, X_test, y_train, y_test = data
    ours = linear_baselines()[name].fit(X_train, y_train)
    theirs = INDEPENDENT[name]().fit(X_train, y_train)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
    assert ours.score(X_test, y_test) > 0.6  # learns on real data


def test_bag_of_means_equals_hand_built_word2vec_average(polarity_split):
    # word2vec needs the whole training split to learn anything useful
    X_train, X_test, y_train, y_test = polarity_split
    ours = linear_baselines()["bag_of_means"].fit(X_train, y_train)
    analyze = TextEncoder().build_analyzer()
    model = Word2Vec(
        [analyze(d) for d in X_train],
        vector_size=100,
        window=5,
        min_count=1,
        epochs=10,
        sg=1,
        workers=1,
        seed=0,
        hashfxn=stable_hash,
    )

    def mean_vectors(docs):
        return np.stack(
            [np.mean([model.wv[t] for t in analyze(d) if t in model.wv], axis=0) for d in docs]
        )

    clf = LogisticRegression(C=10.0, max_iter=2000).fit(mean_vectors(X_train), y_train)
    np.testing.assert_array_equal(ours.predict(X_test), clf.predict(mean_vectors(X_test)))
    assert ours.score(X_test, y_test) > 0.6


def test_mean_word_vectors_is_a_transformer_on_its_own(data):
    X_train, X_test, _, _ = data
    transformer = MeanWordVectors(vector_size=20, epochs=2).fit(X_train)
    features = transformer.transform(X_test[:5] + ["zzzunknownzzz"])
    assert features.shape == (6, 20) and not features[-1].any() and features[:5].any()
