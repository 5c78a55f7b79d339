"""Declared parameter constraints: an Interval checks its own arguments, and what it accepts."""

from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from skattn.utils._params import POSITIVE_INT, Interval, InvalidParameterError, validate_params


@pytest.mark.parametrize("closed", ["lft", "Left", "open", "", None])
def test_an_unknown_closed_is_refused_at_construction(closed):
    with pytest.raises(ValueError, match=rf"closed must be one of 'left', .* got {closed!r}"):
        Interval(Real, 0, 1, closed)


@pytest.mark.parametrize("number_type", [Integral, Real])
def test_left_above_right_is_refused(number_type):
    with pytest.raises(ValueError, match="left=5 is greater than right=1"):
        Interval(number_type, 5, 1, "both")


@pytest.mark.parametrize("closed", ["left", "right", "neither"])
def test_an_interval_holding_no_number_is_refused(closed):
    with pytest.raises(ValueError, match="holds no number"):
        Interval(Real, 2, 2, closed)


def test_a_single_value_interval_holds_that_value_only():
    single = Interval(Real, 2, 2, "both")
    assert [single.accepts(v) for v in (1.999, 2, 2.0, 2.001)] == [False, True, True, False]


@pytest.mark.parametrize("number_type", [int, float, str, np.integer])
def test_the_type_must_be_integral_or_real(number_type):
    with pytest.raises(TypeError, match="type must be numbers.Integral or numbers.Real"):
        Interval(number_type, 0, None, "left")


@pytest.mark.parametrize(
    "number_type, left, right",
    [
        (Integral, 0.5, None),  # a float bound for integers
        (Integral, None, 2.0),
        (Integral, True, None),  # bools are not numbers here
        (Real, "0", None),
        (Real, None, [1]),
    ],
)
def test_bounds_must_be_numbers_of_the_interval_type(number_type, left, right):
    with pytest.raises(TypeError, match="must be None or"):
        Interval(number_type, left, right, "both")


def test_a_nan_bound_is_refused():
    with pytest.raises(ValueError, match="left is NaN"):
        Interval(Real, float("nan"), 1, "both")


@pytest.mark.parametrize(
    "closed, at_left, at_right",
    [
        ("both", True, True),
        ("left", True, False),
        ("right", False, True),
        ("neither", False, False),
    ],
)
def test_closed_decides_which_bounds_belong(closed, at_left, at_right):
    interval = Interval(Real, 0, 1, closed)
    assert interval.accepts(0) is at_left and interval.accepts(1) is at_right
    assert interval.accepts(0.5) and not interval.accepts(-0.1) and not interval.accepts(1.1)


def test_nan_is_in_no_interval():
    # NaN compares False with every bound, so only an explicit test keeps it out.
    assert not Interval(Real, 0, 1, "both").accepts(float("nan"))
    assert not Interval(Real, None, None, "neither").accepts(np.nan)


def test_an_unbounded_side_takes_any_number():
    assert Interval(Real, None, 0, "both").accepts(-1e300)
    assert Interval(Real, 0, None, "both").accepts(float("inf"))


def test_positive_int_is_an_int_from_one_up():
    accepted = [1, 2, 10**12, np.int64(3)]
    refused = [0, -1, 1.0, 2.5, True, "3", None]
    assert all(POSITIVE_INT.accepts(v) for v in accepted)
    assert not any(POSITIVE_INT.accepts(v) for v in refused)
    assert str(POSITIVE_INT) == "an int in the range [1, inf)"


class _Model(BaseEstimator):
    _parameter_constraints = {"n": [POSITIVE_INT, None], "rate": [Interval(Real, 0, 1, "right")]}

    def __init__(self, n=1, rate=0.5):
        self.n = n
        self.rate = rate


@pytest.mark.parametrize(
    "params, message",
    [
        (
            {"n": 0},
            "The 'n' parameter of _Model must be an int in the range [1, inf) or None. Got 0",
        ),
        (
            {"rate": 0.0},
            "The 'rate' parameter of _Model must be a float in the range (0, 1]. Got 0.0",
        ),
        (
            {"rate": float("nan")},
            "The 'rate' parameter of _Model must be a float in the range (0, 1]. Got nan",
        ),
    ],
)
def test_validate_params_names_the_parameter_and_what_it_accepts(params, message):
    with pytest.raises(InvalidParameterError) as error:
        validate_params(_Model(**params))
    assert str(error.value).startswith(message)
    assert isinstance(error.value, ValueError)


def test_validate_params_accepts_values_inside_the_constraints():
    validate_params(_Model(n=None, rate=1.0))
    validate_params(_Model(n=7, rate=1e-9))
