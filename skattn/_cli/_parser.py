"""The argument parser of ``python -m skattn``: light imports only.

``--help`` and ``--version`` must answer without torch or scikit-learn, so
the names below are spelled here; tests check they agree with the modules
that define them (explanation methods, tokenizers, chunk size).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from skattn._version import __version__
from skattn.text._streaming import DEFAULT_CHUNK_SIZE

#: skattn.explain._attribution.METHODS and DEFAULT_METHOD.
METHODS = ("attention", "gradient", "integrated_gradients", "occlusion", "sentence_occlusion")
DEFAULT_METHOD = "integrated_gradients"
#: The built-in tokenizer names (skattn.text._encoder.TOKENIZERS).
TOKENIZER_NAMES = ("characters", "whitespace")
#: What ``--quick`` shrinks (the help text and the results files say it).
QUICK_ROWS = 2000
QUICK_EPOCHS = 1
QUICK_SUMMARY = (
    f"a fast look, not for conclusions: at most {QUICK_ROWS} documents (a sample, "
    f"stratified by class in a classification), {QUICK_EPOCHS} epoch and 50-dimensional "
    "embeddings for every attention "
    "model, and every baseline's grid shrunk: n-grams up to 2 (not 5) with at most "
    "50,000 features, bag-of-means with 500 means (not 5,000) of 50-dimensional word2vec "
    "vectors, mean_word2vec with 50 dimensions"
)
TASKS = ("auto", "classification", "regression", "multilabel")
_FASTTEXT = ["fasttext"] if importlib.util.find_spec("fasttext") is not None else []
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
    *_FASTTEXT,
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
#: What a regression is compared with when --models is not given.
DEFAULT_REGRESSION_MODELS = ["self_attentive", "han", "tfidf_ridge", "bow_tfidf_ridge"]


class UsageError(ValueError):
    """A wrong argument that only the command can tell (an unknown model name).

    :func:`skattn._cli.main` prints it as one ``skattn: error:`` line and
    returns 2, the status of the arguments argparse refuses.
    """


def non_negative(text: str) -> int:
    """An argparse type: an int that is 0 or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive(text: str) -> int:
    """An argparse type: an int that is 1 or more."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def separator(text: str) -> str:
    """An argparse type: text that is not empty.

    Examples
    --------
    >>> separator(";")
    ';'
    >>> separator("")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must not be empty (labels are split at it)
    """
    if not text:
        raise argparse.ArgumentTypeError("must not be empty (labels are split at it)")
    return text


def fraction(text: str) -> float:
    """An argparse type: a number between 0 and 1, both excluded.

    Examples
    --------
    >>> fraction("0.25")
    0.25
    >>> fraction("1.5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a fraction between 0 and 1 (both excluded), got 1.5
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a fraction between 0 and 1 (both excluded), got {text!r}"
        ) from None
    if not 0 < value < 1:  # NaN too
        raise argparse.ArgumentTypeError(
            f"must be a fraction between 0 and 1 (both excluded), got {text}"
        )
    return value


def parser() -> argparse.ArgumentParser:
    """The parser of every subcommand."""
    root = argparse.ArgumentParser(
        prog="python -m skattn",
        description="Attention text classifiers: compare, fit, predict, explain, export, serve.",
    )
    root.add_argument("--version", action="version", version=f"skattn {__version__}")
    root.add_argument(
        "--debug", action="store_true", help="show the traceback of an error, not one line"
    )
    commands = root.add_subparsers(dest="command", required=True)
    _compare_parser(commands)
    _fit_parser(commands)
    _predict_parser(commands)
    _explain_parser(commands)
    _export_parser(commands)
    _serve_parser(commands)
    return root


def _compare_parser(commands) -> None:
    cmp = commands.add_parser(
        "compare", help="attention models vs linear baselines on a corpus, same folds"
    )
    cmp.add_argument(
        "--dataset",
        default="sentence_polarity",
        help="sentence_polarity (default), movie_reviews, nps_chat, trec, sick (pairs), "
        "goemotions (multi-label), product_reviews (regression), or a table file "
        "(.csv, .tsv, .jsonl, .ndjson, .json, .parquet)",
    )
    cmp.add_argument("--text-column", default="text", help="text column of a file (default: text)")
    cmp.add_argument(
        "--label-column", default="label", help="label column of a file (default: label)"
    )
    _task_arguments(
        cmp,
        "auto (default) decides from the labels with scikit-learn's type_of_target and "
        "prints why: numbers with a fraction -> regression, lists -> multilabel, else "
        "classification; regression scores R², MAE and Pearson's r; multilabel splits each "
        "label cell at --label-separator",
    )
    _run_arguments(cmp)
    _report_arguments(cmp)


