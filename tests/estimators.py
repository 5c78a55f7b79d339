"""Small, fast configurations of every public estimator, for convention tests."""

from skorch.callbacks import Callback

from skattn import (
    HierarchicalAttentionClassifier,
    HierarchicalAttentionRegressor,
    SelfAttentiveClassifier,
    SelfAttentiveEmbedder,
    SelfAttentivePairClassifier,
    SelfAttentivePairRegressor,
    SelfAttentiveRegressor,
)


class KeepOptimizer(Callback):
    """Holds the optimizer as training ends (a fitted model lets go of it)."""

    def on_train_end(self, net, **kwargs):
        self.optimizer_ = net.optimizer_


COMMON = dict(
    embedding_dim=16, hidden_size=16, max_epochs=2, batch_size=32, lr=5e-3, random_state=0
)


SELF_ATTENTIVE = dict(COMMON, attention_dim=8, attention_hops=2, mlp_hidden=16)
HIERARCHICAL = dict(COMMON, sentence_hidden_size=8, context_dim=8, dropout=0.0)


def small_self_attentive(**params):
    return SelfAttentiveClassifier(**{**SELF_ATTENTIVE, **params})


def small_hierarchical(**params):
    return HierarchicalAttentionClassifier(**{**HIERARCHICAL, **params})


def small_self_attentive_regressor(**params):
    return SelfAttentiveRegressor(**{**SELF_ATTENTIVE, **params})


def small_hierarchical_regressor(**params):
    return HierarchicalAttentionRegressor(**{**HIERARCHICAL, **params})


#: name -> factory(**overrides) of a small regressor.
SMALL_REGRESSORS = {
    "SelfAttentiveRegressor": small_self_attentive_regressor,
    "HierarchicalAttentionRegressor": small_hierarchical_regressor,
}


#: name -> factory(**overrides) of a small configuration.
SMALL_ESTIMATORS = {
    "SelfAttentiveClassifier": small_self_attentive,
    "HierarchicalAttentionClassifier": small_hierarchical,
}

#: name -> a grid over a text parameter and two network parameters.
GRIDS = {
    "SelfAttentiveClassifier": {
        "min_count": [1, 2],
        "attention_hops": [1, 3],
        "penalty": [0.0, 1.0],
    },
    "HierarchicalAttentionClassifier": {
        "min_count": [1, 2],
        "pooling": ["attention", "mean"],
        "context_dim": [4, 8],
    },
}

#: name -> the parameter that caps the tokens of a one-sentence document.
LENGTH_LIMITS = {
    "SelfAttentiveClassifier": "max_length",
    "HierarchicalAttentionClassifier": "max_sentence_length",
}


def small_embedder(**params):
    return SelfAttentiveEmbedder(small_self_attentive(), **params)


PAIR = dict(SELF_ATTENTIVE, hidden_size=8, gated_dim=8, max_epochs=3, embeddings=None)


def small_pair_classifier(**params):
    return SelfAttentivePairClassifier(**{**PAIR, **params})


def small_pair_regressor(**params):
    return SelfAttentivePairRegressor(**{**PAIR, **params})


#: name -> factory(**overrides) of a small model that reads pairs of texts.
PAIR_ESTIMATORS = {
    "SelfAttentivePairClassifier": small_pair_classifier,
    "SelfAttentivePairRegressor": small_pair_regressor,
}

#: Every public estimator that learns from text and targets, for the conformance checks.
ALL_ESTIMATORS = {
    **SMALL_ESTIMATORS,
    **SMALL_REGRESSORS,
    "SelfAttentiveEmbedder": small_embedder,
    **PAIR_ESTIMATORS,
}
