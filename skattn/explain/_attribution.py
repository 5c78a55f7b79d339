"""Which tokens a skattn model's decision rests on: attribution methods.

``estimator.explain(X, method=...)`` calls :func:`token_scores` and builds
its records from the result. Every method gives each kept token one score
for the predicted class c (positive: the token supports c). For a
regressor, log p_c and p_c below read as the predicted value of the first
output, in the units of ``y`` (positive: the token raises it):

``"attention"``
    The papers' attention. Self-attentive: the r hops summed per token,
    normalised (Lin et al.). Hierarchical: p_s · p_w, the weight with which
    word w of sentence s enters the document vector.
``"gradient"``
    Gradient × input: the gradient of log p_c with respect to each token's
    word vector, dotted with that vector (one forward and one backward pass
    per document).
``"integrated_gradients"``
    Integrated gradients (Sundararajan et al. 2017) from the all-zero word
    vectors (the padding vector) to the document's, with ``n_steps`` midpoint
    steps (``n_steps`` forward and backward passes). The scores sum to
    log p_c(x) − log p_c(0) up to the discretisation.
``"occlusion"``
    Leave-one-out: p_c(x) − p_c(x without the token) (one forward pass per
    token).
``"sentence_occlusion"``
    Hierarchical models only: p_c(x) − p_c(x without the token's sentence);
    every token of a sentence gets its sentence's score (one forward pass
    per sentence).

Gradients are taken with respect to a scale on each token's word vector
(the networks' ``token_scale`` input): d log p_c / d s_i at s = 1 is exactly
∇_{e_i} log p_c · e_i, and integrating it along s = α gives integrated
gradients with the zero baseline. The network's parameters get no
gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
import torch

from skattn.explain._erasure import ModelDocuments, leave_one_out
from skattn.explain._explanations import token_scores_of
from skattn.text._batching import DocumentDataset
from skattn.utils._runtime import torch_threads

#: Method names, in the order the documentation presents them.
METHODS = ("attention", "gradient", "integrated_gradients", "occlusion", "sentence_occlusion")
#: What ``explain()`` uses when no method is named (chosen by measured faithfulness).
DEFAULT_METHOD = "integrated_gradients"
#: Steps of integrated gradients unless told (as faithful as 8 or 16 steps in our measurements).
DEFAULT_STEPS = 4
#: Methods that differentiate the network.
GRADIENT_METHODS = ("gradient", "integrated_gradients")


def check_method(method: str, hierarchical: bool) -> str:
    """Return ``method`` if the model can use it, else raise ValueError naming the choices.

    Examples
    --------
    >>> check_method("gradient", hierarchical=False)
    'gradient'
    >>> check_method("sentence_occlusion", hierarchical=False)
    Traceback (most recent call last):
    ...
    ValueError: method='sentence_occlusion' is not one of 'attention', 'gradient', ...
    """
    allowed = METHODS if hierarchical else METHODS[:-1]
    if not isinstance(method, str) or method not in allowed:
        choices = ", ".join(repr(m) for m in allowed)
        raise ValueError(f"method={method!r} is not one of {choices}")
    return method


def check_n_steps(n_steps) -> int:
    """Return ``n_steps`` if it is a positive integer, else raise ValueError.

    Examples
    --------
    >>> check_n_steps(4)
    4
    >>> check_n_steps(0)
    Traceback (most recent call last):
    ...
    ValueError: n_steps must be a positive integer, got 0
    """
    if isinstance(n_steps, bool) or not isinstance(n_steps, Integral) or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
    return int(n_steps)


def _scale_gradients(
    estimator, documents: ModelDocuments, alphas: Sequence[float]
) -> list[np.ndarray]:
    """Mean over ``alphas`` of d log p_c / d s (token scales all set to α), per token."""
    module = estimator.net_.module_
    device = estimator.net_.device
    predicted = documents.predicted
    documents.forward_passes += len(alphas) * len(documents)
    documents.backward_passes += len(alphas) * len(documents)
    dataset = DocumentDataset(documents.corpus, hierarchical=estimator._hierarchical)
    order = dataset.length_order()
    batch_size = estimator.batch_size
    scores: list[np.ndarray] = [None] * len(dataset)  # type: ignore[list-item]
    dtype = module.embedding.weight.dtype
    module.eval()  # no dropout; cuDNN refuses RNN backward passes in eval mode, hence its flag
    with (
        torch_threads(estimator.threads),
        torch.enable_grad(),
        torch.backends.cudnn.flags(enabled=False),
    ):
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            X, _ = dataset.collate(rows)
            tokens, lengths = X["tokens"].to(device), X["lengths"].to(device)
            subwords = X["subwords"].to(device) if "subwords" in X else None
            target = torch.as_tensor(predicted[rows], device=device)
            total = torch.zeros(tokens.shape, dtype=dtype, device=device)
            for alpha in alphas:
                scale = torch.full(
                    tokens.shape, float(alpha), dtype=dtype, device=device, requires_grad=True
                )
                logits = module(tokens, lengths, subwords=subwords, token_scale=scale)[0]
                objective = estimator._explained_objective(logits, target).sum()
                (gradient,) = torch.autograd.grad(objective, scale)
                total += gradient
            total = (total / len(alphas)).double().cpu().numpy()
            lengths = lengths.cpu().numpy()
            for row, values, length in zip(rows, total, lengths):
                if estimator._hierarchical:
                    scores[row] = np.concatenate([v[:n] for v, n in zip(values, length) if n])
                else:
                    scores[row] = values[:length]
    return scores


def token_scores(
    estimator, X: Sequence[str], method: str, *, n_steps: int = DEFAULT_STEPS
) -> tuple[ModelDocuments, list[np.ndarray], dict]:
    """Each kept token's score for the predicted class, by ``method``.

    Parameters
    ----------
    estimator : fitted SelfAttentiveClassifier or HierarchicalAttentionClassifier
    X : sequence of str
    method : str
        One of :data:`METHODS` (``"sentence_occlusion"``: hierarchical only).
    n_steps : int, default=DEFAULT_STEPS
        Steps of ``"integrated_gradients"``.

    Returns
    -------
    documents : ModelDocuments
        The encoded documents (tokens, sentence of each token, probabilities).
    scores : list of ndarray
        Per document, one score per token of ``documents.tokens``.
    extra : dict
        Method-specific outputs: the attention maps for ``"attention"``.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = SelfAttentiveClassifier(max_epochs=2, embeddings=None, random_state=0).fit(X, y)
    >>> documents, scores, _ = token_scores(model, ["good film"], "occlusion")
    >>> documents.tokens[0], scores[0].shape
    (['good', 'film'], (2,))
    """
    hierarchical = estimator._hierarchical
    check_method(method, hierarchical)
    check_n_steps(n_steps)
    documents = ModelDocuments(estimator, X)
    extra: dict = {}
    if method == "attention":
        fields = ("sentence_attention", "word_attention") if hierarchical else ("attention",)
        extra = estimator._outputs([], fields, corpus=documents.corpus)
        maps = [dict(zip(fields, values)) for values in zip(*(extra[f] for f in fields))]
        scores = [token_scores_of(document_maps) for document_maps in maps]
    elif method == "gradient":
        scores = _scale_gradients(estimator, documents, [1.0])
    elif method == "integrated_gradients":
        scores = _scale_gradients(estimator, documents, (np.arange(n_steps) + 0.5) / n_steps)
    elif method == "occlusion":
        scores = leave_one_out(documents)
    else:
        scores = leave_one_out(documents, documents.sentence_of_token)
    return documents, scores, extra


def sentence_scores(scores: np.ndarray, sentence_of_token: np.ndarray, method: str) -> np.ndarray:
    """One score per sentence: the sum of its tokens' scores (attention: p_s), or for
    ``"sentence_occlusion"`` the score its tokens share.

    Examples
    --------
    >>> sentence_scores(np.array([0.5, 0.25, 1.0]), np.array([0, 0, 1]), "gradient").tolist()
    [0.75, 1.0]
    >>> sentence_scores(np.array([0.5, 0.5, 1.0]), np.array([0, 0, 1]), "sentence_occlusion")
    array([0.5, 1. ])
    """
    totals = np.bincount(sentence_of_token, weights=scores)
    if method == "sentence_occlusion":
        return totals / np.bincount(sentence_of_token)
    return totals


def explanation_records(
    estimator, X: Sequence[str], method: str, *, n_steps: int = DEFAULT_STEPS
) -> list[dict]:
    """The records of ``estimator.explain(X, method=method)`` (keys in :mod:`skattn.explain`).

    Every record holds ``method``, ``prediction``, ``proba`` and the tokens
    with their scores: ``tokens`` and ``scores`` (self-attentive), or
    ``sentences``, ``word_scores`` (one array per sentence) and
    ``sentence_scores`` (hierarchical: the sentence's attention p_s, its
    occlusion score, or the sum of its words' scores). ``"attention"``
    records also keep the maps themselves: ``attention`` (r, n_tokens), or
    ``sentence_attention`` and ``word_attention``.

    Examples
    --------
    >>> from skattn import HierarchicalAttentionClassifier
    >>> X, y = ["Good film. Fine.", "Bad film. Dull."] * 10, [1, 0] * 10
    >>> model = HierarchicalAttentionClassifier(max_epochs=1, embeddings=None).fit(X, y)
    >>> record = explanation_records(model, ["Good film. Fine."], "sentence_occlusion")[0]
    >>> record["sentences"], record["sentence_scores"].shape
    ([['good', 'film', '.'], ['fine', '.']], (2,))
    """
    documents, scores, extra = token_scores(estimator, X, method, n_steps=n_steps)
    records = []
    for i, (tokens, token_score) in enumerate(zip(documents.tokens, scores)):
        record = {"method": method, **estimator._shown_prediction(documents.full_proba[i])}
        if estimator._hierarchical:
            bounds = np.flatnonzero(np.diff(documents.sentence_of_token[i])) + 1
            word_scores = np.split(np.asarray(token_score, dtype=np.float64), bounds)
            edges = [0, *bounds.tolist(), len(tokens)]
            record["sentences"] = [tokens[a:b] for a, b in zip(edges[:-1], edges[1:])]
            record["word_scores"] = word_scores
            record["sentence_scores"] = sentence_scores(
                token_score, documents.sentence_of_token[i], method
            )
            if method == "attention":
                record["sentence_attention"] = extra["sentence_attention"][i]
                record["word_attention"] = extra["word_attention"][i]
        else:
            record["tokens"] = tokens
            record["scores"] = np.asarray(token_score, dtype=np.float64)
            if method == "attention":
                record["attention"] = extra["attention"][i]
        records.append(record)
    return records
