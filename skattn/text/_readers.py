"""One reader for files of documents: CSV, TSV, JSON Lines, JSON arrays, plain lines, Parquet.

:func:`read_documents` yields a file's documents; :func:`read_records` its
rows, as dicts. Both read a record at a time (a JSON array is parsed whole,
then handed out an element at a time), choose the format by the file's
extension unless ``format=`` names it, read UTF-8 with or without a byte
order mark and fields of any length. Every problem with the file's content
is one :class:`DocumentFileError` naming the file, the line (where the
record starts, for a CSV record over several lines) and what was expected.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from skattn.utils._csv import fields_of_any_length

__all__ = ["FORMATS", "DocumentFileError", "file_format", "read_documents", "read_records"]

#: The formats the reader knows, by the name ``format=`` takes.
FORMATS = ("csv", "tsv", "jsonl", "json", "lines", "parquet")

#: File extension -> format.
EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".txt": "lines",
    ".parquet": "parquet",
}

#: Formats whose records have named columns (a JSON array may hold either).
TABLE_FORMATS = ("csv", "tsv", "jsonl", "json", "parquet")


class DocumentFileError(ValueError):
    """A file of documents that cannot be read as its format says: names the file, the line, why.

    Parameters
    ----------
    path : str or path-like
        The file.
    line : int or None
        Where the problem is (1-based; for a record over several lines, the
        line it starts on); None for the file as a whole.
    reason : str
        What was expected, and what was found.
    unit : str, default="line"
        What ``line`` counts ("row" for a Parquet file).

    Attributes
    ----------
    path : str
    line : int or None
    reason : str

    Examples
    --------
    >>> error = DocumentFileError("docs.jsonl", 3, "expected a JSON object, found a list")
    >>> str(error), error.line
    ('docs.jsonl: line 3: expected a JSON object, found a list', 3)
    >>> isinstance(error, ValueError)
    True
    """

    def __init__(self, path: str | os.PathLike, line: int | None, reason: str, unit: str = "line"):
        self.path, self.line, self.reason, self.unit = os.fspath(path), line, reason, unit
        where = f"{self.path}: " if line is None else f"{self.path}: {unit} {line}: "
        super().__init__(where + reason)

    def __reduce__(self):
        return type(self), (self.path, self.line, self.reason, self.unit)


def file_format(path: str | os.PathLike, format: str | None = None) -> str:
    """The format a file is read in: ``format`` if given, else the one of its extension.

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "jsonl", "json", "lines", "parquet"}, optional

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``format`` is not one of :data:`FORMATS`.
    DocumentFileError
        No ``format`` and an extension the reader does not know.

    Examples
    --------
    >>> file_format("reviews.ndjson"), file_format("reviews.dat", format="tsv")
    ('jsonl', 'tsv')
    """
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {list(FORMATS)}, got {format!r}.")
        return format
    suffix = Path(path).suffix.lower()
    if suffix not in EXTENSIONS:
        known = ", ".join(f"{ext} ({name})" for ext, name in EXTENSIONS.items())
        raise DocumentFileError(
            path,
            None,
            f"cannot tell its format from the extension {suffix or '(none)'!r}: the extensions "
            f"read are {known}; for another, pass format= one of {list(FORMATS)} "
            "(format='lines' reads one document a line).",
        )
    return EXTENSIONS[suffix]


def read_documents(
    path: str | os.PathLike, *, format: str | None = None, text_column: str = "text"
) -> Iterator[str]:
    """The documents of a file, one at a time.

    Parameters
    ----------
    path : str or path-like
        A UTF-8 file (a byte order mark is allowed): ``.csv`` and ``.tsv``
        (a header row, then one record a row; fields of any length, quoted
        fields may span lines), ``.jsonl`` / ``.ndjson`` (one JSON object
        a line; blank lines are skipped), ``.json`` (one array of objects
        or of strings), ``.txt`` (one document a line) or ``.parquet``
        (needs pyarrow).
    format : {"csv", "tsv", "jsonl", "json", "lines", "parquet"}, optional
        The format, for a file whose extension does not tell it.
    text_column : str, default="text"
        The column (key) holding the text; not used for a file of lines
        or a JSON array of strings, whose items are the documents.

    Returns
    -------
    iterator of str
        Blank documents included. The file is opened, and its format and
        existence checked, when this is called; its content is read as the
        iterator is.

    Raises
    ------
    FileNotFoundError
        ``path`` is not a file.
    DocumentFileError
        The content is not what the format says (a malformed CSV record or
        JSON line, a JSON Lines line that is not an object, bytes that are
        not UTF-8, a missing column, a text that is not a string), or the
        extension is unknown and ``format`` is not given. A ValueError.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "reviews.tsv")
    >>> _ = open(path, "w").write("id\\tbody\\n1\\tgood film\\n2\\t\\n3\\tbad, long film\\n")
    >>> list(read_documents(path, text_column="body"))
    ['good film', '', 'bad, long film']
    >>> list(read_documents(path, format="lines"))[1]
    '1\\tgood film'
    """
    fmt = _checked(path, format)
    return _documents(Path(path), fmt, text_column)


def _documents(path: Path, fmt: str, column: str) -> Iterator[str]:
    unit = _UNITS.get(fmt, "line")
    for line, record in _records(path, fmt, (column,), None):
        yield record if isinstance(record, str) else _text_of(record, column, path, line, unit)


def _text_of(record: dict, column: str, path: Path, line: int, unit: str) -> str:
    text = _value(record, column, path, line, unit)
    if not isinstance(text, str):
        raise DocumentFileError(
            path, line, f"{column!r} is {text!r}, expected a string (the text)", unit
        )
    return text


def read_documents_keeping(
    path: str | os.PathLike,
    keep: Sequence[str],
    *,
    format: str | None = None,
    text_column: str = "text",
) -> Iterator[tuple[str, dict]]:
    """Each document of a table file, with the values of its columns ``keep`` (an id, a date).

    Parameters
    ----------
    path : str or path-like
        A table file :func:`read_documents` reads (not a file of lines, nor
        a JSON array of strings: they have no other columns).
    keep : sequence of str
        The columns whose values travel with each document.
    format : {"csv", "tsv", "jsonl", "json", "parquet"}, optional
    text_column : str, default="text"

    Returns
    -------
    iterator of (str, dict)
        The text and ``{column: value}`` for each record, in file order;
        CSV values are strings, JSON and Parquet values keep their types.

    Raises
    ------
    FileNotFoundError, DocumentFileError
        As :func:`read_documents`, and a record without one of ``keep``.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "reviews.csv")
    >>> _ = open(path, "w").write("id,text\\n7,good film\\n9,bad film\\n")
    >>> list(read_documents_keeping(path, ["id"]))
    [('good film', {'id': '7'}), ('bad film', {'id': '9'})]
    """
    fmt = _checked(path, format)
    if fmt == "lines":
        raise DocumentFileError(path, None, f"holds one document a line: it has no {keep[0]!r}")
    records = _numbered_records(Path(path), fmt, (text_column, *keep), None)
    return (
        (_text_of(record, text_column, *where), {name: record[name] for name in keep})
        for where, record in records
    )


def read_records(
    path: str | os.PathLike,
    *,
    format: str | None = None,
    columns: Sequence[str] | None = None,
    fieldnames: Sequence[str] | None = None,
) -> Iterator[dict]:
    """The records of a table file (CSV, TSV, JSON Lines, a JSON array of objects, Parquet).

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "jsonl", "json", "parquet"}, optional
        As for :func:`read_documents`.
    columns : sequence of str, optional
        The columns to read: every record must have them, and holds only
        them. None: every column.
    fieldnames : sequence of str, optional
        A CSV or TSV without a header row: the names of its columns.

    Returns
    -------
    iterator of dict
        CSV values are strings; JSON and Parquet values keep their types.

    Raises
    ------
    FileNotFoundError, DocumentFileError
        As :func:`read_documents`; also a file of lines (it has no
        columns), a record of another number of fields than the header.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "d.json")
    >>> _ = open(path, "w").write('[{"text": "good", "label": 1}, {"text": "bad", "label": 0}]')
    >>> [record["label"] for record in read_records(path, columns=["label"])]
    [1, 0]
    """
    fmt = _checked(path, format)
    if fieldnames is not None and fmt not in ("csv", "tsv"):
        raise ValueError(f"fieldnames names the columns of a CSV or TSV, not of {fmt!r}.")
    if fmt == "lines":
        wanted = f"no column {columns[0]!r}" if columns else "no columns"
        raise DocumentFileError(path, None, f"holds one document a line: it has {wanted}")
    return _table_records(Path(path), fmt, columns, fieldnames)


def _table_records(path: Path, fmt: str, columns, fieldnames) -> Iterator[dict]:
    return (record for _, record in _numbered_records(path, fmt, columns, fieldnames))


def _numbered_records(
    path: Path, fmt: str, columns, fieldnames
) -> Iterator[tuple[tuple[Path, int, str], dict]]:
    """Each record (only ``columns``, each checked present), with where it is: path, line, unit."""
    unit = _UNITS.get(fmt, "line")
    for line, record in _records(path, fmt, columns, fieldnames):
        if not isinstance(record, dict):
            found = _kind(record)
            raise DocumentFileError(path, line, f"expected a JSON object, found {found}", unit)
        if columns is not None:
            record = {name: _value(record, name, path, line, unit) for name in columns}
        yield (path, line, unit), record


def _checked(path: str | os.PathLike, format: str | None) -> str:
    fmt = file_format(path, format)
    if not Path(path).is_file():
        raise FileNotFoundError(f"{os.fspath(path)}: no such file")
    return fmt


def _value(record: dict, column: str, path: Path, line: int, unit: str) -> Any:
    if column not in record:
        raise DocumentFileError(
            path, line, f"has no column {column!r}; its columns are {list(record)}", unit
        )
    return record[column]


def _kind(value: Any) -> str:
    """How an error names a JSON value that is not what was expected."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    kinds[type(None)] = "null"
    return kinds.get(type(value), "a number")


