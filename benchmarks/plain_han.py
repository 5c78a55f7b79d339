"""HAN as a PyTorch user writes it without skattn: the reference the estimator should beat.

``bare_loop.py`` trains skattn's own modules on skattn's own batches, so
it measures only the layers above the modules. This file is the other
reference: Yang et al.'s network written the way public PyTorch
reproductions write it, over the same token ids, so its speed is what a
user would get from their own script:

- one ``nn.GRU(bidirectional=True)`` per level, one ``nn.Linear`` and a
  context vector per attention, a linear classifier;
- documents padded per batch to (documents, longest document's sentences,
  longest sentence's words); batches drawn at random, not bucketed;
- ``"packed"``: the word GRU runs on the batch's real sentences through
  ``pack_padded_sequence`` and the sentence GRU on the packed documents
  (exact, the way PyTorch's documentation teaches variable lengths);
  ``"padded"``: both GRUs run on the padded tensors as they are, pads
  included (the shortcut many reproductions take; its backward direction
  reads pads first, so it is not the same function on ragged batches);
- the same optimiser, learning rate, momentum and gradient clipping as
  the estimator.

:func:`plain_network_from` copies a fitted estimator's weights into the
plain network so the check in :func:`plain_reference` can assert that the
packed variant computes the estimator's own logits: the two sides train
the same function, only the code differs.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from skattn.training import OPTIMIZERS
from skattn.utils._runtime import torch_threads


class _Attention(nn.Module):
    """u_t = tanh(W h_t + b); α = softmax(u_tᵀ u_c) over real positions; Σ α_t h_t."""

    def __init__(self, input_dim: int, context_dim: int):
        super().__init__()
        self.projection = nn.Linear(input_dim, context_dim)
        self.context = nn.Parameter(torch.empty(context_dim).uniform_(-0.1, 0.1))

    def forward(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores = torch.tanh(self.projection(states)) @ self.context
        scores = scores.masked_fill(~mask, float("-inf"))
        # A row with no real position (a padding sentence) gets zero weights.
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        return (weights.unsqueeze(-1) * states).sum(1)


class PlainHAN(nn.Module):
    """Word BiGRU + attention → sentence BiGRU + attention → linear, on padded tensors."""

    def __init__(
        self,
        vocab_size: int,
        n_classes: int,
        embedding_dim: int,
        word_hidden: int,
        sentence_hidden: int,
        context_dim: int,
        packed: bool = True,
    ):
        super().__init__()
        self.packed = packed
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.word_gru = nn.GRU(embedding_dim, word_hidden, batch_first=True, bidirectional=True)
        self.word_attention = _Attention(2 * word_hidden, context_dim)
        self.sentence_gru = nn.GRU(
            2 * word_hidden, sentence_hidden, batch_first=True, bidirectional=True
        )
        self.sentence_attention = _Attention(2 * sentence_hidden, context_dim)
        self.classifier = nn.Linear(2 * sentence_hidden, n_classes)

    def _run(self, gru: nn.GRU, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if not self.packed:
            return gru(inputs)[0]
        packed = pack_padded_sequence(inputs, lengths, batch_first=True, enforce_sorted=False)
        return pad_packed_sequence(gru(packed)[0], batch_first=True, total_length=inputs.shape[1])[
            0
        ]

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``tokens`` (documents, sentences, words), ``lengths`` (documents, sentences)."""
        documents, sentences, words = tokens.shape
        flat_tokens, flat_lengths = tokens.view(-1, words), lengths.view(-1)
        real = flat_lengths > 0
        if self.packed:  # only the real sentences go through the word GRU
            states = self._run(self.word_gru, self.embedding(flat_tokens[real]), flat_lengths[real])
            word_mask = torch.arange(words) < flat_lengths[real, None]
            vectors = states.new_zeros(documents * sentences, states.shape[-1])
            vectors[real] = self.word_attention(states, word_mask)
        else:
            states = self._run(self.word_gru, self.embedding(flat_tokens), flat_lengths)
            vectors = self.word_attention(states, torch.arange(words) < flat_lengths[:, None])
        vectors = vectors.view(documents, sentences, -1)
        counts = (lengths > 0).sum(1)
        states = self._run(self.sentence_gru, vectors, counts)
        document = self.sentence_attention(states, lengths > 0)
        return self.classifier(document)


def plain_batches(dataset, batch_size: int, rng: np.random.Generator):
    """Random batches of ``batch_size`` documents, each padded to its own longest."""
    order = rng.permutation(len(dataset))
    for start in range(0, len(order), batch_size):
        X, y = dataset.collate(order[start : start + batch_size].tolist())
        yield X["tokens"], X["lengths"], y


