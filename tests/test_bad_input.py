"""The bad-input catalogue: every case gives a clear error, before any training."""

from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from skattn.utils._params import InvalidParameterError

from estimators import LENGTH_LIMITS, SMALL_ESTIMATORS, SMALL_REGRESSORS

GOOD_X = ["a fine film", "a poor film", "fine acting", "poor acting"]
GOOD_Y = ["pos", "neg", "pos", "neg"]


def case(X=GOOD_X, y=GOOD_Y, error=ValueError, match="", params=None, stage="fit"):
    return dict(X=X, y=y, error=error, match=match, params=params or {}, stage=stage)


CATALOGUE = {
    # what X is
    "bare string": case(X="a film", error=TypeError, match="single str"),
    "bytes document": case(X=[b"a film"] + GOOD_X[1:], error=TypeError, match=r"X\[0\] is bytes"),
    "non-utf8 bytes": case(X=[b"\xff\xfe"] + GOOD_X[1:], error=TypeError, match=r"X\[0\] is bytes"),
    "number document": case(X=GOOD_X[:3] + [3.5], error=TypeError, match=r"X\[3\] is float"),
    "mixed types": case(X=GOOD_X[:2] + [7, "x"], error=TypeError, match=r"X\[2\] is int"),
    "None document": case(X=GOOD_X[:2] + [None, "x"], error=TypeError, match=r"X\[2\] is None"),
    "NaN document": case(
        X=["x", np.nan] + GOOD_X[2:], error=TypeError, match=r"X\[1\] is None/NaN"
    ),
    "nested lists": case(X=[["a", "film"]] * 4, error=TypeError, match=r"X\[0\] is list"),
    "2-D array": case(X=np.array([GOOD_X, GOOD_X]).T, error=TypeError, match=r"shape \(4, 2\)"),
    "DataFrame 2 columns": case(
        X=pd.DataFrame({"a": GOOD_X, "b": GOOD_X}), error=TypeError, match="2 columns"
    ),
    "sparse matrix": case(X=sp.csr_matrix(np.eye(4)), error=TypeError, match="sparse"),
    "a dict": case(X={"a": 1}, error=TypeError, match="is a dict"),
    "empty X": case(X=[], y=[], match="X is empty"),
    "every document blank": case(X=["", " ", "\n\t", ""], match="every one is blank"),
    # what y is
    "length mismatch": case(y=GOOD_Y[:3], match="4 documents but y has 3"),
    "single class": case(y=["pos"] * 4, match="single class"),
    "None label": case(y=["pos", None, "pos", "neg"], match="y holds None"),
    "NaN label": case(y=[1.0, np.nan, 1.0, 0.0], match="y holds NaN"),
    # a list numpy would turn into strings ("nan"), and pandas columns numpy's sort failed on
    "NaN among string labels": case(
        y=["pos", float("nan"), "pos", "neg"], match=r"y holds NaN \(y\[1\]\)"
    ),
    "NaN in an object column": case(
        y=pd.Series(["pos", np.nan, "pos", "neg"], dtype=object), match=r"y holds NaN \(y\[1\]\)"
    ),
    "NaN among float labels in an object column": case(
        y=pd.Series([1.0, 0.0, np.nan, 1.0], dtype=object), match=r"y holds NaN \(y\[2\]\)"
    ),
    "a decimal NaN label": case(
        y=[Decimal("1"), Decimal("NaN"), Decimal("1"), Decimal("0")], match=r"NaN \(y\[1\]\)"
    ),
    "NA in a string column": case(
        y=pd.Series(["pos", "neg", pd.NA, "neg"], dtype="string"), match=r"pandas.NA \(y\[2\]\)"
    ),
    "NaN in a category column": case(
        y=pd.Series(["pos", "neg", "pos", None], dtype="category"), match=r"NaN \(y\[3\]\)"
    ),
    "continuous labels": case(y=[0.1, 0.2, 0.3, 0.4], match="continuous|Unknown label"),
    # numpy's message was about shapes, or "Unknown label type"
    "lists of labels of unequal lengths": case(
        y=[["pos", "neg"], ["pos"], ["neg"], ["pos"]], match=r"collections of labels \(y\[0\]"
    ),
    "sets of labels": case(y=[{"pos"}, {"neg"}, {"pos"}, {"neg"}], match="MultiLabelBinarizer"),
    # what pandas reads from a parquet list column; a list after a label
    "a Series of arrays of labels": case(
        y=pd.Series([np.array(["pos"]), np.array(["neg", "x"]), np.array(["pos"]), np.array([])]),
        match=r"collections of labels \(y\[0\]",
    ),
    "a list among labels": case(y=["pos", ["neg"], "pos", "neg"], match=r"\(y\[1\] is \['neg'\]\)"),
    # scikit-learn's message was about a "legacy multi-label data representation"
    "a Series of equal-length lists": case(
        y=pd.Series([["pos", "x"], ["neg", "x"], ["pos", "y"], ["neg", "y"]]),
        match=r"collections of labels.*columns=binarizer.classes_",
    ),
    "2-D labels, none set": case(y=np.zeros((4, 2)), match="each the same in every document"),
    "2-D labels, not 0/1": case(y=np.array([["a", "b"]] * 4), match="indicator matrix"),
    "negative sample weight": case(params={"_sample_weight": [1, -1, 1, 1]}, match="sample_weight"),
    # absurd hyperparameters
    "attention_hops=0": case(
        params={"attention_hops": 0}, error=InvalidParameterError, match="attention_hops"
    ),
    "negative penalty": case(
        params={"penalty": -1.0}, error=InvalidParameterError, match="penalty"
    ),
    "unknown pooling": case(
        params={"pooling": "avg"}, error=InvalidParameterError, match="pooling"
    ),
    "dropout=1": case(params={"dropout": 1.0}, error=InvalidParameterError, match="dropout"),
    "negative lr": case(params={"lr": -0.1}, error=InvalidParameterError, match="lr"),
    "max_length=0": case(params={"max_length": 0}, error=InvalidParameterError, match="max_length"),
    "unknown optimizer": case(
        params={"optimizer": "lbfgs-ish"}, error=InvalidParameterError, match="optimizer"
    ),
    "max_sentences=0": case(
        params={"max_sentences": 0}, error=InvalidParameterError, match="max_sentences"
    ),
    "unknown sentence_split": case(
        params={"sentence_split": "paragraphs"}, error=InvalidParameterError, match="sentence_split"
    ),
    "min_count=0": case(params={"min_count": 0}, error=InvalidParameterError, match="min_count"),
    "min_count above every count": case(
        params={"min_count": 1000}, match="min_count=1000 leaves an empty vocabulary"
    ),
    "hidden_size=0": case(
        params={"hidden_size": 0}, error=InvalidParameterError, match="hidden_size"
    ),
    "unavailable device": case(params={"device": "cuda:7"}, match=r"not available.*\['cpu"),
    "unknown device": case(params={"device": "tpu9"}, match="not a PyTorch device"),
    "net_params outside skorch's prefixes": case(
        params={"net_params": {"module__hidden": 3}}, match="net_params.*must start with"
    ),
    "net_params that batch": case(
        params={"net_params": {"iterator_train__batch_size": 3}}, match="batching is set by"
    ),
    "class_weight of an unknown label": case(
        params={"class_weight": {"meh": 2.0}}, match=r"class_weight names labels.*\['meh'\]"
    ),
    "early stopping with a one-document class": case(
        y=["pos", "pos", "pos", "neg"],
        params={"early_stopping": True},
        match=r"validation_fraction=0\.1.*one document: \['neg'\]",
    ),
    "missing vectors file": case(
        params={"embeddings": "/no/such/vectors.txt"},
        error=FileNotFoundError,
        match="neither one of",
    ),
    # after fit
    "unseen label at score": case(
        stage="score", y=["pos", "neg", "meh", "pos"], match=r"never seen in fit: \['meh'\]"
    ),
    "length mismatch at score": case(stage="score", y=GOOD_Y[:3], match="4 documents but y has 3"),
    "None at predict": case(
        stage="predict", X=["fine", None], error=TypeError, match=r"X\[1\] is None"
    ),
}


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
@pytest.mark.parametrize("name", list(CATALOGUE))
def test_bad_input_catalogue(make, name):
    c = CATALOGUE[name]
    params = dict(c["params"])
    sample_weight = params.pop("_sample_weight", None)
    if any(p not in make().get_params() for p in params):
        pytest.skip(f"{type(make()).__name__} has no parameter {list(params)}")
    est = make(max_epochs=1, **params)
    if c["stage"] == "fit":
        with pytest.raises(c["error"], match=c["match"]):
            est.fit(c["X"], c["y"], sample_weight=sample_weight)
        assert not hasattr(est, "net_")  # nothing was trained
        return
    est.fit(GOOD_X * 4, GOOD_Y * 4)
    with pytest.raises(c["error"], match=c["match"]):
        est.score(c["X"], c["y"]) if c["stage"] == "score" else est.predict(c["X"])


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_huge_documents_are_truncated_by_the_documented_rule(make):
    long_doc = " ".join(["fine"] * 200_000)
    limit = LENGTH_LIMITS[type(make()).__name__]
    with pytest.warns(UserWarning, match=rf"1 of 5 training documents .*\({limit}=50 cut 1\)"):
        est = make(max_epochs=1, **{limit: 50}).fit(GOOD_X + [long_doc], GOOD_Y + ["pos"])
    assert est.n_truncated_ == 1
    assert len(est.encoder_.encode([long_doc]).token_ids) == 50


