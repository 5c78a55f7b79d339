"""Command line: ``python -m skattn {compare,predict,explain,export,serve} ...``.

Errors are printed as one line (``skattn: error: ...``) with exit status 1;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from skattn import __version__
from skattn.baselines._fasttext import fasttext_available
from skattn.compare import (
    FAITHFULNESS_METHODS,
    available_models,
    compare,
    compare_multilabel,
    drop_rare_classes,
    faithfulness_section,
    format_json,
    format_multilabel_table,
    format_table,
    load_dataset,
    min_class_size,
    plot_results,
    read_documents,
    save_attention_page,
)
from skattn.compare._io import PAIR_CORPORA
from skattn.decisions import DecisionRule
from skattn.estimators._pairs import SelfAttentivePairModel
from skattn.explain._attribution import DEFAULT_METHOD, METHODS
from skattn.explain._faithfulness import faithfulness_report
from skattn.persistence import load
from skattn.text._encoder import TOKENIZERS
from skattn.text._streaming import DEFAULT_CHUNK_SIZE, iter_chunks, iter_documents
from skattn.text._unicode import first_lone_surrogate, json_text
from skattn.utils._archives import atomic_write, refuse_same_file

#: What the main job compares when --models is not given.
DEFAULT_MODELS = [
    "self_attentive",
    "han",
    "bow",
    "bow_tfidf",
    "ngrams",
    "ngrams_tfidf",
    "bag_of_means",
    "tfidf_logreg",
    # fastText's supervised classifier, when the fasttext extra is installed.
    *(["fasttext"] if fasttext_available() else []),
]
#: What a corpus of text pairs (SICK) is compared with when --models is not given.
DEFAULT_PAIR_MODELS = ["self_attentive_pair", "tfidf_pair_logreg"]
#: What a multi-label corpus (GoEmotions) is compared with when --models is not given.
DEFAULT_MULTILABEL_MODELS = [
    "self_attentive",
    "self_attentive_8hops",
    "han",
    "ovr_bow_tfidf",
    "ovr_tfidf_logreg",
]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m skattn")
    parser.add_argument("--version", action="version", version=f"skattn {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of an error, not one line"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    cmp = commands.add_parser(
        "compare", help="attention models vs linear baselines on a corpus, same folds"
    )
    cmp.add_argument(
        "--dataset",
        default="sentence_polarity",
        help="sentence_polarity, movie_reviews, nps_chat, trec, sick (pairs), goemotions "
        "(multi-label), "
        "or a .csv/.jsonl/.ndjson file",
    )
    cmp.add_argument("--text-column", default="text", help="text column of a file")
    cmp.add_argument("--label-column", default="label", help="label column of a file")
    cmp.add_argument(
        "--models",
        default=None,
        help="comma-separated model names (default: " + ",".join(DEFAULT_MODELS) + "); "
        "--list prints every name",
    )
    cmp.add_argument(
        "--folds",
        "--cv",
        dest="cv",
        type=int,
        default=None,
        help="K for stratified K-fold (K >= 2); default or 1: one split, the corpus' fixed "
        "split (trec), else one stratified hold-out split of --test-size. Classes with "
        "fewer than K documents (2 for a hold-out split) are dropped, and said so",
    )
    cmp.add_argument("--test-size", type=float, default=0.2)
    cmp.add_argument("--quick", action="store_true", help="small models, few epochs")
    cmp.add_argument(
        "--seed", type=int, default=0, help="seed of the splits, the sample and every model"
    )
    cmp.add_argument(
        "--sentence-split",
        default=None,
        help='sentence splitting of the HAN models: "punctuation" (their default), "lines" '
        "(one sentence a line), or module:function (imported)",
    )
    cmp.add_argument(
        "--max-docs", type=int, default=None, help="use a stratified sample of this many documents"
    )
    cmp.add_argument(
        "--output", type=Path, default=None, help="folder for results.md and results.json"
    )
    cmp.add_argument(
        "--vectors", type=Path, default=None, help="word2vec/GloVe file for the *_vectors models"
    )
    cmp.add_argument("--vectors-dim", type=int, default=None, help="size of the --vectors vectors")
    cmp.add_argument(
        "--faithfulness",
        type=_non_negative,
        default=100,
        metavar="N",
        help="measure each attention model's explanations on N test documents of the last "
        "fold (ERASER erasure test; 0: skip)",
    )
    cmp.add_argument("--list", action="store_true", help="list model names and exit")

    for name, help_text, default in [
        (
            "predict",
            "labels and class probabilities of a saved model, as CSV or JSON Lines, streamed",
            "predictions.csv",
        ),
        (
            "explain",
            "explanations of a saved model's predictions as an HTML page",
            "explanations.html",
        ),
    ]:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("model", type=Path, help="a file written by skattn.save")
        if name == "predict":
            command.add_argument(
                "input",
                type=Path,
                nargs="?",
                help="the documents' file (as --file), read and predicted a chunk at a time",
            )
        source = command.add_mutually_exclusive_group(required=name != "predict")
        source.add_argument("--text", action="append", help="a document (repeatable)")
        source.add_argument(
            "--file",
            type=Path,
            help="UTF-8 .txt file (one document per line), or .csv/.jsonl/.ndjson/.parquet "
            "with --text-column",
        )
        command.add_argument(
            "--text-column", default="text", help="text column of a .csv/.jsonl/.ndjson/.parquet"
        )
        command.add_argument(
            "--tokenizer",
            default=None,
            help="for a model saved with a custom tokenizer: module:function (imported), "
            f"or a built-in name {sorted(TOKENIZERS)}",
        )
        command.add_argument(
            "--output",
            type=Path,
            default=Path(default),
            help="predict: .csv, or .jsonl for one JSON object per document",
        )
        if name == "predict":
            command.add_argument(
                "--chunk-size",
                type=int,
                default=DEFAULT_CHUNK_SIZE,
                help="documents predicted at a time (memory grows with it, not with the file)",
            )
        if name == "explain":
            command.add_argument(
                "--method",
                default=None,
                choices=METHODS,
                help=f"attribution method (default: {DEFAULT_METHOD})",
            )
            command.add_argument(
                "--faithfulness",
                action="store_true",
                help="measure the explanations' faithfulness on these documents and state it",
            )
    export = commands.add_parser(
        "export", help="write a saved model as an ONNX artefact for skattn.serving"
    )
    export.add_argument("model", type=Path, help="a file written by skattn.save")
    export.add_argument("output", type=Path, help="the artefact to write (e.g. model.onnx.zip)")
    export.add_argument(
        "--tokenizer",
        default=None,
        help=f"for a model saved with a built-in tokenizer name {sorted(TOKENIZERS)}",
    )
    _serve_parser(commands)
    return parser


def _serve_parser(commands) -> None:
    from skattn.serving._server import add_arguments

    serve = commands.add_parser(
        "serve", help="serve an artefact over HTTP (uvicorn; JSON routes and the v2 protocol)"
    )
    add_arguments(serve)


def _serve(args) -> int:
    """``serve``: the artefact's service, in a process of its own (the ``server`` extra)."""
    from skattn.serving._server import launch

    return launch(args)


