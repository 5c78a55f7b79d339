"""The core maths against hand computations with fixed weights."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from skattn.embeddings._vectors import ppmi_matrix
from skattn.nn import ContextAttention, ModuleOutput, StructuredSelfAttention, attention_penalty
from skattn.training import NetConfig, build_net

SETTINGS = NetConfig(
    optimizer="adam",
    lr=0.01,
    momentum=0.9,
    weight_decay=0.0,
    clip_grad_norm=None,
    lr_schedule="constant",
    early_stopping=False,
    n_iter_no_change=3,
    callbacks=None,
    max_epochs=1,
    batch_size=4,
    device="cpu",
    verbose=0,
)


class _Output(ModuleOutput):
    fields = ("logits", "penalty")


class _Linear(torch.nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.layer = torch.nn.Linear(2, n_classes)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


LOGITS = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-1.0, 3.0, 0.0]])
Y = np.array([0, 2, 1])
PENALTY = np.array([0.5, 2.0, 0.25])


def _net(**kwargs):
    return build_net(SETTINGS, module=_Linear, module_params={}, n_classes=3, **kwargs).initialize()


def _loss(net, weights=None):
    X = {} if weights is None else {"sample_weight": torch.tensor(weights, dtype=torch.float32)}
    y_pred = _Output([torch.tensor(LOGITS, dtype=torch.float32), torch.tensor(PENALTY)])
    return float(net.get_loss(y_pred, torch.tensor(Y), X=X))


CROSS_ENTROPY = -np.log(_softmax(LOGITS)[np.arange(3), Y])


def test_loss_is_the_mean_cross_entropy_plus_the_penalty_times_its_coefficient():
    assert _loss(_net()) == pytest.approx(CROSS_ENTROPY.mean(), rel=1e-6)
    assert _loss(_net(penalty=0.3)) == pytest.approx(
        CROSS_ENTROPY.mean() + 0.3 * PENALTY.mean(), rel=1e-6
    )


def test_sample_and_class_weights_weight_each_document():
    weights = np.array([1.0, 3.0, 0.0])
    expected = (weights * CROSS_ENTROPY).sum() / weights.sum()
    assert _loss(_net(), weights) == pytest.approx(expected, rel=1e-6)
    class_weight = np.array([2.0, 1.0, 0.5])
    combined = weights * class_weight[Y]
    expected = (combined * CROSS_ENTROPY).sum() / combined.sum()
    assert _loss(_net(class_weight=class_weight), weights) == pytest.approx(expected, rel=1e-6)


def test_structured_self_attention_follows_its_equations():
    torch.manual_seed(0)
    attention = StructuredSelfAttention(input_dim=4, attention_dim=3, hops=2).double()
    w1 = np.arange(12, dtype=float).reshape(3, 4) / 10 - 0.5
    w2 = np.array([[1.0, -1.0, 0.5], [0.2, 0.3, -0.7]])
    with torch.no_grad():
        attention.ws1.weight.copy_(torch.tensor(w1))
        attention.ws2.weight.copy_(torch.tensor(w2))
    H = np.random.RandomState(0).normal(size=(1, 5, 4))
    mask = np.array([[True, True, True, False, False]])
    with torch.no_grad():
        M, A = attention(torch.tensor(H), torch.tensor(mask))
    scores = w2 @ np.tanh(w1 @ H[0, :3].T)  # (r, n) over the 3 real tokens
    expected_A = _softmax(scores, axis=1)
    np.testing.assert_allclose(A[0, :, :3].numpy(), expected_A, rtol=1e-12)
    assert (A[0, :, 3:] == 0).all()
    np.testing.assert_allclose(M[0].numpy(), expected_A @ H[0, :3], rtol=1e-12)


def test_context_attention_follows_its_equations():
    attention = ContextAttention(input_dim=3, context_dim=2).double()
    W = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5]])
    b = np.array([0.1, -0.1])
    u = np.array([1.5, -0.7])
    with torch.no_grad():
        attention.projection.weight.copy_(torch.tensor(W))
        attention.projection.bias.copy_(torch.tensor(b))
        attention.context.copy_(torch.tensor(u))
    h = np.random.RandomState(1).normal(size=(1, 4, 3))
    mask = np.array([[True, True, True, True]])
    with torch.no_grad():
        pooled, weights = attention(torch.tensor(h), torch.tensor(mask))
    alpha = _softmax(np.tanh(h[0] @ W.T + b) @ u)
    np.testing.assert_allclose(weights[0].numpy(), alpha, rtol=1e-12)
    np.testing.assert_allclose(pooled[0].numpy(), alpha @ h[0], rtol=1e-12)


def test_penalty_is_the_squared_frobenius_norm():
    A = torch.tensor([[[0.5, 0.5], [1.0, 0.0]]], dtype=torch.float64)
    # AAᵀ = [[0.5, 0.5], [0.5, 1]]; minus I: [[-0.5, 0.5], [0.5, 0]]; squares sum to 0.75.
    assert attention_penalty(A).item() == pytest.approx(0.75)


def test_ppmi_matches_a_hand_computation():
    counts = np.array([[0.0, 4.0, 1.0], [4.0, 0.0, 2.0], [1.0, 2.0, 2.0]])
    alpha = 0.75
    rows = counts.sum(1)
    contexts = counts.sum(0) ** alpha
    expected = np.zeros_like(counts)
    for w in range(3):
        for c in range(3):
            if counts[w, c]:
                expected[w, c] = max(
                    0.0, np.log(counts[w, c] * contexts.sum() / (rows[w] * contexts[c]))
                )
    np.testing.assert_allclose(ppmi_matrix(sp.csr_matrix(counts), alpha).toarray(), expected)
    assert (expected > 0).any() and (expected == 0).sum() > 3  # both cases occur
