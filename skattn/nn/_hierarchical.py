"""The hierarchical attention network (Yang et al. 2016)."""

from __future__ import annotations

import torch
from torch import nn

from skattn.nn._attention import SequencePooling, length_mask
from skattn.nn._encoders import BiRNNEncoder, SubwordEmbedding, inverse_permutation
from skattn.nn._outputs import ModuleOutput


class HierarchicalOutput(ModuleOutput):
    """What :class:`HierarchicalAttentionNet` returns.

    Fields: ``logits`` (batch, n_classes); ``sentence_attention``
    (batch, max_sentences); ``word_attention`` (batch, max_sentences,
    max_words); ``embedding`` (batch, 2h), the document vector v.

    Examples
    --------
    >>> net = HierarchicalAttentionNet(vocab_size=10, n_classes=3, embedding_dim=4,
    ...                                sentence_hidden=5)
    >>> tokens = torch.tensor([[[2, 3], [4, 0]], [[5, 6], [0, 0]]])  # 2 documents
    >>> out = net(tokens, torch.tensor([[2, 1], [2, 0]]))
    >>> logits, sentence_attention, word_attention, embedding = out  # a tuple, logits first
    >>> tuple(out.word_attention.shape), tuple(out.embedding.shape)
    ((2, 2, 2), (2, 10))
    >>> out.sentence_attention[1].tolist()  # the padding sentence gets weight 0
    [1.0, 0.0]
    """

    fields = ("logits", "sentence_attention", "word_attention", "embedding")


