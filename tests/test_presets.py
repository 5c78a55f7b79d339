"""The papers' presets: their settings, documented once, and a short run that learns."""

import numpy as np
import pytest

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier

#: The papers' settings, one row each: (estimator, parameter, value, source).
PAPER_TABLE = [
    (HierarchicalAttentionClassifier, "embedding_dim", 200, "Yang et al. 2016, §3.3"),
    (HierarchicalAttentionClassifier, "embeddings", "word2vec", "§3.3: word2vec on train+dev"),
    (HierarchicalAttentionClassifier, "min_count", 6, "§3.3: words seen ≤ 5 times → UNK"),
    (HierarchicalAttentionClassifier, "hidden_size", 50, "§3.3: GRU dimension 50"),
    (HierarchicalAttentionClassifier, "sentence_hidden_size", 50, "§3.3"),
    (HierarchicalAttentionClassifier, "context_dim", 100, "§3.3: u_w, u_s of 100"),
    (HierarchicalAttentionClassifier, "batch_size", 64, "§3.3: minibatch 64"),
    (HierarchicalAttentionClassifier, "optimizer", "sgd", "§3.3: SGD"),
    (HierarchicalAttentionClassifier, "momentum", 0.9, "§3.3: momentum 0.9"),
    (HierarchicalAttentionClassifier, "dropout", 0.0, "none in the paper"),
    (HierarchicalAttentionClassifier, "clip_grad_norm", None, "none in the paper"),
    (HierarchicalAttentionClassifier, "lr_schedule", "constant", "none in the paper"),
    (SelfAttentiveClassifier, "hidden_size", 300, "Lin et al. 2017, Yelp: u = 300"),
    (SelfAttentiveClassifier, "attention_dim", 350, "d_a = 350"),
    (SelfAttentiveClassifier, "attention_hops", 30, "r = 30"),
    (SelfAttentiveClassifier, "mlp_hidden", 3000, "3,000-unit ReLU layer"),
    (SelfAttentiveClassifier, "penalty", 1.0 / 900, "coefficient 1.0 on the mean over r²"),
    (SelfAttentiveClassifier, "dropout", 0.3, "dropout 0.3"),
    (SelfAttentiveClassifier, "dropout_placement", "authors", "H, tanh(W_s1 Hᵀ), M, hidden"),
    (SelfAttentiveClassifier, "batch_size", 50, "minibatch 50"),
    (SelfAttentiveClassifier, "clip_grad_norm", 0.5, "clip 0.5"),
    (SelfAttentiveClassifier, "pooling", "flatten", "M flattened into the MLP"),
]


@pytest.mark.parametrize("cls, name, value, source", PAPER_TABLE)
def test_presets_have_the_papers_settings(cls, name, value, source):
    assert cls.from_paper().get_params()[name] == value, source


def test_presets_take_overrides_and_pick_the_learning_rate_on_validation(polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    model = HierarchicalAttentionClassifier.from_paper(
        embeddings="ppmi", embedding_dim=32, max_epochs=2, lr=(0.001, 0.1), random_state=0
    ).fit(X_train[:1000], y_train[:1000])
    assert set(model.lr_scores_) == {0.001, 0.1} and model.lr_ in model.lr_scores_
    assert model.lr_scores_[model.lr_] == max(model.lr_scores_.values())
    assert model.net_.optimizer_.param_groups[0]["lr"] == model.lr_


def test_warm_up_rises_linearly_then_follows_the_schedule(toy):
    from estimators import small_self_attentive

    X, y = toy
    model = small_self_attentive(lr=0.01, warmup_epochs=2, max_epochs=5).fit(X, y)
    lrs = model.history_[:, "event_lr"]
    np.testing.assert_allclose(lrs[:2], [0.01 / 3, 0.02 / 3])
    assert lrs[2] == pytest.approx(0.01) and lrs[2] > lrs[3] > lrs[4]  # then cosine decay
    constant = small_self_attentive(lr=0.01, warmup_epochs=2, max_epochs=4, lr_schedule="constant")
    np.testing.assert_allclose(
        constant.fit(X, y).history_[:, "event_lr"], [0.01 / 3, 0.02 / 3, 0.01, 0.01]
    )
