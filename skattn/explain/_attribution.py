"""Which tokens a skattn model's decision rests on: attribution methods.

``estimator.explain(X, method=...)`` calls :func:`explanation_records`,
which builds its records from :func:`token_scores`. Every method gives each
kept token one score for the explained class c (positive: the token
supports c): each document's predicted class, or the class the caller
names (``explain(label=...)``; here the ``column`` argument, passed down to
the documents, the gradients and the erasures). For a regressor, log p_c
and p_c below read as the predicted value of the explained output, in the
units of ``y`` (positive: the token raises it). A sentence pair's tokens
are both its texts' (the first text's, then the second's), and every method
but ``"sentence_occlusion"`` scores them:

``"attention"``
    The papers' attention. Self-attentive: the r hops summed per token,
    normalised (Lin et al.; a pair: each text's own). Hierarchical: p_s ·
    p_w, the weight with which word w of sentence s enters the document
    vector.
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
(the networks' ``token_scale`` input, and ``token_scale_b`` for a pair's
second text): d log p_c / d s_i at s = 1 is exactly ∇_{e_i} log p_c · e_i,
and integrating it along s = α gives integrated gradients with the zero
baseline. The network's parameters get no gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np
import torch

from skattn.explain._erasure import ModelDocuments, PairDocuments, leave_one_out
from skattn.explain._explanations import token_scores_of
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

    Hierarchical models have every method of :data:`METHODS`; the others
    (self-attentive models, of single texts or of pairs) all but
    ``"sentence_occlusion"``.

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
        raise ValueError(f"method={method!r} is not one of {choices}, the methods this model has")
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


def _side_keys(X: dict) -> list[str]:
    """The suffix of each text's keys in a batch: ``""``, and ``"_b"`` for a pair's second."""
    return [key[len("tokens") :] for key in X if key.startswith("tokens")]


def _mean_scale_gradients(
    estimator, X: dict, target: torch.Tensor, alphas: Sequence[float]
) -> dict[str, np.ndarray]:
    """Per text of the batch, the mean over ``alphas`` of d objective / d s at s = α."""
    module = estimator.net_.module_
    dtype = module.embedding.weight.dtype
    shapes = {side: X[f"tokens{side}"] for side in _side_keys(X)}
    totals = {
        side: torch.zeros(tokens.shape, dtype=dtype, device=tokens.device)
        for side, tokens in shapes.items()
    }
    for alpha in alphas:
        scales = {
            side: torch.full(
                tokens.shape, float(alpha), dtype=dtype, device=tokens.device, requires_grad=True
            )
            for side, tokens in shapes.items()
        }
        logits = module(**X, **{f"token_scale{side}": s for side, s in scales.items()})[0]
        objective = estimator.task_.objective(logits, target).sum()
        gradients = torch.autograd.grad(objective, list(scales.values()))
        for side, gradient in zip(scales, gradients):
            totals[side] += gradient
    return {side: (total / len(alphas)).double().cpu().numpy() for side, total in totals.items()}


def _real_tokens(values: np.ndarray, lengths: np.ndarray) -> list[np.ndarray]:
    """Per document of a batch, the values at its real tokens, in order (pads left out)."""
    if lengths.ndim == 2:  # hierarchical: (documents, sentences, words)
        return [
            np.concatenate([v[:n] for v, n in zip(sentences, counts) if n])
            for sentences, counts in zip(values, lengths)
        ]
    return [v[:n] for v, n in zip(values, lengths)]


def _scale_gradients(estimator, documents, alphas: Sequence[float]) -> list[np.ndarray]:
    """Mean over ``alphas`` of d objective / d s (token scales all set to α), per token.

    The objective is the explained column's (``documents.explained``); a
    pair's scores run over its first text's tokens, then its second's.
    """
    device = estimator.net_.device
    documents.forward_passes += len(alphas) * len(documents)
    documents.backward_passes += len(alphas) * len(documents)
    dataset = estimator._dataset(documents.corpus)
    order = dataset.length_order()
    scores: list[np.ndarray] = [None] * len(dataset)  # type: ignore[list-item]
    estimator.net_.module_.eval()  # no dropout; cuDNN refuses RNN backward in eval, hence its flag
    with (
        torch_threads(estimator.threads),
        torch.enable_grad(),
        torch.backends.cudnn.flags(enabled=False),
    ):
        for start in range(0, len(order), estimator.batch_size):
            rows = order[start : start + estimator.batch_size]
            X, _ = dataset.collate(rows)
            X = {key: value.to(device) for key, value in X.items()}
            target = torch.as_tensor(documents.explained[rows], device=device)
            gradients = _mean_scale_gradients(estimator, X, target, alphas)
            per_side = [
                _real_tokens(values, X[f"lengths{side}"].cpu().numpy())
                for side, values in gradients.items()
            ]
            for row, values in zip(rows, zip(*per_side)):
                scores[row] = np.concatenate(values)
    return scores


#: The network outputs that hold each kind of model's attention maps.
_ATTENTION_FIELDS = {
    "text": ("attention",),
    "hierarchical": ("sentence_attention", "word_attention"),
    "pair": ("attention", "attention_b"),
}


def _kind(estimator, documents) -> str:
    """What a record describes: one text, a hierarchical document, or a pair."""
    if isinstance(documents, PairDocuments):
        return "pair"
    return "hierarchical" if estimator._hierarchical else "text"


def _attention_maps(extra: dict, i: int, kind: str) -> dict:
    """Document ``i``'s attention maps under the keys its record holds them by."""
    if kind == "pair":
        return {
            "attention": extra["attention"][i],
            "second": {"attention": extra["attention_b"][i]},
        }
    return {field: extra[field][i] for field in _ATTENTION_FIELDS[kind]}


