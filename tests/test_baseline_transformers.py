"""The baselines' public transformers as scikit-learn estimators, and what they compute.

LogIdfTransformer and LargestValueScaler read numbers, so scikit-learn's
whole ``check_estimator`` suite applies to them. BagOfMeans and
MeanWordVectors read raw text (``string=True, two_d_array=False``, as
scikit-learn's vectorizers): scikit-learn runs only its data-free checks on
them, and our text checks stand in for the data checks, as for the attention
estimators in test_conformance.py.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
import sklearn.utils.estimator_checks as sk_checks
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.estimator_checks import parametrize_with_checks

from skattn.baselines import (
    BagOfMeans,
    LargestValueScaler,
    LogIdfTransformer,
    MeanWordVectors,
    bag_of_means,
    bow_tfidf,
)
from skattn.utils._params import InvalidParameterError
from skattn.utils.estimator_checks import (
    DATA_FREE_CHECKS,
    check_fit_returns_self,
    check_idempotent_fit,
    check_label_types,
    check_not_fitted,
    check_param_validation,
    check_pickle_round_trip,
    check_probabilities,
    check_sample_order_independence,
    check_unit_sample_weight,
)

# -- scikit-learn's check_estimator -------------------------------------------

#: Checks that do not apply, with the reason (none: every check passes).
NUMERIC_EXPECTED_FAILURES = {"LogIdfTransformer": {}, "LargestValueScaler": {}}


@parametrize_with_checks(
    [LogIdfTransformer(), LargestValueScaler()],
    expected_failed_checks=lambda est: NUMERIC_EXPECTED_FAILURES[type(est).__name__],
)
def test_numeric_transformers_pass_check_estimator(estimator, check):
    # check_array_api_input is skipped by scikit-learn itself unless
    # SCIPY_ARRAY_API=1 is set (neither transformer declares array API support).
    check(estimator)


#: Small configurations of the public text transformers.
TEXT_TRANSFORMERS = {
    "BagOfMeans": lambda: BagOfMeans(vector_size=8, n_means=4, min_count=2, epochs=2),
    "MeanWordVectors": lambda: MeanWordVectors(vector_size=8, epochs=2),
}


def checkable(name):
    """The estimator the text checks receive."""
    return TEXT_TRANSFORMERS[name]()


@pytest.mark.parametrize("name", list(TEXT_TRANSFORMERS))
@pytest.mark.parametrize("check", DATA_FREE_CHECKS)
def test_text_transformers_pass_the_data_free_checks(name, check):
    getattr(sk_checks, check)(name, TEXT_TRANSFORMERS[name]())


#: The text checks of skattn.utils.estimator_checks that do not apply to an
#: unsupervised text transformer, with the reason.
TEXT_CHECKS_NOT_APPLICABLE = {
    check_sample_order_independence: (
        "word2vec is trained by SGD over the documents in the order given, so "
        "another order gives other vectors (as with gensim itself)"
    ),
    check_label_types: "classifiers only: no labels, no classes_",
    check_probabilities: "classifiers only: no predict_proba",
    check_unit_sample_weight: "fit takes no sample_weight (unsupervised)",
}

TEXT_CHECKS = [
    check_fit_returns_self,
    check_param_validation,
    check_not_fitted,
    check_pickle_round_trip,
    check_idempotent_fit,
] + [
    pytest.param(check, marks=pytest.mark.skip(reason=reason))
    for check, reason in TEXT_CHECKS_NOT_APPLICABLE.items()
]


@pytest.mark.parametrize("name", list(TEXT_TRANSFORMERS))
@pytest.mark.parametrize("check", TEXT_CHECKS, ids=lambda c: c.__name__)
def test_text_transformers_pass_the_text_checks(name, check, toy):
    X, y = toy
    check(checkable(name), X, y)


@pytest.mark.parametrize("name", list(TEXT_TRANSFORMERS))
def test_text_transformers_refuse_what_is_not_text(name, toy):
    # The X half of check_bad_input_errors (the y half is for supervised estimators).
    X, _ = toy
    make = TEXT_TRANSFORMERS[name]
    cases = [
        (np.zeros((len(X), 3)), TypeError, "shape"),
        (list(X[:-1]) + [None], TypeError, "None"),
        (list(X[:-1]) + [b"bytes"], TypeError, "bytes"),
        ("one document", TypeError, "single str"),
        ([], ValueError, "empty"),
    ]
    fitted = make().fit(X)
    for bad, error, words in cases:
        with pytest.raises(error, match=words):
            make().fit(bad)
        with pytest.raises(error, match=words):
            fitted.transform(bad)


@pytest.mark.parametrize("name", list(TEXT_TRANSFORMERS))
def test_a_min_count_above_every_word_count_is_a_clear_error(name):
    docs = ["good film", "bad film"]  # "film" twice, the others once
    with pytest.raises(ValueError, match=r"min_count=3 .* seen 2 times"):
        TEXT_TRANSFORMERS[name]().set_params(min_count=3).fit(docs)


@pytest.mark.parametrize("value", [-1, 2**32, 1.0, np.random.RandomState(0)])
def test_word2vec_transformers_refuse_a_seed_gensim_cannot_take(value):
    # gensim takes an int seed in [0, 2**32 - 1] or None; the rest is refused before training.
    with pytest.raises(InvalidParameterError, match="'random_state' parameter of MeanWordVectors"):
        MeanWordVectors(random_state=value).fit(["good film", "bad film"])


@pytest.mark.parametrize("value", [None, 0, 2**32 - 1, np.int64(7)])
def test_word2vec_transformers_take_the_seeds_gensim_takes(value):
    vectors = MeanWordVectors(vector_size=3, epochs=1, random_state=value).fit(["good film"] * 3)
    assert vectors.transform(["film"]).shape == (1, 3)


# -- what they compute ---------------------------------------------------------

COUNTS = np.array(
    [
        [2, 0, 1, 1],
        [0, 0, 3, 1],
        [1, 0, 0, 1],
        [4, 0, 0, 1],
    ]
)
# By hand: N = 4 documents; document frequencies 3, 0, 2, 4.
HAND_IDF = [np.log(4 / 3), 0.0, np.log(4 / 2), np.log(4 / 4)]


@pytest.mark.parametrize("container", [np.asarray, sp.csr_matrix, sp.csc_matrix, sp.csr_array])
def test_idf_is_log_n_over_df_of_the_fit_documents(container):
    idf = LogIdfTransformer().fit(container(COUNTS))
    np.testing.assert_allclose(idf.idf_, HAND_IDF)
    # transform weighs new documents with the fit idf, never recomputed.
    new = np.array([[1, 5, 2, 7]])
    expected = [[1 * np.log(4 / 3), 0.0, 2 * np.log(2), 0.0]]
    np.testing.assert_allclose(idf.transform(container(new)).toarray(), expected)


def test_a_stored_zero_is_not_a_document_containing_the_term():
    # [[3, 1], [0, 2]] with the 0 stored: column 0 is in 1 of 2 documents, column 1 in both.
    counts = sp.csr_matrix(([3.0, 1.0, 0.0, 2.0], [0, 1, 0, 1], [0, 2, 4]), shape=(2, 2))
    assert counts.nnz == 4
    np.testing.assert_allclose(LogIdfTransformer().fit(counts).idf_, [np.log(2), 0.0])


@pytest.mark.parametrize("container", [np.asarray, sp.csr_matrix])
def test_largest_value_scaler_divides_by_the_largest_fit_value(container):
    scaler = LargestValueScaler().fit(container(np.array([[1, 5], [3, 2]])))
    assert scaler.scale_ == 5.0
    out = scaler.transform(container(np.array([[10.0, 0.5]])))  # larger than any fit value
    np.testing.assert_allclose(out.toarray(), [[2.0, 0.1]])


def test_largest_value_scaler_keeps_values_when_none_is_positive():
    scaler = LargestValueScaler().fit(np.array([[-3.0, -1.0], [0.0, -2.0]]))
    assert scaler.scale_ == 1.0
    np.testing.assert_array_equal(scaler.transform(np.array([[-4.0, 2.0]])).toarray(), [[-4, 2]])


@pytest.mark.parametrize("transformer", [LogIdfTransformer(), LargestValueScaler()])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_missing_or_infinite_values_are_a_clear_error(transformer, bad):
    word = "NaN" if np.isnan(bad) else "infinity"
    dirty = COUNTS.astype(float)
    dirty[1, 2] = bad
    for container in (np.asarray, sp.csr_matrix):
        with pytest.raises(ValueError, match=f"Input X contains {word}"):
            clone(transformer).fit(container(dirty))
        with pytest.raises(ValueError, match=f"Input X contains {word}"):
            clone(transformer).fit(COUNTS).transform(container(dirty))


@pytest.mark.parametrize("transformer", [LogIdfTransformer(), LargestValueScaler()])
def test_transform_refuses_another_number_of_features(transformer):
    fitted = clone(transformer).fit(COUNTS)
    assert fitted.n_features_in_ == 4
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 4 features"):
        fitted.transform(COUNTS[:, :3])


def test_the_tfidf_pipeline_names_its_features_after_the_vectorizer():
    docs = ["a good film", "a bad film", "good plot"]
    features = bow_tfidf()[:-1].fit(docs)
    vocabulary = CountVectorizer().fit(docs).get_feature_names_out()
    np.testing.assert_array_equal(features.get_feature_names_out(), vocabulary)


def test_feature_names_of_a_dataframe_are_kept():
    frame = pd.DataFrame(COUNTS, columns=["w", "x", "y", "z"])
    idf = LogIdfTransformer().fit(frame)
    assert idf.get_feature_names_out().tolist() == ["w", "x", "y", "z"]
    with pytest.raises(ValueError, match="feature names"):
        idf.transform(frame.rename(columns={"w": "v"}))


def test_the_bag_of_means_pipeline_names_one_feature_per_mean():
    docs = ["good film here", "bad film there", "good plot here", "bad plot there"] * 5
    model = bag_of_means(vector_size=4, n_means=3, min_count=2)
    features = model[:-1].fit(docs)
    assert features.get_feature_names_out().tolist() == [
        "bagofmeans0",
        "bagofmeans1",
        "bagofmeans2",
    ]


def test_a_pandas_output_configuration_leaves_the_sparse_baselines_working():
    # Sparse features cannot be DataFrames: these transformers keep their
    # sparse output (as scikit-learn's TfidfTransformer), the dense one wraps.
    docs = ["good film here", "bad film there", "good plot here", "bad plot there"] * 5
    y = [1, 0, 1, 0] * 5
    with sklearn.config_context(transform_output="pandas"):
        for model in (bow_tfidf(), bag_of_means(vector_size=4, n_means=3, min_count=2)):
            assert sp.issparse(model[:-1].fit_transform(docs, y))  # before: an error here
            assert len(model.fit(docs, y).predict(docs[:4])) == 4
        # "good"/"bad" carry the label: the counts pipeline learns it whatever the CPU.
        assert bow_tfidf().fit(docs, y).predict(docs[:4]).tolist() == [1, 0, 1, 0]
        frame = MeanWordVectors(vector_size=3).fit_transform(docs)
    assert list(frame.columns) == ["meanwordvectors0", "meanwordvectors1", "meanwordvectors2"]
