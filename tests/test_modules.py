"""The pure PyTorch layer: exact masking, attention sums, the penalty."""

import numpy as np
import pytest
import torch
from torch import nn

from skattn.nn import (
    BiRNNEncoder,
    SelfAttentiveNet,
    attention_penalty,
    masked_pool,
    masked_softmax,
)


@pytest.fixture
def batch():
    torch.manual_seed(0)
    lengths = torch.tensor([7, 3, 5, 1])
    tokens = torch.randint(2, 30, (4, 7))
    tokens[torch.arange(7)[None, :] >= lengths[:, None]] = 0
    return tokens, lengths


@pytest.mark.parametrize("cell", ["lstm", "gru"])
@pytest.mark.parametrize("chunk_size", [None, 2])
def test_birnn_matches_torch_bidirectional_rnn_on_each_unpadded_sequence(cell, chunk_size):
    torch.manual_seed(0)
    encoder = BiRNNEncoder(6, 5, cell=cell, chunk_size=chunk_size)
    reference = {"lstm": nn.LSTM, "gru": nn.GRU}[cell](6, 5, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name, value in encoder.forward_rnn.named_parameters():
            getattr(reference, name).copy_(value)
            getattr(reference, name + "_reverse").copy_(getattr(encoder.backward_rnn, name))
    lengths = torch.tensor([4, 6, 1, 3])
    inputs = torch.randn(4, 6, 6)
    out = encoder(inputs, lengths)
    for i, n in enumerate(lengths.tolist()):
        expected, _ = reference(inputs[i : i + 1, :n])
        torch.testing.assert_close(out[i, :n], expected[0], rtol=1e-5, atol=1e-6)
        assert (out[i, n:] == 0).all()


def test_padding_content_cannot_change_outputs(batch):
    tokens, lengths = batch
    net = SelfAttentiveNet(30, 3, embedding_dim=8, hidden_size=6, attention_hops=3).eval()
    garbage = tokens.clone()
    garbage[torch.arange(7)[None, :] >= lengths[:, None]] = 29  # non-pad ids in pad slots
    torch.testing.assert_close(net(tokens, lengths).logits, net(garbage, lengths).logits)


def test_padded_batch_equals_each_document_alone(batch):
    tokens, lengths = batch
    net = SelfAttentiveNet(30, 3, embedding_dim=8, hidden_size=6, attention_hops=3).eval()
    with torch.no_grad():
        together = net(tokens, lengths)
        for i, n in enumerate(lengths.tolist()):
            alone = net(tokens[i : i + 1, :n], lengths[i : i + 1])
            torch.testing.assert_close(together.logits[i], alone.logits[0], rtol=1e-5, atol=1e-6)
            torch.testing.assert_close(
                together.embedding[i], alone.embedding[0], rtol=1e-5, atol=1e-6
            )
            torch.testing.assert_close(
                together.attention[i, :, :n], alone.attention[0], rtol=1e-5, atol=1e-6
            )
            assert (together.attention[i, :, n:] == 0).all()


def test_attention_rows_sum_to_one(batch):
    tokens, lengths = batch
    net = SelfAttentiveNet(30, 2, embedding_dim=8, hidden_size=6, attention_hops=4)
    rows = net(tokens, lengths).attention.sum(-1)
    torch.testing.assert_close(rows, torch.ones_like(rows))


def test_masked_softmax_is_stable_and_zero_on_padding():
    scores = torch.tensor([[1000.0, 1001.0, -5.0], [3.0, 0.0, 0.0]])
    mask = torch.tensor([[True, True, False], [False, False, False]])
    weights = masked_softmax(scores, mask)
    assert torch.isfinite(weights).all()
    torch.testing.assert_close(weights[0, :2], torch.softmax(torch.tensor([0.0, 1.0]), 0))
    assert weights[0, 2] == 0 and (weights[1] == 0).all()


def test_masked_pool_ignores_padding():
    states = torch.tensor([[[1.0, -4.0], [3.0, -2.0], [50.0, 50.0]]])
    mask = torch.tensor([[True, True, False]])
    assert masked_pool(states, mask, "mean").tolist() == [[2.0, -3.0]]
    assert masked_pool(states, mask, "max").tolist() == [[3.0, -2.0]]


def test_penalty_equals_naive_frobenius_loop():
    torch.manual_seed(0)
    attention = torch.softmax(torch.randn(3, 4, 6), dim=-1)
    fast = attention_penalty(attention)
    for b in range(3):
        A = attention[b].numpy().astype(np.float64)
        naive = 0.0
        for i in range(4):
            for j in range(4):
                naive += (float(A[i] @ A[j]) - (1.0 if i == j else 0.0)) ** 2
        assert fast[b].item() == pytest.approx(naive, rel=1e-5)


@pytest.mark.parametrize("pooling,width", [("flatten", 3 * 12), ("max", 12), ("mean", 12)])
def test_pooling_options_set_the_mlp_input(pooling, width, batch):
    tokens, lengths = batch
    net = SelfAttentiveNet(30, 2, hidden_size=6, attention_hops=3, pooling=pooling)
    assert net.classifier[0].in_features == width
    assert net(tokens, lengths).logits.shape == (4, 2)
