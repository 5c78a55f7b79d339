"""Documents and labels for a comparison: the named corpora, or a file (read by skattn.text)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skattn.datasets._corpora import (
    fetch_goemotions,
    fetch_movie_reviews,
    fetch_nps_chat,
    fetch_product_reviews,
    fetch_sentence_polarity,
    fetch_sick,
    fetch_trec,
)
from skattn.text._readers import EXTENSIONS, TABLE_FORMATS, read_records
from skattn.text._readers import read_documents as _read_documents

#: File suffixes read as tables (named columns): CSV, TSV, JSON Lines, JSON, Parquet.
TABLE_SUFFIXES = tuple(suffix for suffix, fmt in EXTENSIONS.items() if fmt in TABLE_FORMATS)
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
    regression : bool, default=False
        A named regression corpus: its whole-number targets are amounts,
        not classes (``--task auto`` decides regression).

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
    regression: bool = False

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
        A table :func:`skattn.text.read_documents` reads: ``.csv`` or
        ``.tsv`` (with a header row), ``.jsonl`` / ``.ndjson`` (one JSON
        object a line), ``.json`` (an array of objects) or ``.parquet``.
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

    Raises
    ------
    DocumentFileError
        The file cannot be read (see :func:`skattn.text.read_documents`),
        or lacks one of the columns.
    ValueError
        It holds no rows.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.csv")
    >>> _ = open(path, "w").write("text,label\\ngood film,pos\\nbad film,neg\\n")
    >>> read_table(path).y.tolist()
    ['pos', 'neg']
    """
    columns = (text_column,) if label_column is None else (text_column, label_column)
    rows = list(read_records(path, columns=columns))
    if not rows:
        raise ValueError(f"{os.fspath(path)} holds no rows.")
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


def _multilabel_corpus(path: str | os.PathLike, texts: list, labels: list, lists: list) -> Corpus:
    """The indicator-matrix corpus of a column of label lists (every cell must be one)."""
    for row, (value, parsed) in enumerate(zip(labels, lists), start=1):
        if parsed is None:
            raise ValueError(
                f"{os.fspath(path)}: row {row} has the label {value!r}, not a list, where other "
                "rows hold lists of labels; a multi-label column holds a list in every row "
                "([] for none)."
            )
    for row, parsed in enumerate(lists, start=1):
        for label in parsed:
            _check_list_label(path, row, label)
    names = sorted({label for parsed in lists for label in parsed}, key=lambda v: (str(type(v)), v))
    column = {label: j for j, label in enumerate(names)}
    y = np.zeros((len(texts), len(names)), dtype=np.int64)
    for i, parsed in enumerate(lists):
        y[i, [column[label] for label in parsed]] = 1
    return Corpus(texts, y, target_names=names)


def _check_list_label(path, row: int, label) -> None:
    """Refuse what cannot name a label: null, NaN, booleans (True is 1 in a set), containers."""
    if isinstance(label, str) or (
        isinstance(label, (int, float)) and not isinstance(label, bool) and label == label
    ):
        return
    try:
        shown = json.dumps(label)
    except (TypeError, ValueError):  # bytes from a parquet list<binary>, say
        shown = repr(label)
    raise ValueError(
        f"{os.fspath(path)}: row {row} holds {shown} among its labels; a label "
        "in a list is a string or a number ([] for a document without labels)."
    )


def read_documents(path: str | os.PathLike, text_column: str = "text") -> list[str]:
    """The documents of a file: a table's text column, else one document a line.

    Parameters
    ----------
    path : str or path-like
        A file :func:`skattn.text.read_documents` reads (by its extension):
        ``.csv``, ``.tsv``, ``.jsonl``, ``.ndjson``, ``.json`` or
        ``.parquet`` (its ``text_column``), ``.txt`` (one document a line).
    text_column : str, default="text"
        The column (key) holding the text of a table.

    Returns
    -------
    list of str

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    DocumentFileError
        The file cannot be read as its extension says.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.ndjson")
    >>> _ = open(path, "w").write('{"body": "good film"}\\n{"body": "bad film"}\\n')
    >>> read_documents(path, text_column="body")
    ['good film', 'bad film']
    """
    return list(_read_documents(path, text_column=text_column))


def _trec(data_home) -> Corpus:
    train = fetch_trec(subset="train", data_home=data_home)
    test = fetch_trec(subset="test", data_home=data_home)
    mask = np.r_[np.zeros(len(train.data), bool), np.ones(len(test.data), bool)]
    return Corpus(train.data + test.data, np.r_[train.target, test.target], mask)


def _goemotions(data_home) -> Corpus:
    # Train and dev for fitting (models tune thresholds on a split of them).
    corpus = fetch_goemotions(subset="all", data_home=data_home)
    mask = corpus.subsets == "test"
    return Corpus(corpus.data, corpus.target, mask, target_names=corpus.target_names)


def _sick(data_home) -> Corpus:
    pairs = fetch_sick(subset="all", data_home=data_home)
    return Corpus(pairs.data, np.asarray(pairs.target), pairs.subsets == "test")


def _whole(fetch: Callable) -> Callable[..., Corpus]:
    """A corpus without a split of its own: all its documents and labels."""
    return lambda data_home: Corpus(*fetch(data_home=data_home, return_X_y=True))


#: The corpora :func:`load_dataset` knows by name -> how to load one from ``data_home``.
_LOADERS: dict[str, Callable[..., Corpus]] = {
    "movie_reviews": _whole(fetch_movie_reviews),
    "nps_chat": _whole(fetch_nps_chat),
    "sentence_polarity": _whole(fetch_sentence_polarity),
    "trec": _trec,
    "sick": _sick,
    "goemotions": _goemotions,
    "product_reviews": lambda data_home: Corpus(
        *fetch_product_reviews(data_home=data_home, return_X_y=True), regression=True
    ),
}
#: The corpora :func:`load_dataset` knows by name.
CORPORA = tuple(_LOADERS)


def load_dataset(
    name: str,
    data_home: str | os.PathLike | None = None,
    text_column: str = "text",
    label_column: str = "label",
) -> Corpus:
    """A named corpus, or a file of documents and labels.

    Parameters
    ----------
    name : str
        "sentence_polarity", "movie_reviews", "nps_chat", "trec", "sick",
        "goemotions", "product_reviews" (regression), or the path of a
        table (.csv, .tsv, .jsonl, .ndjson, .json, .parquet: see
        :func:`read_table`). TREC comes with its
        fixed train/test split (``test_mask``); nps_chat is the 15
        dialogue acts of :func:`~skattn.datasets.fetch_nps_chat`; SICK's
        samples are pairs of texts with their entailment judgment, its
        training and trial pairs for training, its test pairs for testing;
        GoEmotions is multi-label (an indicator ``y``), its train and dev
        comments for training, its test comments for testing.
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
    if name in _LOADERS:
        return _LOADERS[name](data_home)
    if Path(name).suffix.lower() in TABLE_SUFFIXES:
        return read_table(name, text_column, label_column)
    raise ValueError(
        f"dataset must be one of {list(CORPORA)} or a file with one of the extensions "
        f"{list(TABLE_SUFFIXES)}, got {name!r}."
    )
