"""The main job: attention models and linear baselines on one corpus, same folds.

:func:`compare` fits every model on the same stratified splits and returns
one record per model; :func:`format_table` lays them out as in Table 2 of
the HAN paper (accuracy mean ± std), with fit time and prediction speed.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit

from skattn.baselines import TABLE_2, linear_baselines, tuned_baselines
from skattn.classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity, fetch_trec


def available_models(
    quick: bool = False, vectors=None, vectors_dim: int | None = None
) -> dict[str, Callable[[], BaseEstimator]]:
    """Name → factory of every model the comparison knows.

    Attention models: ``self_attentive`` (pooling "flatten"),
    ``self_attentive_max`` / ``_mean`` (pooling over hops), ``han`` (also
    ``HN-ATT``), ``han_ave`` (``HN-AVE``), ``han_max`` (``HN-MAX``); each
    default model also as
    ``*_w2v`` (word2vec trained on the fit data) and, when ``vectors`` is
    given, ``*_vectors`` (those pretrained vectors). Baselines: the five of
    HAN Table 2 (:func:`skattn.baselines.linear_baselines`) and the tuned
    variants of :func:`skattn.baselines.tuned_baselines` (``tfidf_logreg``
    among them).

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
    ['HN-ATT', 'HN-AVE', 'HN-MAX', 'bag_of_means']
    >>> "mean_word2vec" in available_models()
    True
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
    # The paper's names for the hierarchical variants.
    models.update(
        {"HN-ATT": models["han"], "HN-AVE": models["han_ave"], "HN-MAX": models["han_max"]}
    )
    baselines = {name: (lambda name=name: linear_baselines()[name]) for name in linear_baselines()}
    tuned = {name: (lambda name=name: tuned_baselines()[name]) for name in tuned_baselines()}
    return {**models, **baselines, **tuned}


@dataclass
class Corpus:
    """Documents, labels and, when the corpus has one, its fixed test split."""

    X: list[str]
    y: np.ndarray
    test_mask: np.ndarray | None = None


def read_table(path, text_column: str = "text", label_column: str | None = "label") -> Corpus:
    """Documents and labels from a CSV or JSON Lines file.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (with a header row) or ``.jsonl`` (one JSON object a line).
    text_column : str
        The column (key) holding the text.
    label_column : str or None
        The column holding the label; None reads texts only (``y`` is None).

    Returns
    -------
    Corpus

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.csv")
    >>> _ = open(path, "w").write("text,label\\ngood film,pos\\nbad film,neg\\n")
    >>> read_table(path).y.tolist()
    ['pos', 'neg']
    """
    path = Path(path)
    with open(path, encoding="utf-8", newline="") as handle:
        if path.suffix.lower() == ".csv":
            rows = list(csv.DictReader(handle))
        elif path.suffix.lower() in (".jsonl", ".ndjson"):
            rows = [json.loads(line) for line in handle if line.strip()]
        else:
            raise ValueError(f"{path}: expected a .csv or .jsonl file.")
    if not rows:
        raise ValueError(f"{path} holds no rows.")
    for column in (text_column, label_column):
        if column is not None and column not in rows[0]:
            raise ValueError(f"{path} has no column {column!r}; its columns are {sorted(rows[0])}.")
    labels = None if label_column is None else np.asarray([row[label_column] for row in rows])
    return Corpus([row[text_column] for row in rows], labels)


def load_dataset(name: str, data_home=None, text_column="text", label_column="label") -> Corpus:
    """A named corpus, or a CSV/JSON Lines file of documents and labels.

    Parameters
    ----------
    name : {"sentence_polarity", "movie_reviews", "trec"} or path to .csv/.jsonl
        TREC comes with its fixed train/test split (``test_mask``).
    data_home : str or path-like, optional
    text_column, label_column : str
        Columns of a file.

    Returns
    -------
    Corpus
    """
    if name == "trec":
        train = fetch_trec(subset="train", data_home=data_home)
        test = fetch_trec(subset="test", data_home=data_home)
        mask = np.r_[np.zeros(len(train.data), bool), np.ones(len(test.data), bool)]
        return Corpus(train.data + test.data, np.r_[train.target, test.target], mask)
    loaders = {"sentence_polarity": fetch_sentence_polarity, "movie_reviews": fetch_movie_reviews}
    if name in loaders:
        return Corpus(*loaders[name](data_home=data_home, return_X_y=True))
    if Path(name).suffix.lower() in (".csv", ".jsonl", ".ndjson"):
        return read_table(name, text_column, label_column)
    raise ValueError(
        f"dataset must be one of ['movie_reviews', 'sentence_polarity', 'trec'] or a "
        f".csv/.jsonl file, got {name!r}."
    )


