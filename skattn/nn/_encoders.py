"""Length-aware bidirectional RNNs, exact in both directions.

``pack_padded_sequence`` is exact but slow to train on a CPU (its backward
pass is dominated by per-step slicing). Here the forward direction runs on
the padded batch as is (pads come after every real token, so they cannot
reach a real position), and the backward direction runs on each row's real
tokens reversed in place, pads still last, its outputs reversed back. No pad
ever influences a real position; outputs at pads are zero.
"""

from __future__ import annotations

import torch
from torch import nn

from skattn.nn._attention import length_mask

_CELLS = {"lstm": nn.LSTM, "gru": nn.GRU}


def reverse_index(lengths: torch.Tensor, max_length: int) -> torch.Tensor:
    """Index (batch, max_length) that reverses each row's first ``length`` positions.

    Pads keep their place, so applying it twice is the identity.

    Examples
    --------
    >>> reverse_index(torch.tensor([3, 1]), 3).tolist()
    [[2, 1, 0], [0, 1, 2]]
    """
    positions = torch.arange(max_length, device=lengths.device).unsqueeze(0)
    lengths = lengths.unsqueeze(1)
    return torch.where(positions < lengths, lengths - 1 - positions, positions)


def inverse_permutation(order: torch.Tensor) -> torch.Tensor:
    """The index that puts ``x[order]`` back into the order of ``x``.

    Examples
    --------
    >>> inverse_permutation(torch.tensor([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(len(order), device=order.device)
    return inverse


class BiRNNEncoder(nn.Module):
    """Bidirectional LSTM or GRU over padded batches, exact for every length.

    Parameters
    ----------
    input_size : int
        Size of each input vector.
    hidden_size : int
        Size of each direction's state (u); outputs have ``2 * hidden_size``.
    cell : {"lstm", "gru"}, default="lstm"
        The recurrent cell.
    chunk_size : int or None, default=None
        When set and a batch has more rows, rows are sorted by length and
        run in chunks of this many, each padded only to its own longest
        row (saves work on batches of very mixed lengths). The batch is
        permuted once and put back once: indexing the whole input per chunk
        would make each chunk's backward pass zero-fill a gradient the size
        of the whole batch.

    Examples
    --------
    >>> enc = BiRNNEncoder(3, 2)
    >>> out = enc(torch.randn(2, 4, 3), torch.tensor([4, 2]))
    >>> tuple(out.shape), bool((out[1, 2:] == 0).all())
    ((2, 4, 4), True)
    """

    def __init__(self, input_size: int, hidden_size: int, cell: str = "lstm", chunk_size=None):
        super().__init__()
        rnn = _CELLS[cell]
        self.forward_rnn = rnn(input_size, hidden_size, batch_first=True)
        self.backward_rnn = rnn(input_size, hidden_size, batch_first=True)
        self.hidden_size = hidden_size
        self.chunk_size = chunk_size

    @property
    def output_size(self) -> int:
        """Size of each output state (both directions)."""
        return 2 * self.hidden_size

    def forward(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Encode ``inputs`` (batch, time, input_size); return (batch, time, 2h)."""
        if self.chunk_size is None or len(lengths) <= self.chunk_size:
            return self._encode(inputs, lengths)
        order = torch.argsort(lengths, descending=True, stable=True)
        sorted_inputs, sorted_lengths = inputs[order], lengths[order]
        encoded = [
            self._encode(chunk, chunk_lengths)  # each padded back to the full length
            for chunk, chunk_lengths in zip(
                torch.split(sorted_inputs, self.chunk_size),
                torch.split(sorted_lengths, self.chunk_size),
            )
        ]
        return torch.cat(encoded)[inverse_permutation(order)]

    def _encode(self, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        full_length = inputs.shape[1]
        width = int(lengths.max())
        inputs = inputs[:, :width]
        backward_index = reverse_index(lengths, width).unsqueeze(-1)
        forward_states, _ = self.forward_rnn(inputs)
        reversed_inputs = inputs.gather(1, backward_index.expand_as(inputs))
        backward_states, _ = self.backward_rnn(reversed_inputs)
        backward_states = backward_states.gather(1, backward_index.expand_as(backward_states))
        states = torch.cat([forward_states, backward_states], dim=-1)
        states = states * length_mask(lengths, width).unsqueeze(-1)
        if width < full_length:
            states = nn.functional.pad(states, (0, 0, 0, full_length - width))
        return states


class SubwordEmbedding(nn.Module):
    """The mean vector of each token's hashed character n-grams (fastText's subwords).

    Added to a token's word vector, it gives a word outside the vocabulary
    a vector made of pieces seen in training (:mod:`skattn.text._subwords`). The
    n-gram vectors start at zero, so at initialisation every token's vector
    is its word vector. A token without n-grams (padding, reserved tokens)
    gets zeros.

    Parameters
    ----------
    buckets : int
        Number of n-gram buckets (ids 1 … buckets; 0 pads).
    embedding_dim : int

    Examples
    --------
    >>> bag = SubwordEmbedding(50, 4)
    >>> out = bag(torch.tensor([[[5, 7], [0, 0]]]))
    >>> tuple(out.shape), bool((out == 0).all())
    ((1, 2, 4), True)
    """

    def __init__(self, buckets: int, embedding_dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(buckets + 1, embedding_dim, mode="mean", padding_idx=0)
        nn.init.zeros_(self.bag.weight)

    def forward(self, subwords: torch.Tensor) -> torch.Tensor:
        """Vectors of shape ``subwords.shape[:-1] + (embedding_dim,)``."""
        bags = self.bag(subwords.reshape(-1, subwords.shape[-1]))
        return bags.view(*subwords.shape[:-1], bags.shape[-1])
