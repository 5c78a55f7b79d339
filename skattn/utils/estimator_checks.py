"""scikit-learn's data checks, written again for estimators that read raw text.

scikit-learn's ``check_estimator`` only runs its data-free checks on an
estimator that declares ``string=True, two_d_array=False`` (its own text
vectorizers do). :func:`check_text_estimator` runs the data checks with text:
each check is a small function ``check(estimator, X, y)`` that raises
``AssertionError`` when the estimator breaks a rule.

Use it for any text classifier or regressor::

    from skattn.utils.estimator_checks import check_text_estimator
    check_text_estimator(MyTextClassifier(), X, y)   # X: list of str, y: labels
    check_text_estimator(MyTextRegressor(), X, y)    # y: numbers

or one check at a time with :func:`text_estimator_checks` (for pytest
parametrisation).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator

import numpy as np
from scipy.special import expit
from sklearn.base import clone, is_regressor
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

__all__ = [
    "DATA_FREE_CHECKS",
    "check_bad_input_errors",
    "check_fit_returns_self",
    "check_idempotent_fit",
    "check_label_types",
    "check_multilabel_outputs",
    "check_multilabel_representation_invariance",
    "check_not_fitted",
    "check_param_validation",
    "check_pickle_round_trip",
    "check_probabilities",
    "check_regression_shapes",
    "check_sample_order_independence",
    "check_text_estimator",
    "check_unit_sample_weight",
    "multilabel_targets",
    "text_estimator_checks",
]

TextCheck = Callable[[object, list, np.ndarray], None]

#: The checks scikit-learn's suite runs without data (with string=True,
#: two_d_array=False it skips every check that needs numeric 2-D X).
#: Its check_param_validation is tied to scikit-learn's private constraint
#: classes; the text checks run our version of it (check_param_validation).
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
    "check_estimator_sparse_tag",
]


def _outputs(estimator, X) -> np.ndarray:
    """What the estimator computes: a classifier's probabilities, a regressor's
    predictions, else its transform."""
    if hasattr(estimator, "predict_proba"):
        return estimator.predict_proba(X)
    if is_regressor(estimator):
        return np.asarray(estimator.predict(X))
    output = estimator.transform(X)
    return output.toarray() if hasattr(output, "toarray") else np.asarray(output)


def _is_classifier(estimator) -> bool:
    return hasattr(estimator, "predict_proba")


def check_fit_returns_self(estimator, X, y) -> None:
    """``fit`` returns the estimator itself.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_fit_returns_self(tiny, X, y)  # no error: the rule holds
    """
    est = clone(estimator)
    assert est.fit(X, y) is est, "fit must return self"


def check_not_fitted(estimator, X, y) -> None:
    """Every prediction method raises ``NotFittedError`` before ``fit``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_not_fitted(tiny, X, y)  # no error: the rule holds
    """
    for method in ("predict", "predict_proba", "decision_function", "transform"):
        if hasattr(estimator, method):
            try:
                getattr(clone(estimator), method)(X[:2])
            except NotFittedError:
                continue
            raise AssertionError(f"{method} before fit did not raise NotFittedError")


def check_pickle_round_trip(estimator, X, y) -> None:
    """A pickled and unpickled estimator predicts exactly as the original.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_pickle_round_trip(tiny, X, y)  # no error: the rule holds
    """
    est = clone(estimator).fit(X, y)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(_outputs(restored, X), _outputs(est, X))


def check_idempotent_fit(estimator, X, y) -> None:
    """Fitting twice on the same data gives the same model as fitting once.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_idempotent_fit(tiny, X, y)  # no error: the rule holds
    """
    est = clone(estimator)
    first = _outputs(est.fit(X, y), X)
    np.testing.assert_array_equal(_outputs(est.fit(X, y), X), first)


def check_sample_order_independence(estimator, X, y) -> None:
    """The fitted model does not depend on the order of the training samples.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_sample_order_independence(tiny, X, y)  # no error: the rule holds
    """
    order = np.random.RandomState(0).permutation(len(X))
    plain = _outputs(clone(estimator).fit(X, y), X)
    shuffled = clone(estimator).fit([X[i] for i in order], np.asarray(y)[order])
    np.testing.assert_allclose(_outputs(shuffled, X), plain, rtol=1e-6, atol=1e-7)


def check_label_types(estimator, X, y) -> None:
    """String, integer and boolean labels come back as given, as values of ``classes_``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_label_types(tiny, X, y)  # no error: the rule holds
    """
    if not _is_classifier(estimator):
        return
    first = np.asarray(y) == np.unique(y)[0]
    for labels in (np.where(first, "yes", "no"), np.where(first, 7, -3), first):
        est = clone(estimator).fit(X, labels)
        predicted = est.predict(X[:10])
        assert predicted.dtype == labels.dtype, f"{predicted.dtype} != {labels.dtype}"
        assert set(predicted) <= set(labels.tolist())
        np.testing.assert_array_equal(np.sort(est.classes_), np.unique(labels))


def check_probabilities(estimator, X, y) -> None:
    """Probabilities sum to 1 and agree with ``predict`` and ``decision_function``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_probabilities(tiny, X, y)  # no error: the rule holds
    """
    if not _is_classifier(estimator):
        return
    est = clone(estimator).fit(X, y)
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-10)
    np.testing.assert_array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))
    decision = est.decision_function(X)
    if decision.ndim == 1:
        np.testing.assert_allclose(expit(decision), proba[:, 1], rtol=1e-6)
    else:
        np.testing.assert_array_equal(decision.argmax(axis=1), proba.argmax(axis=1))


def check_regression_shapes(estimator, X, y) -> None:
    """A regressor predicts floats shaped like its ``y``: 1-D for 1-D, 2-D for 2-D.

    Examples
    --------
    >>> from skattn import SelfAttentiveRegressor
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = [4.5, 4.0, 1.5, 1.0] * 8
    >>> tiny = SelfAttentiveRegressor(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                               max_epochs=1, random_state=0)
    >>> check_regression_shapes(tiny, X, y)  # no error: the rule holds
    """
    if not is_regressor(estimator):
        return
    y = np.asarray(y, dtype=np.float64)
    for targets in (y, y[:, None], np.c_[y, -2 * y]):
        predicted = clone(estimator).fit(X, targets).predict(X[:5])
        assert predicted.shape == (5,) + targets.shape[1:], (
            f"y of shape {targets.shape} gave predictions of shape {predicted.shape}"
        )
        assert predicted.dtype.kind == "f", f"predictions of dtype {predicted.dtype}"


def check_unit_sample_weight(estimator, X, y) -> None:
    """``sample_weight`` of ones gives the same model as no weights.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_unit_sample_weight(tiny, X, y)  # no error: the rule holds
    """
    plain = _outputs(clone(estimator).fit(X, y), X)
    ones = _outputs(clone(estimator).fit(X, y, sample_weight=np.ones(len(X))), X)
    np.testing.assert_array_equal(ones, plain)


def check_bad_input_errors(estimator, X, y) -> None:
    """Non-text input, length mismatches and bad targets give clear errors.

    Bad targets: a single class for a classifier; NaN, text or a 3-D ``y``
    for a regressor.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_bad_input_errors(tiny, X, y)  # no error: the rule holds
    """
    cases = [
        (np.zeros((len(X), 3)), y, "shape"),
        (list(X[:-1]) + [None], y, "None"),
        (list(X[:-1]) + [b"bytes"], y, "bytes"),
        (X, np.asarray(y)[:-1], "must match"),
        ([], [], "empty"),
    ]
    if is_regressor(estimator):
        cases += [
            (X, np.r_[np.asarray(y, dtype=float)[:-1], np.nan], "NaN"),
            (X, np.full(len(X), "high"), "numbers"),
            (X, np.zeros((len(X), 2, 2)), "shape"),
        ]
    else:
        cases.append((X, np.full(len(X), np.asarray(y)[0]), "single class"))
    for bad_X, bad_y, words in cases:
        try:
            clone(estimator).fit(bad_X, bad_y)
        except (TypeError, ValueError) as error:
            assert words in str(error), f"error {error!r} does not say {words!r}"
        else:
            raise AssertionError(f"fit accepted bad input ({words})")


def check_param_validation(estimator, X, y) -> None:
    """Every parameter is declared, and a value of the wrong type fails ``fit`` clearly.

    The text version of scikit-learn's check of the same name: each
    parameter in turn is set to an object of a type nobody accepts, and
    ``fit`` must raise an error that names the parameter and the estimator
    ("The 'name' parameter of Estimator must be ... Got ... instead.").

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_param_validation(tiny, X, y)  # no error: the rule holds
    """
    import re

    params = estimator.get_params(deep=False)
    declared = getattr(estimator, "_parameter_constraints", {})
    assert set(declared) == set(params), (
        f"_parameter_constraints and the parameters differ: {sorted(set(declared) ^ set(params))}"
    )
    bad_value = type("BadType", (), {})()
    name_of = type(estimator).__name__
    for name in params:
        if declared[name] == "no_validation":
            continue
        est = clone(estimator).set_params(**{name: bad_value})
        try:
            est.fit(X, y)
        except (TypeError, ValueError) as error:
            pattern = rf"The '{name}' parameter of {name_of} must be .* Got .* instead\."
            assert re.search(pattern, str(error)), f"unclear error for {name}: {error}"
        else:
            raise AssertionError(f"fit accepted {name}={bad_value!r}")


def _multilabel(estimator) -> bool:
    tags = get_tags(estimator).classifier_tags
    return tags is not None and tags.multi_label


def multilabel_targets(X, y) -> np.ndarray:
    """A three-label indicator matrix the texts carry: each of two classes of ``y``, and length.

    Label 0: the document is of the first class of ``y``; label 1: of any
    other class; label 2: it has more words than the median document.

    Examples
    --------
    >>> multilabel_targets(["a b c", "a", "a b"], ["x", "y", "x"]).tolist()
    [[1, 0, 1], [0, 1, 0], [1, 0, 0]]
    """
    y = np.asarray(y)
    # A sample may be a pair of texts (the pair models): its words are both texts'.
    texts = [text if isinstance(text, str) else " ".join(text) for text in X]
    lengths = np.array([len(text.split()) for text in texts])
    first = y == np.unique(y)[0]
    return np.column_stack([first, ~first, lengths > np.median(lengths)]).astype(np.int64)


def check_multilabel_representation_invariance(estimator, X, y) -> None:
    """An indicator ``y`` as an array, a list of lists or a list of arrays gives the same model.

    The text version of scikit-learn's check of the same name; skipped for
    estimators that do not declare ``classifier_tags.multi_label``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_multilabel_representation_invariance(tiny, X, y)  # no error: the rule holds
    """
    if not _multilabel(estimator):
        return
    Y = multilabel_targets(X, y)
    predictions = [clone(estimator).fit(X, form).predict(X) for form in (Y, Y.tolist(), list(Y))]
    for other in predictions[1:]:
        np.testing.assert_array_equal(other, predictions[0])
        assert type(other) is type(predictions[0]) and other.dtype == predictions[0].dtype


def check_multilabel_outputs(estimator, X, y) -> None:
    """Multi-label outputs: their shapes and dtypes, and predict, proba and decision agree.

    ``predict`` returns an (n, n_labels) array of 0/1 in the dtype of ``y``,
    equal to ``predict_proba >= thresholds_``; ``predict_proba`` an
    (n, n_labels) float array in [0, 1], the sigmoid of
    ``decision_function``'s (n, n_labels) floats; ``classes_`` the label
    indices; a pickled copy predicts the same probabilities exactly.
    Skipped for estimators that do not declare ``classifier_tags.multi_label``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_multilabel_outputs(tiny, X, y)  # no error: the rule holds
    """
    if not _multilabel(estimator):
        return
    for dtype in (np.int64, np.uint8, np.float64):
        Y = multilabel_targets(X, y).astype(dtype)
        est = clone(estimator).fit(X, Y)
        predicted, proba = est.predict(X), est.predict_proba(X)
        assert isinstance(predicted, np.ndarray), f"predict returned {type(predicted)}"
        assert predicted.shape == Y.shape and predicted.dtype == Y.dtype, (
            f"predict gave {predicted.shape} {predicted.dtype} for y of {Y.shape} {Y.dtype}"
        )
        assert set(np.unique(predicted)) <= {0, 1}
        assert isinstance(proba, np.ndarray) and proba.shape == Y.shape
        assert proba.dtype.kind == "f" and 0 <= proba.min() and proba.max() <= 1
        decision = est.decision_function(X)
        assert decision.shape == Y.shape and decision.dtype.kind == "f"
        np.testing.assert_allclose(expit(decision), proba, rtol=1e-6, atol=1e-12)
        thresholds = 0.5 if est.thresholds_ is None else est.thresholds_
        np.testing.assert_array_equal(predicted, (proba >= thresholds).astype(dtype))
        np.testing.assert_array_equal(est.classes_, np.arange(Y.shape[1]))
        restored = pickle.loads(pickle.dumps(est))
        np.testing.assert_array_equal(restored.predict_proba(X), proba)


def text_estimator_checks() -> Iterator[TextCheck]:
    """Yield every text data check (for ``pytest.mark.parametrize``).

    Examples
    --------
    >>> [check.__name__ for check in text_estimator_checks()][:2]
    ['check_fit_returns_self', 'check_param_validation']
    """
    yield check_fit_returns_self
    yield check_param_validation
    yield check_not_fitted
    yield check_pickle_round_trip
    yield check_idempotent_fit
    yield check_sample_order_independence
    yield check_label_types
    yield check_probabilities
    yield check_regression_shapes
    yield check_unit_sample_weight
    yield check_bad_input_errors
    yield check_multilabel_representation_invariance
    yield check_multilabel_outputs


def check_text_estimator(estimator, X, y) -> None:
    """Run every text data check on ``estimator`` with documents ``X`` and labels ``y``.

    Classifiers are compared through ``predict_proba``, regressors through
    ``predict``, supervised transformers through ``transform`` (the label
    checks apply to classifiers, the shape check to regressors, the
    multi-label checks to classifiers that declare
    ``classifier_tags.multi_label``, with an indicator matrix made from
    ``X`` and ``y`` by :func:`multilabel_targets`).

    Parameters
    ----------
    estimator : scikit-learn classifier or supervised transformer reading raw text
        Deterministic for a fixed ``random_state`` (set one).
    X : list of str
        A few hundred real documents make the checks meaningful and fast.
    y : array-like
        Their labels (at least two classes), or a regressor's numbers.

    Raises
    ------
    AssertionError
        Naming the first rule the estimator breaks.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> tiny = SelfAttentiveClassifier(embedding_dim=4, hidden_size=4, mlp_hidden=4,
    ...                                max_epochs=1, random_state=0)
    >>> check_text_estimator(tiny, X, y)  # no error: every rule holds
    """
    for check in text_estimator_checks():
        check(estimator, list(X), np.asarray(y))