# -- the formats: each yields (line, record) -----------------------------------


def _records(path: Path, fmt: str, columns, fieldnames) -> Iterator[tuple[int, Any]]:
    if fmt in ("csv", "tsv"):
        return _delimited(path, "\t" if fmt == "tsv" else ",", columns, fieldnames)
    return _READERS[fmt](path, columns)


@contextmanager
def _text(path: Path) -> Iterator[TextIO]:
    """``path`` opened as UTF-8 (a leading byte order mark dropped); a bad byte names its line."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            yield handle
    except UnicodeDecodeError as error:
        raise _not_utf8(path) from error


def _not_utf8(path: Path) -> DocumentFileError:
    """The first line of ``path`` that is not UTF-8, as an error naming it and the byte."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as error:
                before = raw[: error.start].decode("utf-8")
                column = len(before.removeprefix("\ufeff") if number == 1 else before) + 1
                return DocumentFileError(
                    path,
                    number,
                    f"byte 0x{raw[error.start]:02x} (column {column}) is not UTF-8; expected a "
                    "UTF-8 file (save it as UTF-8, or decode it and pass the documents)",
                )
    return DocumentFileError(path, None, "is not UTF-8 (it ends in the middle of a character)")


def _delimited(path: Path, delimiter: str, columns, fieldnames) -> Iterator[tuple[int, dict]]:
    """The records of a CSV (or TSV) file, each with the line it starts on."""
    fmt = "TSV" if delimiter == "\t" else "CSV"
    with _text(path) as handle, fields_of_any_length():
        rows = _rows(csv.reader(handle, delimiter=delimiter, strict=True), path, fmt)
        header = list(fieldnames) if fieldnames is not None else _header(rows, path, fmt)
        if header is None:
            return  # an empty file: no records
        _has_columns(header, columns, path, fieldnames is None)
        width = len(header)
        for line, row in rows:
            if not row:  # a blank line: an empty document in a table of one column
                if width != 1:
                    continue
                row = [""]
            if len(row) != width:
                found = f"found {len(row)}: {_shortened(row)}"
                raise DocumentFileError(path, line, f"expected {width} fields {header}, {found}")
            yield line, dict(zip(header, row))