def _run_arguments(cmp) -> None:
    """compare's models, splits and sample."""
    cmp.add_argument(
        "--models",
        default=None,
        help="comma-separated model names (default: " + ",".join(DEFAULT_MODELS) + "; "
        "regression: " + ",".join(DEFAULT_REGRESSION_MODELS) + "); --list prints every name",
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
    cmp.add_argument(
        "--test-size",
        type=fraction,
        default=0.2,
        metavar="FRACTION",
        help="the share of the documents held out for testing in a hold-out split, "
        "between 0 and 1 (default: %(default)s)",
    )
    cmp.add_argument("--quick", action="store_true", help=QUICK_SUMMARY)
    cmp.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the splits, the sample and every model (default: %(default)s)",
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


def _report_arguments(cmp) -> None:
    """compare's outputs: the results folder, vectors of the vector baselines, what is shown."""
    cmp.add_argument(
        "--output",
        type=Path,
        default=None,
        help="folder for results.md, results.json, results.png and the attention pages; "
        "created if missing, inside a folder that exists",
    )
    cmp.add_argument(
        "--force", action="store_true", help="overwrite the results files of an earlier run"
    )
    cmp.add_argument(
        "--vectors", type=Path, default=None, help="word2vec/GloVe file for the *_vectors models"
    )
    cmp.add_argument("--vectors-dim", type=int, default=None, help="size of the --vectors vectors")
    cmp.add_argument(
        "--faithfulness",
        type=non_negative,
        default=100,
        metavar="N",
        help="measure each attention model's explanations on N test documents of the last "
        "fold (ERASER erasure test; 0: skip; default: %(default)s)",
    )
    cmp.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="a progress bar per model (its epochs and time left): auto (default) shows it "
        "on a terminal only",
    )
    cmp.add_argument("--list", action="store_true", help="list model names and exit")


def _fit_parser(commands) -> None:
    command = commands.add_parser(
        "fit",
        help="train an attention model on a corpus or a file and save it (for predict, "
        "explain, export)",
    )
    command.add_argument("output", type=Path, help="the model file to write (e.g. model.skattn)")
    command.add_argument(
        "--dataset",
        default="sentence_polarity",
        help="a corpus name (as compare's) or a .csv/.tsv/.jsonl/.ndjson/.json/.parquet file; "
        "a corpus with a fixed test part is fitted on its training part "
        "(default: %(default)s)",
    )
    command.add_argument(
        "--text-column", default="text", help="text column of a file (default: %(default)s)"
    )
    command.add_argument(
        "--label-column", default="label", help="label column of a file (default: %(default)s)"
    )
    _task_arguments(
        command,
        "auto (default) decides from the labels as compare does and prints why; "
        "multilabel (lists of labels, or cells split at --label-separator) answers each "
        "document's label names",
    )
    command.add_argument(
        "--model",
        choices=("self_attentive", "han"),
        default="self_attentive",
        help="SelfAttentive* (default) or HierarchicalAttention* (classifier or regressor, "
        "by the task)",
    )
    command.add_argument(
        "--set",
        action="append",
        metavar="NAME=VALUE",
        help="an estimator parameter (repeatable), e.g. --set max_epochs=3 --set lr=0.002; "
        "VALUE is a Python literal, else text",
    )
    command.add_argument(
        "--sentence-split",
        default=None,
        help='HAN: "punctuation" (its default), "lines", or module:function (imported)',
    )
    command.add_argument(
        "--seed", type=int, default=0, help="the model's random_state (default: %(default)s)"
    )
    command.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="a progress bar per epoch: auto (default) shows it on a terminal only",
    )
    command.add_argument("--force", action="store_true", help="overwrite an existing output")


def _task_arguments(command, task_help: str) -> None:
    """--task and --label-separator, of compare and fit."""
    command.add_argument("--task", choices=TASKS, default="auto", help=task_help)
    command.add_argument(
        "--label-separator",
        type=separator,
        default=",",
        help="multilabel: the separator of the labels in one cell (default: ',')",
    )