class HierarchicalAttentionNet(nn.Module):
    """Words → BiGRU → pooling → sentence vectors → BiGRU → pooling → document → linear.

    All real sentences of a batch go through the word-level GRU together
    (sorted by length, in chunks); their vectors are then scattered back
    to (batch, sentences, 2h) for the sentence level.

    Parameters
    ----------
    vocab_size : int
    n_classes : int
    embedding_dim : int, default=200
    word_hidden : int, default=50
        GRU units per direction at the word level.
    sentence_hidden : int, default=50
        GRU units per direction at the sentence level.
    context_dim : int, default=100
        Size of the context vectors u_w and u_s.
    pooling : {"attention", "mean", "max"}, default="attention"
        HN-ATT, HN-AVE or HN-MAX, at both levels.
    dropout : float, default=0.0
        Dropout on the embeddings and on the document vector.
    chunk_size : int or None, default=256
        Sentences per word-level GRU call.
    padding_idx : int, default=0
        The token id of padding (its embedding stays zero).
    subword_buckets : int, default=0
        With buckets, each token's vector adds the mean vector of its hashed
        character n-grams (:class:`~skattn.nn.SubwordEmbedding`);
        0: word vectors only.

    Examples
    --------
    >>> net = HierarchicalAttentionNet(vocab_size=10, n_classes=2, embedding_dim=4)
    >>> tokens = torch.tensor([[[2, 3], [4, 0]], [[5, 6], [0, 0]]])
    >>> out = net(tokens, torch.tensor([[2, 1], [2, 0]]))
    >>> tuple(out.logits.shape), tuple(out.sentence_attention.shape)
    ((2, 2), (2, 2))
    """

    def __init__(
        self,
        vocab_size: int,
        n_classes: int,
        embedding_dim: int = 200,
        word_hidden: int = 50,
        sentence_hidden: int = 50,
        context_dim: int = 100,
        pooling: str = "attention",
        dropout: float = 0.0,
        chunk_size: int | None = 256,
        padding_idx: int = 0,
        subword_buckets: int = 0,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=padding_idx)
        self.subword_embedding = (
            SubwordEmbedding(subword_buckets, embedding_dim) if subword_buckets else None
        )
        self.word_encoder = BiRNNEncoder(embedding_dim, word_hidden, "gru")
        self.chunk_size = chunk_size
        self.word_pooling = SequencePooling(self.word_encoder.output_size, context_dim, pooling)
        self.sentence_encoder = BiRNNEncoder(self.word_encoder.output_size, sentence_hidden, "gru")
        self.sentence_pooling = SequencePooling(
            self.sentence_encoder.output_size, context_dim, pooling
        )
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(self.sentence_encoder.output_size, n_classes)

    def _encode_sentences(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        max_words: int,
        subwords: torch.Tensor | None = None,
        token_scale: torch.Tensor | None = None,
    ):
        """Sentence vectors (n, 2h) and word weights (n, max_words) of n sentences.

        Sentences are sorted by length and cut into chunks of ``chunk_size``;
        each chunk is embedded, encoded and pooled at its own longest length.
        Only token ids are indexed, never float activations, so no step
        allocates (or, in the backward pass, zero-fills) a buffer the size
        of the whole batch padded to its longest sentence, and the
        embedding is looked up once per batch.
        """
        order = torch.argsort(lengths, descending=True, stable=True)
        chunks = torch.split(order, self.chunk_size or len(order))
        widths = [int(lengths[rows[0]]) for rows in chunks]
        # One embedding call over every chunk's ids, each chunk padded only to
        # its own width: its backward pass builds one vocabulary-sized
        # gradient per batch, not one per chunk.
        ids = torch.cat([tokens[rows, :width].reshape(-1) for rows, width in zip(chunks, widths)])
        embedded = self.embedding(ids)
        # getattr: networks pickled before skattn 0.3 have no such attribute.
        if getattr(self, "subword_embedding", None) is not None and subwords is not None:
            n_grams = subwords.shape[-1]
            embedded = embedded + self.subword_embedding(
                torch.cat(
                    [subwords[rows, :w].reshape(-1, n_grams) for rows, w in zip(chunks, widths)]
                )
            )
        if token_scale is not None:
            scales = [token_scale[rows, :width].reshape(-1) for rows, width in zip(chunks, widths)]
            embedded = embedded * torch.cat(scales)[:, None]
        embedded = self.dropout(embedded)
        pieces = torch.split(embedded, [len(rows) * width for rows, width in zip(chunks, widths)])
        vectors, weights = [], []
        for rows, width, piece in zip(chunks, widths, pieces):
            chunk_lengths = lengths[rows]
            states = self.word_encoder(piece.view(len(rows), width, -1), chunk_lengths)
            vector, weight = self.word_pooling(states, length_mask(chunk_lengths, width))
            vectors.append(vector)
            weights.append(nn.functional.pad(weight, (0, max_words - width)))
        inverse = inverse_permutation(order)
        return torch.cat(vectors)[inverse], torch.cat(weights)[inverse]

    def forward(
        self,
        tokens: torch.Tensor,
        lengths: torch.Tensor,
        subwords: torch.Tensor | None = None,
        token_scale: torch.Tensor | None = None,
    ) -> HierarchicalOutput:
        """Classify a batch of documents.

        Parameters
        ----------
        tokens : Tensor (batch, max_sentences, max_words)
            Token ids, padded with PAD.
        lengths : Tensor (batch, max_sentences)
            Words per sentence; 0 marks a padding sentence.
        subwords : Tensor (batch, max_sentences, max_words, n), optional
            Each token's character n-gram ids (with ``subword_buckets``).
        token_scale : Tensor (batch, max_sentences, max_words), optional
            Multiplies each token's word vector: gradient-based explanations
            differentiate with respect to it.
        """
        real = lengths > 0
        sentence_counts = real.sum(1)
        max_words = int(lengths.max())
        sentence_vectors, flat_word_attention = self._encode_sentences(
            tokens[real],
            lengths[real],
            max_words,
            None if subwords is None else subwords[real],
            None if token_scale is None else token_scale[real],
        )
        sentences = sentence_vectors.new_zeros(real.shape + sentence_vectors.shape[-1:])
        sentences[real] = sentence_vectors
        word_attention = flat_word_attention.new_zeros(real.shape + (max_words,))
        word_attention[real] = flat_word_attention
        states = self.sentence_encoder(sentences, sentence_counts)
        document, sentence_attention = self.sentence_pooling(states, real)
        logits = self.classifier(self.dropout(document))
        return HierarchicalOutput((logits, sentence_attention, word_attention, document))
