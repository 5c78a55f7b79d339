"""Small, fast configurations of every public estimator, for convention tests."""

from skattn import SelfAttentiveClassifier


def small_self_attentive(**params):
    defaults = dict(
        embedding_dim=16,
        hidden_size=16,
        attention_dim=8,
        attention_hops=2,
        mlp_hidden=16,
        max_epochs=2,
        batch_size=32,
        lr=5e-3,
        random_state=0,
    )
    return SelfAttentiveClassifier(**{**defaults, **params})


#: name -> factory(**overrides) of a small configuration.
SMALL_ESTIMATORS = {
    "SelfAttentiveClassifier": small_self_attentive,
}
