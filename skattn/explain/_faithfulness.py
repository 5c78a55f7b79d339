"""How faithful an explanation is: the erasure test of ERASER, for any text classifier.

An explanation ranks a document's tokens. If the ranking is faithful, the
model's prediction rests on the top-ranked tokens (DeYoung et al. 2020):

- **comprehensiveness** at k: p_c(x) − p_c(x without its top k% tokens).
  High: erasing what the explanation points at takes the prediction away.
- **sufficiency** at k: p_c(x) − p_c(only its top k% tokens). Low: those
  tokens alone keep the prediction.

c is the explained class, an argument (``label=``) passed down to the
erased documents and to the rankings: by default the class predicted for
the whole document. p_c is its probability, and the top k% of n tokens
are the ⌈k·n⌉ best ranked (at least one token; ties go to the earlier
token). Each measure is averaged over the bins
k ∈ {1, 5, 10, 20, 50}% (the AOPC) and then over documents, with a
bootstrap interval over the documents. Two references put the numbers in
scale: a **random** ranking (a uniform permutation per document, seeded),
and **leave-one-out** occlusion (the drop when each token alone is erased),
whose Spearman correlation with each method is also reported.

Cost: each bin needs two erased documents (one without the top tokens,
one with only them), so a report costs 10 forward passes per document per
ranking, batched; leave-one-out costs one per token.

Works for skattn's classifiers (erasing token ids, see
:mod:`skattn.explain._erasure`), skattn's pair classifiers (a pair's tokens are both
its texts', ranked and erased together), and any estimator with
``predict_proba`` over raw strings (erasing the text's tokens).

Rankings, by name: for skattn classifiers, any of
:data:`skattn.explain.METHODS` (pairs: all but
``"sentence_occlusion"``); for any estimator ``"occlusion"``; for
scikit-learn Pipelines ending in a linear model over a text vectorizer,
``"coefficients"`` (:func:`linear_token_scores`, the natural explanation:
coefficient × feature value); ``"random"``. A ranking may also be any
callable of the documents that returns one score per token the report
erases: for skattn classifiers the ``tokens`` of ``explain`` (a pair's:
the first text's, then the second's), otherwise those of
:class:`~skattn.explain.TextDocuments`.

At ``level="sentence"`` (hierarchical models) whole sentences are ranked
and erased, each scored by the sum of its tokens' scores (attention: p_s;
sentence occlusion: its own score), and the reference is sentence
occlusion.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.stats import spearmanr
from sklearn.base import is_classifier

from skattn.explain._attribution import (
    DEFAULT_STEPS,
    METHODS,
    check_method,
    check_n_steps,
    sentence_scores,
    token_scores,
)
from skattn.explain._erasure import (
    TextDocuments,
    documents_for,
    is_skattn_classifier,
    label_column,
    leave_one_out,
)
from skattn.utils._validation import check_text_input

#: ERASER's bins: the share of each document's tokens erased or kept.
BINS = (0.01, 0.05, 0.1, 0.2, 0.5)
#: Bootstrap resamples of the documents for each interval.
N_RESAMPLES = 1000


def top_k_count(n_tokens: int, share: float) -> int:
    """How many of ``n_tokens`` tokens the top ``share`` holds: ⌈share·n⌉, at least 1, at most n.

    Examples
    --------
    >>> top_k_count(20, 0.01), top_k_count(20, 0.2), top_k_count(3, 0.5), top_k_count(0, 0.5)
    (1, 4, 2, 0)
    """
    return min(n_tokens, max(1, math.ceil(share * n_tokens - 1e-9))) if n_tokens else 0


def ranking(scores: np.ndarray) -> np.ndarray:
    """Token positions from the highest score to the lowest (ties: earlier first).

    Examples
    --------
    >>> ranking(np.array([0.1, 0.5, 0.5, -1.0])).tolist()
    [1, 2, 0, 3]
    """
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def erasure_curves(
    documents,
    scores: Sequence[np.ndarray],
    bins: Sequence[float] = BINS,
    groups: Sequence[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Comprehensiveness and sufficiency of each document at each bin.

    Parameters
    ----------
    documents : skattn.explain.ModelDocuments, PairDocuments or TextDocuments
        Erased against the column they were made for (``explained``).
    scores : sequence of ndarray
        Per document, one score per token (higher: more important), or per
        unit with ``groups``.
    bins : sequence of float, default=BINS
    groups : sequence of ndarray of int, optional
        Per document, each token's unit (e.g. its sentence): units are
        ranked, counted in the bins and erased whole.

    Returns
    -------
    comprehensiveness, sufficiency : ndarray, shape (n_documents, n_bins)
        NaN for a blank document (nothing to erase); the report's means
        leave them out.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skattn.explain._erasure import TextDocuments
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(X, y)
    >>> docs = TextDocuments(model, ["good film"])
    >>> comp, suff = erasure_curves(docs, [np.array([1.0, 0.0])], bins=[0.5])
    >>> bool(comp[0, 0] > 0), bool(suff[0, 0] < comp[0, 0])
    (True, True)
    """
    variant_documents, keeps, slots = [], [], []
    for document, document_scores in enumerate(scores):
        n_units = len(document_scores)
        order = ranking(document_scores)
        for b, share in enumerate(bins):
            top = np.zeros(n_units, dtype=bool)
            top[order[: top_k_count(n_units, share)]] = True
            if groups is not None:
                top = top[groups[document]]
            if n_units and not documents.blank[document]:
                variant_documents += [document, document]
                keeps += [~top, top]
                slots.append((document, b))
    probability = documents.probability(variant_documents, keeps)
    full = documents.explained_proba
    comprehensiveness = np.full((len(documents), len(bins)), np.nan)
    sufficiency = np.full((len(documents), len(bins)), np.nan)
    for i, (document, b) in enumerate(slots):
        comprehensiveness[document, b] = full[document] - probability[2 * i]
        sufficiency[document, b] = full[document] - probability[2 * i + 1]
    return comprehensiveness, sufficiency


