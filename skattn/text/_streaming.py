"""Documents as streams: read a file lazily, predict chunk by chunk, memory stays flat.

A million documents need not be a million strings in memory at once.
:func:`iter_documents` reads a CSV, TSV, JSON Lines, JSON, Parquet or
plain-text file one document at a time (through
:func:`~skattn.text.read_documents`); :func:`iter_chunks` groups any
iterable into lists of ``chunk_size``; :func:`iter_predictions` applies a fitted estimator's
``predict``, ``predict_proba``, ``decision_function`` or ``transform`` to
one chunk at a time and yields each result as soon as it is computed. The
attention estimators expose it as ``predict_iter``, ``predict_proba_iter``
and ``transform_iter``; ``python -m skattn predict`` streams a file
through it. Memory then grows with ``chunk_size``, not with the number of
documents.

Fitting streams too: an estimator's ``fit`` takes a :class:`DocumentFile`
(a CSV, JSON Lines or Parquet file read a chunk at a time, as often as
needed), a pyarrow array or any iterator of documents
(:func:`is_document_stream`), and encodes it chunk by chunk into flat
int32 arrays.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from itertools import islice
from pathlib import Path
from typing import Any

from skattn.text._readers import file_format, read_documents, read_records

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DocumentFile",
    "check_document_iterable",
    "in_stream",
    "is_document_stream",
    "iter_chunks",
    "iter_documents",
    "iter_predictions",
    "stream_documents",
]

#: Documents per chunk: large enough that batching and sorting by length
#: still pay, small enough that a chunk's text and outputs stay a few MB.
DEFAULT_CHUNK_SIZE = 4096

#: What :func:`iter_predictions` may call.
STREAMED_METHODS = ("predict", "predict_proba", "decision_function", "transform")


def iter_chunks(documents: Iterable[Any], chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[list]:
    """Lists of ``chunk_size`` consecutive items of ``documents`` (the last may be shorter).

    Parameters
    ----------
    documents : iterable
    chunk_size : int, default=DEFAULT_CHUNK_SIZE

    Yields
    ------
    list

    Examples
    --------
    >>> [len(chunk) for chunk in iter_chunks(range(10), 4)]
    [4, 4, 2]
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}.")
    iterator = iter(documents)
    while chunk := list(islice(iterator, chunk_size)):
        yield chunk


def check_document_iterable(X: Any, *, name: str = "X") -> Iterable[Any]:
    """``X`` if it is an ordered iterable of documents (a 1-column DataFrame: its column).

    Iterating a container that is not a sequence of documents reads
    something else: a string its characters, a dict its keys, a DataFrame
    its column names, a set its items in no fixed order. Those are refused.

    Parameters
    ----------
    X : iterable
        A list, a tuple, a 1-D array, a pandas Series or 1-column
        DataFrame, a generator or any other iterator, a DocumentFile.
    name : str, default="X"
        How errors name the input.

    Returns
    -------
    iterable

    Raises
    ------
    TypeError
        A str or bytes, a mapping, a set, a DataFrame of several columns,
        an array that is not 1-D, or something that cannot be iterated.

    Examples
    --------
    >>> check_document_iterable(["good film", "bad film"])
    ['good film', 'bad film']
    >>> check_document_iterable({"text": "good film"})
    Traceback (most recent call last):
    ...
    TypeError: X is a dict: iterating it reads its keys, not documents; ...
    """
    hint = "pass a list (or another iterable) of documents, e.g. [text] or df['text']"
    if isinstance(X, (str, bytes, bytearray)):
        raise TypeError(
            f"{name} is a single {type(X).__name__}: iterating it reads its characters; {hint}."
        )
    if isinstance(X, Mapping):
        raise TypeError(
            f"{name} is a {type(X).__name__}: iterating it reads its keys, not documents; {hint}."
        )
    if isinstance(X, AbstractSet):
        raise TypeError(
            f"{name} is a {type(X).__name__}: its order is not fixed, so predictions could not "
            f"be matched to documents; {hint}."
        )
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame
        if len(X.columns) != 1:
            raise TypeError(
                f"{name} is a DataFrame with {len(X.columns)} columns: iterating it reads its "
                f"column names; {hint}."
            )
        return X.iloc[:, 0]
    if getattr(X, "ndim", 1) != 1:
        raise TypeError(f"{name} has shape {getattr(X, 'shape', '?')}; {hint}.")
    if not isinstance(X, Iterable):
        raise TypeError(f"{name} is a {type(X).__name__}, which cannot be iterated; {hint}.")
    return X


