"""scikit-learn conformance of every public estimator: its data-free checks, our text checks."""

import numpy as np
import pytest
import sklearn.utils.estimator_checks as sk_checks
from sklearn.base import clone, is_regressor

from skattn import TextEncoder
from skattn.baselines import PairFeatures
from skattn.utils.estimator_checks import DATA_FREE_CHECKS, text_estimator_checks

from estimators import ALL_ESTIMATORS, PAIR_ESTIMATORS

PUBLIC = {
    **{name: make() for name, make in ALL_ESTIMATORS.items()},
    "TextEncoder": TextEncoder(),
    "PairFeatures": PairFeatures(),
}


@pytest.mark.parametrize("name", list(PUBLIC))
@pytest.mark.parametrize("check", DATA_FREE_CHECKS)
def test_scikit_learn_data_free_checks(name, check):
    getattr(sk_checks, check)(name, clone(PUBLIC[name]))


def test_every_public_estimator_is_checked():
    import skattn

    estimators = {
        name
        for name in skattn.__all__
        if isinstance(getattr(skattn, name), type) and name.endswith(("Classifier", "Regressor"))
    }
    assert estimators <= set(ALL_ESTIMATORS)
    assert "SelfAttentiveEmbedder" in ALL_ESTIMATORS


@pytest.mark.parametrize("name", list(ALL_ESTIMATORS))
@pytest.mark.parametrize("check", list(text_estimator_checks()), ids=lambda c: c.__name__)
def test_text_data_checks(name, check, toy, sick_small):
    estimator = ALL_ESTIMATORS[name]()
    if name in PAIR_ESTIMATORS:
        # Real pairs: 120 SICK pairs, their entailment labels or relatedness.
        pairs, entailment, relatedness = sick_small
        X, y = pairs[:120], (relatedness if is_regressor(estimator) else entailment)[:120]
    else:
        X, y = toy
        if is_regressor(estimator):
            # A number per document that the text carries: the share of the
            # document's words that are cue words of the positive class.
            y = np.array([_positive_share(text) for text in X])
    check(estimator, X, y)


def _positive_share(text):
    words = text.lower().replace(".", " ").split()
    return sum(word in {"great", "superb", "moving", "brilliant"} for word in words) / len(words)


def test_text_encoder_validates_its_parameters(toy):
    from skattn.utils.estimator_checks import check_param_validation

    check_param_validation(TextEncoder(), toy[0], None)


def _feature_words(X):
    """Numeric rows as documents: each feature's rounded value as a word."""
    return [" ".join(f"f{j}v{round(v)}" for j, v in enumerate(row)) for row in np.asarray(X)]


SKLEARN_MULTILABEL_CHECKS = [
    "check_classifiers_multilabel_representation_invariance",
    "check_classifiers_multilabel_output_format_predict",
    "check_classifiers_multilabel_output_format_predict_proba",
    "check_classifiers_multilabel_output_format_decision_function",
]


@pytest.mark.parametrize("name", ["SelfAttentiveClassifier", "HierarchicalAttentionClassifier"])
@pytest.mark.parametrize("check", SKLEARN_MULTILABEL_CHECKS)
def test_scikit_learn_multilabel_checks(name, check):
    # scikit-learn's own checks draw numeric X (make_multilabel_classification):
    # a FunctionTransformer turns each row into words our classifiers read.
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    pipeline = make_pipeline(
        FunctionTransformer(_feature_words), ALL_ESTIMATORS[name](max_epochs=3)
    )
    getattr(sk_checks, check)(name, pipeline)
