"""HAN Table 2's baselines as Zhang et al. 2015 define them: hand computations, then learning."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import MiniBatchKMeans
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from skattn.baselines import (
    BagOfMeans,
    LargestValueScaler,
    LogIdfTransformer,
    MeanWordVectors,
    linear_baselines,
    tuned_baselines,
)
from skattn.embeddings import train_word2vec
from skattn.text import TextEncoder

TOY = ["a a b", "a c", "c c c d", "b d"]


def test_bow_tfidf_is_counts_times_log_n_over_df_divided_by_the_largest_value():
    model = linear_baselines()["bow_tfidf"]
    counts = CountVectorizer(token_pattern=r"\w").fit(TOY)
    model.set_params(countvectorizer__token_pattern=r"\w")
    features = model[:-1].fit_transform(TOY).toarray()
    tf = counts.transform(TOY).toarray()  # columns a, b, c, d
    idf = np.log(4 / np.array([2, 2, 2, 2]))  # each word is in 2 of the 4 documents
    expected = tf * idf
    np.testing.assert_allclose(features, expected / expected.max())
    assert features.max() == 1.0 and features[2, 2] == 1.0  # "c" three times in document 2


def test_idf_and_scaling_are_learnt_on_the_training_split_only():
    idf = LogIdfTransformer().fit(sp.csr_matrix([[1, 0], [1, 1], [3, 0]]))
    np.testing.assert_allclose(idf.idf_, [0.0, np.log(3)])  # in every document: weight 0
    scaler = LargestValueScaler().fit(np.array([[0.0, 2.0], [4.0, 1.0]]))
    assert scaler.scale_ == 4.0
    np.testing.assert_allclose(scaler.transform(np.array([[8.0, 1.0]])).toarray(), [[2.0, 0.25]])


def test_bow_and_ngrams_are_counts_divided_by_the_largest_value():
    for name, n in [("bow", 1), ("ngrams", 5)]:
        model = linear_baselines()[name].set_params(countvectorizer__token_pattern=r"\w")
        assert model.named_steps["countvectorizer"].ngram_range == (1, n)
        features = model[:-1].fit_transform(TOY).toarray()
        counts = CountVectorizer(ngram_range=(1, n), token_pattern=r"\w").fit_transform(TOY)
        np.testing.assert_allclose(features, counts.toarray() / counts.max())
    assert linear_baselines()["bow"].named_steps["countvectorizer"].max_features == 50_000
    assert linear_baselines()["ngrams"].named_steps["countvectorizer"].max_features == 500_000
    logistic = linear_baselines()["bow"].steps[-1][1]
    assert isinstance(logistic, LogisticRegression) and logistic.C == 100.0


def test_bag_of_means_counts_the_k_means_of_word2vec_vectors():
    docs = ["good film here", "bad film there", "good plot here", "bad plot there"] * 15
    bag = BagOfMeans(vector_size=8, min_count=6, n_means=3, epochs=3).fit(docs)
    # The same steps by hand: word2vec on the documents, k-means, each word's mean.
    analyze = TextEncoder().build_analyzer()
    vectors = train_word2vec(
        [analyze(d) for d in docs], vector_size=8, window=5, min_count=6, epochs=3, random_state=0
    )
    labels = MiniBatchKMeans(3, random_state=0, n_init=3, batch_size=4096).fit(vectors.vectors)
    means = dict(zip(vectors.index_to_key, labels.labels_.tolist()))
    assert bag.word_means_ == means and bag.n_means_ == 3
    features = bag.transform(["good film zzz", "plot plot"]).toarray()
    expected = np.zeros((2, 3))
    for row, doc in enumerate(["good film zzz", "plot plot"]):
        for word in analyze(doc):
            if word in means:
                expected[row, means[word]] += 1
    np.testing.assert_array_equal(features, expected)
    assert features.sum() == 4  # "zzz" has no vector


def test_table_2_names_are_the_five_baselines():
    from skattn.baselines._table2 import TABLE_2

    assert tuple(linear_baselines()) == TABLE_2


def test_bag_of_means_has_the_papers_sizes():
    bag = linear_baselines()["bag_of_means"].named_steps["bagofmeans"]
    assert (bag.vector_size, bag.n_means, bag.min_count) == (300, 5000, 6)
    with pytest.warns(UserWarning, match="every word is its own mean"):
        few = BagOfMeans(vector_size=4, n_means=5000, min_count=1, epochs=1).fit(["a b c"] * 3)
    assert few.n_means_ == 3  # never more means than words


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bow", "bow_tfidf", "ngrams", "ngrams_tfidf"])
def test_table_2_baselines_learn_on_a_real_subset(name, polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    model = linear_baselines()[name].fit(X_train[:2000], y_train[:2000])
    assert model.score(X_test[:500], y_test[:500]) > 0.62


@pytest.mark.slow
def test_tuned_variants_keep_their_own_names(polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    tuned = tuned_baselines()
    assert set(tuned) & set(linear_baselines()) == set()
    model = tuned["bow_tfidf_tuned"].fit(X_train[:2000], y_train[:2000])
    assert model.score(X_test[:500], y_test[:500]) > 0.62


@pytest.mark.slow
def test_mean_word_vectors_is_a_transformer_on_its_own(polarity_split):
    X_train, X_test, _, _ = polarity_split
    transformer = MeanWordVectors(vector_size=20, epochs=2).fit(X_train[:2000])
    features = transformer.transform(X_test[:5] + ["zzzunknownzzz"])
    assert features.shape == (6, 20) and not features[-1].any() and features[:5].any()
