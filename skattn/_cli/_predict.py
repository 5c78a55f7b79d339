"""``predict``: labels and probabilities, streamed to a file or standard output."""

from __future__ import annotations

import csv
import datetime
import decimal
import itertools
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator

from skattn._cli._models import load_model
from skattn._cli._output import (
    STDIN,
    check_output,
    check_suffix,
    document_file,
    opened,
    stdin_documents,
)
from skattn._cli._parser import UsageError
from skattn.text._readers import read_documents_keeping
from skattn.text._streaming import iter_chunks, iter_documents
from skattn.text._unicode import first_lone_surrogate, json_text

#: The suffixes of an --output file of JSON Lines; CSV's.
JSONL_SUFFIXES = (".jsonl", ".ndjson")
CSV_SUFFIXES = (".csv",)


def predict(args) -> int:
    """Predict the documents of ``args``; CSV on standard output unless ``--output``."""
    source = document_file(args, stdin=True)
    if args.output is not None:
        check_output(args.output, args.force, model=args.model, input=source)
        check_suffix(args.output, CSV_SUFFIXES + JSONL_SUFFIXES, "predict")
    keep = args.keep or []
    _check_kept_columns(keep, args, source)
    # The first document is read before the model is loaded: an input that
    # fails at once (a missing column, a bad byte) costs no loading.
    inputs = _input_rows(args, source, keep)
    inputs = itertools.chain(list(itertools.islice(inputs, 1)), inputs)
    model = load_model(args, artefacts=True)
    columns = _prediction_columns(model)
    clashes = sorted(set(keep) & set(columns))
    if clashes:
        raise UsageError(f"--keep {clashes[0]}: the predictions have a column of that name")
    jsonl = args.output is not None and args.output.suffix.lower() in JSONL_SUFFIXES
    chunks = _row_chunks(model, inputs, args.chunk_size, not jsonl)
    # The first chunk is read and predicted before anything is written: an
    # input or a model that fails at once leaves standard output empty.
    first = next(chunks, [])
    count = 0
    # A file is written beside the output and moved over it at the end: a
    # stream that fails half-way leaves an existing output file as it was.
    with opened(args.output, newline="") as handle:
        write = _row_writer(handle, jsonl, [*keep, *columns])
        for rows in itertools.chain([first], chunks):
            for row in rows:
                write(row)
            count += len(rows)
    if args.output is not None:
        print(f"wrote predictions of {count} document(s) to {args.output}")
    return 0


def _check_kept_columns(keep: list[str], args, source) -> None:
    """Refuse a ``--keep`` the input cannot give: no table, the text's column, a repeat."""
    if not keep:
        return
    if "" in keep:
        raise UsageError("--keep needs a column's name")
    if args.text or source == STDIN:
        where = "--text" if args.text else "standard input"
        raise UsageError(f"--keep copies columns of an input table; {where} has none")
    if args.text_column in keep:
        raise UsageError(f"--keep {args.text_column}: the text is written as the column text")
    repeated = sorted({name for name in keep if keep.count(name) > 1})
    if repeated:
        raise UsageError(f"--keep {repeated[0]} is given twice")


def _input_rows(args, source, keep: list[str]) -> Iterable[tuple[str, dict]]:
    """Each document of the input, with the values of its ``--keep`` columns."""
    if keep:
        return read_documents_keeping(source, keep, text_column=args.text_column)
    if args.text:
        documents = args.text
    elif source == STDIN:
        documents = stdin_documents()
    else:
        documents = iter_documents(source, text_column=args.text_column)
    return ((document, {}) for document in documents)


def _row_chunks(
    model, inputs: Iterable[tuple[str, dict]], chunk_size: int, csv_rows: bool
) -> Iterator[list[dict]]:
    """The prediction rows of ``inputs`` (each a text and its kept columns), a chunk at a time.

    JSON escapes a lone surrogate (``\\udcff``); a UTF-8 CSV file cannot
    hold one, so with ``csv_rows`` such a row is refused, naming the
    document, before its chunk is written.
    """
    done = 0
    for chunk in iter_chunks(inputs, chunk_size):
        texts = [text for text, _ in chunk]
        rows = _prediction_rows(model, texts)
        rows = [
            {**_kept(kept, csv_rows, position), **row}
            for position, ((_, kept), row) in enumerate(zip(chunk, rows), done)
        ]
        if csv_rows:
            for position, row in enumerate(rows, done):
                _check_csv_row(row, position)
        done += len(rows)
        yield rows


