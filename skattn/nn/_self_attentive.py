"""The structured self-attentive classifier network (Lin et al. 2017)."""

from __future__ import annotations

import torch
from torch import nn

from skattn.nn._attention import StructuredSelfAttention, attention_penalty, length_mask
from skattn.nn._encoders import BiRNNEncoder, SubwordEmbedding
from skattn.nn._outputs import ModuleOutput
from skattn.nn._pruned import first_mlp_layer


class SelfAttentiveOutput(ModuleOutput):
    """What :class:`SelfAttentiveNet` returns: (logits, attention, embedding, penalty).

    Attributes
    ----------
    logits : Tensor (batch, n_classes)
    attention : Tensor (batch, hops, time), A; 0 on padding
    embedding : Tensor (batch, hops, 2u), M = A H
    penalty : Tensor (batch,), ‖AAᵀ − I‖²_F per example

    Examples
    --------
    >>> net = SelfAttentiveNet(vocab_size=10, n_classes=2, hidden_size=3, attention_hops=2)
    >>> out = net(torch.tensor([[4, 5, 6], [7, 8, 0]]), torch.tensor([3, 2]))
    >>> logits, attention, embedding, penalty = out  # a tuple, logits first
    >>> tuple(out.embedding.shape), tuple(out.penalty.shape)
    ((2, 2, 6), (2,))
    >>> out.attention is attention
    True
    """

    fields = ("logits", "attention", "embedding", "penalty")


def pool_hops(embedding: torch.Tensor, pooling: str) -> torch.Tensor:
    """What the MLP reads of M (batch, hops, 2u): flattened, or its max or mean over hops.

    Examples
    --------
    >>> pool_hops(torch.ones(2, 3, 4), "flatten").shape, pool_hops(torch.ones(2, 3, 4), "max").shape
    (torch.Size([2, 12]), torch.Size([2, 4]))
    """
    if pooling == "flatten":
        return embedding.flatten(1)
    if pooling == "max":
        return embedding.max(dim=1).values
    return embedding.mean(dim=1)


def mlp_head(
    rows: int, columns: int, hidden: int, n_classes: int, dropout: float, connections: str
) -> nn.Sequential:
    """The ReLU MLP on a flattened rows × columns embedding: first layer, ReLU, dropout, output.

    Examples
    --------
    >>> head = mlp_head(2, 3, 4, n_classes=5, dropout=0.1, connections="dense")
    >>> head(torch.zeros(7, 6)).shape
    torch.Size([7, 5])
    """
    first = first_mlp_layer(rows, columns, hidden, connections)
    width = first.out_features
    return nn.Sequential(first, nn.ReLU(), nn.Dropout(dropout), nn.Linear(width, n_classes))


class LabelAttentionHead(nn.Module):
    """One logit per output from its own rows of M: label j reads only its hops.

    With attention hops of its own, each label attends to its own words
    (label-wise attention, as in Mullenbach et al. 2018's CAML), instead of
    every label reading one shared embedding through the MLP. With k hops
    a label, label j reads rows jk … jk + k − 1 of M (flattened, a slice
    of ``columns`` = k × 2u numbers): several hops let a label follow
    several kinds of cue.

    Parameters
    ----------
    n_labels : int
        Outputs; M has ``n_labels`` × k rows.
    columns : int
        What one label reads: k rows of M, k × 2u numbers.

    Examples
    --------
    >>> head = LabelAttentionHead(3, 4)
    >>> head(torch.zeros(2, 12)).shape  # M flattened, as pool_hops gives it
    torch.Size([2, 3])
    """

    def __init__(self, n_labels: int, columns: int):
        super().__init__()
        self.n_labels = n_labels
        self.weight = nn.Parameter(torch.randn(n_labels, columns) * columns**-0.5)
        self.bias = nn.Parameter(torch.zeros(n_labels))

    def forward(self, flat: torch.Tensor) -> torch.Tensor:
        rows = flat.reshape(flat.shape[0], self.n_labels, -1)
        return (rows * self.weight).sum(dim=-1) + self.bias


