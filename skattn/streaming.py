"""Documents as streams: read a file lazily, predict chunk by chunk, memory stays flat.

A million documents need not be a million strings in memory at once.
:func:`iter_documents` reads a CSV, JSON Lines, Parquet or plain-text file
one document at a time; :func:`iter_chunks` groups any iterable into lists
of ``chunk_size``; :func:`iter_predictions` applies a fitted estimator's
``predict``, ``predict_proba``, ``decision_function`` or ``transform`` to
one chunk at a time and yields each result as soon as it is computed. The
attention estimators expose it as ``predict_iter``, ``predict_proba_iter``
and ``transform_iter``; ``python -m skattn predict`` streams a file
through it. Memory then grows with ``chunk_size``, not with the number of
documents.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_CHUNK_SIZE", "in_stream", "iter_chunks", "iter_documents", "iter_predictions"]

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
    ValueError
        A document of a chunk is not text: the message names its position
        in the whole stream.

    Examples
    --------
    >>> from skattn.baselines import tfidf_logreg
    >>> model = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> [chunk.tolist() for chunk in iter_predictions(model, ["good", "bad", "good"], chunk_size=2)]
    [[1, 0], [1]]
    """
    if method not in STREAMED_METHODS:
        raise ValueError(f"method must be one of {STREAMED_METHODS}, got {method!r}.")
    compute = getattr(estimator, method)
    start = 0
    for chunk in iter_chunks(documents, chunk_size):
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
    """The documents of a file, one at a time: a table's text column, else one a line.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (with a header row), ``.jsonl`` / ``.ndjson`` (one JSON
        object a line), ``.parquet`` (needs pyarrow; read a row group at a
        time), or UTF-8 text with one document a line.
    text_column : str, default="text"
        The column (key) holding the text of a table.

    Yields
    ------
    str

    Raises
    ------
    FileNotFoundError
        If ``path`` is not a file.
    ValueError
        A row without ``text_column``, or whose text is not a string.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.jsonl")
    >>> _ = open(path, "w").write('{"text": "good film"}\\n{"text": "bad film"}\\n')
    >>> list(iter_documents(path))
    ['good film', 'bad film']
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _parquet_documents(path, text_column)
        return
    with open(path, encoding="utf-8", newline="") as handle:
        if suffix == ".csv":
            rows: Iterable[dict] = csv.DictReader(handle)
        elif suffix in (".jsonl", ".ndjson"):
            rows = (json.loads(line) for line in handle if line.strip())
        else:
            for line in handle:
                yield line.rstrip("\r\n")
            return
        for number, row in enumerate(rows, start=1):
            yield _text_of(row, text_column, path, number)


def _text_of(row: dict, column: str, path: Path, number: int) -> str:
    if column not in row:
        raise ValueError(
            f"{path}: row {number} has no column {column!r}; its columns are {sorted(row)}."
        )
    text = row[column]
    if not isinstance(text, str):
        raise ValueError(f"{path}: row {number}: {column!r} is {text!r}, not text.")
    return text


def _parquet_documents(path: Path, column: str) -> Iterator[str]:
    try:
        import pyarrow.parquet as parquet
    except ImportError as error:  # pragma: no cover - pyarrow is in the dev extra
        raise ImportError("reading .parquet needs pyarrow: pip install pyarrow") from error
    table = parquet.ParquetFile(path)
    if column not in table.schema_arrow.names:
        raise ValueError(f"{path} has no column {column!r} ({table.schema_arrow.names}).")
    number = 0
    for batch in table.iter_batches(columns=[column]):
        for text in batch.column(0).to_pylist():
            number += 1
            if not isinstance(text, str):
                raise ValueError(f"{path}: row {number}: {column!r} is {text!r}, not text.")
            yield text