def _documents_arguments(command, input_help: str) -> None:
    """The input file, --text, --file, --text-column and --tokenizer of predict and explain."""
    command.add_argument("input", type=Path, nargs="?", help=input_help)
    source = command.add_mutually_exclusive_group()
    source.add_argument("--text", action="append", help="a document (repeatable)")
    source.add_argument(
        "--file",
        type=Path,
        help="UTF-8 .txt file (one document per line), or .csv/.tsv/.jsonl/.ndjson/.json/"
        ".parquet with --text-column",
    )
    command.add_argument(
        "--text-column",
        default="text",
        help="text column of a table file (default: text)",
    )
    command.add_argument(
        "--tokenizer",
        default=None,
        help="for a model saved with a custom tokenizer: module:function (imported), "
        f"or a built-in name {list(TOKENIZER_NAMES)}",
    )
    _sentence_split_argument(command)
    command.add_argument("--force", action="store_true", help="overwrite an existing --output file")


def _sentence_split_argument(command) -> None:
    """How a HAN model saved with its own sentence splitter gets it back."""
    command.add_argument(
        "--sentence-split",
        default=None,
        metavar="MODULE:FUNCTION",
        help="for a HAN model saved with a custom sentence splitter: module:function "
        '(imported), or a built-in name ("lines", "punctuation") that splits as it did',
    )


def _predict_parser(commands) -> None:
    command = commands.add_parser(
        "predict",
        help="labels and class probabilities of a saved model or an exported artefact, streamed",
    )
    command.add_argument(
        "model", type=Path, help="a file written by skattn.save, or an artefact of export"
    )
    _documents_arguments(
        command,
        "the documents' file (as --file), read and predicted a chunk at a time; "
        "- reads standard input, one document a line",
    )
    command.add_argument(
        "--output",
        type=Path,
        default=None,
        help="a .csv file, or .jsonl (or .ndjson) for one JSON object per document, in a "
        "folder that exists; default: CSV on standard output",
    )
    command.add_argument(
        "--chunk-size",
        type=positive,
        default=DEFAULT_CHUNK_SIZE,
        help="documents predicted at a time (memory grows with it, not with the file; "
        "default: %(default)s)",
    )
    command.add_argument(
        "--keep",
        action="append",
        metavar="COLUMN",
        help="a column of the input table copied into each prediction row, before the text "
        "(repeatable; e.g. --keep id)",
    )


def _explain_parser(commands) -> None:
    command = commands.add_parser(
        "explain",
        help="which words made a saved model's predictions: JSON Lines on standard output "
        "for --text, an HTML page for --output",
    )
    command.add_argument("model", type=Path, help="a file written by skattn.save")
    _documents_arguments(command, "the documents' file (as --file; needs --output)")
    command.add_argument(
        "--output",
        type=Path,
        default=None,
        help="the HTML page to write (.html), in a folder that exists; required with --file; "
        "without it, --text prints one JSON object per document (its tokens and their scores)",
    )
    command.add_argument(
        "--method",
        default=None,
        choices=METHODS,
        help=f"attribution method (default: {DEFAULT_METHOD}); sentence_occlusion "
        "explains a hierarchical (HAN) model's sentences only",
    )
    command.add_argument(
        "--faithfulness",
        action="store_true",
        help="measure the explanations' faithfulness on these documents and state it: at the "
        "top of the HTML page, or in one line on standard error after the JSON objects",
    )


def _export_parser(commands) -> None:
    export = commands.add_parser(
        "export",
        help="write a saved model as an ONNX artefact for skattn.serving (the export extra)",
    )
    export.add_argument("model", type=Path, help="a file written by skattn.save")
    export.add_argument("output", type=Path, help="the artefact to write (e.g. model.onnx.zip)")
    export.add_argument(
        "--tokenizer",
        default=None,
        help="for a model fitted with a tokenizer function that splits text as a built-in "
        f"one does: its name {list(TOKENIZER_NAMES)} (load checks that it reads a few fixed "
        "texts as the saved function did)",
    )
    _sentence_split_argument(export)
    export.add_argument("--force", action="store_true", help="overwrite an existing output")


def _serve_parser(commands) -> None:
    from skattn.serving._server import add_arguments

    serve = commands.add_parser(
        "serve",
        help="serve an artefact over HTTP (the server extra: uvicorn; JSON routes and the "
        "v2 protocol)",
    )
    add_arguments(serve)
