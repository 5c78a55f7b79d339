"""Scores to what ``predict`` returns: the one decision rule, in numpy only.

A fitted estimator turns its scores into predictions by one of four rules:

- ``"argmax"``: the most probable class (multiclass, and binary by default);
- ``"threshold"``: a binary classifier's ``classes_[1]`` when its
  probability reaches ``thresholds[0]`` (``threshold="f1"`` or a number);
- ``"multilabel"``: label j when its probability reaches ``thresholds[j]``,
  as a 0/1 indicator row of the fitted ``y``'s dtype (the surfaces that
  answer lists of labels name column j by ``label_names[j]`` when the
  fitted ``y`` had named columns, else by j);
- ``"regression"``: the network's standardised outputs times the targets'
  scale plus their mean, in the shape of the fitted ``y``.

:class:`DecisionRule` holds the rule and what it needs; the estimators
build it from their fitted state (``decision_rule_``), an exported artefact
carries it (``to_config``), and the serving runtime, the command line and
the web service read it back (``from_config``). Nothing else derives labels
from scores, so all of them answer alike. This module imports numpy and the
standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["KINDS", "DecisionRule", "InvalidDecisionRule"]

#: The rules a :class:`DecisionRule` can be.
KINDS = ("argmax", "threshold", "multilabel", "regression")
#: numpy kinds of labels a rule (and JSON) can hold: bool, int, unsigned, float, str, object.
_CLASS_KINDS = "biufUO"


class InvalidDecisionRule(ValueError):
    """A decision rule whose fields do not describe a fitted model's decisions.

    Examples
    --------
    >>> DecisionRule.from_config({"kind": "vote"})
    Traceback (most recent call last):
    ...
    skattn.decisions.InvalidDecisionRule: decision rule: kind is 'vote'; expected one of (...).
    """


@dataclass(frozen=True)
class DecisionRule:
    """How scores become predictions: argmax, a threshold, per-label thresholds or a scale.

    Build one with :meth:`argmax`, :meth:`threshold`, :meth:`multilabel` or
    :meth:`regression` (each validates its fields), or read one with
    :meth:`from_config`.

    Attributes
    ----------
    kind : {"argmax", "threshold", "multilabel", "regression"}
    classes : tuple or None
        The labels (classifiers), in the order of the score columns.
    classes_dtype : str or None
        The numpy dtype of ``classes_`` (``"object"`` for Python objects).
    thresholds : tuple of float or None
        ``"threshold"``: one, for ``classes[1]``; ``"multilabel"``: one per label.
    output_dtype : str or None
        ``"multilabel"``: the dtype of the indicator rows ``decide`` returns.
    target_mean, target_scale : tuple of float or None
        ``"regression"``: per output.
    target_ndim : int or None
        ``"regression"``: 1 when ``predict`` returns one value per document.
    label_names : tuple of str or None
        ``"multilabel"``: the name of each column (a DataFrame ``y``'s
        columns), which :meth:`labels` answers in place of the indices.

    Examples
    --------
    >>> rule = DecisionRule.threshold(["neg", "pos"], 0.3)
    >>> rule.decide(np.array([[0.8, 0.2], [0.6, 0.4]])).tolist()
    ['neg', 'pos']
    >>> DecisionRule.from_config(rule.to_config()) == rule
    True
    >>> tags = DecisionRule.multilabel(3, [0.5, 0.2, 0.9])
    >>> tags.labels(tags.decide(np.array([[0.6, 0.3, 0.5]])))
    [[0, 1]]
    >>> named = DecisionRule.multilabel(2, label_names=["joy", "anger"])
    >>> named.labels(named.decide(np.array([[0.6, 0.3]])))
    [['joy']]
    """

    kind: str
    classes: tuple | None = None
    classes_dtype: str | None = None
    thresholds: tuple[float, ...] | None = None
    output_dtype: str | None = None
    target_mean: tuple[float, ...] | None = None
    target_scale: tuple[float, ...] | None = None
    target_ndim: int | None = None
    label_names: tuple[str, ...] | None = None
    _classes: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_rule(self)
        if self.classes is not None:
            if self.classes_dtype == "object":  # one by one: a label may itself be a tuple
                values = np.empty(len(self.classes), dtype=object)
                for i, label in enumerate(self.classes):
                    values[i] = label
            else:
                values = np.asarray(self.classes, dtype=np.dtype(self.classes_dtype))
            object.__setattr__(self, "_classes", values)

    # -- construction --------------------------------------------------------
    @classmethod
    def argmax(cls, classes: Sequence[Any]) -> DecisionRule:
        """The most probable of ``classes`` (the columns of the probabilities).

        Examples
        --------
        >>> DecisionRule.argmax([0, 1, 2]).decide(np.array([[0.2, 0.5, 0.3]])).tolist()
        [1]
        """
        values, dtype = _labels(classes)
        return cls("argmax", classes=values, classes_dtype=dtype)

    @classmethod
    def threshold(cls, classes: Sequence[Any], threshold: float) -> DecisionRule:
        """``classes[1]`` when its probability reaches ``threshold``, else ``classes[0]``.

        Examples
        --------
        >>> DecisionRule.threshold([0, 1], 0.9).decide(np.array([[0.2, 0.8]])).tolist()
        [0]
        """
        values, dtype = _labels(classes)
        cut = _floats([threshold], "threshold")
        return cls("threshold", classes=values, classes_dtype=dtype, thresholds=cut)

    @classmethod
    def multilabel(
        cls,
        n_labels: int,
        thresholds: Sequence[float] | None = None,
        output_dtype: str | None = None,
        label_names: Sequence[str] | None = None,
    ) -> DecisionRule:
        """Label j when its probability reaches ``thresholds[j]`` (None: 0.5 for each).

        Parameters
        ----------
        n_labels : int
        thresholds : sequence of float, optional
        output_dtype : str, optional
            The dtype of the fitted indicator matrix (default ``"<i8"``).
        label_names : sequence of str, optional
            The name of each column, distinct; :meth:`labels` answers them.

        Examples
        --------
        >>> DecisionRule.multilabel(2).decide(np.array([[0.7, 0.1]])).tolist()
        [[1, 0]]
        """
        if isinstance(n_labels, bool) or not isinstance(n_labels, (int, np.integer)):
            raise InvalidDecisionRule(f"decision rule: n_labels is {n_labels!r}; expected an int.")
        cuts = (0.5,) * int(n_labels) if thresholds is None else _floats(thresholds, "thresholds")
        return cls(
            "multilabel",
            classes=tuple(range(int(n_labels))),
            classes_dtype=np.dtype(np.int64).str,
            thresholds=cuts,
            output_dtype=np.dtype(np.int64 if output_dtype is None else output_dtype).str,
            label_names=_names(label_names),
        )

    @classmethod
    def regression(
        cls, target_mean: Sequence[float], target_scale: Sequence[float], target_ndim: int
    ) -> DecisionRule:
        """Outputs in the units of ``y``: ``scores * target_scale + target_mean``.

        Examples
        --------
        >>> DecisionRule.regression([10.0], [2.0], 1).decide(np.array([[0.5], [-1.0]])).tolist()
        [11.0, 8.0]
        """
        return cls(
            "regression",
            target_mean=_floats(target_mean, "target_mean"),
            target_scale=_floats(target_scale, "target_scale"),
            target_ndim=target_ndim,
        )

    # -- use -------------------------------------------------------------------
    @property
    def n_scores(self) -> int:
        """How many score columns the rule reads (classes, labels or outputs).

        Examples
        --------
        >>> DecisionRule.argmax(["a", "b", "c"]).n_scores
        3
        """
        if self.kind == "regression":
            return len(self.target_mean)
        return len(self.classes)

    @property
    def column_labels(self) -> list | None:
        """What each score column is called: the classes, or a multi-label model's label names.

        Examples
        --------
        >>> DecisionRule.multilabel(2, label_names=["joy", "anger"]).column_labels
        ['joy', 'anger']
        >>> DecisionRule.multilabel(2).column_labels
        [0, 1]
        """
        if self.label_names is not None:
            return list(self.label_names)
        return None if self.classes is None else list(self.classes)

    @property
    def classes_array(self) -> np.ndarray | None:
        """``classes`` as the estimator's ``classes_`` array (its dtype), or None.

        Examples
        --------
        >>> DecisionRule.argmax(["neg", "pos"]).classes_array
        array(['neg', 'pos'], dtype='<U3')
        """
        return None if self._classes is None else self._classes.copy()

    def decide(self, scores: np.ndarray) -> np.ndarray:
        """What ``predict`` returns for these scores.

        Parameters
        ----------
        scores : ndarray of shape (n_documents, n_scores)
            Classifiers: probabilities (softmax, or each label's sigmoid);
            regressors: the network's standardised outputs.

        Returns
        -------
        ndarray
            Labels (n,), a 0/1 indicator matrix (n, n_labels), or values
            (n,) or (n, n_outputs).

        Raises
        ------
        ValueError
            ``scores`` is not 2-D with ``n_scores`` columns.

        Examples
        --------
        >>> DecisionRule.argmax(["neg", "pos"]).decide(np.array([[0.3, 0.7]])).tolist()
        ['pos']
        """
        scores = np.asarray(scores)
        if scores.ndim != 2 or scores.shape[1] != self.n_scores:
            raise ValueError(
                f"scores have shape {scores.shape}; this {self.kind} rule reads "
                f"(n_documents, {self.n_scores})."
            )
        if self.kind == "argmax":
            return self._classes[np.argmax(scores, axis=1)]
        if self.kind == "threshold":
            return self._classes[(scores[:, 1] >= self.thresholds[0]).astype(np.int64)]
        if self.kind == "multilabel":
            return (scores >= np.asarray(self.thresholds)).astype(np.dtype(self.output_dtype))
        values = scores.astype(np.float64) * np.asarray(self.target_scale) + np.asarray(
            self.target_mean
        )
        return values[:, 0] if self.target_ndim == 1 else values

    def labels(self, decided: np.ndarray) -> list:
        """Each document's decision as plain Python: a label, a list of labels, or values.

        Parameters
        ----------
        decided : ndarray
            What :meth:`decide` returned.

        Returns
        -------
        list
            Single-label: one label per document; multi-label: the list of
            each document's labels (their names when the rule has
            ``label_names``, else their column indices); regression: its
            value (or list of values).

        Examples
        --------
        >>> rule = DecisionRule.multilabel(3)
        >>> rule.labels(np.array([[1, 0, 1], [0, 0, 0]]))
        [[0, 2], []]
        """
        if self.kind == "multilabel":
            chosen = np.asarray(decided).astype(bool)
            names = self._classes if self.label_names is None else np.array(self.label_names)
            return [names[row].tolist() for row in chosen]
        return np.asarray(decided).tolist()

    # -- JSON ------------------------------------------------------------------
    def to_config(self) -> dict[str, Any]:
        """The rule as JSON-ready data (what an artefact's ``decision`` holds).

        Examples
        --------
        >>> DecisionRule.regression([0.0], [1.0], 1).to_config()["kind"]
        'regression'
        """
        config: dict[str, Any] = {"kind": self.kind}
        if self.kind == "regression":
            config.update(
                target_mean=list(self.target_mean),
                target_scale=list(self.target_scale),
                target_ndim=self.target_ndim,
            )
            return config
        config["classes"] = {"values": list(self.classes), "dtype": self.classes_dtype}
        if self.thresholds is not None:
            config["thresholds"] = list(self.thresholds)
        if self.output_dtype is not None:
            config["output_dtype"] = self.output_dtype
        if self.label_names is not None:
            config["label_names"] = list(self.label_names)
        return config

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> DecisionRule:
        """The rule that :meth:`to_config` wrote, validated.

        Raises
        ------
        InvalidDecisionRule
            A field is missing, of the wrong type, or inconsistent with the
            others (the message names it).

        Examples
        --------
        >>> DecisionRule.from_config({"kind": "argmax", "classes": {"values": [0, 1],
        ...     "dtype": "<i8"}}).decide(np.array([[0.1, 0.9]])).tolist()
        [1]
        """
        if not isinstance(config, Mapping):
            raise InvalidDecisionRule(
                f"decision rule: expected a JSON object, got {type(config).__name__}."
            )
        kind = config.get("kind")
        if kind not in KINDS:
            raise InvalidDecisionRule(f"decision rule: kind is {kind!r}; expected one of {KINDS}.")
        allowed = _FIELDS[kind]
        unknown = sorted(set(config) - allowed - {"kind"})
        missing = sorted(allowed - set(config) - {"output_dtype", "thresholds", "label_names"})
        if unknown or missing:
            raise InvalidDecisionRule(
                f"decision rule ({kind}): unknown fields {unknown}, missing fields {missing}."
            )
        if kind == "regression":
            return cls.regression(
                config["target_mean"], config["target_scale"], config["target_ndim"]
            )
        classes = config["classes"]
        if not isinstance(classes, Mapping) or set(classes) != {"values", "dtype"}:
            raise InvalidDecisionRule(
                'decision rule: classes must be {"values": [...], "dtype": "..."}.'
            )
        values, dtype = classes["values"], classes["dtype"]
        if not isinstance(values, list):
            raise InvalidDecisionRule("decision rule: classes.values must be a list.")
        thresholds = config.get("thresholds")
        if thresholds is not None:
            thresholds = _floats(thresholds, "thresholds")
        return cls(
            kind,
            classes=tuple(values),
            classes_dtype=dtype,
            thresholds=thresholds,
            output_dtype=config.get("output_dtype"),
            label_names=_names(config.get("label_names")),
        )


_FIELDS = {
    "argmax": {"classes"},
    "threshold": {"classes", "thresholds"},
    "multilabel": {"classes", "thresholds", "output_dtype", "label_names"},
    "regression": {"target_mean", "target_scale", "target_ndim"},
}


def _labels(classes: Sequence[Any]) -> tuple[tuple, str]:
    """Labels as a tuple of Python values, and the numpy dtype that restores them."""
    array = np.asarray(classes)
    if array.ndim != 1:
        raise InvalidDecisionRule(f"decision rule: classes have shape {array.shape}; expected 1-D.")
    dtype = "object" if array.dtype.kind == "O" else array.dtype.str
    return tuple(array.tolist()), dtype


def _names(names: Any) -> tuple[str, ...] | None:
    """Label names as a tuple of str (checked against the rule in :func:`_check_multilabel`)."""
    if names is None:
        return None
    if isinstance(names, (str, bytes, Mapping)) or not isinstance(names, (Sequence, np.ndarray)):
        raise InvalidDecisionRule(f"decision rule: label_names is {names!r}; expected a list.")
    return tuple(names.tolist() if isinstance(names, np.ndarray) else names)


def _floats(values: Any, name: str) -> tuple[float, ...]:
    """A non-empty sequence of finite numbers as floats, or :class:`InvalidDecisionRule`."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, (Sequence, np.ndarray)):
        raise InvalidDecisionRule(f"decision rule: {name} is {values!r}; expected a list.")
    numbers = []
    for value in np.asarray(values, dtype=object).ravel().tolist():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidDecisionRule(f"decision rule: {name} holds {value!r}; expected numbers.")
        if not math.isfinite(value):
            raise InvalidDecisionRule(f"decision rule: {name} holds {value!r}; expected finite.")
        numbers.append(float(value))
    if not numbers:
        raise InvalidDecisionRule(f"decision rule: {name} is empty.")
    return tuple(numbers)


def _check_rule(rule: DecisionRule) -> None:
    """Raise :class:`InvalidDecisionRule` unless the fields agree with each other and the kind."""
    if rule.kind not in KINDS:
        raise InvalidDecisionRule(f"decision rule: kind is {rule.kind!r}; expected one of {KINDS}.")
    if rule.label_names is not None and rule.kind != "multilabel":
        raise InvalidDecisionRule(f"decision rule ({rule.kind}): takes no label_names.")
    if rule.kind == "regression":
        _check_regression(rule)
        return
    _check_classes(rule)
    n_classes = len(rule.classes)
    if rule.kind == "argmax":
        if rule.thresholds is not None:
            raise InvalidDecisionRule("decision rule (argmax): takes no thresholds.")
        return
    if rule.kind == "threshold" and n_classes != 2:
        raise InvalidDecisionRule(
            f"decision rule (threshold): {n_classes} classes; a threshold decides between 2."
        )
    expected = 1 if rule.kind == "threshold" else n_classes
    n_thresholds = 0 if rule.thresholds is None else len(rule.thresholds)
    if n_thresholds != expected:
        raise InvalidDecisionRule(
            f"decision rule ({rule.kind}): {n_thresholds} thresholds for {n_classes} classes; "
            f"expected {expected}."
        )
    _floats(rule.thresholds, "thresholds")
    if not all(0.0 <= t <= 1.0 for t in rule.thresholds):
        raise InvalidDecisionRule(
            f"decision rule ({rule.kind}): thresholds {list(rule.thresholds)} must lie in [0, 1]."
        )
    if rule.kind == "multilabel":
        _check_multilabel(rule)


def _check_classes(rule: DecisionRule) -> None:
    fewest = 1 if rule.kind == "multilabel" else 2
    if not isinstance(rule.classes, tuple) or len(rule.classes) < fewest:
        raise InvalidDecisionRule(
            f"decision rule ({rule.kind}): classes {rule.classes!r}; expected at least {fewest}."
        )
    try:
        dtype = np.dtype(object if rule.classes_dtype == "object" else rule.classes_dtype)
    except TypeError:
        raise InvalidDecisionRule(
            f"decision rule: classes dtype {rule.classes_dtype!r} is not a numpy dtype."
        ) from None
    if dtype.kind not in _CLASS_KINDS:
        raise InvalidDecisionRule(f"decision rule: classes of dtype {dtype} are not labels.")
    for value in rule.classes:
        if isinstance(value, (list, dict)) or value is None:
            raise InvalidDecisionRule(f"decision rule: class {value!r} is not a label.")
    try:
        ordered = sorted(rule.classes)
    except TypeError:
        raise InvalidDecisionRule(
            "decision rule: classes of mixed types cannot be ordered as fit orders them."
        ) from None
    # fit takes classes_ from np.unique: sorted and distinct. Labels swapped
    # or repeated would silently change every answer.
    if list(rule.classes) != ordered or len(set(rule.classes)) != len(rule.classes):
        raise InvalidDecisionRule(
            f"decision rule: classes {list(rule.classes)[:10]} are not sorted and distinct, "
            "as fit leaves classes_."
        )


def _check_multilabel(rule: DecisionRule) -> None:
    if list(rule.classes) != list(range(len(rule.classes))):
        raise InvalidDecisionRule(
            "decision rule (multilabel): the labels are the column indices 0 … n_labels − 1."
        )
    if rule.output_dtype is None:
        raise InvalidDecisionRule("decision rule (multilabel): output_dtype is missing.")
    try:
        output = np.dtype(rule.output_dtype)
    except TypeError:
        raise InvalidDecisionRule(
            f"decision rule: output_dtype {rule.output_dtype!r} is not a numpy dtype."
        ) from None
    if output.kind not in "biuf":
        raise InvalidDecisionRule(
            f"decision rule: output_dtype {output} cannot hold a 0/1 indicator matrix."
        )
    names = rule.label_names
    if names is None:
        return
    if len(names) != len(rule.classes):
        raise InvalidDecisionRule(
            f"decision rule (multilabel): {len(names)} label names for {len(rule.classes)} labels."
        )
    if not all(isinstance(name, str) and name for name in names) or len(set(names)) != len(names):
        raise InvalidDecisionRule(
            f"decision rule (multilabel): label names {list(names)[:10]} must be distinct, "
            "non-empty strings."
        )


def _check_regression(rule: DecisionRule) -> None:
    if rule.classes is not None or rule.thresholds is not None:
        raise InvalidDecisionRule("decision rule (regression): takes no classes or thresholds.")
    for name in ("target_mean", "target_scale"):
        value = getattr(rule, name)
        if not isinstance(value, tuple) or not value:
            raise InvalidDecisionRule(f"decision rule (regression): {name} is missing.")
    if len(rule.target_mean) != len(rule.target_scale):
        raise InvalidDecisionRule(
            f"decision rule (regression): {len(rule.target_mean)} means for "
            f"{len(rule.target_scale)} scales; one of each per output."
        )
    if not all(scale > 0 for scale in rule.target_scale):
        raise InvalidDecisionRule("decision rule (regression): every target_scale must be > 0.")
    ndim = rule.target_ndim
    if ndim not in (1, 2) or not isinstance(ndim, int) or isinstance(ndim, bool):
        raise InvalidDecisionRule(f"decision rule (regression): target_ndim is {ndim!r}; 1 or 2.")
    if ndim == 1 and len(rule.target_mean) != 1:
        raise InvalidDecisionRule(
            f"decision rule (regression): a 1-D target has one output, not {len(rule.target_mean)}."
        )
