"""SelfAttentiveEmbedder in scikit-learn's transformer world."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skattn import SelfAttentiveEmbedder

from estimators import small_self_attentive


@pytest.fixture(scope="module")
def fitted(polarity_small):
    X, y = polarity_small
    return SelfAttentiveEmbedder(small_self_attentive(attention_hops=3)).fit(X, y)


def test_shapes_names_and_agreement_with_the_classifier(fitted, polarity_small):
    X, _ = polarity_small
    flat = fitted.transform(X[:7])
    assert flat.shape == (7, 3 * 32) and fitted.n_features_out_ == 96
    cube = fitted.transform_3d(X[:7])
    assert cube.shape == (7, 3, 32)
    np.testing.assert_array_equal(flat, cube.reshape(7, -1))
    np.testing.assert_array_equal(flat, fitted.classifier_.transform(X[:7]))
    names = fitted.get_feature_names_out()
    assert len(names) == 96 and names[0] == "hop0_dim0" and names[32] == "hop1_dim0"


@pytest.mark.parametrize("output", ["max", "mean"])
def test_pooled_outputs(output, fitted, polarity_small):
    X, _ = polarity_small
    pooled = SelfAttentiveEmbedder(output=output)._adopt(fitted.classifier_)
    expected = getattr(fitted.transform_3d(X[:5]), output)(axis=1)
    np.testing.assert_array_equal(pooled.transform(X[:5]), expected)
    assert pooled.n_features_out_ == expected.shape[1] == 32
    names = pooled.get_feature_names_out()
    assert len(names) == 32 and names[0] == f"{output}_dim0"


def test_the_output_width_follows_set_params_on_a_fitted_embedder(fitted, polarity_small):
    X, _ = polarity_small
    embedder = clone(fitted)._adopt(fitted.classifier_)
    for output in ("max", "flatten", "mean"):
        embedder.set_params(output=output)
        width = embedder.transform(X[:2]).shape[1]
        assert embedder.n_features_out_ == width == len(embedder.get_feature_names_out())
    embedder.set_params(output="median")
    with pytest.raises(ValueError, match="output"):
        embedder.transform(X[:2])


def test_pandas_output(fitted, polarity_small):
    X, _ = polarity_small
    frame = fitted.set_output(transform="pandas").transform(X[:4])
    fitted.set_output(transform="default")
    assert isinstance(frame, pd.DataFrame) and list(frame.columns[:2]) == ["hop0_dim0", "hop0_dim1"]


@pytest.mark.slow
def test_pipelines_around_the_embedder(polarity_small, polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    X_train, y_train, X_test, y_test = X_train[:3000], y_train[:3000], X_test[:500], y_test[:500]
    embedder = SelfAttentiveEmbedder(small_self_attentive(max_epochs=3))
    pipe = make_pipeline(embedder, LogisticRegression(max_iter=1000)).fit(X_train, y_train)
    assert pipe.score(X_test, y_test) > 0.6  # the embeddings carry the sentiment
    # Unsupervised use: the two k-means clusters of the test embeddings follow
    # the sentiment (measured 0.63 agreement; 0.5 if rows and documents were
    # misaligned or the embeddings ignored the text), ...
    embedded = pipe[0].transform(X_test)
    labels = KMeans(2, n_init=3, random_state=0).fit_predict(embedded)
    agreement = np.mean((labels == 1) == (np.asarray(y_test) == "pos"))
    assert max(agreement, 1 - agreement) > 0.58
    # ... and row i is document i whatever the order of the documents.
    order = np.random.RandomState(0).permutation(len(X_test))
    reordered = pipe[0].transform([X_test[i] for i in order])
    np.testing.assert_allclose(reordered, embedded[order], rtol=1e-5, atol=1e-6)
    X, y = polarity_small
    frame = pd.DataFrame({"text": X, "length": [len(d) for d in X]})
    columns = ColumnTransformer(
        [
            ("text", SelfAttentiveEmbedder(small_self_attentive(), output="mean"), "text"),
            ("length", StandardScaler(), ["length"]),
        ]
    )
    model = make_pipeline(columns, LogisticRegression(max_iter=1000)).fit(frame, y)
    assert columns.transform(frame).shape == (len(X), 32 + 1)
    assert set(model.predict(frame)) <= {"neg", "pos"}


def test_grid_search_reaches_the_classifier_parameters(fitted):
    params = fitted.get_params()
    assert "classifier__attention_hops" in params and params["classifier__attention_hops"] == 3