def _export(args) -> int:
    from skattn.serving import export

    if not args.model.is_file():
        raise FileNotFoundError(f"model file {args.model}: no such file")
    refuse_same_file(args.output, model=args.model)
    params = {"tokenizer": args.tokenizer} if args.tokenizer else {}
    path = export(load(args.model, **params), args.output)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MiB)")
    return 0


def _documents(args) -> list[str]:
    """The documents a predict/explain command reads: --text, or a file (see read_documents)."""
    if args.text:
        return args.text
    if not args.file.is_file():
        raise FileNotFoundError(f"--file {args.file}: no such file")
    return read_documents(args.file, text_column=args.text_column)


def _import_function(option: str, value: str) -> Callable:
    """The function named ``module:function`` by a command-line option."""
    module, _, function = value.partition(":")
    if not function:
        raise ValueError(f"{option} {value!r}: expected module:function")
    return getattr(importlib.import_module(module), function)


def _load_model(args):
    if not args.model.is_file():
        raise FileNotFoundError(f"model file {args.model}: no such file")
    params = {}
    if args.tokenizer:
        if args.tokenizer in TOKENIZERS:
            params["tokenizer"] = args.tokenizer
        else:
            params["tokenizer"] = _import_function("--tokenizer", args.tokenizer)
    model = load(args.model, **params)
    if isinstance(model, SelfAttentivePairModel):
        raise ValueError(
            f"{args.model} holds a {type(model).__name__}, which reads pairs of texts; the "
            "command line reads single documents. Use the model from Python."
        )
    return getattr(model, "classifier_", model)


