"""The self-attentive network for sentence pairs (Lin et al. 2017, section 4.3).

Both sentences go through one shared self-attentive encoder (embeddings,
BiLSTM, r attention hops), giving M_h and M_p (r × 2u each). The gated
encoder of the paper's entailment model combines them hop by hop: each hop
i has its own matrices W_fh[i] and W_fp[i] (2u × d_f), F_h[i] = M_h[i]
W_fh[i], F_p[i] = M_p[i] W_fp[i], and F_r = F_h ⊙ F_p (r × d_f), which a
ReLU MLP reads flattened. With ``pair_features="matching"`` each hop's
features are F_r[i] followed by ``|M_h[i] − M_p[i]|`` and M_h[i] ⊙ M_p[i], the
matching features of Tai et al. (2015) and Mou et al. (2016). The penalty
is the sum of both sentences'.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from skattn.nn._attention import attention_penalty
from skattn.nn._outputs import ModuleOutput
from skattn.nn._self_attentive import SelfAttentiveNet, mlp_head


class PairOutput(ModuleOutput):
    """What :class:`SelfAttentivePairNet` returns.

    Attributes
    ----------
    logits : Tensor (batch, n_classes)
    attention : Tensor (batch, hops, time), A of the first sentence
    attention_b : Tensor (batch, hops, time_b), A of the second sentence
    embedding : Tensor (batch, hops, features), F_r = F_h ⊙ F_p (gated_dim
        features), or ``[F_r, |M_h − M_p|, M_h ⊙ M_p]`` (gated_dim + 4u) with
        ``pair_features="matching"``
    penalty : Tensor (batch,), both sentences' ‖AAᵀ − I‖²_F summed

    Examples
    --------
    >>> net = SelfAttentivePairNet(vocab_size=10, n_classes=3, hidden_size=2,
    ...                            attention_hops=2, gated_dim=5)
    >>> out = net(torch.tensor([[4, 5]]), torch.tensor([2]), torch.tensor([[6]]), torch.tensor([1]))
    >>> tuple(out.logits.shape), tuple(out.attention_b.shape), tuple(out.embedding.shape)
    ((1, 3), (1, 2, 1), (1, 2, 5))
    """

    fields = ("logits", "attention", "attention_b", "embedding", "penalty")


class SelfAttentivePairNet(SelfAttentiveNet):
    """Shared self-attentive encoder → gated encoder (F_h ⊙ F_p) → ReLU MLP.

    Parameters are :class:`~skattn.nn.SelfAttentiveNet`'s (its
    ``pooling`` is not used: the MLP reads F_r flattened), plus:

    gated_dim : int, default=128
        d_f, the width of each hop's gated features (the paper does not
        give it).
    pair_features : {"gated", "matching"}, default="gated"
        What the MLP reads for each hop: the paper's F_r, or F_r with
        ``|M_h − M_p|`` and M_h ⊙ M_p beside it.
    mlp_connections : {"dense", "pruned"}, default="dense"
        "pruned": Appendix A's hidden layer on the hop-by-feature matrix.

    Examples
    --------
    >>> net = SelfAttentivePairNet(vocab_size=10, n_classes=3, hidden_size=2, attention_hops=2)
    >>> tuple(net.gate_first.shape)  # (hops, 2u, d_f)
    (2, 4, 128)
    """

    def __init__(
        self,
        vocab_size: int,
        n_classes: int,
        gated_dim: int = 128,
        pair_features: str = "gated",
        mlp_connections: str = "dense",
        **params,
    ):
        # "mean": the parent's MLP (replaced below) then reads 2u inputs, not r · 2u.
        super().__init__(vocab_size, n_classes, **{**params, "pooling": "mean"})
        hops, width = self.attention.ws2.out_features, self.encoder.output_size
        bound = 1.0 / math.sqrt(width)
        self.gate_first = nn.Parameter(torch.empty(hops, width, gated_dim).uniform_(-bound, bound))
        self.gate_second = nn.Parameter(torch.empty(hops, width, gated_dim).uniform_(-bound, bound))
        hidden = self.classifier[0].out_features
        dropout = self.classifier[2].p
        # The authors' code drops M_h and M_p before the gated encoder too.
        authors = params.get("dropout_placement") == "authors"
        self.matrix_dropout = nn.Dropout(dropout if authors else 0.0)
        self.pair_features = pair_features
        features = gated_dim + (2 * width if pair_features == "matching" else 0)
        self.classifier = mlp_head(hops, features, hidden, n_classes, dropout, mlp_connections)

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        tokens_b: torch.Tensor,
        lengths_b: torch.Tensor,
        subwords: torch.Tensor | None = None,
        subwords_b: torch.Tensor | None = None,
        token_scale: torch.Tensor | None = None,
        token_scale_b: torch.Tensor | None = None,
    ) -> PairOutput:
        """Classify pairs: padded token ids and lengths of each side (``_b``: the second)."""
        first, attention = self.encode(tokens, lengths, subwords, token_scale)
        second, attention_b = self.encode(tokens_b, lengths_b, subwords_b, token_scale_b)
        # getattr: networks pickled before the attribute existed.
        matrix_dropout = getattr(self, "matrix_dropout", nn.Identity())
        first, second = matrix_dropout(first), matrix_dropout(second)
        gated = torch.einsum("brk,rkd->brd", first, self.gate_first) * torch.einsum(
            "brk,rkd->brd", second, self.gate_second
        )
        features = gated
        # getattr: networks pickled before the attribute existed are "gated".
        if getattr(self, "pair_features", "gated") == "matching":
            features = torch.cat([gated, (first - second).abs(), first * second], dim=2)
        logits = self.classifier(self.dropout(features.flatten(1)))
        penalty = attention_penalty(attention) + attention_penalty(attention_b)
        return PairOutput((logits, attention, attention_b, features, penalty))
