"""``fit``: train an attention model on a corpus or a file and save it for predict and serve."""

from __future__ import annotations

import ast
import time
from pathlib import Path

from skattn._cli._compare import progress_verbose, say
from skattn._cli._output import check_output, sentence_splitter
from skattn._cli._parser import UsageError
from skattn._cli._task import Task, decide_task

#: --model -> the estimator class of each task, by name (imported when fit runs).
ESTIMATORS = {
    "self_attentive": {
        "classification": "SelfAttentiveClassifier",
        "multilabel": "SelfAttentiveClassifier",
        "regression": "SelfAttentiveRegressor",
        "pairs": "SelfAttentivePairClassifier",
    },
    "han": {
        "classification": "HierarchicalAttentionClassifier",
        "multilabel": "HierarchicalAttentionClassifier",
        "regression": "HierarchicalAttentionRegressor",
    },
}


def fit(args) -> int:
    """Run ``fit`` (see ``python -m skattn fit --help``)."""
    from skattn.persistence import _describe, save

    dataset = Path(args.dataset)
    check_output(args.output, args.force, dataset=dataset if dataset.is_file() else None)
    params = parse_settings(args.set or [])
    if "random_state" in params:
        raise UsageError("argument --set: give the seed as --seed, not --set random_state")
    check_settings(args, params)  # a typo or an absurd value: refused before the data is read
    kind, X, y = training_data(args)
    model = build_model(args, kind, params)
    _describe(model)  # a setting a model file cannot hold is refused now, not after training
    samples = "pairs" if kind == "pairs" else "documents"
    say(f"{args.dataset}: fitting {type(model).__name__} on {len(X)} {samples}")
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    path = save(model, args.output)
    epochs = len(model.history_)
    size = path.stat().st_size / 2**20
    say(f"wrote {path} ({size:.1f} MiB): {epochs} epoch{'s' * (epochs != 1)} in {seconds:.1f} s")
    again = f" --sentence-split {args.sentence_split}" if ":" in (args.sentence_split or "") else ""
    if kind == "pairs":  # predict and explain read single documents
        say(f"next: python -m skattn export {path} pairs.onnx.zip, then serve it (JSON pairs)")
    else:
        say(f"next: python -m skattn predict {path}{again} --text 'a document'")
    return 0


def training_data(args) -> tuple[str, list, object]:
    """What ``fit`` learns: the kind of task, the samples and their targets, said in lines."""
    from skattn.compare import load_dataset
    from skattn.compare._io import PAIR_CORPORA

    corpus = load_dataset(
        args.dataset, text_column=args.text_column, label_column=args.label_column
    )
    if args.dataset in PAIR_CORPORA:  # --task checked by possible_kinds
        kind, X, y, mask = "pairs", corpus.X, corpus.y, corpus.test_mask
        say(f"{args.dataset}: pairs of texts with a judgment")
    else:
        task = decide_task(corpus, args.task, args.label_separator, args.dataset, say)
        say(f"{args.dataset}: task {task.name}: {task.reason}")
        kind, X, y, mask = task.name, task.X, _whole_numbers(task), task.test_mask
    if mask is not None:  # a corpus with a fixed test part: fit on its training part
        say(f"{args.dataset}: fitting on its training part ({int((~mask).sum())} of {len(X)})")
        X, y = [x for x, test in zip(X, mask) if not test], y[~mask]
    if kind == "multilabel":
        y = _named_columns(y, task.target_names)
    return kind, X, y


def _named_columns(indicator, names: list):
    """A multi-label target as a DataFrame whose columns name the labels the model answers."""
    try:
        import pandas as pd
    except ImportError:
        raise UsageError(
            "a multi-label model keeps its label names from a pandas DataFrame: "
            "pip install 'skattn[pandas]'"
        ) from None
    return pd.DataFrame(indicator, columns=[str(name) for name in names])


def _whole_numbers(task: Task):
    """Class labels written as whole numbers ("3", "-1") as ints: a CSV file reads them as text.

    Only text that is exactly an int's own spelling: "007" and "7", or "1.0",
    stay text (they would merge, or were written as something else); labels
    that are not text (a JSON file's numbers and booleans) stay as read.
    """
    import numpy as np

    y = task.y
    if task.name != "classification" or y.dtype.kind not in "OU":
        return y
    texts = y.tolist()
    if not all(isinstance(t, str) and t.isascii() and _spelled_as_int(t) for t in texts):
        return y
    return np.array([int(t) for t in texts], dtype=np.int64)


def _spelled_as_int(text: str) -> bool:
    return text.lstrip("-").isdigit() and str(int(text)) == text


def build_model(args, kind: str, params: dict):
    """The estimator of ``--model`` for ``kind``, with ``--seed``, ``--set`` and progress."""
    import skattn

    by_task = ESTIMATORS[args.model]
    if kind not in by_task:
        raise UsageError(f"--model {args.model} cannot learn {kind}; --model self_attentive can")
    model = getattr(skattn, by_task[kind])(random_state=args.seed)
    split = args.sentence_split
    if split is not None:
        if "sentence_split" not in model.get_params():
            raise UsageError("--sentence-split is the HAN model's (--model han)")
        params = {"sentence_split": sentence_splitter(split), **params}
    unknown = sorted(set(params) - set(model.get_params()))
    if unknown:
        known = ", ".join(sorted(model.get_params()))
        raise UsageError(f"argument --set: {type(model).__name__} has no {unknown}; it has {known}")
    return model.set_params(**{"verbose": progress_verbose(args.progress), **params})


def check_settings(args, params: dict) -> None:
    """Refuse ``--set`` settings that no estimator ``--model`` may become takes.

    The estimator follows the task, known only once the data is read; a
    setting every candidate refuses (a misspelt name, ``max_epochs=0``) is
    refused now, by the first candidate that knows every name, if any. The
    candidates are those the dataset's name and ``--task`` leave: the pair
    model only for a corpus of pairs, and only it there.
    """
    from skattn.utils._params import validate_params

    unknown_names, bad_values = [], []
    for kind in possible_kinds(args):
        try:
            model = build_model(args, kind, params)
        except UsageError as error:  # a name this estimator does not take
            unknown_names.append(error)
            continue
        try:
            validate_params(model)
            return
        except (ValueError, TypeError) as error:
            bad_values.append(error)
    raise (bad_values or unknown_names)[0]


def possible_kinds(args) -> list[str]:
    """The kinds of task ``fit`` may find in ``args.dataset``, before reading it."""
    from skattn.compare._io import PAIR_CORPORA

    if args.dataset in PAIR_CORPORA:
        if args.task not in ("auto", "classification"):
            raise UsageError(f"{args.dataset} holds judgments of pairs; --task {args.task} is not")
        return ["pairs"]
    return [args.task] if args.task != "auto" else ["classification", "regression", "multilabel"]


def parse_settings(settings: list[str]) -> dict:
    """``--set NAME=VALUE`` pairs as parameters: a Python literal, else the text as a str.

    Examples
    --------
    >>> parse_settings(["lr=0.002", "max_epochs=5", "embeddings=None", "pooling=mean"])
    {'lr': 0.002, 'max_epochs': 5, 'embeddings': None, 'pooling': 'mean'}
    >>> parse_settings(["lr"])
    Traceback (most recent call last):
    ...
    skattn._cli._parser.UsageError: argument --set: 'lr' is not NAME=VALUE (e.g. lr=0.002)
    """
    params = {}
    for setting in settings:
        name, equals, text = setting.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"argument --set: {setting!r} is not NAME=VALUE (e.g. lr=0.002)")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        params[name.strip()] = value
    return params