def _predict(args) -> int:
    model = _load_model(args)
    if args.input is not None and (args.text or args.file):
        raise ValueError("give the documents once: an input file, --file or --text")
    source = args.input or args.file
    if source is None and not args.text:
        raise ValueError("no documents: give an input file, --file or --text")
    if source is not None and not source.is_file():
        raise FileNotFoundError(f"{source}: no such file")
    refuse_same_file(args.output, model=args.model, input=source)
    documents = args.text or iter_documents(source, text_column=args.text_column)
    jsonl = args.output.suffix.lower() in (".jsonl", ".ndjson")
    rule = model.decision_rule_
    count = 0
    # Written beside the output and moved over it at the end: a stream that
    # fails half-way leaves an existing output file as it was.
    with atomic_write(args.output, newline="") as handle:
        write = _row_writer(handle, jsonl, _prediction_columns(model))
        for chunk in iter_chunks(documents, args.chunk_size):
            for row in _prediction_rows(model, rule, chunk):
                write(row)
            count += len(chunk)
    print(f"wrote predictions of {count} document(s) to {args.output}")
    return 0


def _row_writer(handle, jsonl: bool, columns: list[str]) -> Callable[[dict], None]:
    """A function that writes one prediction row: a JSON line, or a CSV row.

    A CSV gets its header at once, so that an input without documents
    still gives a file that names its columns. JSON escapes a lone
    surrogate (``\\udcff``); a UTF-8 CSV file cannot hold one, so such a
    row is refused, naming the document.
    """
    if jsonl:
        return lambda row: handle.write(json_text(row) + "\n")
    writer = csv.DictWriter(handle, fieldnames=columns)
    writer.writeheader()
    written = 0

    def write_csv(row: dict) -> None:
        nonlocal written
        _check_csv_row(row, written)
        writer.writerow(row)
        written += 1

    return write_csv


def _prediction_columns(model) -> list[str]:
    """The columns of the prediction rows of ``model`` (see _prediction_rows)."""
    if not hasattr(model, "predict_proba"):
        n_outputs = model.n_outputs_
        values = ["prediction"] if n_outputs == 1 else [f"prediction_{i}" for i in range(n_outputs)]
        return ["text", *values]
    return ["text", "label", *(f"proba_{c}" for c in model.classes_)]


def _check_csv_row(row: dict, position: int) -> None:
    for column, value in row.items():
        at = first_lone_surrogate(value) if isinstance(value, str) else None
        if at is not None:
            raise ValueError(
                f"X[{position}]: its {column} holds a lone surrogate (U+{ord(value[at]):04X} at "
                f"character {at}), which a UTF-8 CSV file cannot hold; write the predictions to "
                "a .jsonl file, which escapes it."
            )