def _shortened(row: list[str], limit: int = 120) -> str:
    text = repr(row)
    return text if len(text) <= limit else text[: limit - 5] + " ...]"


def _rows(reader, path: Path, fmt: str) -> Iterator[tuple[int, list[str]]]:
    start = 1
    try:
        for row in reader:
            yield start, row
            start = reader.line_num + 1
    except csv.Error as error:
        raise DocumentFileError(
            path,
            start,
            f"{error} (in the {fmt} record that starts on this line, read up to line "
            f"{reader.line_num}); expected {fmt} fields, quoted with '\"' where they hold the "
            "delimiter, a quote or a line break",
        ) from None


def _header(rows, path: Path, fmt: str) -> list[str] | None:
    first = next(rows, None)
    if first is None:
        return None
    header = first[1]
    if not header:
        raise DocumentFileError(path, 1, f"expected a {fmt} header row, found a blank line")
    for name in header:
        if header.count(name) > 1:
            raise DocumentFileError(path, 1, f"the header names the column {name!r} twice")
    return header


def _has_columns(header: list, columns, path: Path, from_the_file: bool) -> None:
    for name in columns or ():
        if name not in header:
            where = "the header" if from_the_file else "fieldnames"
            raise DocumentFileError(
                path,
                1 if from_the_file else None,
                f"{where} has no column {name!r}; its columns are {header}",
            )