def iter_predictions(
    estimator,
    documents: Iterable[str],
    method: str = "predict",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> Iterator[Any]:
    """``estimator.<method>`` of each chunk of ``documents``, in order, one chunk at a time.

    Parameters
    ----------
    estimator : fitted estimator
        Any estimator or pipeline that reads a list of str.
    documents : iterable of str
        A list, a generator, :func:`iter_documents` of a file, a pandas
        Series...; read lazily.
    method : {"predict", "predict_proba", "decision_function", "transform"}
    chunk_size : int, default=DEFAULT_CHUNK_SIZE

    Yields
    ------
    ndarray (or what ``method`` returns)
        The outputs of one chunk; stacked they equal ``method`` of the
        whole list (``predict`` of a model fitted on a sparse multi-label
        ``y`` yields CSR chunks: ``scipy.sparse.vstack`` them).

    Raises
    ------
    TypeError
        ``documents`` is not an ordered iterable of documents (a str, a
        dict, a set, a DataFrame of several columns: see
        :func:`check_document_iterable`).
    ValueError
        A document of a chunk is not text: the message names its position
        in the whole stream.

    Examples
    --------
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> model = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> [chunk.tolist() for chunk in iter_predictions(model, ["good", "bad", "good"], chunk_size=2)]
    [[1, 0], [1]]
    """
    if method not in STREAMED_METHODS:
        raise ValueError(f"method must be one of {STREAMED_METHODS}, got {method!r}.")
    # Checked now, not at the first chunk: a wrong container fails where it is passed.
    documents = check_document_iterable(documents)
    chunks = iter_chunks(documents, chunk_size)
    return _outputs_of(getattr(estimator, method), chunks)


def _outputs_of(compute, chunks: Iterator[list]) -> Iterator[Any]:
    start = 0
    for chunk in chunks:
        try:
            outputs = compute(chunk)
        except (TypeError, ValueError) as error:
            raise in_stream(error, start, len(chunk)) from error
        yield outputs
        start += len(chunk)


def in_stream(error: Exception, first: int, size: int) -> Exception:
    """``error`` about a chunk, its positions ``X[i]`` made positions in the whole stream.

    Parameters
    ----------
    error : Exception
        Raised for a chunk whose first document is document ``first`` of the stream.
    first : int
    size : int
        Documents in the chunk.

    Returns
    -------
    Exception
        Of the type of ``error``.

    Examples
    --------
    >>> in_stream(TypeError("X[1] is None/NaN, not str"), 8, 3)
    TypeError('X[9] is None/NaN, not str (in the chunk of documents 8 to 10)')
    """
    message = re.sub(r"X\[(\d+)\]", lambda m: f"X[{first + int(m[1])}]", str(error))
    message += f" (in the chunk of documents {first} to {first + size - 1})"
    try:
        return type(error)(message)
    except TypeError:  # an exception that takes other arguments (UnicodeDecodeError, ...)
        return ValueError(message)


def iter_documents(path: str | os.PathLike, text_column: str = "text") -> Iterator[str]:
    """The documents of a file, one at a time (:func:`~skattn.text.read_documents`).

    Parameters
    ----------
    path : str or path-like
        ``.csv`` or ``.tsv`` (with a header row), ``.jsonl`` / ``.ndjson``
        (one JSON object a line), ``.json`` (an array of objects or
        strings), ``.txt`` (one document a line) or ``.parquet`` (needs
        pyarrow; read a row group at a time).
    text_column : str, default="text"
        The column (key) holding the text of a table.

    Returns
    -------
    iterator of str

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    DocumentFileError
        The file is not what its extension says, a record has no
        ``text_column`` or its text is not a string, or the extension is
        unknown (:func:`~skattn.text.read_documents` takes ``format=``).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.jsonl")
    >>> _ = open(path, "w").write('{"text": "good film"}\\n{"text": "bad film"}\\n')
    >>> list(iter_documents(path))
    ['good film', 'bad film']
    """
    return read_documents(path, text_column=text_column)


class DocumentFile:
    """A file of documents that ``fit`` (or anything iterating it) reads lazily, chunk by chunk.

    Iterating it yields the documents (:func:`iter_documents`), anew each
    time; :meth:`column` reads another column (the labels) in the same row
    order. An estimator's ``fit`` then never holds the texts: it encodes
    them a chunk at a time into flat int32 arrays.

    Parameters
    ----------
    path : str or path-like
        A file :func:`~skattn.text.read_documents` reads: ``.csv``,
        ``.tsv``, ``.jsonl`` / ``.ndjson``, ``.json``, ``.parquet``, or
        ``.txt`` (one document a line).
    text_column : str, default="text"
        The column holding the text.
    format : {"csv", "tsv", "jsonl", "json", "lines", "parquet"}, optional
        The format, for a file whose extension does not tell it.

    Examples
    --------
    >>> import os, tempfile
    >>> from skattn import SelfAttentiveClassifier
    >>> path = os.path.join(tempfile.mkdtemp(), "train.jsonl")
    >>> with open(path, "w") as f:
    ...     for text, label in [("good film", "pos"), ("bad film", "neg")] * 4:
    ...         _ = f.write(f'{{"text": "{text}", "label": "{label}"}}\\n')
    >>> train = DocumentFile(path)
    >>> train.column("label")[:2]
    ['pos', 'neg']
    >>> clf = SelfAttentiveClassifier(hidden_size=2, max_epochs=1, random_state=0)
    >>> clf.fit(train, train.column("label")).predict(["good film"]).shape
    (1,)
    """

    def __init__(
        self, path: str | os.PathLike, text_column: str = "text", *, format: str | None = None
    ):
        self.path = Path(path)
        self.text_column = text_column
        self.format = file_format(self.path, format)  # an unknown extension fails here
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such file")

    def __iter__(self) -> Iterator[str]:
        return read_documents(self.path, format=self.format, text_column=self.text_column)

    def __repr__(self) -> str:
        return (
            f"DocumentFile({str(self.path)!r}, text_column={self.text_column!r}, "
            f"format={self.format!r})"
        )

    def column(self, name: str) -> list:
        """Every value of column ``name``, in row order (read in one pass).

        Parameters
        ----------
        name : str

        Returns
        -------
        list
            CSV values are strings; JSON Lines and Parquet keep their types
            (a JSON list stays a list: turn lists of label names into the
            indicator matrix ``fit`` takes with scikit-learn's
            ``MultiLabelBinarizer``).

        Raises
        ------
        DocumentFileError
            A row without ``name``, or a file of plain lines (no columns).
        """
        records = read_records(self.path, format=self.format, columns=(name,))
        return [record[name] for record in records]


def is_document_stream(X: Any) -> bool:
    """Whether ``fit`` reads ``X`` as a stream: a DocumentFile, an iterator or a pyarrow array.

    Lists, tuples, arrays and pandas Series are read whole, as before.

    Examples
    --------
    >>> is_document_stream(iter(["a"])), is_document_stream(["a"])
    (True, False)
    """
    return isinstance(X, (DocumentFile, Iterator)) or _is_arrow_array(X)


def stream_documents(X: Any, chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterable[Any]:
    """The items of a document stream one at a time (a pyarrow array a slice at a time).

    Examples
    --------
    >>> list(stream_documents(iter(["a", "b"])))
    ['a', 'b']
    """
    if not _is_arrow_array(X):
        return X
    chunks = getattr(X, "chunks", [X])  # a ChunkedArray, or one Array
    return (
        text
        for chunk in chunks
        for start in range(0, len(chunk), chunk_size)
        for text in chunk.slice(start, chunk_size).to_pylist()
    )


def _is_arrow_array(X: Any) -> bool:
    # A Table has to_pylist too (of row dicts): it is refused as a table is.
    return (
        type(X).__module__.startswith("pyarrow")
        and hasattr(X, "to_pylist")
        and not hasattr(X, "column_names")
    )