def _prediction_rows(model, rule: DecisionRule, documents: list[str]) -> list[dict]:
    """One row per document: its text, its label(s) or value(s), its class probabilities.

    The labels are the model's decision rule applied to its probabilities:
    what ``predict`` returns, without a second pass over the documents.
    """
    if rule.kind == "regression":
        predictions = np.asarray(model.predict(documents)).reshape(len(documents), -1)
        names = _prediction_columns(model)[1:]
        return [
            {"text": text, **{n: float(f"{v:.6g}") for n, v in zip(names, row)}}
            for text, row in zip(documents, predictions)
        ]
    probabilities = model.predict_proba(documents)
    labels = rule.labels(rule.decide(probabilities))
    if rule.kind == "multilabel":  # each row: its labels, as a JSON list
        labels = [json.dumps(row) for row in labels]
    columns = _prediction_columns(model)[2:]
    return [
        {"text": text, "label": label, **{c: round(float(p), 6) for c, p in zip(columns, proba)}}
        for text, label, proba in zip(documents, labels, probabilities)
    ]


def _explain(args) -> int:
    refuse_same_file(args.output, model=args.model, file=args.file)
    model, documents = _load_model(args), _documents(args)
    explanations = model.explain(documents, method=args.method, faithfulness=args.faithfulness)
    path = explanations.save_html(args.output)
    print(f"wrote explanations of {len(documents)} document(s) to {path}")
    return 0


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m skattn`` and of the ``skattn`` script.

    Returns
    -------
    int
        The exit status: 0, 1 after an error (printed as one line), 2 for
        wrong arguments.
    """
    args = _parser().parse_args(argv)
    commands = {
        "compare": _compare,
        "predict": _predict,
        "explain": _explain,
        "export": _export,
        "serve": _serve,
    }
    try:
        return commands[args.command](args)
    except (Exception, KeyboardInterrupt) as error:
        if args.debug:
            raise
        message = str(error) or type(error).__name__
        print(f"skattn: error: {message} (--debug shows the traceback)", file=sys.stderr)
        return 1


def _compare(args) -> int:
    sentence_split = args.sentence_split
    if sentence_split is not None and ":" in sentence_split:
        sentence_split = _import_function("--sentence-split", sentence_split)
    models = available_models(
        quick=args.quick,
        vectors=args.vectors,
        vectors_dim=args.vectors_dim,
        random_state=args.seed,
        sentence_split=sentence_split,
    )
    if args.list:
        print("\n".join(models))
        return 0
    corpus = load_dataset(
        args.dataset, text_column=args.text_column, label_column=args.label_column
    )
    if args.dataset in PAIR_CORPORA:
        default = DEFAULT_PAIR_MODELS
    elif corpus.multilabel:
        default = DEFAULT_MULTILABEL_MODELS
    else:
        default = DEFAULT_MODELS
    names = args.models.split(",") if args.models else default
    unknown = sorted(set(names) - set(models))
    if unknown:
        print(f"unknown model(s) {unknown}; known: {sorted(models)}", file=sys.stderr)
        if "fasttext" in unknown:
            print(
                "fasttext needs the fasttext extra: pip install 'skattn[fasttext]'",
                file=sys.stderr,
            )
        return 2
    if corpus.multilabel:
        return _compare_multilabel(args, corpus, {name: models[name] for name in names})
    X, y, test_mask = corpus.X, corpus.y, corpus.test_mask
    # Stratified splits (and the stratified --max-docs sample) need every class
    # on both sides of every split: smaller classes are dropped, visibly.
    dropped = {}

    def drop_rare(needed: int):
        nonlocal X, y, test_mask
        X, y, keep, too_small = drop_rare_classes(X, y, needed)
        test_mask = None if test_mask is None else test_mask[keep]
        if too_small:
            print(
                f"{args.dataset}: dropped class(es) with fewer than {needed} documents "
                f"(class: documents): {too_small}",
                flush=True,
            )
        dropped.update(too_small)

    if args.max_docs and args.max_docs < len(X):
        drop_rare(2)
        keep, _ = train_test_split(
            np.arange(len(X)), train_size=args.max_docs, stratify=y, random_state=args.seed
        )
        keep = np.sort(keep)
        X, y = [X[i] for i in keep], y[keep]
        test_mask = None if test_mask is None else test_mask[keep]
    if min_class_size(args.cv, test_mask) > 1:
        drop_rare(min_class_size(args.cv, test_mask))
    split = _split_name(args, test_mask)
    print(f"{args.dataset}: {len(X)} documents, {split}, seed {args.seed}", flush=True)
    reports: dict = {}
    results = compare(
        X,
        y,
        {name: models[name] for name in names},
        cv=args.cv,
        test_size=args.test_size,
        test_mask=test_mask,
        random_state=args.seed,
        progress=lambda line: print(line, flush=True),
        on_last_fold=_attention_renderer(args, reports, erasable=args.dataset not in PAIR_CORPORA),
    )
    return _report(
        args,
        results,
        format_table(results),
        reports,
        "accuracy",
        split=split,
        documents=len(X),
        dropped_classes=dropped,
    )


def _split_name(args, test_mask) -> str:
    """How a comparison splits its corpus, in words."""
    if args.cv and args.cv > 1:
        return f"{args.cv}-fold CV"
    if test_mask is not None:
        return "fixed train/test split"
    return f"{1 - args.test_size:.0%}/{args.test_size:.0%} split"


def _attention_renderer(args, reports: dict, erasable: bool, target_names=None):
    """``on_last_fold``: each attention model's faithfulness (into ``reports``) and its page."""
    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)

    def render(name, model, X_test, y_test):
        # The erasure test reads single texts; pairs are explained by attention only.
        if args.faithfulness and hasattr(model, "explain") and erasable:
            reports[name] = faithfulness_report(
                model, list(X_test[: args.faithfulness]), FAITHFULNESS_METHODS, reference=False
            )
        if args.output:
            page = save_attention_page(
                model,
                X_test,
                y_test,
                args.output / f"attention_{name}.html",
                target_names=target_names,
            )
            if page is not None:
                print(f"{name}: attention of 8 test documents in {page}", flush=True)

    return render


