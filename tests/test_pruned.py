"""Lin et al. 2017's Appendix A: the pruned first MLP layer on the matrix embedding."""

import numpy as np
import pytest
import torch

from skattn import SelfAttentiveClassifier, SelfAttentivePairClassifier
from skattn.nn import PrunedMatrixLayer, SelfAttentiveNet, SelfAttentivePairNet


def test_each_group_reads_only_its_row_or_its_column():
    torch.manual_seed(0)
    layer = PrunedMatrixLayer(rows=3, columns=4, hidden=12)  # p = 2 per row, q = 2 per column
    matrix = torch.randn(3, 4)
    out = layer(matrix.flatten()[None])[0]
    # By hand, one group at a time, with plain loops over the weights.
    expected = []
    for i in range(3):
        for k in range(2):
            value = sum(matrix[i, j] * layer.row_weight[i, j, k] for j in range(4))
            expected.append(value + layer.row_bias[i, k])
    for j in range(4):
        for k in range(2):
            value = sum(matrix[i, j] * layer.column_weight[j, i, k] for i in range(3))
            expected.append(value + layer.column_bias[j, k])
    torch.testing.assert_close(out, torch.stack(expected))


def test_the_pruned_connections_carry_no_gradient():
    layer = PrunedMatrixLayer(rows=3, columns=4, hidden=12)
    flat = torch.randn(1, 12, requires_grad=True)
    jacobian = torch.autograd.functional.jacobian(layer, flat)[0, :, 0]  # (outputs, inputs)
    reads = (jacobian != 0).reshape(-1, 3, 4)
    # The first 3 · 2 outputs read one row each, the other 4 · 2 one column each.
    for unit in range(6):
        assert reads[unit].any(dim=1).tolist() == [i == unit // 2 for i in range(3)]
    for unit in range(6, 14):
        assert reads[unit].any(dim=0).tolist() == [j == (unit - 6) // 2 for j in range(4)]


def test_at_the_papers_sizes_the_pruned_layer_has_a_fiftieth_of_the_weights():
    sizes = dict(vocab_size=10, n_classes=5, embedding_dim=4, hidden_size=300)
    sizes.update(attention_dim=4, attention_hops=30, mlp_hidden=3000)
    dense = SelfAttentiveNet(**sizes).classifier[0]
    pruned = SelfAttentiveNet(**sizes, mlp_connections="pruned").classifier[0]
    n_dense = sum(p.numel() for p in dense.parameters())
    n_pruned = sum(p.numel() for p in pruned.parameters())
    # Dense: 30 · 600 inputs × 3,000 units + 3,000 biases.
    assert n_dense == 30 * 600 * 3000 + 3000
    # Pruned: 50 units per row (600 weights each), 3 per column (30 weights each).
    assert n_pruned == 30 * 600 * 50 + 30 * 50 + 600 * 30 * 3 + 600 * 3
    assert n_dense / n_pruned > 50


def test_the_pair_network_prunes_its_gated_features():
    net = SelfAttentivePairNet(
        12, 3, hidden_size=3, attention_hops=2, gated_dim=5, mlp_hidden=8, mlp_connections="pruned"
    )
    first = net.classifier[0]
    assert (first.rows, first.columns) == (2, 5)
    tokens, lengths = torch.tensor([[4, 5]]), torch.tensor([2])
    assert net(tokens, lengths, tokens, lengths).logits.shape == (1, 3)


def test_pruned_needs_the_flattened_matrix():
    with pytest.raises(ValueError, match='needs pooling="flatten"'):
        SelfAttentiveClassifier(mlp_connections="pruned", pooling="mean").fit(
            ["a b", "c d"] * 4, [0, 1] * 4
        )
    with pytest.raises(ValueError, match="mlp_connections"):
        SelfAttentiveClassifier(mlp_connections="sparse").fit(["a b", "c d"] * 4, [0, 1] * 4)


@pytest.mark.parametrize("cls", [SelfAttentiveClassifier, SelfAttentivePairClassifier])
def test_pruned_estimators_learn_a_separable_toy(cls):
    words = [("good fine nice", "pos"), ("bad awful poor", "neg")]
    rng = np.random.RandomState(0)
    texts, labels = [], []
    for _ in range(60):
        text, label = words[rng.randint(2)]
        tokens = text.split()
        rng.shuffle(tokens)
        texts.append(" ".join(tokens))
        labels.append(label)
    X = [(t, t) for t in texts] if cls is SelfAttentivePairClassifier else texts
    model = cls(
        mlp_connections="pruned",
        embedding_dim=8,
        hidden_size=8,
        attention_hops=2,
        mlp_hidden=8,
        max_epochs=30,
        lr=0.03,
        embeddings=None,
        random_state=0,
    )
    model.fit(X, labels)
    assert model.net_.module_.classifier[0].__class__ is PrunedMatrixLayer
    assert model.score(X, labels) == 1.0
