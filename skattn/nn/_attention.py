"""Attention with explicit masks: padded positions always get weight 0.

Every function takes a boolean ``mask`` (True on real tokens). The one
:func:`masked_softmax` is used everywhere, so the max-subtraction and the
handling of padding are written (and tested) once.
"""

from __future__ import annotations

import torch
from torch import nn


def length_mask(lengths: torch.Tensor, max_length: int) -> torch.Tensor:
    """Boolean mask (batch, max_length), True where a position is a real token.

    Examples
    --------
    >>> length_mask(torch.tensor([2, 1]), 3).tolist()
    [[True, True, False], [True, False, False]]
    """
    positions = torch.arange(max_length, device=lengths.device)
    return positions.unsqueeze(0) < lengths.unsqueeze(1)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax over ``dim`` with masked-out positions at exactly 0.

    ``torch.softmax`` subtracts each row's own maximum, so large scores do
    not overflow; a row with no real position gives all zeros (not NaN).

    Parameters
    ----------
    scores : Tensor
        Unnormalised scores.
    mask : Tensor of bool
        Broadcastable to ``scores``; True where a position is real.
    dim : int, default=-1
        The dimension to normalise over.

    Returns
    -------
    Tensor
        Same shape as ``scores``; sums to 1 over real positions.

    Examples
    --------
    >>> masked_softmax(torch.tensor([[1.0, 1.0, 9.0]]), torch.tensor([[True, True, False]]))
    tensor([[0.5000, 0.5000, 0.0000]])
    """
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=dim)
    return weights.masked_fill(~mask, 0.0)


def masked_pool(states: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    """Mean or max of ``states`` (batch, time, dim) over real positions.

    Examples
    --------
    >>> h = torch.tensor([[[1.0], [3.0], [100.0]]])
    >>> masked_pool(h, torch.tensor([[True, True, False]]), "mean")
    tensor([[2.]])
    """
    mask3 = mask.unsqueeze(-1)
    if mode == "mean":
        counts = mask3.sum(1).clamp(min=1)
        return (states * mask3).sum(1) / counts
    if mode == "max":
        return states.masked_fill(~mask3, float("-inf")).max(1).values
    raise ValueError(f"mode must be 'mean' or 'max', got {mode!r}")


def attention_penalty(attention: torch.Tensor) -> torch.Tensor:
    """Lin et al.'s redundancy penalty ‖AAᵀ − I‖²_F for each example.

    The squared Frobenius norm, summed over the r×r entries (not its square
    root, not the mean over entries). A coefficient ``c`` of the authors'
    code, which takes the mean over the r×r entries, equals ``c / r**2``
    here. Reproductions that use the unsquared norm ‖AAᵀ − I‖_F have no
    exact conversion (the two grow differently); start from ``c**2``-scale
    values and tune.

    Parameters
    ----------
    attention : Tensor of shape (batch, hops, time)
        Rows sum to 1; padded positions are 0 so they do not contribute.

    Returns
    -------
    Tensor of shape (batch,)

    Examples
    --------
    >>> a = torch.tensor([[[1.0, 0.0], [1.0, 0.0]]])  # two identical hops
    >>> attention_penalty(a)
    tensor([2.])
    """
    gram = attention @ attention.transpose(1, 2)
    identity = torch.eye(gram.shape[-1], dtype=gram.dtype, device=gram.device)
    return ((gram - identity) ** 2).sum(dim=(1, 2))


class StructuredSelfAttention(nn.Module):
    """A = softmax(W_s2 tanh(W_s1 Hᵀ)) and M = A H (Lin et al. 2017, eq. 5–6).

    Parameters
    ----------
    input_dim : int
        Size of each state of H (2u for a BiLSTM).
    attention_dim : int
        d_a.
    hops : int
        r, the number of attention rows.
    dropout : float, default=0.0
        Dropout on tanh(W_s1 Hᵀ), as in the authors' code.

    Examples
    --------
    >>> att = StructuredSelfAttention(4, 3, hops=2)
    >>> M, A = att(torch.randn(1, 5, 4), torch.ones(1, 5, dtype=torch.bool))
    >>> tuple(M.shape), tuple(A.shape)
    ((1, 2, 4), (1, 2, 5))
    """

    def __init__(self, input_dim: int, attention_dim: int, hops: int, dropout: float = 0.0):
        super().__init__()
        self.ws1 = nn.Linear(input_dim, attention_dim, bias=False)
        self.ws2 = nn.Linear(attention_dim, hops, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, states: torch.Tensor, mask: torch.Tensor, scored: torch.Tensor | None = None):
        """Return M (batch, hops, dim) and A (batch, hops, time).

        ``scored``, optional: the states A is computed from, when they differ
        from the states M averages (the authors drop out H on the path into
        W_s1 only).
        """
        scored = states if scored is None else scored
        scores = self.ws2(self.dropout(torch.tanh(self.ws1(scored)))).transpose(1, 2)
        attention = masked_softmax(scores, mask.unsqueeze(1), dim=-1)
        return attention @ states, attention


class ContextAttention(nn.Module):
    """Attention with a learned context vector (Yang et al. 2016, eq. 5–7).

    u_t = tanh(W h_t + b); α_t = softmax_t(u_tᵀ u_c); pooled = Σ_t α_t h_t.

    Parameters
    ----------
    input_dim : int
        Size of each state.
    context_dim : int
        Size of u_t and of the context vector u_c.

    Examples
    --------
    >>> att = ContextAttention(4, 3)
    >>> pooled, weights = att(torch.randn(2, 5, 4), torch.ones(2, 5, dtype=torch.bool))
    >>> tuple(pooled.shape), tuple(weights.shape)
    ((2, 4), (2, 5))
    """

    def __init__(self, input_dim: int, context_dim: int):
        super().__init__()
        self.projection = nn.Linear(input_dim, context_dim)
        self.context = nn.Parameter(torch.empty(context_dim).uniform_(-0.1, 0.1))

    def forward(self, states: torch.Tensor, mask: torch.Tensor):
        """Return the pooled vector (batch, dim) and the weights (batch, time)."""
        scores = torch.tanh(self.projection(states)) @ self.context
        weights = masked_softmax(scores, mask, dim=-1)
        return (weights.unsqueeze(-1) * states).sum(1), weights


class SequencePooling(nn.Module):
    """Pool states over real positions and say how much each position counted.

    The three pooling rules of Yang et al.'s variants, with one interface:

    - ``"attention"`` (HN-ATT): :class:`ContextAttention`; weights α_t;
    - ``"mean"`` (HN-AVE): weights 1/length on real positions;
    - ``"max"`` (HN-MAX): element-wise max; a position's weight is the
      share of dimensions whose max it holds.

    Weights are 0 on padding and sum to 1 over the real positions.

    Parameters
    ----------
    input_dim : int
    context_dim : int
        Only used by ``"attention"``.
    mode : {"attention", "mean", "max"}

    Examples
    --------
    >>> pool = SequencePooling(2, 3, "mean")
    >>> pooled, weights = pool(torch.ones(1, 3, 2), torch.tensor([[True, True, False]]))
    >>> weights.tolist()
    [[0.5, 0.5, 0.0]]
    """

    def __init__(self, input_dim: int, context_dim: int, mode: str = "attention"):
        super().__init__()
        if mode not in ("attention", "mean", "max"):
            raise ValueError(f"mode must be 'attention', 'mean' or 'max', got {mode!r}")
        self.mode = mode
        self.attention = ContextAttention(input_dim, context_dim) if mode == "attention" else None

    def forward(self, states: torch.Tensor, mask: torch.Tensor):
        """Return the pooled vectors (batch, dim) and the weights (batch, time)."""
        if self.attention is not None:
            return self.attention(states, mask)
        pooled = masked_pool(states, mask, self.mode)
        if self.mode == "mean":
            weights = mask / mask.sum(1, keepdim=True).clamp(min=1)
        else:
            winners = states.masked_fill(~mask.unsqueeze(-1), float("-inf")).argmax(1)
            weights = torch.zeros_like(mask, dtype=states.dtype).scatter_add_(
                1, winners, torch.full_like(winners, 1.0 / states.shape[-1], dtype=states.dtype)
            )
        return pooled, weights.to(states.dtype)