def _kept(values: dict, csv_rows: bool, position: int) -> dict:
    """Kept column values for the row of document ``position``, as JSON or a CSV cell holds them.

    JSON's own values (text, numbers, booleans, lists, objects) stay as
    read; a missing number (NaN, infinite) is ``null``, a date or time its
    ISO text, a decimal its exact text. A CSV cell holds a string as it is,
    ``null`` as an empty cell, anything else as its JSON (``true``, ``[1, 2]``).
    """
    ready = {name: _json_ready(value, name, position) for name, value in values.items()}
    if not csv_rows:
        return ready
    return {
        name: value if isinstance(value, str) else "" if value is None else json_text(value)
        for name, value in ready.items()
    }


def _json_ready(value, name: str, position: int):
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value) if value.is_finite() else None
    try:  # JSON's own values, nested ones included, and nothing else
        json_text(value, allow_nan=False)
    except (TypeError, ValueError):
        shown = repr(value)[:60]
        raise ValueError(
            f"X[{position}]: its column {name!r} holds {shown} ({type(value).__name__}), which a "
            "prediction row cannot hold; --keep a column of text, numbers, dates or JSON values"
        ) from None
    return value


def _row_writer(handle, jsonl: bool, columns: list[str]) -> Callable[[dict], None]:
    """A function that writes one prediction row: a JSON line, or a CSV row.

    A CSV gets its header at once, so that an input without documents
    still gives a file that names its columns.
    """
    if jsonl:
        return lambda row: handle.write(json_text(row) + "\n")
    # Standard output gets plain newlines; a file, CSV's own \r\n.
    ending = "\n" if handle is sys.stdout else "\r\n"
    writer = csv.DictWriter(handle, fieldnames=columns, lineterminator=ending)
    writer.writeheader()
    return writer.writerow


def _prediction_columns(model) -> list[str]:
    """The columns of the prediction rows of ``model`` (see _prediction_rows)."""
    if not hasattr(model, "predict_proba"):
        n_outputs = getattr(model, "n_outputs_", None) or model.decision_rule_.n_scores
        values = ["prediction"] if n_outputs == 1 else [f"prediction_{i}" for i in range(n_outputs)]
        return ["text", *values]
    return ["text", "label", *(f"proba_{c}" for c in model.decision_rule_.column_labels)]


def _check_csv_row(row: dict, position: int) -> None:
    for column, value in row.items():
        at = first_lone_surrogate(value) if isinstance(value, str) else None
        if at is not None:
            raise ValueError(
                f"X[{position}]: its {column} holds a lone surrogate (U+{ord(value[at]):04X} at "
                f"character {at}), which a UTF-8 CSV file cannot hold; write the predictions to "
                "a .jsonl file, which escapes it."
            )


def _prediction_rows(model, documents: list[str]) -> list[dict]:
    """One row per document: its text, its label(s) or value(s), its class probabilities.

    The labels are the model's decision rule applied to its probabilities:
    what ``predict`` returns, without a second pass over the documents.
    Numbers are written whole (the shortest text that reads back as the same
    float): a file of predictions holds what ``predict`` and
    ``predict_proba`` return, not a rounding of it.
    """
    import numpy as np

    rule = model.decision_rule_
    if rule.kind == "regression":
        predictions = np.asarray(model.predict(documents)).reshape(len(documents), -1)
        names = _prediction_columns(model)[1:]
        return [
            {"text": text, **{n: float(v) for n, v in zip(names, row)}}
            for text, row in zip(documents, predictions)
        ]
    probabilities = model.predict_proba(documents)
    labels = rule.labels(rule.decide(probabilities))
    if rule.kind == "multilabel":  # each row: its labels, as a JSON list
        labels = [json.dumps(row, ensure_ascii=False) for row in labels]
    columns = _prediction_columns(model)[2:]
    return [
        {"text": text, "label": label, **{c: float(p) for c, p in zip(columns, proba)}}
        for text, label, proba in zip(documents, labels, probabilities)
    ]
