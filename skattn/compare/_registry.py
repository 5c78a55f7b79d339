"""Which models a comparison knows: name → factory, with the kind of each model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sklearn.base import BaseEstimator
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import Pipeline

from skattn.baselines._fasttext import FastTextClassifier, fasttext_available
from skattn.baselines._pairs import pair_baselines
from skattn.baselines._table2 import linear_baselines, tfidf_logreg, tuned_baselines
from skattn.estimators._classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.estimators._pairs import SelfAttentivePairClassifier
from skattn.training._thresholds import TunedThresholdMultiLabelClassifier
from skattn.utils._params import validate_params

#: Kind of the attention models (self-attentive, hierarchical and their variants).
ATTENTION_MODEL = "attention model"
#: Kind of the five linear baselines of the HAN paper's Table 2.
TABLE_2_BASELINE = "Table-2 baseline"
#: Kind of the better-tuned linear variants (``tfidf_logreg`` among them).
TUNED_BASELINE = "tuned baseline"
#: Baselines from outside the paper and our linear pipelines (fastText).
OTHER_BASELINE = "other baseline"
#: The kinds the best baseline of a comparison is chosen from.
BASELINE_KINDS = (TABLE_2_BASELINE, TUNED_BASELINE, OTHER_BASELINE)
#: Epochs of every attention model under ``quick=True``.
QUICK_EPOCHS = 1
#: Baseline parameters (by their last name) under ``quick=True``, besides the n-gram range
#: (at most 2) and the vocabulary (at most 50,000 features).
QUICK_BASELINE = {"n_means": 500, "vector_size": 50}


@dataclass(frozen=True)
class ModelEntry:
    """One model of the registry: how to build it and what kind of model it is.

    Calling the entry builds a new, unfitted model, so an entry can be used
    wherever a factory is expected.

    Parameters
    ----------
    factory : callable
        Returns a new unfitted estimator.
    kind : str
        ``"attention model"``, ``"Table-2 baseline"``, ``"tuned baseline"``
        or ``"other baseline"``.

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> entry = ModelEntry(tfidf_logreg, TUNED_BASELINE)
    >>> entry.kind, entry().steps[-1][0]
    ('tuned baseline', 'logisticregression')
    """

    factory: Callable[[], BaseEstimator]
    kind: str

    def __call__(self) -> BaseEstimator:
        return self.factory()


def set_random_state(estimator: BaseEstimator, random_state: int | None) -> BaseEstimator:
    """Set every parameter whose name ends in ``random_state`` to ``random_state``.

    Nested parameters count too (``bagofmeans__random_state`` of a
    Pipeline), so one seed reaches every random step of a model.

    Parameters
    ----------
    estimator : estimator
        Changed in place.
    random_state : int or None

    Returns
    -------
    estimator
        The same estimator.

    Examples
    --------
    >>> from skattn.baselines._table2 import bag_of_means
    >>> model = set_random_state(bag_of_means(), 7)
    >>> model.get_params()["bagofmeans__random_state"]
    7
    """
    seeds = {name: random_state for name in estimator.get_params() if name.endswith("random_state")}
    return estimator.set_params(**seeds)


def one_vs_rest(pipeline: Pipeline) -> TunedThresholdMultiLabelClassifier:
    """A linear baseline for multi-label ``y``: one classifier per label, F1 thresholds.

    The pipeline's last step becomes a
    :class:`~sklearn.multiclass.OneVsRestClassifier` of it, and the whole
    is wrapped in :class:`~skattn.model_selection.TunedThresholdMultiLabelClassifier`,
    so the baseline chooses its thresholds as the attention classifiers do
    (for each label's F1, on 10% of the fit data).

    Parameters
    ----------
    pipeline : Pipeline
        A single-label baseline (e.g. :func:`skattn.baselines.bow_tfidf`).

    Returns
    -------
    TunedThresholdMultiLabelClassifier

    Examples
    --------
    >>> from skattn.baselines._table2 import bow_tfidf
    >>> model = one_vs_rest(bow_tfidf())
    >>> type(model.estimator.steps[-1][1]).__name__
    'OneVsRestClassifier'
    """
    name, last = pipeline.steps[-1]
    steps = [*pipeline.steps[:-1], (name, OneVsRestClassifier(last))]
    return TunedThresholdMultiLabelClassifier(Pipeline(steps))


def available_models(
    quick: bool = False,
    vectors: Any = None,
    vectors_dim: int | None = None,
    *,
    random_state: int | None = 0,
    sentence_split: str | Callable[[str], list[str]] | None = None,
) -> dict[str, ModelEntry]:
    """Name → entry (factory and kind) of every model the comparison knows.

    Attention models: ``self_attentive`` (pooling "flatten"),
    ``self_attentive_max`` / ``_mean``, ``self_attentive_8hops`` (8 hops
    read by every label through an MLP of 256, without label attention),
    ``self_attentive_pruned`` (Lin et al.'s Appendix A), ``han``
    (``HN-ATT``), ``han_ave`` (``HN-AVE``), ``han_max`` (``HN-MAX``), the
    papers' presets ``*_paper``; each default model also as ``*_w2v`` and,
    with ``vectors``, ``*_vectors``. Baselines: HAN Table 2's five
    (:func:`skattn.baselines.linear_baselines`), the tuned variants
    (``tfidf_logreg`` among them), ``fasttext`` with the ``fasttext``
    extra, and each linear baseline as ``ovr_*`` (:func:`one_vs_rest`) for
    multi-label corpora.

    Parameters
    ----------
    quick : bool, default=False
        A fast look, not for conclusions: one epoch and 50-dimensional
        embeddings for every attention model, and every baseline's grid
        shrunk (:func:`quick_baseline`).
    vectors, vectors_dim : path, KeyedVectors or dict; int, optional
        Pretrained word vectors for the ``*_vectors`` models, and their size.
    random_state : int or None, default=0
        Seed of every model built (see :func:`set_random_state`).
    sentence_split : {"punctuation", "lines"} or callable, optional
        ``sentence_split`` of the hierarchical models; None keeps their default.

    Returns
    -------
    dict of str to ModelEntry
        Each entry is callable: ``entry()`` builds a new unfitted model.

    Examples
    --------
    >>> models = available_models(random_state=3, sentence_split="lines")
    >>> sorted(models)[:4]
    ['HN-ATT', 'HN-AVE', 'HN-MAX', 'bag_of_means']
    >>> models["han"].kind, models["han"]().sentence_split, models["han_paper"]().random_state
    ('attention model', 'lines', 3)
    """
    quick_params = {"max_epochs": QUICK_EPOCHS, "embedding_dim": 50} if quick else {}
    han_params = {} if sentence_split is None else {"sentence_split": sentence_split}
    if sentence_split is not None:  # fail before any data is read, in the model's words
        validate_params(HierarchicalAttentionClassifier(**han_params))
    models = _attention_entries(quick_params, han_params, random_state, vectors, vectors_dim)
    models.update(_preset_entries({**han_params, **quick_params}, random_state))
    return {**models, **_baseline_entries(quick, random_state)}


def _attention_entries(
    quick_params: dict, han_params: dict, random_state, vectors, vectors_dim
) -> dict[str, ModelEntry]:
    """The attention models of :func:`available_models`, but the papers' presets."""

    def attention(cls: type, **params: Any) -> ModelEntry:
        if cls is HierarchicalAttentionClassifier:
            params = {**han_params, **params}
        params = {**quick_params, **params}
        return ModelEntry(lambda: set_random_state(cls(**params), random_state), ATTENTION_MODEL)

    models = {
        "self_attentive": attention(SelfAttentiveClassifier),
        "self_attentive_max": attention(SelfAttentiveClassifier, pooling="max"),
        "self_attentive_mean": attention(SelfAttentiveClassifier, pooling="mean"),
        # More hops and a wider MLP, read by every label: the best multi-label
        # network before label attention (chosen on GoEmotions' validation split).
        "self_attentive_8hops": attention(
            SelfAttentiveClassifier, attention_hops=8, mlp_hidden=256, label_attention=False
        ),
        # Lin et al.'s Appendix A: the pruned first MLP layer.
        "self_attentive_pruned": attention(SelfAttentiveClassifier, mlp_connections="pruned"),
        "han": attention(HierarchicalAttentionClassifier),
        "han_ave": attention(HierarchicalAttentionClassifier, pooling="mean"),
        "han_max": attention(HierarchicalAttentionClassifier, pooling="max"),
    }
    for name, cls in [
        ("self_attentive", SelfAttentiveClassifier),
        ("han", HierarchicalAttentionClassifier),
    ]:
        models[f"{name}_w2v"] = attention(cls, embeddings="word2vec")
        if vectors is not None:
            models[f"{name}_vectors"] = attention(
                cls, embeddings=vectors, embedding_dim=vectors_dim
            )
    # The paper's names of the hierarchical variants.
    models.update(
        zip(("HN-ATT", "HN-AVE", "HN-MAX"), map(models.get, ("han", "han_ave", "han_max")))
    )
    # For corpora of text pairs (SICK): Lin et al.'s pair model (and the pair baseline).
    models["self_attentive_pair"] = ModelEntry(
        lambda: set_random_state(SelfAttentivePairClassifier(**quick_params), random_state),
        ATTENTION_MODEL,
    )
    return models


def _preset_entries(settings: dict, random_state) -> dict[str, ModelEntry]:
    """The papers' presets (each paper's recipe; see ``from_paper``)."""
    models = {}
    for name, cls, preset_params in [
        ("self_attentive_paper", SelfAttentiveClassifier, {}),
        ("self_attentive_paper_pruned", SelfAttentiveClassifier, {"mlp_connections": "pruned"}),
        ("han_paper", HierarchicalAttentionClassifier, {}),
    ]:
        preset = cls.from_paper()
        # Only the settings the preset has (a self-attentive model has no sentences).
        overrides = {k: v for k, v in settings.items() if hasattr(preset, k)}
        overrides.update(preset_params)
        models[name] = ModelEntry(
            lambda cls=cls, overrides=overrides: set_random_state(
                cls.from_paper(**overrides), random_state
            ),
            ATTENTION_MODEL,
        )
    return models


def quick_baseline(estimator: BaseEstimator) -> BaseEstimator:
    """A baseline with its grid shrunk for ``--quick`` (see :data:`QUICK_BASELINE`).

    n-grams up to 2 with at most 50,000 features; bag-of-means with 500
    means; word2vec vectors of 50 dimensions. Nested parameters count
    (one-vs-rest wrappers).

    Examples
    --------
    >>> from skattn.baselines._table2 import bag_of_means, ngrams
    >>> quick_baseline(ngrams()).named_steps["countvectorizer"].ngram_range
    (1, 2)
    >>> quick_baseline(bag_of_means()).named_steps["bagofmeans"].n_means
    500
    """
    changes: dict[str, Any] = {}
    for key, value in estimator.get_params().items():
        leaf = key.rsplit("__", 1)[-1]
        if leaf == "ngram_range" and value[1] > 2:
            changes[key] = (value[0], 2)
        elif leaf == "max_features" and value is not None and value > 50_000:
            changes[key] = 50_000
        elif leaf in QUICK_BASELINE and not isinstance(value, BaseEstimator):
            changes[key] = QUICK_BASELINE[leaf]
    return estimator.set_params(**changes)


def _baseline_entries(quick: bool, random_state) -> dict[str, ModelEntry]:
    """The linear baselines (also one-vs-rest for multi-label ``y``) and fastText."""
    shrink = quick_baseline if quick else (lambda estimator: estimator)

    def entry(build: Callable[[], BaseEstimator], kind: str) -> ModelEntry:
        return ModelEntry(lambda: set_random_state(shrink(build()), random_state), kind)

    models = {
        "tfidf_pair_logreg": entry(lambda: pair_baselines()["tfidf_pair_logreg"], TUNED_BASELINE)
    }
    # Each linear baseline also for multi-label y: one-vs-rest with F1 thresholds.
    for builders, kind in ((linear_baselines, TABLE_2_BASELINE), (tuned_baselines, TUNED_BASELINE)):
        for name in builders():
            models[name] = entry(lambda builders=builders, name=name: builders()[name], kind)
            models[f"ovr_{name}"] = entry(
                lambda builders=builders, name=name: one_vs_rest(builders()[name]), kind
            )
    # tfidf_logreg at C=4: the setting of the GoEmotions figure in the corpora's README.
    models["ovr_tfidf_logreg"] = entry(lambda: one_vs_rest(tfidf_logreg(C=4.0)), TUNED_BASELINE)
    if fasttext_available():
        models["fasttext"] = entry(FastTextClassifier, OTHER_BASELINE)
    return models


def model_kind(name: str, models: dict[str, ModelEntry] | None = None) -> str:
    """The kind of a registered model: an attention model, a Table-2, tuned or other baseline.

    Parameters
    ----------
    name : str
        A model name of ``models``.
    models : dict of str to ModelEntry, optional
        A registry; default :func:`available_models`.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        If ``name`` is not in the registry.

    Examples
    --------
    >>> model_kind("han_ave"), model_kind("bow_tfidf"), model_kind("tfidf_logreg")
    ('attention model', 'Table-2 baseline', 'tuned baseline')
    """
    models = available_models() if models is None else models
    if name not in models:
        raise KeyError(f"unknown model {name!r}; known: {sorted(models)}")
    return models[name].kind
