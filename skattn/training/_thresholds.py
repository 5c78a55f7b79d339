"""Decision thresholds: from probabilities to labels, per label where the labels are many.

A multi-label classifier decides each label on its own: label j is predicted
when its probability reaches ``thresholds_[j]``. 0.5 is right only for a
calibrated model whose errors cost the same both ways; for rare labels it
predicts almost nothing (on GoEmotions it halves macro-F1). The classifiers
therefore choose each label's threshold on held-out documents of the fit
data, the one that maximises that label's F1 (:func:`f1_thresholds`); a
fixed threshold is one parameter away. The same rule serves a binary
classifier whose positive class is rare.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from skattn.decisions import DecisionRule
from skattn.utils._params import Interval, validate_params
from skattn.utils._validation import check_indicator_matrix, check_label_names, label_names_of

__all__ = [
    "THRESHOLD_OPTIONS",
    "TunedThresholdMultiLabelClassifier",
    "f1_thresholds",
    "resolve_threshold",
    "tuned_macro_f1",
]

#: The string values of a classifier's ``threshold`` parameter.
THRESHOLD_OPTIONS = frozenset({"auto", "f1"})

#: The threshold of a label whose F1 cannot be measured (no positive
#: example among the held-out documents).
FALLBACK = 0.5

#: The default width of the window a label's F1 is averaged over before its
#: threshold is chosen (:func:`f1_thresholds`), as a share of the standard
#: deviation of that label's log-odds; chosen on GoEmotions' dev split (tuned
#: on one half, scored on the other).
SMOOTHING = 0.25

#: The most grid points a smoothed cut evaluates; a window so narrow that it
#: would need more is finer than any difference the grid could show, and the
#: exact cut (the limit as ``smoothing`` goes to 0) is taken instead.
MAX_GRID = 100_000


def f1_thresholds(
    y_true: np.ndarray, proba: np.ndarray, *, smoothing: float = SMOOTHING
) -> np.ndarray:
    """Per column, the probability threshold that maximises F1 on these documents.

    With ``smoothing`` (the default), each label's F1 is first measured at
    every threshold of a fine grid in log-odds, then averaged over a
    Gaussian window whose width is ``smoothing`` times the standard
    deviation of that label's log-odds, and the threshold with the best
    *averaged* F1 is kept: with few positives (a rare
    label among a few thousand held-out documents) the single best cut
    fits those few documents, and a wider plateau of good thresholds
    holds better on new ones. ``smoothing=0`` keeps the exact best cut,
    halfway between the lowest probability predicted positive and the
    highest one below it. A column without a positive example keeps 0.5.
    Probabilities of exactly 0 or 1 (a k-nearest-neighbours or tree model
    gives many) are never tied with any other: they count on their own
    side of every threshold, and the spread that sets the window's width is
    measured over the other probabilities only.

    Parameters
    ----------
    y_true : array-like of shape (n_documents, n_labels)
        0/1 indicator matrix.
    proba : array-like of shape (n_documents, n_labels)
        Each label's probability.
    smoothing : float, default=0.25
        Width of the window F1 is averaged over (its standard deviation,
        as a share of the standard deviation of the label's log-odds);
        0 for the exact best cut. A finite number, at least 0.

    Returns
    -------
    ndarray of float64, shape (n_labels,)

    Examples
    --------
    >>> y = np.array([[1], [1], [0], [0]])
    >>> p = np.array([[0.9], [0.3], [0.2], [0.1]])
    >>> f1_thresholds(y, p, smoothing=0)  # both positives above 0.25, no negative
    array([0.25])
    >>> bool(0.2 < f1_thresholds(y, p)[0] <= 0.3)  # the same cut, from the averaged F1
    True
    """
    _check_smoothing(smoothing)
    y_true = np.asarray(y_true, dtype=bool)
    proba = np.asarray(proba, dtype=np.float64)
    if not np.isfinite(proba).all():
        raise ValueError(
            "proba holds NaN or infinite values: a threshold cannot be chosen from them."
        )
    thresholds = np.full(proba.shape[1], FALLBACK)
    for j in range(proba.shape[1]):
        if y_true[:, j].any():
            thresholds[j] = _label_threshold(proba[:, j], y_true[:, j], smoothing)
    return thresholds


def _label_threshold(proba: np.ndarray, y_true: np.ndarray, smoothing: float) -> float:
    """One label's threshold (it has at least one positive): smoothed, or the exact cut."""
    order = np.argsort(-proba, kind="stable")
    scores, hits, positives = proba[order], y_true[order], int(y_true.sum())
    log_odds = _log_odds(scores)
    inside = log_odds[np.isfinite(log_odds)]  # probabilities strictly between 0 and 1
    width = smoothing * float(np.std(inside)) if len(inside) > 1 else 0.0
    span = float(inside[0] - inside[-1]) + 6 * width if width > 0 else 0.0
    if width > 0 and span / (width / 10) < MAX_GRID:
        return _smoothed_cut(log_odds, inside, hits, positives, width)
    return _exact_cut(scores, hits, positives)


def _exact_cut(scores: np.ndarray, hits: np.ndarray, positives: int) -> float:
    """The threshold of best F1 on these documents, halfway between two scores.

    ``scores`` are one label's probabilities in decreasing order, ``hits``
    whether each document has the label.
    """
    # Predicting the top k documents positive: F1 = 2 TP / (k + P).
    # Only cuts between distinct scores can be thresholds.
    cuts = np.flatnonzero(np.r_[scores[1:] < scores[:-1], True])
    true_positives = np.cumsum(hits)[cuts]
    f1 = 2 * true_positives / (cuts + 1 + positives)
    best = cuts[int(np.argmax(f1))]
    below = scores[best + 1] if best + 1 < len(scores) else 0.0
    return float((scores[best] + below) / 2)


def _smoothed_cut(
    log_odds: np.ndarray, inside: np.ndarray, hits: np.ndarray, positives: int, width: float
) -> float:
    """The threshold of best F1 averaged over a Gaussian window in log-odds.

    ``log_odds`` are one label's in decreasing order (±inf for
    probabilities of 1 and 0), ``inside`` their finite ones, ``hits``
    whether each document has the label.
    """
    step = width / 10
    grid = np.arange(inside[-1] - 3 * width, inside[0] + 3 * width + step, step)
    # Documents at or above each grid threshold (log_odds decreases; a
    # probability of 1 is +inf, above every threshold, 0 is −inf, below all).
    predicted = np.searchsorted(-log_odds, -grid, side="right")
    true_positives = np.r_[0, np.cumsum(hits)][predicted]
    f1 = 2 * true_positives / (predicted + positives)
    offsets = np.arange(-3 * width, 3 * width + step / 2, step)
    window = np.exp(-0.5 * (offsets / width) ** 2)
    # Normalised by the window's mass inside the grid, so the ends are not pulled down.
    averaged = np.convolve(f1, window, "same") / np.convolve(np.ones_like(f1), window, "same")
    return float(1 / (1 + np.exp(-grid[int(np.argmax(averaged))])))


def _log_odds(proba: np.ndarray) -> np.ndarray:
    """log(p / (1 − p)): −inf for a probability of exactly 0, +inf for 1."""
    with np.errstate(divide="ignore"):
        return np.log(proba) - np.log1p(-proba)


def _check_smoothing(smoothing: Any) -> None:
    """Refuse a ``smoothing`` that is not a finite real number >= 0."""
    if (
        isinstance(smoothing, bool)
        or not isinstance(smoothing, Real)
        or not np.isfinite(smoothing)
        or smoothing < 0
    ):
        raise ValueError(f"smoothing must be a finite number >= 0, got {smoothing!r}.")


def tuned_macro_f1(y_true: np.ndarray, proba: np.ndarray) -> float:
    """Macro-F1 with each label decided at the threshold :func:`f1_thresholds` picks here.

    Optimistic as a test score (the thresholds saw the answers), but the
    measure a fit compares its epochs by: how well each label can be
    separated, whatever its threshold.

    Examples
    --------
    >>> y = np.array([[1, 0], [1, 1], [0, 0], [0, 1]])
    >>> p = np.array([[0.9, 0.2], [0.6, 0.7], [0.3, 0.4], [0.1, 0.8]])
    >>> tuned_macro_f1(y, p)
    1.0
    """
    y_true = np.asarray(y_true, dtype=bool)
    predicted = np.asarray(proba) >= f1_thresholds(y_true, proba)
    return float(f1_score(y_true, predicted, average="macro", zero_division=0))


def resolve_threshold(threshold: Any, *, multilabel: bool, n_classes: int) -> str | float:
    """What ``threshold`` means for these targets: ``"argmax"``, ``"f1"`` or a number.

    ``"auto"`` tunes F1 thresholds for multi-label targets and keeps the
    most probable class otherwise (the accuracy-optimal rule for calibrated
    probabilities). ``"f1"`` and numbers apply to multi-label and binary
    targets; a multiclass target has one label per document, so it can only
    take the most probable class.

    Parameters
    ----------
    threshold : "auto", "f1" or float in (0, 1)
    multilabel : bool
    n_classes : int
        Classes of a single-label target (labels of a multi-label one).

    Returns
    -------
    "argmax", "f1" or float

    Raises
    ------
    ValueError
        ``"f1"`` or a number for a multiclass target.

    Examples
    --------
    >>> resolve_threshold("auto", multilabel=True, n_classes=5)
    'f1'
    >>> resolve_threshold("auto", multilabel=False, n_classes=2)
    'argmax'
    >>> resolve_threshold(0.3, multilabel=False, n_classes=2)
    0.3
    """
    if threshold == "auto":
        return "f1" if multilabel else "argmax"
    if not multilabel and n_classes > 2:
        raise ValueError(
            f"threshold={threshold!r} needs a binary or multi-label y; y has {n_classes} "
            "classes, one per document, and the most probable one is predicted "
            "(threshold='auto')."
        )
    return threshold if isinstance(threshold, str) else float(threshold)


class TunedThresholdMultiLabelClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Per-label F1 thresholds for any multi-label classifier with ``predict_proba``.

    scikit-learn's :class:`~sklearn.model_selection.TunedThresholdClassifierCV`
    tunes one threshold of a binary classifier; this tunes each label of a
    multi-label one as skattn's attention classifiers do
    (``threshold="auto"``): fit ``estimator`` on all but
    ``validation_fraction`` of the documents and choose each label's
    threshold for F1 on the rest (:func:`f1_thresholds`). Unlike them, it
    then (``refit=True``) fits ``estimator`` again on every document and
    keeps the thresholds; the attention classifiers keep the network
    trained on the rest.

    Parameters
    ----------
    estimator : classifier
        Learns a multi-label indicator ``y``; ``predict_proba`` returns an
        (n, n_labels) array (e.g. a pipeline ending in
        :class:`~sklearn.multiclass.OneVsRestClassifier`).
    validation_fraction : float in (0, 1), default=0.1
    refit : bool, default=True
    random_state : int, RandomState or None, default=None
        Seed of the validation split.
    smoothing : float, default=0.25
        :func:`f1_thresholds`' window; 0 for each label's exact best cut.

    Attributes
    ----------
    estimator_ : classifier
        The fitted ``estimator``.
    thresholds_ : ndarray of shape (n_labels,)
    classes_ : ndarray
        The label indices 0 … n_labels − 1.
    label_names_ : ndarray of str
        ``y``'s column names, when it was a DataFrame with string column
        names (only then).
    decision_rule_ : skattn.decisions.DecisionRule
        How ``predict`` decides; its ``labels`` lists each row's labels by
        name when there are ``label_names_``.

    Examples
    --------
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.multiclass import OneVsRestClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> X = ["good fun", "good", "sad fun", "sad"] * 10
    >>> Y = np.array([[1, 1], [1, 0], [0, 1], [0, 0]] * 10)
    >>> linear = make_pipeline(TfidfVectorizer(), OneVsRestClassifier(LogisticRegression()))
    >>> tuned = TunedThresholdMultiLabelClassifier(linear, random_state=0).fit(X, Y)
    >>> tuned.predict(["good fun", "sad"]).tolist()
    [[1, 1], [0, 0]]
    >>> import pandas as pd
    >>> named = tuned.fit(X, pd.DataFrame(Y, columns=["good", "fun"]))
    >>> named.decision_rule_.labels(named.predict(["good fun", "sad"]))
    [['good', 'fun'], []]
    """

    _parameter_constraints: dict = {
        "estimator": "no_validation",  # checked in fit: it must have predict_proba
        "validation_fraction": [Interval(Real, 0, 1, "neither")],
        "refit": ["boolean"],
        "random_state": ["random_state"],
        "smoothing": [Interval(Real, 0, None, "left")],
    }

    def __init__(
        self,
        estimator,
        *,
        validation_fraction=0.1,
        refit=True,
        random_state=None,
        smoothing=SMOOTHING,
    ):
        self.estimator = estimator
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.random_state = random_state
        self.smoothing = smoothing

    def fit(self, X, y):
        """Fit ``estimator``, tune each label's threshold, refit.

        Parameters
        ----------
        X : documents or features the estimator takes
        y : array-like or sparse matrix of shape (n_samples, n_labels)

        Returns
        -------
        self
        """
        validate_params(self)
        if not hasattr(self.estimator, "predict_proba"):
            raise TypeError(
                f"estimator must have predict_proba (a classifier of probabilities); "
                f"{type(self.estimator).__name__} has none."
            )
        names = label_names_of(y)
        Y = check_indicator_matrix(y, len(X))
        rows = np.arange(len(X))
        fit_rows, tune_rows = train_test_split(
            rows, test_size=self.validation_fraction, random_state=self.random_state
        )
        model = clone(self.estimator).fit(_take(X, fit_rows), Y[fit_rows])
        self.thresholds_ = f1_thresholds(
            Y[tune_rows], model.predict_proba(_take(X, tune_rows)), smoothing=self.smoothing
        )
        self.estimator_ = clone(self.estimator).fit(X, Y) if self.refit else model
        self.classes_ = np.arange(Y.shape[1])
        self._target_dtype = Y.dtype
        self.__dict__.pop("label_names_", None)
        if names is not None:
            self.label_names_ = np.array(names, dtype=object)
        return self

    @property
    def decision_rule_(self) -> DecisionRule:
        """Each label at its ``thresholds_``, named by ``label_names_`` when set."""
        check_is_fitted(self, "estimator_")
        names = getattr(self, "label_names_", None)
        return DecisionRule.multilabel(
            len(self.thresholds_),
            self.thresholds_,
            self._target_dtype,
            None if names is None else names.tolist(),
        )

    def predict_proba(self, X) -> np.ndarray:
        """Each label's probability, (n_samples, n_labels)."""
        check_is_fitted(self, "estimator_")
        return np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)

    def predict(self, X) -> np.ndarray:
        """The indicator matrix: label j where its probability reaches ``thresholds_[j]``."""
        proba = self.predict_proba(X)  # checks that the model is fitted
        return self.decision_rule_.decide(proba)

    def score(self, X, y, sample_weight=None) -> float:
        """Subset accuracy; a DataFrame ``y`` must name the fitted labels, in their order."""
        check_is_fitted(self, "estimator_")
        check_label_names(y, getattr(self, "label_names_", None))
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = get_tags(self.estimator).input_tags
        tags.classifier_tags.multi_label = True
        return tags


def _take(X, rows: np.ndarray):
    """Rows of documents (a list, an array, a Series or a DataFrame)."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, list):
        return [X[i] for i in rows]
    return X[rows]
