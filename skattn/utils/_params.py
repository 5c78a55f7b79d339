"""Declared parameter constraints, checked at the start of ``fit``.

Each estimator declares ``_parameter_constraints``: parameter name → a list
of accepted constraints (any one may match), or ``"no_validation"``. A
constraint is one of:

- an :class:`Interval` (a number type with bounds) or :class:`Options`
  (a fixed set of values);
- ``"boolean"``, ``"random_state"`` (None, an int or a RandomState),
  ``"verbose"`` (an int or a bool), ``callable``, ``None``;
- a type (``str``, ``list``, ``type``, ``os.PathLike``...): an instance of it.

The error names the parameter, what it accepts and what it got, in the
wording of scikit-learn's own validation (this module replaces the private
``sklearn.utils._param_validation``, which may change in any release).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

_CLOSED = ("left", "right", "both", "neither")


class InvalidParameterError(ValueError, TypeError):
    """A constructor parameter has a type or value its estimator does not accept.

    A subclass of both ``ValueError`` and ``TypeError``, as scikit-learn's
    error of the same name, so ``except ValueError`` catches it.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> try:
    ...     validate_params(SelfAttentiveClassifier(dropout=2.0))
    ... except InvalidParameterError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    InvalidParameterError True
    """


@dataclass(frozen=True)
class Interval:
    """Numbers of ``type`` between ``left`` and ``right`` (None: unbounded).

    Parameters
    ----------
    type : {numbers.Integral, numbers.Real}
        The numbers accepted; bools are never accepted as numbers.
    left, right : int, float or None
        Bounds (None: unbounded on that side). For ``Integral`` they must be
        ints; ``left`` may not exceed ``right``.
    closed : {"left", "right", "both", "neither"}, default="both"
        Which bounds belong to the interval (an unbounded side is always
        open).

    Raises
    ------
    TypeError
        ``type`` is neither ``Integral`` nor ``Real``, or a bound is not a
        number (an int bound for ``Integral``).
    ValueError
        ``closed`` is not one of the four options, a bound is NaN, or the
        interval is empty (``left > right``, or ``left == right`` with a
        bound left out).

    Examples
    --------
    >>> from numbers import Integral, Real
    >>> Interval(Integral, 1, None, "left").accepts(3)
    True
    >>> Interval(Real, 0, 1, "left").accepts(1.0)
    False
    >>> Interval(Real, 0, 1, "lft")
    Traceback (most recent call last):
    ...
    ValueError: Interval: closed must be one of 'left', 'right', 'both', 'neither'; got 'lft'.
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.type not in (Integral, Real):
            raise TypeError(
                f"Interval: type must be numbers.Integral or numbers.Real; got {self.type!r}."
            )
        if self.closed not in _CLOSED:
            options = ", ".join(repr(c) for c in _CLOSED)
            raise ValueError(f"Interval: closed must be one of {options}; got {self.closed!r}.")
        for side in ("left", "right"):
            bound = getattr(self, side)
            if bound is None:
                continue
            if isinstance(bound, bool) or not isinstance(bound, self.type):
                kind = "an int" if self.type is Integral else "a real number"
                raise TypeError(
                    f"Interval: {side} must be None or {kind} for an interval over "
                    f"{self.type.__name__}; got {bound!r}."
                )
            if bound != bound:
                raise ValueError(f"Interval: {side} is NaN; use None for an unbounded side.")
        if self.left is not None and self.right is not None:
            if self.left > self.right:
                raise ValueError(
                    f"Interval: left={self.left!r} is greater than right={self.right!r}."
                )
            if self.left == self.right and self.closed != "both":
                raise ValueError(
                    f"Interval: left == right == {self.left!r} with closed={self.closed!r} "
                    "holds no number; use closed='both' for a single value."
                )

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a number of ``type`` inside the bounds (NaN never is)."""
        if isinstance(value, bool) or not isinstance(value, self.type):
            return False
        if value != value:  # NaN compares False with every bound
            return False
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        kind = "an int" if self.type is Integral else "a float"
        left = "-inf" if self.left is None else self.left
        right = "inf" if self.right is None else self.right
        opening = "[" if self.closed in ("left", "both") and self.left is not None else "("
        closing = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{kind} in the range {opening}{left}, {right}{closing}"


#: Integers from 1 up: the constraint of sizes and counts (``[POSITIVE_INT]``).
POSITIVE_INT = Interval(Integral, 1, None, "left")


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values.

    Examples
    --------
    >>> Options({"adam", "sgd"}).accepts("sgd")
    True
    """

    values: frozenset

    def __init__(self, values):
        object.__setattr__(self, "values", frozenset(values))

    def accepts(self, value: Any) -> bool:
        try:
            return value in self.values
        except TypeError:  # unhashable
            return False

    def __str__(self) -> str:
        return "a str among " + "{" + ", ".join(repr(v) for v in sorted(self.values)) + "}"


def _accepts(constraint: Any, value: Any) -> bool:
    if isinstance(constraint, (Interval, Options)):
        return constraint.accepts(value)
    if constraint is None:
        return value is None
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "verbose":
        return isinstance(value, (bool, Integral))
    if constraint == "random_state":
        return value is None or isinstance(value, (Integral, np.random.RandomState))
    if constraint is callable:
        return callable(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    raise ValueError(f"unknown constraint {constraint!r}")


def _describe(constraint: Any) -> str:
    if isinstance(constraint, (Interval, Options)):
        return str(constraint)
    if constraint is None:
        return "None"
    if constraint is callable:
        return "a callable"
    if constraint == "random_state":
        return "an int, a numpy RandomState or None"
    if isinstance(constraint, str):
        return {"boolean": "a bool", "verbose": "an int or a bool"}[constraint]
    return f"an instance of {constraint.__name__!r}"


def validate_params(estimator: Any, params: dict[str, Any] | None = None) -> None:
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``.

    Parameters
    ----------
    estimator : estimator with ``_parameter_constraints`` and ``get_params``
    params : dict, optional
        The values to check; default ``estimator.get_params(deep=False)``.

    Raises
    ------
    InvalidParameterError
        Naming the first parameter that matches none of its constraints.

    Examples
    --------
    >>> from numbers import Real
    >>> from sklearn.base import BaseEstimator
    >>> class Model(BaseEstimator):
    ...     _parameter_constraints = {"alpha": [Interval(Real, 0, None, "left")]}
    ...     def __init__(self, alpha=1.0):
    ...         self.alpha = alpha
    >>> validate_params(Model(alpha=-1.0))
    Traceback (most recent call last):
    ...
    skattn.utils._params.InvalidParameterError: The 'alpha' parameter of Model must be a float in the range [0, inf). Got -1.0 instead.
    """  # noqa: E501
    constraints = estimator._parameter_constraints
    params = estimator.get_params(deep=False) if params is None else params
    for name, value in params.items():
        accepted = constraints.get(name, "no_validation")
        if accepted == "no_validation" or any(_accepts(c, value) for c in accepted):
            continue
        options = [_describe(c) for c in accepted]
        wording = (
            options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]
        )
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be {wording}. "
            f"Got {value!r} instead."
        )