def _attention_scores(estimator, documents) -> tuple[list[np.ndarray], dict]:
    """The attention maps, and the token scores they give (:func:`token_scores_of`)."""
    kind = _kind(estimator, documents)
    fields = _ATTENTION_FIELDS[kind]
    extra = estimator._outputs([], fields, corpus=documents.corpus)
    scores = [token_scores_of(_attention_maps(extra, i, kind)) for i in range(len(documents))]
    return scores, extra


def token_scores(
    estimator,
    X: Sequence,
    method: str,
    *,
    column: int | None = None,
    n_steps: int = DEFAULT_STEPS,
) -> tuple[ModelDocuments | PairDocuments, list[np.ndarray], dict]:
    """Each kept token's score for the explained class, by ``method``.

    Parameters
    ----------
    estimator : fitted skattn classifier or regressor (single texts or pairs)
    X : sequence of str, or pairs of str for a pair model
    method : str
        One of :data:`METHODS` (``"sentence_occlusion"``: hierarchical only).
    column : int, optional
        The output column (class) every document is explained for; by
        default each document's predicted class (see
        :class:`~skattn.explain.ModelDocuments`).
    n_steps : int, default=DEFAULT_STEPS
        Steps of ``"integrated_gradients"``.

    Returns
    -------
    documents : ModelDocuments or PairDocuments
        The encoded documents (tokens, sentence of each token, probabilities,
        the column explained); a pair's tokens are both texts'.
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
    >>> documents, _, _ = token_scores(model, ["good film"], "gradient", column=0)
    >>> documents.explained.tolist()
    [0]
    """
    check_method(method, estimator._hierarchical)
    check_n_steps(n_steps)
    documents = estimator._explained_documents(X, column)
    extra: dict = {}
    if method == "attention":
        scores, extra = _attention_scores(estimator, documents)
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


def _text_body(documents, i: int, scores: np.ndarray, extra: dict) -> dict:
    body = {"tokens": documents.tokens[i], "scores": scores}
    if extra:
        body.update(_attention_maps(extra, i, "text"))
    return body


def _pair_body(documents, i: int, scores: np.ndarray, extra: dict) -> dict:
    n_first, tokens = documents.n_first[i], documents.tokens[i]
    second = {"tokens": tokens[n_first:], "scores": scores[n_first:]}
    body = {"tokens": tokens[:n_first], "scores": scores[:n_first], "second": second}
    if extra:
        body["attention"] = extra["attention"][i]
        second["attention"] = extra["attention_b"][i]
    return body


