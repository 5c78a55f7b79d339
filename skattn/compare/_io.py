"""Reading documents: CSV, JSON Lines and plain-text files, and the named corpora."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skattn.datasets._corpora import (
    fetch_goemotions,
    fetch_movie_reviews,
    fetch_nps_chat,
    fetch_sentence_polarity,
    fetch_sick,
    fetch_trec,
)
from skattn.text._streaming import iter_documents
from skattn.utils._csv import csv_rows

#: File suffixes read as tables (a header row, or one JSON object a line).
TABLE_SUFFIXES = (".csv", ".jsonl", ".ndjson")
#: The corpora :func:`load_dataset` knows by name.
CORPORA = ("movie_reviews", "nps_chat", "sentence_polarity", "trec", "sick", "goemotions")
#: Corpora whose samples are pairs of texts (for the pair models).
PAIR_CORPORA = ("sick",)


@dataclass
class Corpus:
    """Documents, labels and, when the corpus has one, its fixed test split.

    Parameters
    ----------
    X : list of str
        The documents.
    y : ndarray or None
        Their labels (None when a file is read without a label column); a
        multi-label corpus: a 0/1 indicator matrix (n_documents, n_labels).
    test_mask : ndarray of bool or None, default=None
        True for the documents of the corpus' own test split (TREC).
    target_names : list or None, default=None
        A multi-label corpus: the label of each column of ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> corpus = Corpus(["good", "bad"], np.array(["pos", "neg"]))
    >>> corpus.X, corpus.y.tolist(), corpus.test_mask
    (['good', 'bad'], ['pos', 'neg'], None)
    """

    X: list[str]
    y: np.ndarray | None
    test_mask: np.ndarray | None = None
    target_names: list | None = None

    @property
    def multilabel(self) -> bool:
        """Whether ``y`` is an indicator matrix (several labels per document)."""
        return self.y is not None and self.y.ndim == 2


def read_table(
    path: str | os.PathLike,
    text_column: str = "text",
    label_column: str | None = "label",
) -> Corpus:
    """Documents and labels from a CSV or JSON Lines file.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (with a header row), or ``.jsonl`` / ``.ndjson`` (one JSON
        object a line).
    text_column : str, default="text"
        The column (key) holding the text.
    label_column : str or None, default="label"
        The column holding the label; None reads texts only (``y`` is None).
        A column of lists (JSON arrays; in a CSV, cells written as JSON
        arrays such as ``["joy", "love"]``) makes a multi-label corpus: ``y``
        is the indicator matrix, ``target_names`` the labels, sorted.

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
            rows = list(csv_rows(handle, path))
        elif path.suffix.lower() in TABLE_SUFFIXES:
            rows = [json.loads(line) for line in handle if line.strip()]
        else:
            raise ValueError(f"{path}: expected a .csv, .jsonl or .ndjson file.")
    if not rows:
        raise ValueError(f"{path} holds no rows.")
    for column in (text_column, label_column):
        if column is not None and column not in rows[0]:
            raise ValueError(f"{path} has no column {column!r}; its columns are {sorted(rows[0])}.")
    texts = [row[text_column] for row in rows]
    if label_column is None:
        return Corpus(texts, None)
    labels = [row[label_column] for row in rows]
    lists = [_label_list(value) for value in labels]
    if any(value is not None for value in lists):
        return _multilabel_corpus(path, texts, labels, lists)
    return Corpus(texts, np.asarray(labels))


def _label_list(value) -> list | None:
    """A cell's labels when it holds a list (JSON, or a CSV cell written as a JSON array)."""
    if isinstance(value, list):
        return value
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return None
        return parsed if isinstance(parsed, list) else None
    return None