@pytest.fixture(scope="module")
def fitted_once():
    return SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1).fit(GOOD_X * 4, GOOD_Y * 4)


@pytest.mark.parametrize("method", ["predict_iter", "predict_proba_iter", "transform_iter"])
@pytest.mark.parametrize(
    "X, words",
    [
        ("some text", "single str: iterating it reads its characters"),
        ({"text": "a fine film"}, "dict: iterating it reads its keys"),
        ({"a fine film", "a poor film"}, "its order is not fixed"),
        (pd.DataFrame({"text": GOOD_X, "id": list("abcd")}), "2 columns: iterating it reads"),
        (np.array([GOOD_X, GOOD_X]), r"shape \(2, 4\)"),
    ],
    ids=["str", "dict", "set", "DataFrame", "2-D array"],
)
def test_streams_refuse_containers_that_are_not_documents(fitted_once, method, X, words):
    with pytest.raises(TypeError, match=words):
        getattr(fitted_once, method)(X)  # at the call, before any chunk is asked for


def test_streams_read_a_series_and_a_one_column_frame_as_the_list(fitted_once):
    expected = fitted_once.predict_proba(GOOD_X)
    for X in (pd.Series(GOOD_X), pd.DataFrame({"text": GOOD_X}), iter(GOOD_X)):
        chunks = list(fitted_once.predict_proba_iter(X, chunk_size=3))
        assert [len(chunk) for chunk in chunks] == [3, 1]
        np.testing.assert_allclose(np.concatenate(chunks), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["SelfAttentiveClassifier", "HierarchicalAttentionRegressor"])