def _report(args, results, table: str, reports: dict, measure: str, **metadata) -> int:
    """Print the table (and faithfulness); write results.md, .json and .png to --output."""
    faithfulness = faithfulness_section(reports)
    if faithfulness:
        table += "\n\n" + faithfulness
    print(table)
    if not args.output:
        return 0
    with atomic_write(args.output / "results.md") as handle:
        handle.write(table + "\n")
    document = format_json(
        results,
        dataset=args.dataset,
        seed=args.seed,
        **metadata,
        faithfulness={name: report.rows for name, report in reports.items()},
    )
    with atomic_write(args.output / "results.json") as handle:
        handle.write(document)
    title = f"{args.dataset}, {metadata['split']}"
    try:
        plot_results(results, args.output / "results.png", title, measure=measure)
    except ImportError:
        print("matplotlib is not installed: no chart (pip install 'skattn[plot]')")
    print(f"results in {args.output}/")
    return 0


def _compare_multilabel(args, corpus, models: dict) -> int:
    """The comparison of a multi-label corpus: macro- and micro-F1 (see compare_multilabel)."""
    X, Y, test_mask = corpus.X, corpus.y, corpus.test_mask
    if args.max_docs and args.max_docs < len(X):
        # A plain random sample: multi-label rows have no single class to stratify on.
        keep = np.sort(
            np.random.default_rng(args.seed).choice(len(X), args.max_docs, replace=False)
        )
        X, Y = [X[i] for i in keep], Y[keep]
        test_mask = None if test_mask is None else test_mask[keep]
    split = _split_name(args, test_mask)
    print(
        f"{args.dataset}: {len(X)} documents, {Y.shape[1]} labels (multi-label), {split}, "
        f"seed {args.seed}",
        flush=True,
    )
    reports: dict = {}
    results = compare_multilabel(
        X,
        Y,
        models,
        cv=args.cv,
        test_size=args.test_size,
        test_mask=test_mask,
        random_state=args.seed,
        progress=lambda line: print(line, flush=True),
        on_last_fold=_attention_renderer(args, reports, True, corpus.target_names),
    )
    return _report(
        args,
        results,
        format_multilabel_table(results),
        reports,
        "macro_f1",
        split=split,
        documents=len(X),
        labels=corpus.target_names,
    )


if __name__ == "__main__":
    sys.exit(main())