class SelfAttentiveNet(nn.Module):
    """Embedding → BiLSTM → structured self-attention → pooling → ReLU MLP.

    Parameters
    ----------
    vocab_size : int
        Number of token ids (PAD and UNK included).
    n_classes : int
        Number of output classes.
    embedding_dim : int, default=100
    hidden_size : int, default=100
        u, per LSTM direction.
    attention_dim : int, default=64
        d_a.
    attention_hops : int, default=4
        r.
    mlp_hidden : int, default=128
        Width of the ReLU hidden layer.
    mlp_connections : {"dense", "pruned"}, default="dense"
        "pruned": the hidden layer of Lin et al.'s Appendix A
        (:class:`~skattn.nn.PrunedMatrixLayer`: one group of
        units per row of M and one per column, each reading only its own
        row or column; needs ``pooling="flatten"``).
    pooling : {"flatten", "max", "mean"}, default="flatten"
        How M (r × 2u) becomes the MLP input: flattened (the paper), or the
        max / mean over the r rows.
    dropout : float, default=0.5
        The dropout rate, applied where ``dropout_placement`` says.
    dropout_placement : {"embeddings", "authors"}, default="embeddings"
        "embeddings": on the word embeddings, on M and on the hidden layer;
        "authors": where the authors' code puts it, on H where it enters
        W_s1 (M = A H is built from H itself), on tanh(W_s1 Hᵀ), on M and on
        the hidden layer.
    padding_idx : int, default=0
        The token id of padding (its embedding stays zero).
    subword_buckets : int, default=0
        With buckets, each token's vector adds the mean vector of its hashed
        character n-grams (:class:`~skattn.nn.SubwordEmbedding`);
        0: word vectors only.
    label_attention : bool, default=False
        Hops of its own for each class, and each class's logit read from
        its own rows of M (:class:`LabelAttentionHead`) instead of the MLP;
        needs ``attention_hops`` a multiple of ``n_classes`` (the hops of
        class j are rows jk … jk + k − 1, k = attention_hops / n_classes)
        and ``pooling="flatten"``.

    Examples
    --------
    >>> net = SelfAttentiveNet(vocab_size=10, n_classes=2, hidden_size=3)
    >>> out = net(torch.tensor([[2, 3, 0]]), torch.tensor([2]))
    >>> tuple(out.logits.shape), tuple(out.attention.shape)  # time trimmed to the longest
    ((1, 2), (1, 4, 2))
    """

    def __init__(
        self,
        vocab_size: int,
        n_classes: int,
        embedding_dim: int = 100,
        hidden_size: int = 100,
        attention_dim: int = 64,
        attention_hops: int = 4,
        mlp_hidden: int = 128,
        pooling: str = "flatten",
        mlp_connections: str = "dense",
        dropout: float = 0.5,
        dropout_placement: str = "embeddings",
        padding_idx: int = 0,
        subword_buckets: int = 0,
        label_attention: bool = False,
    ):
        super().__init__()
        if label_attention and (attention_hops % n_classes or pooling != "flatten"):
            raise ValueError(
                "label_attention needs the same number of hops for every class "
                "(attention_hops a multiple of n_classes) and pooling='flatten'; got "
                f"attention_hops={attention_hops}, n_classes={n_classes}, pooling={pooling!r}"
            )
        self.pooling = pooling
        authors = dropout_placement == "authors"
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=padding_idx)
        self.subword_embedding = (
            SubwordEmbedding(subword_buckets, embedding_dim) if subword_buckets else None
        )
        self.encoder = BiRNNEncoder(embedding_dim, hidden_size, cell="lstm")
        self.attention = StructuredSelfAttention(
            self.encoder.output_size, attention_dim, attention_hops, dropout if authors else 0.0
        )
        self.embedding_dropout = nn.Dropout(0.0 if authors else dropout)
        self.state_dropout = nn.Dropout(dropout if authors else 0.0)
        if mlp_connections == "pruned" and pooling != "flatten":
            raise ValueError(f'mlp_connections="pruned" needs pooling="flatten", not {pooling!r}')
        rows = attention_hops if pooling == "flatten" else 1
        self.dropout = nn.Dropout(dropout)
        if label_attention:
            hops_per_class = attention_hops // n_classes
            self.classifier = LabelAttentionHead(
                n_classes, hops_per_class * self.encoder.output_size
            )
        else:
            self.classifier = mlp_head(
                rows, self.encoder.output_size, mlp_hidden, n_classes, dropout, mlp_connections
            )

    def encode(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        subwords: torch.Tensor | None = None,
        token_scale: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The sentence embedding M (batch, hops, 2u) and the attention A (batch, hops, time)."""
        width = int(lengths.max())
        tokens = tokens[:, :width]
        embedded = self.embedding(tokens)
        # getattr: networks pickled before skattn 0.3 have no such attribute.
        if getattr(self, "subword_embedding", None) is not None and subwords is not None:
            embedded = embedded + self.subword_embedding(subwords[:, :width])
        if token_scale is not None:
            embedded = embedded * token_scale[:, :width, None]
        states = self.encoder(self.embedding_dropout(embedded), lengths)
        mask = length_mask(lengths, tokens.shape[1])
        # "authors": H is dropped on its way into W_s1 only; M = A H keeps all of H.
        return self.attention(states, mask, scored=self.state_dropout(states))

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        subwords: torch.Tensor | None = None,
        token_scale: torch.Tensor | None = None,
    ) -> SelfAttentiveOutput:
        """Classify padded token ids (batch, time) with their lengths (batch,).

        ``subwords`` (batch, time, n), optional: each token's character
        n-gram ids (with ``subword_buckets``). ``token_scale`` (batch, time),
        optional, multiplies each token's vector: gradient-based
        explanations differentiate with respect to it.
        """
        embedding, attention = self.encode(tokens, lengths, subwords, token_scale)
        logits = self.classifier(self.dropout(pool_hops(embedding, self.pooling)))
        return SelfAttentiveOutput((logits, attention, embedding, attention_penalty(attention)))