def test_a_model_fitted_on_a_named_column_refuses_another_column_everywhere(name, tmp_path):
    from skattn import load, save
    from skattn.explain import explanation_records, token_scores

    y = GOOD_Y * 4 if name.endswith("Classifier") else [1.0, 0.0, 1.0, 0.0] * 4
    small = {**SMALL_ESTIMATORS, **SMALL_REGRESSORS}[name]
    model = small(max_epochs=1).fit(pd.DataFrame({"review": GOOD_X * 4}), y)
    assert model.feature_names_in_.tolist() == ["review"]
    right, wrong = pd.DataFrame({"review": GOOD_X}), pd.DataFrame({"title": GOOD_X})
    np.testing.assert_array_equal(model.predict(right), model.predict(GOOD_X))
    np.testing.assert_array_equal(model.predict(pd.Series(GOOD_X, name="x")), model.predict(GOOD_X))
    loaded = load(save(model, tmp_path / "m.skattn"))
    calls = [
        model.predict,
        model.transform,
        lambda X: model.score(X, y[:4]),
        lambda X: model.predict_iter(X),
        model.explain,
        lambda X: token_scores(model, X, "attention"),
        lambda X: explanation_records(model, X, "attention"),
        loaded.predict,
    ]
    for call in calls:
        with pytest.raises(ValueError, match=r"fitted on the column \['review'\]"):
            call(wrong)
    # A column without a str name carries no name to hold (scikit-learn warns there).
    np.testing.assert_array_equal(model.predict(pd.DataFrame(GOOD_X)), model.predict(GOOD_X))
    # Fitted on a list: any one column is read (there is no name to hold it to).
    unnamed = small(max_epochs=1).fit(GOOD_X * 4, y)
    assert not hasattr(unnamed, "feature_names_in_")
    np.testing.assert_array_equal(unnamed.predict(wrong), unnamed.predict(GOOD_X))


