"""Reading documents: CSV, JSON Lines and plain-text files, and the named corpora."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skattn.datasets import (
    fetch_movie_reviews,
    fetch_nps_chat,
    fetch_sentence_polarity,
    fetch_sick,
    fetch_trec,
)

#: File suffixes read as tables (a header row, or one JSON object a line).
TABLE_SUFFIXES = (".csv", ".jsonl", ".ndjson")
#: The corpora :func:`load_dataset` knows by name.
CORPORA = ("movie_reviews", "nps_chat", "sentence_polarity", "trec", "sick")
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
        Their labels (None when a file is read without a label column).
    test_mask : ndarray of bool or None, default=None
        True for the documents of the corpus' own test split (TREC).

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
        elif path.suffix.lower() in TABLE_SUFFIXES:
            rows = [json.loads(line) for line in handle if line.strip()]
        else:
            raise ValueError(f"{path}: expected a .csv, .jsonl or .ndjson file.")
    if not rows:
        raise ValueError(f"{path} holds no rows.")
    for column in (text_column, label_column):
        if column is not None and column not in rows[0]:
            raise ValueError(f"{path} has no column {column!r}; its columns are {sorted(rows[0])}.")
    labels = None if label_column is None else np.asarray([row[label_column] for row in rows])
    return Corpus([row[text_column] for row in rows], labels)


def read_documents(path: str | os.PathLike, text_column: str = "text") -> list[str]:
    """The documents of a file: a table's text column, else one document a line.

    Parameters
    ----------
    path : str or path-like
        ``.csv``, ``.jsonl`` or ``.ndjson`` (read by :func:`read_table`);
        any other file is UTF-8 text holding one document a line.
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
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if path.suffix.lower() in TABLE_SUFFIXES:
        return read_table(path, text_column=text_column, label_column=None).X
    return path.read_text(encoding="utf-8").splitlines()


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
        trial pairs for training, its test pairs for testing.
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