def compare(
    X: Sequence[str],
    y,
    models: dict[str, Callable[[], BaseEstimator]],
    *,
    cv: int | None = 5,
    test_size: float = 0.2,
    test_mask: np.ndarray | None = None,
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
        Stratified K-fold (shuffled with ``random_state``); None: the fixed
        split of ``test_mask`` if given, else one stratified hold-out split
        of ``test_size``.
    test_size : float, default=0.2
    test_mask : ndarray of bool, optional
        A corpus' own test documents (used when ``cv`` is None).
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
    >>> from skattn.baselines import tfidf_logreg
    >>> X = ["good", "fine", "great", "bad", "poor", "awful"] * 5
    >>> y = [1, 1, 1, 0, 0, 0] * 5
    >>> [r["model"] for r in compare(X, y, {"tfidf": tfidf_logreg}, cv=3, progress=len)]
    ['tfidf']
    """
    X = np.asarray(X, dtype=object)
    y = np.asarray(y)
    if cv:
        splits = list(StratifiedKFold(cv, shuffle=True, random_state=random_state).split(X, y))
    elif test_mask is not None:
        splits = [(np.flatnonzero(~test_mask), np.flatnonzero(test_mask))]
    else:
        splitter = StratifiedShuffleSplit(1, test_size=test_size, random_state=random_state)
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
    One split gives one figure per model (no ± : a standard deviation needs
    several folds).

    >>> print(format_table([{"model": "m", "accuracies": [0.5, 0.6], "accuracy_mean": 0.55,
    ...     "accuracy_std": 0.05, "fit_seconds": 1.0, "predict_docs_per_s": 10.0}]))
    | model | kind | accuracy (%) | fit s / fold | predict docs/s |
    |---|---|---|---|---|
    | m | tuned baseline | 55.00 ± 5.00 | 1.0 | 10 |
    """
    lines = [
        "| model | kind | accuracy (%) | fit s / fold | predict docs/s |",
        "|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: -r["accuracy_mean"]):
        accuracy = f"{100 * r['accuracy_mean']:.2f}"
        if len(r["accuracies"]) > 1:
            accuracy += f" ± {100 * r['accuracy_std']:.2f}"
        lines.append(
            f"| {r['model']} | {model_kind(r['model'])} | {accuracy} | {r['fit_seconds']:.1f} | "
            f"{r['predict_docs_per_s']:.0f} |"
        )
    return "\n".join(lines)


#: The kinds of model a comparison holds, with their chart colours.
MODEL_KINDS = {
    "attention model": "#c44e52",
    "Table-2 baseline": "#4c72b0",
    "tuned baseline": "#8c8c8c",
}


def model_kind(name: str) -> str:
    """What a comparison's model is: an attention model, a Table-2 or a tuned baseline.

    Examples
    --------
    >>> model_kind("han_ave"), model_kind("bow_tfidf"), model_kind("tfidf_logreg")
    ('attention model', 'Table-2 baseline', 'tuned baseline')
    """
    if name.startswith(("self_attentive", "han", "HN-")):
        return "attention model"
    return "Table-2 baseline" if name in TABLE_2 else "tuned baseline"


def plot_results(results: list[dict], path=None, title: str = ""):
    """A bar chart of mean accuracy (± std over folds) per model, best first.

    Bars start at 0 and carry their value; colours tell attention models,
    Table-2 baselines and tuned baselines apart (a legend says which).

    Parameters
    ----------
    results : list of dict
        What :func:`compare` returns.
    path : str, path-like or None, default=None
        Where to save the chart as PNG.
    title : str, default=""

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    colours = MODEL_KINDS
    ordered = sorted(results, key=lambda r: r["accuracy_mean"])
    # A Figure of its own (no pyplot): the caller's backend is never touched.
    fig = Figure(figsize=(7.5, 0.4 * len(ordered) + 2.0))
    ax = fig.subplots()
    several_folds = any(len(r.get("accuracies", [])) > 1 for r in ordered)
    bars = ax.barh(
        [r["model"] for r in ordered],
        [100 * r["accuracy_mean"] for r in ordered],
        xerr=[100 * r["accuracy_std"] for r in ordered] if several_folds else None,
        color=[colours[model_kind(r["model"])] for r in ordered],
    )
    ax.bar_label(bars, labels=[f"{100 * r['accuracy_mean']:.1f}" for r in ordered], padding=3)
    # Bars start at 0, so their lengths compare honestly; the labels carry the digits.
    ax.set_xlim(0, 100)
    ax.set_xlabel("accuracy (%)" + (" — mean ± std over folds" if several_folds else ""))
    # Below the axis, so that it never hides a bar or its value.
    ax.legend(
        handles=[Patch(color=c, label=k) for k, c in colours.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.22 if len(ordered) < 8 else -0.12),
        ncol=3,
        frameon=False,
    )
    ax.set_title(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
