"""scikit-learn conformance of every public estimator: its data-free checks, our text checks."""

import pytest
import sklearn.utils.estimator_checks as sk_checks
from sklearn.base import clone

from skattn import TextEncoder
from skattn.utils.estimator_checks import DATA_FREE_CHECKS, text_estimator_checks

from estimators import ALL_ESTIMATORS

PUBLIC = {**{name: make() for name, make in ALL_ESTIMATORS.items()}, "TextEncoder": TextEncoder()}


@pytest.mark.parametrize("name", list(PUBLIC))
@pytest.mark.parametrize("check", DATA_FREE_CHECKS)
def test_scikit_learn_data_free_checks(name, check):
    getattr(sk_checks, check)(name, clone(PUBLIC[name]))


@pytest.mark.parametrize("name", list(ALL_ESTIMATORS))
@pytest.mark.parametrize("check", list(text_estimator_checks()), ids=lambda c: c.__name__)
def test_text_data_checks(name, check, toy):
    X, y = toy
    check(ALL_ESTIMATORS[name](), X, y)


def test_text_encoder_validates_its_parameters(toy):
    from skattn.utils.estimator_checks import check_param_validation

    check_param_validation(TextEncoder(), toy[0], None)