def plain_network_from(estimator, packed: bool = True) -> PlainHAN:
    """A :class:`PlainHAN` of a fitted estimator's sizes, holding its trained weights."""
    ours = estimator.net_.module_
    plain = PlainHAN(
        estimator.encoder_.vocab_size_,
        len(estimator.classes_),
        estimator.embedding_dim,
        estimator.hidden_size,
        estimator.sentence_hidden_size,
        estimator.context_dim,
        packed=packed,
    )
    weights = {
        "embedding.weight": ours.embedding.weight,
        "classifier.weight": ours.classifier.weight,
    }
    weights["classifier.bias"] = ours.classifier.bias
    for level in ("word", "sentence"):
        encoder = getattr(ours, f"{level}_encoder")
        attention = getattr(ours, f"{level}_pooling").attention
        for name, tensor in encoder.forward_rnn.named_parameters():
            weights[f"{level}_gru.{name}"] = tensor
        for name, tensor in encoder.backward_rnn.named_parameters():
            weights[f"{level}_gru.{name}_reverse"] = tensor
        weights[f"{level}_attention.projection.weight"] = attention.projection.weight
        weights[f"{level}_attention.projection.bias"] = attention.projection.bias
        weights[f"{level}_attention.context"] = attention.context
    plain.load_state_dict({k: v.detach().clone() for k, v in weights.items()})
    return plain


#: Settings the plain network reproduces, by the estimator's parameter name.
REPRODUCED = {"pooling": "attention", "lr_schedule": "constant", "device": "cpu"}
#: Parameters the plain network has no counterpart for: each must be unset.
#: (``callbacks`` are not checked: ``run.py``'s own only records memory.)
UNSET = (
    "subword_buckets",
    "dropout",
    "weight_decay",
    "clip_grad_value",
    "freeze_embeddings",
    "warmup_epochs",
    "early_stopping",
    "validation_fraction",
    "net_params",
    "class_weight",
    "accelerator",
)


def check_papers_settings(estimator) -> None:
    """Refuse settings the plain network does not reproduce (it would time another model)."""
    params = estimator.get_params(deep=False)
    wrong = {name: params[name] for name in UNSET if params[name]}
    wrong |= {name: params[name] for name, value in REPRODUCED.items() if params[name] != value}
    if not isinstance(estimator.optimizer, str):
        wrong["optimizer"] = estimator.optimizer
    if wrong:
        raise ValueError(f"the plain reproduction has no {wrong!r}")


def plain_reference(
    estimator, X, y, *, epochs: int = 1, packed: bool = True, bucketed: bool = False
) -> list[float]:
    """Epoch times of the plain reproduction trained from ``estimator``'s fitted weights.

    ``estimator`` is a fitted ``HierarchicalAttentionClassifier`` at the
    papers' settings (HN-ATT, no subwords, no dropout, a constant rate, no
    weight decay; :func:`check_papers_settings` refuses others). Before
    timing, the packed network's logits on a batch must equal the
    estimator's module's on all its inputs (float32 tolerance), or this
    raises. Each epoch's time is returned (``benchmarks/run.py`` compares
    second epochs). ``bucketed``: the
    estimator's own length-bucketed batches instead of random ones (what a
    careful user adds; it isolates the network code from the batching).
    """
    check_papers_settings(estimator)
    dataset = estimator.to_dataset(X, y)
    module = plain_network_from(estimator, packed=packed)
    batch, _ = dataset.collate(list(range(min(len(dataset), estimator.batch_size))))
    if packed:
        with torch.no_grad():  # every input the estimator's module trains on
            ours = estimator.net_.module_.eval()(**batch).logits
            theirs = module.eval()(batch["tokens"], batch["lengths"])
        if not torch.allclose(ours, theirs, rtol=1e-4, atol=1e-5):
            raise AssertionError(
                f"the plain network is not the estimator's: max |Δ logit| "
                f"{(ours - theirs).abs().max():.3g}"
            )
    kwargs = {"momentum": estimator.momentum} if estimator.optimizer in ("sgd", "rmsprop") else {}
    optimizer = OPTIMIZERS[estimator.optimizer](module.parameters(), lr=estimator.lr, **kwargs)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(0)
    module.train()
    times = []
    with torch_threads(estimator.threads):
        for _ in range(epochs):
            start = time.perf_counter()
            if bucketed:
                batches = (
                    dataset.collate(rows) for rows in estimator.net_._bucket_sampler(dataset)
                )
                batches = ((X["tokens"], X["lengths"], y) for X, y in batches)
            else:
                batches = plain_batches(dataset, estimator.batch_size, rng)
            for tokens, lengths, targets in batches:
                loss = loss_fn(module(tokens, lengths), targets)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if estimator.clip_grad_norm is not None:
                    nn.utils.clip_grad_norm_(module.parameters(), estimator.clip_grad_norm)
                optimizer.step()
            times.append(time.perf_counter() - start)
    return times
