"""The main job: attention models and linear baselines on one corpus, same folds.

:func:`compare` fits every model on the same stratified splits and returns
one record per model; :func:`format_table` lays them out as in Table 2 of
the HAN paper (accuracy mean ± std), with fit time and prediction speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline

from skattn.baselines import linear_baselines
from skattn.classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity, fetch_trec


def tfidf_logreg() -> BaseEstimator:
    """TF-IDF (unigrams and bigrams) + logistic regression: the reference baseline.

    Examples
    --------
    >>> tfidf_logreg().steps[-1][0]
    'logisticregression'
    """
    return make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
        LogisticRegression(C=10.0, max_iter=1000),
    )


def available_models(
    quick: bool = False, vectors=None, vectors_dim: int | None = None
) -> dict[str, Callable[[], BaseEstimator]]:
    """Name → factory of every model the comparison knows.

    Attention models: ``self_attentive`` (pooling "flatten"),
    ``self_attentive_max`` / ``_mean`` (pooling over hops), ``han`` (HN-ATT),
    ``han_ave`` (HN-AVE), ``han_max`` (HN-MAX); each default model also as
    ``*_w2v`` (word2vec trained on the fit data) and, when ``vectors`` is
    given, ``*_vectors`` (those pretrained vectors). Baselines: the five of
    :func:`skattn.baselines.linear_baselines` and ``tfidf_logreg``.

    Parameters
    ----------
    quick : bool, default=False
        Smaller networks and fewer epochs, for a fast look.
    vectors : path, KeyedVectors or dict, optional
        Pretrained word vectors for the ``*_vectors`` models.
    vectors_dim : int, optional
        Their size (the networks' ``embedding_dim``).

    Returns
    -------
    dict of str to callable

    Examples
    --------
    >>> sorted(available_models())[:4]
    ['bag_of_means', 'bow', 'bow_tfidf', 'han']
    """
    quick_params = {"max_epochs": 2, "embedding_dim": 50} if quick else {}

    def factory(cls, **params):
        return lambda: cls(random_state=0, **{**quick_params, **params})

    models = {
        "self_attentive": factory(SelfAttentiveClassifier),
        "self_attentive_max": factory(SelfAttentiveClassifier, pooling="max"),
        "self_attentive_mean": factory(SelfAttentiveClassifier, pooling="mean"),
        "han": factory(HierarchicalAttentionClassifier),
        "han_ave": factory(HierarchicalAttentionClassifier, pooling="mean"),
        "han_max": factory(HierarchicalAttentionClassifier, pooling="max"),
    }
    for name, cls in [
        ("self_attentive", SelfAttentiveClassifier),
        ("han", HierarchicalAttentionClassifier),
    ]:
        models[f"{name}_w2v"] = factory(cls, embeddings="word2vec")
        if vectors is not None:
            models[f"{name}_vectors"] = factory(cls, embeddings=vectors, embedding_dim=vectors_dim)
    baselines = {name: (lambda name=name: linear_baselines()[name]) for name in linear_baselines()}
    return {**models, **baselines, "tfidf_logreg": tfidf_logreg}


def load_dataset(name: str, data_home=None) -> tuple[list[str], np.ndarray]:
    """Documents and labels of a named corpus.

    Parameters
    ----------
    name : {"sentence_polarity", "movie_reviews", "trec"}
    data_home : str or path-like, optional

    Returns
    -------
    (list of str, ndarray)
    """
    loaders = {
        "sentence_polarity": fetch_sentence_polarity,
        "movie_reviews": fetch_movie_reviews,
        "trec": lambda **kw: fetch_trec(subset="all", **kw),
    }
    if name not in loaders:
        raise ValueError(f"dataset must be one of {sorted(loaders)}, got {name!r}.")
    return loaders[name](data_home=data_home, return_X_y=True)


def compare(
    X: Sequence[str],
    y,
    models: dict[str, Callable[[], BaseEstimator]],
    *,
    cv: int | None = 5,
    test_size: float = 0.2,
    random_state: int = 0,
    progress: Callable[[str], None] = print,
    on_last_fold: Callable[[str, BaseEstimator, np.ndarray, np.ndarray], None] | None = None,
) -> list[dict]:
    """Fit and score every model on the same stratified splits.

    Parameters
    ----------
    X : sequence of str
    y : array-like
    models : dict of str to callable
        Name → factory returning an unfitted estimator.
    cv : int or None, default=5
        Stratified K-fold (shuffled with ``random_state``); None: one
        stratified hold-out split of ``test_size``.
    test_size : float, default=0.2
    random_state : int, default=0
    progress : callable, default=print
        Receives one line per model and fold.
    on_last_fold : callable, optional
        Called as ``on_last_fold(name, fitted_model, X_test, y_test)`` after
        each model's last fold (e.g. to render its attention).

    Returns
    -------
    list of dict
        Per model: ``model``, ``accuracies`` (per fold), ``accuracy_mean``,
        ``accuracy_std``, ``fit_seconds`` (mean per fold) and
        ``predict_docs_per_s``.

    Examples
    --------
    >>> X = ["good", "fine", "great", "bad", "poor", "awful"] * 5
    >>> y = [1, 1, 1, 0, 0, 0] * 5
    >>> [r["model"] for r in compare(X, y, {"tfidf": tfidf_logreg}, cv=3, progress=len)]
    ['tfidf']
    """
    X = np.asarray(X, dtype=object)
    y = np.asarray(y)
    splitter = (
        StratifiedKFold(cv, shuffle=True, random_state=random_state)
        if cv
        else StratifiedShuffleSplit(1, test_size=test_size, random_state=random_state)
    )
    splits = list(splitter.split(X, y))
    results = []
    for name, factory in models.items():
        accuracies, fit_seconds, predict_rates = [], [], []
        for fold, (train, test) in enumerate(splits, start=1):
            model = clone(factory())
            start = time.perf_counter()
            model.fit(X[train], y[train])
            fit_time = time.perf_counter() - start
            start = time.perf_counter()
            predicted = model.predict(X[test])
            predict_time = time.perf_counter() - start
            accuracies.append(float(np.mean(predicted == y[test])))
            fit_seconds.append(fit_time)
            predict_rates.append(len(test) / predict_time)
            progress(
                f"{name} fold {fold}/{len(splits)}: accuracy {accuracies[-1]:.4f}, "
                f"fit {fit_time:.1f} s, predict {predict_rates[-1]:.0f} docs/s"
            )
        if on_last_fold is not None:
            on_last_fold(name, model, X[test], y[test])
        results.append(
            {
                "model": name,
                "accuracies": accuracies,
                "accuracy_mean": float(np.mean(accuracies)),
                "accuracy_std": float(np.std(accuracies)),
                "fit_seconds": float(np.mean(fit_seconds)),
                "predict_docs_per_s": float(np.mean(predict_rates)),
            }
        )
    return results


def format_table(results: list[dict]) -> str:
    """A Markdown table of :func:`compare` results, best accuracy first.

    Examples
    --------
    >>> print(format_table([{"model": "m", "accuracies": [0.5], "accuracy_mean": 0.5,
    ...     "accuracy_std": 0.0, "fit_seconds": 1.0, "predict_docs_per_s": 10.0}]))
    | model | accuracy (%) | fit s / fold | predict docs/s |
    |---|---|---|---|
    | m | 50.00 ± 0.00 | 1.0 | 10 |
    """
    lines = [
        "| model | accuracy (%) | fit s / fold | predict docs/s |",
        "|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: -r["accuracy_mean"]):
        lines.append(
            f"| {r['model']} | {100 * r['accuracy_mean']:.2f} ± {100 * r['accuracy_std']:.2f} "
            f"| {r['fit_seconds']:.1f} | {r['predict_docs_per_s']:.0f} |"
        )
    return "\n".join(lines)


def plot_results(results: list[dict], path, title: str = "") -> None:
    """A bar chart of mean accuracy (± std) per model, best first, saved as PNG.

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.
    path : str or path-like
    title : str, default=""
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ordered = sorted(results, key=lambda r: r["accuracy_mean"])
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(ordered) + 1.2))
    ax.barh(
        [r["model"] for r in ordered],
        [100 * r["accuracy_mean"] for r in ordered],
        xerr=[100 * r["accuracy_std"] for r in ordered],
        color=[
            "#c44e52" if "self_attentive" in r["model"] or "han" in r["model"] else "#4c72b0"
            for r in ordered
        ],
    )
    low = min(100 * r["accuracy_mean"] for r in ordered)
    ax.set_xlim(max(0, low - 10), 100)
    ax.set_xlabel("accuracy (%)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