def _jsonl(path: Path, columns) -> Iterator[tuple[int, Any]]:
    with _text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                reason = f"expected a JSON object, found invalid JSON ({_where(error)})"
                raise DocumentFileError(path, number, reason) from None
            if not isinstance(record, dict):
                raise DocumentFileError(
                    path, number, f"expected a JSON object ({{...}}), found {_kind(record)}"
                )
            yield number, record


def _where(error: json.JSONDecodeError) -> str:
    return f"{error.msg}, column {error.colno}"


def _lines(path: Path, columns) -> Iterator[tuple[int, str]]:
    with _text(path) as handle:
        for number, line in enumerate(handle, start=1):
            yield number, line.rstrip("\r\n")


def _json_array(path: Path, columns) -> Iterator[tuple[int, Any]]:
    """The elements of a file holding one JSON array (of strings or objects)."""
    with _text(path) as handle:
        text = handle.read()
    decoder = json.JSONDecoder()
    index, line = _skip_space(text, 0), 1
    if not text.startswith("[", index):
        found = "an empty file" if index == len(text) else f"{text[index]!r}"
        where = text.count("\n", 0, index) + 1
        raise DocumentFileError(path, where, f"expected a JSON array ('['), found {found}")
    index, counted = _skip_space(text, index + 1), 0
    if text.startswith("]", index):
        return _check_end(text, index + 1, path)
    while True:
        line += text.count("\n", counted, index)
        counted = index
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            reason = f"expected a JSON value, found invalid JSON ({_where(error)})"
            raise DocumentFileError(path, error.lineno, reason) from None
        if not isinstance(value, (str, dict)):
            reason = f"expected a string or an object in the array, found {_kind(value)}"
            raise DocumentFileError(path, line, reason)
        yield line, value
        index = _skip_space(text, index)
        if text.startswith("]", index):
            return _check_end(text, index + 1, path)
        if not text.startswith(",", index):
            where = text.count("\n", 0, index) + 1
            raise DocumentFileError(path, where, "expected ',' or ']' after an element")
        index = _skip_space(text, index + 1)


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _check_end(text: str, index: int, path: Path) -> None:
    end = _skip_space(text, index)
    if end != len(text):
        where = text.count("\n", 0, end) + 1
        raise DocumentFileError(path, where, "expected the end of the file after the array")


def _parquet(path: Path, columns) -> Iterator[tuple[int, dict]]:
    """The rows of a Parquet file (only ``columns``, if given), a record batch at a time."""
    try:
        import pyarrow.parquet as parquet
    except ImportError as error:  # pragma: no cover - pyarrow is in the dev extra
        raise ImportError("reading .parquet needs pyarrow: pip install pyarrow") from error
    try:
        table = parquet.ParquetFile(path)
    except (OSError, ValueError) as error:  # pyarrow.ArrowInvalid is a ValueError
        raise DocumentFileError(path, None, f"expected a Parquet file ({error})") from error
    names = table.schema_arrow.names
    for name in columns or ():
        if name not in names:
            reason = f"has no column {name!r}; its columns are {names}"
            raise DocumentFileError(path, None, reason)
    number = 0
    for batch in table.iter_batches(columns=None if columns is None else list(columns)):
        for record in batch.to_pylist():
            number += 1
            yield number, record


_READERS = {"jsonl": _jsonl, "json": _json_array, "lines": _lines, "parquet": _parquet}
_UNITS = {"parquet": "row"}