def test_the_runtime_holds_a_text_model_to_its_column(tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    from skattn.serving import OnnxTextClassifier, export

    fitted = SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1)
    model = fitted.fit(pd.DataFrame({"review": GOOD_X * 4}), GOOD_Y * 4)
    served = OnnxTextClassifier(export(model, tmp_path / "m.onnx.zip"))
    assert served.feature_names_in_ == ["review"]
    np.testing.assert_array_equal(
        served.predict(pd.DataFrame({"review": GOOD_X})), model.predict(GOOD_X)
    )
    with pytest.raises(ValueError) as by_the_runtime:
        served.predict(pd.DataFrame({"title": GOOD_X}))
    with pytest.raises(ValueError) as by_the_estimator:
        model.predict(pd.DataFrame({"title": GOOD_X}))
    assert str(by_the_runtime.value) == str(by_the_estimator.value)


def test_an_embedder_fitted_on_a_named_column_says_so_in_a_pipeline():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from skattn import SelfAttentiveEmbedder

    embedder = SelfAttentiveEmbedder(SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1))
    pipeline = make_pipeline(embedder, LogisticRegression())
    pipeline.fit(pd.DataFrame({"review": GOOD_X * 4}), GOOD_Y * 4)
    assert pipeline.feature_names_in_.tolist() == ["review"]
    with pytest.raises(ValueError, match=r"fitted on the column \['review'\]"):
        pipeline.predict(pd.DataFrame({"title": GOOD_X}))


@pytest.mark.parametrize(
    "y, match",
    [
        (pd.Series([0.5, pd.NA, 1.0, 2.0], dtype="Float64"), "NaN or infinite"),
        (pd.Series([0.5, pd.NA, 1.0, 2.0], dtype=object), r"y holds pandas.NA \(y\[1\]\)"),
        (pd.Series([0.5, None, 1.0, 2.0], dtype=object), r"y holds None \(y\[1\]\)"),
        (pd.Series([0.5, np.nan, 1.0, 2.0], dtype=object), "NaN or infinite"),
    ],
    ids=[
        "nullable float NA",
        "NA in an object column",
        "None in an object column",
        "NaN in an object column",
    ],
)
@pytest.mark.parametrize("name", list(SMALL_REGRESSORS))
def test_a_missing_target_in_a_pandas_column_is_named(name, y, match):
    model = SMALL_REGRESSORS[name](max_epochs=1)
    with pytest.raises(ValueError, match=match):
        model.fit(GOOD_X, y)
    assert not hasattr(model, "net_")


def test_a_missing_cell_of_a_multi_label_frame_is_named():
    y = pd.DataFrame({"a": [1, 0, 1, 0], "b": [0, 1, pd.NA, 1]}, dtype="Int64")
    model = SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1)
    with pytest.raises(
        ValueError, match=r"y holds pandas.NA \(row 2, column 1\); a multi-label y holds 0 or 1"
    ):
        model.fit(GOOD_X, y)


def test_zero_dimensional_arrays_are_single_labels():
    # numpy's 0-d arrays are labels, not collections of labels.
    model = SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1)
    labels = [np.array(v) for v in GOOD_Y]
    assert model.fit(GOOD_X, labels).classes_.tolist() == sorted(set(GOOD_Y))


def test_labels_of_unusual_types_are_not_compared_to_find_a_nan():
    from skattn.utils._validation import first_missing

    # An array among the labels, a signalling decimal NaN, numpy's NaT: each
    # has its own idea of !=, so they are looked at one by one.
    holds_an_array = np.empty(3, dtype=object)
    holds_an_array[:] = [np.array([1.0, 2.0]), 1.0, float("nan")]
    assert first_missing(holds_an_array) == (2, "NaN")
    # A decimal NaN, quiet or signalling, is asked whether it is one (no comparison raises).
    assert first_missing(np.array([Decimal("sNaN"), 1.5, 2.0], dtype=object)) == (0, "NaN")
    assert first_missing(np.array([Decimal("2"), Decimal("NaN")], dtype=object)) == (1, "NaN")
    assert first_missing(np.array([np.datetime64("NaT"), 1.0, "x"], dtype=object)) is None
    assert first_missing(np.array([3, "pos", np.float32("nan")], dtype=object)) == (2, "NaN")