def _hierarchical_body(documents, i: int, scores: np.ndarray, extra: dict, method: str) -> dict:
    tokens, sentence_of_token = documents.tokens[i], documents.sentence_of_token[i]
    bounds = np.flatnonzero(np.diff(sentence_of_token)) + 1
    edges = [0, *bounds.tolist(), len(tokens)]
    body = {
        "sentences": [tokens[a:b] for a, b in zip(edges[:-1], edges[1:])],
        "word_scores": np.split(scores, bounds),
        "sentence_scores": sentence_scores(scores, sentence_of_token, method),
    }
    if extra:
        body.update(_attention_maps(extra, i, "hierarchical"))
    return body


def explanation_records(
    estimator,
    X: Sequence,
    method: str,
    *,
    column: int | None = None,
    n_steps: int = DEFAULT_STEPS,
) -> list[dict]:
    """The records of ``estimator.explain(X, method=method)`` (keys in :mod:`skattn.explain`).

    Every record holds ``method``, ``prediction``, ``proba`` and the tokens
    with their scores: ``tokens`` and ``scores`` (self-attentive), or
    ``sentences``, ``word_scores`` (one array per sentence) and
    ``sentence_scores`` (hierarchical: the sentence's attention p_s, its
    occlusion score, or the sum of its words' scores); a pair's record
    describes its first text so and its second under ``"second"``
    (``tokens``, ``scores``). ``"attention"`` records also keep the maps
    themselves: ``attention`` (r, n_tokens), or ``sentence_attention`` and
    ``word_attention``; with label attention, ``hop_names`` says whose each
    row of ``attention`` is ("love 1", "love 2", ...).

    Parameters
    ----------
    estimator : fitted skattn classifier or regressor (single texts or pairs)
    X : sequence of str, or pairs of str for a pair model
    method : str
        One of :data:`METHODS`.
    column : int, optional
        The output column explained in every document (see
        :func:`token_scores`); by default each document's prediction.
    n_steps : int, default=DEFAULT_STEPS

    Returns
    -------
    list of dict

    Examples
    --------
    >>> from skattn import HierarchicalAttentionClassifier
    >>> X, y = ["Good film. Fine.", "Bad film. Dull."] * 10, [1, 0] * 10
    >>> model = HierarchicalAttentionClassifier(max_epochs=1, embeddings=None).fit(X, y)
    >>> record = explanation_records(model, ["Good film. Fine."], "sentence_occlusion")[0]
    >>> record["sentences"], record["sentence_scores"].shape
    ([['good', 'film', '.'], ['fine', '.']], (2,))
    """
    documents, scores, extra = token_scores(estimator, X, method, column=column, n_steps=n_steps)
    kind = _kind(estimator, documents)
    records = []
    for i, token_score in enumerate(scores):
        token_score = np.asarray(token_score, dtype=np.float64)
        if kind == "hierarchical":
            body = _hierarchical_body(documents, i, token_score, extra, method)
        elif kind == "pair":
            body = _pair_body(documents, i, token_score, extra)
        else:
            body = _text_body(documents, i, token_score, extra)
        shown = estimator.task_.shown_prediction(documents.full_proba[i])
        records.append({"method": method, **shown, **body})
    _name_hops(estimator, records)
    return records


def _name_hops(estimator, records: list[dict]) -> None:
    """Name each attention row by its class or label when each has hops of its own.

    With label attention the rows of A are k per class, the first class's
    first (what :class:`~skattn.nn.LabelAttentionHead` reads): "love 1",
    "love 2", ... k is read from the fitted rows, not from ``label_hops``,
    which may have been set since.
    """
    choice = getattr(estimator, "choices_", {}).get("label_attention", {})
    if not choice.get("value"):
        return
    task = estimator.task_
    labels = getattr(task, "names", None) or [task.column_label(j) for j in range(task.n_outputs())]
    for record in records:
        n_rows = len(record.get("attention", ()))
        if n_rows and n_rows % len(labels) == 0:
            per_label = n_rows // len(labels)
            record["hop_names"] = [f"{lab} {k + 1}" for lab in labels for k in range(per_label)]