def _multilabel_corpus(path: Path, texts: list, labels: list, lists: list) -> Corpus:
    """The indicator-matrix corpus of a column of label lists (every cell must be one)."""
    for row, (value, parsed) in enumerate(zip(labels, lists), start=1):
        if parsed is None:
            raise ValueError(
                f"{path}: row {row} has the label {value!r}, not a list, where other rows hold "
                "lists of labels; a multi-label column holds a list in every row ([] for none)."
            )
    names = sorted({label for parsed in lists for label in parsed}, key=lambda v: (str(type(v)), v))
    column = {label: j for j, label in enumerate(names)}
    y = np.zeros((len(texts), len(names)), dtype=np.int64)
    for i, parsed in enumerate(lists):
        y[i, [column[label] for label in parsed]] = 1
    return Corpus(texts, y, target_names=names)


def read_documents(path: str | os.PathLike, text_column: str = "text") -> list[str]:
    """The documents of a file: a table's text column, else one document a line.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.jsonl``, ``.ndjson`` or ``.parquet`` (its
        ``text_column``); any other file is UTF-8 text holding one document
        a line (see :func:`skattn.text._encoder.iter_documents`).
    text_column : str, default="text"
        The column (key) holding the text of a table.

    Returns
    -------
    list of str

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.ndjson")
    >>> _ = open(path, "w").write('{"body": "good film"}\\n{"body": "bad film"}\\n')
    >>> read_documents(path, text_column="body")
    ['good film', 'bad film']
    """
    return list(iter_documents(path, text_column))


def load_dataset(
    name: str,
    data_home: str | os.PathLike | None = None,
    text_column: str = "text",
    label_column: str = "label",
) -> Corpus:
    """A named corpus, or a CSV/JSON Lines file of documents and labels.

    Parameters
    ----------
    name : str
        "sentence_polarity", "movie_reviews", "nps_chat", "trec", "sick", or
        the path of a .csv/.jsonl/.ndjson file. TREC comes with its fixed
        train/test split (``test_mask``); nps_chat is the 15 dialogue acts
        of :func:`~skattn.datasets.fetch_nps_chat`; SICK's samples are
        pairs of texts with their entailment judgment, its training and
        trial pairs for training, its test pairs for testing; GoEmotions is
        multi-label (an indicator ``y``), its train and dev comments for
        training, its test comments for testing.
    data_home : str or path-like, optional
        Where the named corpora are (see :func:`skattn.datasets.get_data_home`).
    text_column, label_column : str, default="text", "label"
        Columns of a file.

    Returns
    -------
    Corpus

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.jsonl")
    >>> _ = open(path, "w").write('{"text": "good", "label": 1}\\n{"text": "bad", "label": 0}\\n')
    >>> corpus = load_dataset(path)
    >>> corpus.X, corpus.y.tolist(), corpus.test_mask
    (['good', 'bad'], [1, 0], None)
    """
    if name == "trec":
        train = fetch_trec(subset="train", data_home=data_home)
        test = fetch_trec(subset="test", data_home=data_home)
        mask = np.r_[np.zeros(len(train.data), bool), np.ones(len(test.data), bool)]
        return Corpus(train.data + test.data, np.r_[train.target, test.target], mask)
    if name == "goemotions":
        # Train and dev for fitting (models tune thresholds on a split of them).
        corpus = fetch_goemotions(subset="all", data_home=data_home)
        mask = corpus.subsets == "test"
        return Corpus(corpus.data, corpus.target, mask, target_names=corpus.target_names)
    if name == "sick":
        pairs = fetch_sick(subset="all", data_home=data_home)
        return Corpus(pairs.data, np.asarray(pairs.target), pairs.subsets == "test")
    loaders = {
        "sentence_polarity": fetch_sentence_polarity,
        "movie_reviews": fetch_movie_reviews,
        "nps_chat": fetch_nps_chat,
    }
    if name in loaders:
        return Corpus(*loaders[name](data_home=data_home, return_X_y=True))
    if Path(name).suffix.lower() in TABLE_SUFFIXES:
        return read_table(name, text_column, label_column)
    raise ValueError(
        f"dataset must be one of {list(CORPORA)} or a .csv/.jsonl/.ndjson file, got {name!r}."
    )