def mean_interval(
    values: np.ndarray, *, confidence: float = 0.95, random_state: int = 0
) -> tuple[float, float, float]:
    """Mean of ``values`` (NaN ignored) with a percentile bootstrap interval.

    Examples
    --------
    >>> mean, low, high = mean_interval(np.array([0.0, 1.0] * 50))
    >>> mean, low < 0.5 < high
    (0.5, True)
    """
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(random_state)
    means = values[rng.integers(0, len(values), (N_RESAMPLES, len(values)))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(values.mean()), float(low), float(high)


def random_scores(documents, random_state: int = 0) -> list[np.ndarray]:
    """A uniform random ranking of each document's tokens (the reference a ranking must beat).

    Examples
    --------
    >>> class Docs: tokens = [["a", "b", "c"]]
    >>> sorted(random_scores(Docs())[0].tolist()) == [0.0, 1.0, 2.0]
    True
    """
    rng = np.random.default_rng(random_state)
    return [rng.permutation(len(tokens)).astype(np.float64) for tokens in documents.tokens]


def linear_token_scores(pipeline, X: Sequence[str], documents: TextDocuments | None = None):
    """Coefficient × feature value of a vectorizer + linear model Pipeline, per token.

    Each feature's contribution to the explained class's decision value
    (``documents.explained``, by default the predicted class), ``coef[c, f]
    · x_f``, is shared among the feature's occurrences in the document, and
    an n-gram's share among its n tokens. Tokens are those of
    :class:`~skattn.explain.TextDocuments` (the vectorizer's preprocessing,
    e.g. lower-casing, is applied to each); tokens the vectorizer does not
    know score 0.

    Parameters
    ----------
    pipeline : fitted Pipeline
        A ``CountVectorizer``/``TfidfVectorizer`` (word analyzer) step, any
        transformers that keep its columns (e.g. ``TfidfTransformer``,
        ``MaxAbsScaler``; others are refused with a TypeError), and a linear
        classifier with ``coef_``.
    X : sequence of str
    documents : TextDocuments, optional
        Reused when given (their tokens are the units scored).

    Returns
    -------
    list of ndarray
        Per document, one score per token.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(X, y)
    >>> scores = linear_token_scores(model, ["Good film"])[0]
    >>> bool(scores[0] > 0), bool(abs(scores[1]) < scores[0])
    (True, True)
    """
    reason = _not_linear_text_pipeline(pipeline)
    if reason:
        raise TypeError(f"linear_token_scores: {reason}")
    vectorizer, model = pipeline.steps[0][1], pipeline.steps[-1][1]
    X = check_text_input(X)
    documents = documents or TextDocuments(pipeline, X)
    features = sp.csr_matrix(pipeline[:-1].transform(X))
    coef = np.atleast_2d(model.coef_)
    if not features.shape[1] == len(vectorizer.vocabulary_) == coef.shape[1]:
        raise TypeError(
            "linear_token_scores: the steps between the vectorizer and the model must keep the "
            f"vectorizer's {len(vectorizer.vocabulary_)} columns (they give "
            f"{features.shape[1]}, the model has {coef.shape[1]} coefficients)"
        )
    scores = []
    for i, (tokens, explained) in enumerate(zip(documents.tokens, documents.explained)):
        # Binary models have one row of coefficients, for classes_[1].
        weights = coef[0] * (1 if explained == 1 else -1) if len(coef) == 1 else coef[explained]
        row = features[i]
        contributions = {column: weights[column] * v for column, v in zip(row.indices, row.data)}
        scores.append(_shared_contributions(vectorizer, tokens, contributions))
    return scores


def _ngram_occurrences(vectorizer, tokens: list[str]) -> dict[int, list[list[int]]]:
    """Per vocabulary column, the token positions of each of its n-grams' occurrences."""
    preprocess, tokenize = vectorizer.build_preprocessor(), vectorizer.build_tokenizer()
    stop_words = vectorizer.get_stop_words() or frozenset()
    low, high = vectorizer.ngram_range
    # n-grams run over the tokens the vectorizer itself keeps (it may
    # drop punctuation and one-letter words, which then score 0).
    words = [(p, preprocess(t)) for p, t in enumerate(tokens)]
    words = [(p, w) for p, w in words if w not in stop_words and tokenize(w) == [w]]
    occurrences: dict[int, list[list[int]]] = {}
    for n in range(low, high + 1):
        for start in range(len(words) - n + 1):
            gram = " ".join(w for _, w in words[start : start + n])
            column = vectorizer.vocabulary_.get(gram)
            if column is not None:
                occurrences.setdefault(column, []).append([p for p, _ in words[start : start + n]])
    return occurrences


def _shared_contributions(vectorizer, tokens: list[str], contributions: dict) -> np.ndarray:
    """Each column's contribution shared among its occurrences, and each among its tokens."""
    document_scores = np.zeros(len(tokens))
    for column, places in _ngram_occurrences(vectorizer, tokens).items():
        share = contributions.get(column, 0.0) / len(places)
        for positions in places:
            document_scores[positions] += share / len(positions)
    return document_scores


def _not_linear_text_pipeline(estimator) -> str:
    """Why ``estimator`` is not a vectorizer + linear model Pipeline ('' if it is one)."""
    steps = getattr(estimator, "steps", None)
    if not steps:
        return "it needs a scikit-learn Pipeline"
    vectorizer, model = steps[0][1], steps[-1][1]
    if not hasattr(vectorizer, "vocabulary_") or getattr(vectorizer, "analyzer", None) != "word":
        return (
            "the Pipeline's first step must be a fitted CountVectorizer or TfidfVectorizer "
            "with analyzer='word'"
        )
    if not hasattr(model, "coef_"):
        return "the Pipeline must end in a linear model (with coef_)"
    return ""


@dataclass
class FaithfulnessReport:
    """The erasure test's results: one row per ranking method.

    Attributes
    ----------
    rows : list of dict
        Per method: ``method``, ``comprehensiveness`` and ``sufficiency``
        (AOPC means) with their ``*_low``/``*_high`` bootstrap bounds,
        ``spearman_vs_occlusion`` (mean per-document rank correlation with
        leave-one-out, when computed), ``forward_passes`` and
        ``backward_passes`` per document that the method needs beyond the
        prediction itself (None for a callable, whose cost is unknown),
        ``seconds_per_100_documents``.
    per_document : dict of str to dict of str to ndarray
        Per method: ``comprehensiveness`` and ``sufficiency`` (n_documents,
        n_bins).
    bins : tuple of float
    n_documents : int
    level : {"token", "sentence"}

    Examples
    --------
    >>> report = FaithfulnessReport(
    ...     rows=[{"method": "random", "comprehensiveness": 0.05, "sufficiency": 0.2}],
    ...     per_document={}, bins=BINS, n_documents=10)
    >>> report.row("random")["sufficiency"]
    0.2
    """

    rows: list[dict]
    per_document: dict = field(repr=False)
    bins: tuple = BINS
    n_documents: int = 0
    level: str = "token"

    def row(self, method: str) -> dict:
        """The row of ``method``."""
        for row in self.rows:
            if row["method"] == method:
                return row
        raise KeyError(method)

    def to_frame(self):
        """The rows as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows).set_index("method")

    def to_markdown(self) -> str:
        """A Markdown table: AOPC with intervals, the ratio to random, cost."""
        random_row = next((r for r in self.rows if r["method"] == "random"), None)
        lines = [
            "| method | comprehensiveness ↑ | × random | sufficiency ↓ | "
            f"ρ vs {'sentence ' if self.level == 'sentence' else ''}occlusion | passes / doc "
            "| s / 100 docs |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            ratio = (
                f"{row['comprehensiveness'] / random_row['comprehensiveness']:.1f}×"
                if random_row and random_row["comprehensiveness"] > 0
                else "–"
            )
            rho = row.get("spearman_vs_occlusion")
            if row["forward_passes"] is None:
                passes = "–"
            else:
                passes = f"{row['forward_passes']:.1f}"
                if row["backward_passes"]:
                    passes += f" + {row['backward_passes']:.1f} back"
            lines.append(
                f"| {row['method']} "
                f"| {row['comprehensiveness']:.3f} [{row['comprehensiveness_low']:.3f}, "
                f"{row['comprehensiveness_high']:.3f}] | {ratio} "
                f"| {row['sufficiency']:.3f} [{row['sufficiency_low']:.3f}, "
                f"{row['sufficiency_high']:.3f}] "
                f"| {'–' if rho is None or math.isnan(rho) else f'{rho:.2f}'} "
                f"| {passes} | {row['seconds_per_100_documents']:.2f} |"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.to_frame().to_html(float_format="%.3f")


def _checked_bins(bins) -> tuple[float, ...]:
    """``bins`` as a tuple of shares in (0, 1], or ValueError."""
    bins = tuple(float(b) for b in bins)
    if not bins or not all(0 < b <= 1 for b in bins):
        raise ValueError(f"bins must be shares of the tokens in (0, 1], got {bins}")
    return bins


def _checked_method(estimator, method) -> str:
    """The method's name, after checking the estimator can use it."""
    if callable(method):
        return getattr(method, "__name__", repr(method))
    if method == "random":
        return method
    if is_skattn_classifier(estimator):
        if method == "coefficients":
            raise ValueError("method='coefficients' is for linear Pipelines, not skattn models")
        return check_method(method, estimator._hierarchical)
    if method == "coefficients":
        reason = _not_linear_text_pipeline(estimator)
        if reason:
            raise ValueError(f"method='coefficients': {reason}")
        return method
    if method != "occlusion":
        raise ValueError(
            f"method={method!r} needs a skattn classifier; for other estimators use "
            "'occlusion', 'random', 'coefficients' (linear Pipelines) or a callable"
        )
    return method


def _checked_report_input(estimator, X, level: str, n_steps, bins) -> tuple[list, tuple]:
    """``X`` validated for ``estimator`` (pairs for a pair model) and the bins, all checked."""
    if not (is_classifier(estimator) and hasattr(estimator, "predict_proba")):
        raise ValueError(
            "faithfulness_report measures how a class probability falls as tokens are "
            f"erased: it needs a classifier with predict_proba, not a {type(estimator).__name__}."
        )
    ours = is_skattn_classifier(estimator)
    X = estimator._check_input(X) if ours else check_text_input(X)
    if level not in _REFERENCE:
        raise ValueError(f"level must be 'token' or 'sentence', got {level!r}")
    if level == "sentence" and not (ours and estimator._hierarchical):
        raise ValueError("level='sentence' needs a fitted HierarchicalAttentionClassifier")
    check_n_steps(n_steps)
    return X, _checked_bins(bins)


#: The reference ranking of each level: leave-one-out of its units.
_REFERENCE = {"token": "occlusion", "sentence": "sentence_occlusion"}


def _methods_to_run(estimator, methods, reference: bool, occlusion: str) -> tuple[list, list]:
    """The rankings to test (with the reference and "random" last) and their names."""
    if methods is None:
        if is_skattn_classifier(estimator):
            methods = [m for m in METHODS if estimator._hierarchical or m != "sentence_occlusion"]
        else:
            linear = not _not_linear_text_pipeline(estimator)
            methods = ["occlusion"] + (["coefficients"] if linear else [])
    methods = [m for m in methods if m != "random"]
    if reference and occlusion not in methods:
        methods.append(occlusion)
    methods.append("random")
    names = [_checked_method(estimator, method) for method in methods]
    if len(set(names)) < len(names):
        raise ValueError(f"methods must have distinct names, got {names}")
    return methods, names


#: What the report measures per document and bin (erasure_curves' two results).
_MEASURES = ("comprehensiveness", "sufficiency")


@dataclass
class _Measurement:
    """What each method of one report is measured on, and how."""

    estimator: Any
    X: list
    documents: Any
    #: The explained column (None: each document's prediction), as ``documents`` have it.
    column: int | None
    bins: tuple
    level: str
    n_steps: int
    random_state: int

    @property
    def groups(self) -> list | None:
        """Per document, each token's sentence when whole sentences are ranked."""
        return self.documents.sentence_of_token if self.level == "sentence" else None

    def scores(self, method) -> tuple[list[np.ndarray], int | None, int | None]:
        """A method's scores and cost (forward, backward passes beyond the prediction)."""
        estimator, documents = self.estimator, self.documents
        if callable(method):
            return [np.asarray(s, dtype=np.float64) for s in method(self.X)], None, None
        if method == "random":
            return random_scores(documents, self.random_state), 0, 0
        if method == "occlusion" and not is_skattn_classifier(estimator):
            before = documents.forward_passes
            scores = leave_one_out(documents)
            return scores, documents.forward_passes - before, 0
        if method == "coefficients":
            return linear_token_scores(estimator, self.X, documents), 0, 0
        scored, scores, _ = token_scores(
            estimator, self.X, method, column=self.column, n_steps=self.n_steps
        )
        return scores, scored.forward_passes, scored.backward_passes

    def of(self, name: str, method) -> tuple[dict, dict, list[np.ndarray]]:
        """The method's report row, its per-document curves, and the units it ranked."""
        start = time.perf_counter()
        scores, forward, backward = self.scores(method)
        cost = (forward, backward, time.perf_counter() - start)
        if [len(s) for s in scores] != [len(t) for t in self.documents.tokens]:
            raise ValueError(
                f"method {name!r} returned scores whose lengths differ from the documents' "
                "token counts"
            )
        if self.groups is not None:
            scores = _sentence_scores(scores, self.groups, method, self.random_state)
        curves = dict(
            zip(_MEASURES, erasure_curves(self.documents, scores, self.bins, self.groups))
        )
        row = _summary_row(name, curves, cost, len(self.documents), self.random_state)
        return row, curves, scores


def _summary_row(name: str, curves: dict, cost: tuple, n_documents: int, random_state: int):
    """A report row: each measure's mean and interval over documents, and the cost."""
    forward, backward, seconds = cost
    n = max(1, n_documents)
    row: dict = {"method": name}
    for measure, values in curves.items():
        mean, low, high = mean_interval(values.mean(axis=1), random_state=random_state)
        row.update({measure: mean, f"{measure}_low": low, f"{measure}_high": high})
    row.update(
        forward_passes=None if forward is None else forward / n,
        backward_passes=None if backward is None else backward / n,
        seconds_per_100_documents=100 * seconds / n,
    )
    return row


def _add_spearman(rows: list[dict], ranked: dict, reference: str) -> None:
    """Each row's mean rank correlation with the reference ranking, when it ran."""
    if reference in ranked:
        for row in rows:
            row["spearman_vs_occlusion"] = _mean_spearman(ranked[row["method"]], ranked[reference])


def faithfulness_report(
    estimator,
    X: Sequence,
    methods: Sequence[str | Callable] | None = None,
    *,
    label: Any = None,
    bins: Sequence[float] = BINS,
    reference: bool = True,
    n_steps: int = DEFAULT_STEPS,
    level: str = "token",
    random_state: int = 0,
) -> FaithfulnessReport:
    """Comprehensiveness and sufficiency of each ranking method on documents ``X``.

    Parameters
    ----------
    estimator : fitted classifier
        skattn's (texts or pairs), or any whose ``predict_proba`` takes strings.
    X : sequence of str, or pairs of str for a pair classifier
        Test documents (a pair's tokens: both texts', erased together).
    methods : sequence of str or callable, optional
        Rankings (names or callables, see the module's text). Default: all
        the estimator supports; ``"random"`` is always added.
    label : optional
        The class whose probability is erased against (a value of
        ``classes_``; skattn multi-label: a label index) in every document,
        and that named methods score for. Default: each one's prediction.
    bins : sequence of float, default=BINS
    reference : bool, default=True
        Also run leave-one-out; report each method's Spearman ρ with it.
    n_steps : int, default=4
        Steps of integrated gradients.
    level : {"token", "sentence"}, default="token"
        Rank and erase tokens, or a hierarchical model's whole sentences.
    random_state : int, default=0
        Seed of the random ranking and the bootstrap.

    Returns
    -------
    FaithfulnessReport

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> model = tfidf_logreg().fit(["good film", "bad film"] * 10, [1, 0] * 10)
    >>> [row["method"] for row in faithfulness_report(model, ["a good film"], label=0).rows]
    ['occlusion', 'coefficients', 'random']
    """
    X, bins = _checked_report_input(estimator, X, level, n_steps, bins)
    methods, names = _methods_to_run(estimator, methods, reference, _REFERENCE[level])
    column = label_column(estimator, label)
    documents = documents_for(estimator, X, column)
    run = _Measurement(estimator, X, documents, column, bins, level, n_steps, random_state)
    rows, per_document, ranked = [], {}, {}
    for name, method in zip(names, methods):
        row, per_document[name], ranked[name] = run.of(name, method)
        rows.append(row)
    _add_spearman(rows, ranked, _REFERENCE[level])
    return FaithfulnessReport(rows, per_document, bins, len(documents), level)


def _sentence_scores(scores, groups, method, random_state: int) -> list[np.ndarray]:
    """Per document, one score per sentence (a random order of the sentences for "random")."""
    if method == "random":
        rng = np.random.default_rng(random_state)
        return [rng.permutation(int(g.max()) + 1 if len(g) else 0).astype(float) for g in groups]
    name = method if isinstance(method, str) else ""
    return [sentence_scores(s, g, name) for s, g in zip(scores, groups)]


def _mean_spearman(scores: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> float:
    """Mean per-document Spearman correlation (documents of 3+ tokens with varying scores)."""
    values = []
    for a, b in zip(scores, reference):
        if len(a) >= 3 and np.ptp(a) > 0 and np.ptp(b) > 0:
            values.append(spearmanr(a, b).statistic)
    return float(np.mean(values)) if values else math.nan
