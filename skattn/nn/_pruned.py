"""Lin et al. 2017's pruned hidden layer (Appendix A) for a matrix embedding.

A dense first MLP layer connects each of its b units to all r × 2u entries
of M, r · 2u · b weights (54 million at the paper's Yelp sizes, about 90% of
the model). The appendix uses M's two-dimensional structure instead: the
hidden units are split into groups, one per row of M, each connected to its
row only (M^v, r × p), and one per column, each connected to its column only
(M^h, 2u × q); the next layer reads both. Every weight outside those blocks
is pruned, from the start. The same block-diagonal product is the authors'
``DenseLayer3DWeight``.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def pruned_group_sizes(rows: int, columns: int, hidden: int) -> tuple[int, int]:
    """Units per row group (p) and per column group (q) for about ``hidden`` units.

    Half of the hidden units go to the rows and half to the columns, at
    least one per group.

    Examples
    --------
    >>> pruned_group_sizes(30, 600, 3000)  # the paper's Yelp sizes
    (50, 3)
    """
    return max(1, math.ceil(hidden / (2 * rows))), max(1, math.ceil(hidden / (2 * columns)))


class PrunedMatrixLayer(nn.Module):
    """M (rows × columns) → [M^v (rows × p), M^h (columns × q)], flattened.

    Parameters
    ----------
    rows, columns : int
        The shape of each example's matrix (r × 2u for M).
    hidden : int
        About how many units in all; :func:`pruned_group_sizes` splits them.

    Attributes
    ----------
    out_features : int
        rows · p + columns · q.

    Examples
    --------
    >>> layer = PrunedMatrixLayer(rows=2, columns=3, hidden=12)
    >>> layer(torch.ones(5, 6)).shape  # reads M flattened, row after row
    torch.Size([5, 12])
    >>> sum(p.numel() for p in layer.parameters())  # 2·3·3 + 3·2·2 weights, 6 + 6 biases
    42
    """

    def __init__(self, rows: int, columns: int, hidden: int):
        super().__init__()
        self.rows, self.columns = rows, columns
        per_row, per_column = pruned_group_sizes(rows, columns, hidden)
        self.row_weight = nn.Parameter(_uniform((rows, columns, per_row), fan_in=columns))
        self.row_bias = nn.Parameter(_uniform((rows, per_row), fan_in=columns))
        self.column_weight = nn.Parameter(_uniform((columns, rows, per_column), fan_in=rows))
        self.column_bias = nn.Parameter(_uniform((columns, per_column), fan_in=rows))
        self.out_features = rows * per_row + columns * per_column

    def forward(self, flat: torch.Tensor) -> torch.Tensor:
        """``flat`` (batch, rows · columns) → (batch, out_features)."""
        matrix = flat.view(-1, self.rows, self.columns)
        # Batched matmuls over the groups (exported to ONNX as MatMul, not Einsum).
        by_row = torch.matmul(matrix.transpose(0, 1), self.row_weight).transpose(0, 1)
        by_column = torch.matmul(matrix.permute(2, 0, 1), self.column_weight).transpose(0, 1)
        by_row, by_column = by_row + self.row_bias, by_column + self.column_bias
        return torch.cat([by_row.flatten(1), by_column.flatten(1)], dim=1)


def _uniform(shape: tuple[int, ...], fan_in: int) -> torch.Tensor:
    """nn.Linear's default initialisation: U(−1/√fan_in, 1/√fan_in)."""
    bound = 1.0 / math.sqrt(fan_in)
    return torch.empty(shape).uniform_(-bound, bound)


def first_mlp_layer(rows: int, columns: int, hidden: int, connections: str) -> nn.Module:
    """The MLP's first layer on a flattened rows × columns matrix.

    Examples
    --------
    >>> first_mlp_layer(30, 600, 3000, "dense").weight.numel()
    54000000
    >>> first_mlp_layer(30, 600, 3000, "pruned").row_weight.numel()
    900000
    """
    if connections == "pruned":
        return PrunedMatrixLayer(rows, columns, hidden)
    return nn.Linear(rows * columns, hidden)
