"""Bad input: a clear error naming the input, before any training starts."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError

from estimators import LENGTH_LIMITS, SMALL_ESTIMATORS

GOOD_X = ["a fine film", "a poor film", "fine acting", "poor acting"]
GOOD_Y = ["pos", "neg", "pos", "neg"]

FIT_CASES = {
    "bare string": ("a film", GOOD_Y, TypeError, "single str"),
    "bytes document": ([b"a film"] + GOOD_X[1:], GOOD_Y, TypeError, r"X\[0\] is bytes"),
    "non-utf8 bytes": ([b"\xff\xfe"] + GOOD_X[1:], GOOD_Y, TypeError, r"X\[0\] is bytes"),
    "number document": (GOOD_X[:3] + [3.5], GOOD_Y, TypeError, r"X\[3\] is float"),
    "None document": (GOOD_X[:2] + [None] + GOOD_X[3:], GOOD_Y, TypeError, r"X\[2\] is None"),
    "NaN document": (GOOD_X[:1] + [np.nan] + GOOD_X[2:], GOOD_Y, TypeError, r"X\[1\] is None/NaN"),
    "nested lists": ([["a", "film"]] * 4, GOOD_Y, TypeError, r"X\[0\] is list"),
    "2-D array": (np.array([GOOD_X, GOOD_X]).T, GOOD_Y, TypeError, r"shape \(4, 2\)"),
    "DataFrame 2 columns": (pd.DataFrame({"a": GOOD_X, "b": GOOD_X}), GOOD_Y, TypeError, "2 col"),
    "sparse matrix": (sp.csr_matrix(np.eye(4)), GOOD_Y, TypeError, "sparse"),
    "empty X": ([], [], ValueError, "X is empty"),
    "empty string": (GOOD_X[:3] + [""], GOOD_Y, ValueError, r"X\[3\] is an empty"),
    "blank string": (GOOD_X[:3] + [" \n\t"], GOOD_Y, ValueError, r"X\[3\] is an empty"),
    "length mismatch": (GOOD_X, GOOD_Y[:3], ValueError, "4 documents but y has 3"),
    "single class": (GOOD_X, ["pos"] * 4, ValueError, "single class"),
    "None label": (GOOD_X, ["pos", None, "pos", "neg"], ValueError, "y holds None"),
    "NaN label": (GOOD_X, [1.0, np.nan, 1.0, 0.0], ValueError, "y holds NaN"),
    "continuous labels": (GOOD_X, [0.1, 0.2, 0.3, 0.4], ValueError, "continuous|Unknown label"),
    "2-D labels": (GOOD_X, np.zeros((4, 2)), ValueError, "y has shape"),
    "no tokens": (GOOD_X[:3] + ["!!! ..."], GOOD_Y, ValueError, "yield no token"),
}
PARAM_CASES = {
    "attention_hops=0": {"attention_hops": 0},
    "negative penalty": {"penalty": -1.0},
    "unknown pooling": {"pooling": "avg"},
    "dropout=1": {"dropout": 1.0},
    "negative lr": {"lr": -0.1},
    "max_length=0": {"max_length": 0},
    "unknown optimizer": {"optimizer": "lbfgs-ish"},
    "max_sentences=0": {"max_sentences": 0},
    "unknown sentence_split": {"sentence_split": "paragraphs"},
    "min_count=0": {"min_count": 0},
    "hidden_size=0": {"hidden_size": 0},
}

pytestmark = pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)


@pytest.mark.parametrize("case", FIT_CASES, ids=list(FIT_CASES))
def test_bad_fit_input_fails_before_training(make, case):
    X, y, error, message = FIT_CASES[case]
    est = make(token_pattern=r"\w+") if case == "no tokens" else make()
    with pytest.raises(error, match=message):
        est.fit(X, y)
    assert not hasattr(est, "net_")


@pytest.mark.parametrize("case", PARAM_CASES, ids=list(PARAM_CASES))
def test_absurd_hyperparameters_name_the_parameter(make, case):
    (name, value), = PARAM_CASES[case].items()
    if name not in make().get_params():
        pytest.skip(f"no parameter {name}")
    est = make(**{name: value})
    with pytest.raises(InvalidParameterError, match=name):
        est.fit(GOOD_X, GOOD_Y)
    assert not hasattr(est, "net_")


def test_bad_input_after_fit(make):
    est = make(max_epochs=1, token_pattern=r"\w+").fit(GOOD_X * 4, GOOD_Y * 4)
    with pytest.raises(ValueError, match=r"never seen in fit: \['meh'\]"):
        est.score(GOOD_X, ["pos", "neg", "meh", "pos"])
    with pytest.raises(ValueError, match="4 documents but y has 3"):
        est.score(GOOD_X, GOOD_Y[:3])
    with pytest.raises(TypeError, match=r"X\[1\] is None"):
        est.predict(["fine", None])
    with pytest.raises(ValueError, match="yield no token"):
        est.predict(["!?"])


def test_too_long_documents_are_truncated_by_the_documented_rule(make):
    long_doc = " ".join(["fine"] * 5000)
    limit = LENGTH_LIMITS[type(make()).__name__]
    est = make(max_epochs=1, **{limit: 50}).fit(GOOD_X + [long_doc], GOOD_Y + ["pos"])
    assert est.n_truncated_ == 1
    assert len(est.encoder_.encode([long_doc]).token_ids) == 50
