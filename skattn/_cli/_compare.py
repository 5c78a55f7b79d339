"""``compare``: the main job, attention models against baselines on one corpus."""

from __future__ import annotations

import sys

import numpy as np

from skattn._cli._compare_report import attention_renderer, check_results_folder, report
from skattn._cli._output import import_function
from skattn._cli._parser import (
    DEFAULT_MODELS,
    DEFAULT_MULTILABEL_MODELS,
    DEFAULT_PAIR_MODELS,
    DEFAULT_REGRESSION_MODELS,
    QUICK_ROWS,
    QUICK_SUMMARY,
    UsageError,
)
from skattn._cli._task import Task, decide_task


def say(line: str) -> None:
    """One line of the run's log, shown at once."""
    print(line, flush=True)


def compare(args) -> int:
    """Run ``compare`` (see ``python -m skattn compare --help``)."""
    from skattn.compare import available_models, load_dataset
    from skattn.compare._io import PAIR_CORPORA

    if not args.list:
        check_results_folder(args)
    if args.quick:
        say(f"--quick: {QUICK_SUMMARY}")
        if args.max_docs is None or args.max_docs > QUICK_ROWS:
            args.max_docs = QUICK_ROWS
    split = args.sentence_split
    if split is not None and ":" in split:
        split = import_function("--sentence-split", split)
    models = available_models(
        quick=args.quick,
        vectors=args.vectors,
        vectors_dim=args.vectors_dim,
        random_state=args.seed,
        sentence_split=split,
    )
    if args.list:
        print("\n".join(models))
        return 0
    corpus = load_dataset(
        args.dataset, text_column=args.text_column, label_column=args.label_column
    )
    if args.dataset in PAIR_CORPORA:
        task = Task("classification", corpus.X, corpus.y, "pairs of texts with a judgment")
        task.test_mask = corpus.test_mask
    else:
        task = decide_task(corpus, args.task, args.label_separator, args.dataset, say)
    say(f"{args.dataset}: task {task.name}: {task.reason}")
    if task.name == "regression":
        return _regression(args, task)
    default = {"classification": DEFAULT_MODELS, "multilabel": DEFAULT_MULTILABEL_MODELS}
    if args.dataset in PAIR_CORPORA:
        default["classification"] = DEFAULT_PAIR_MODELS
    chosen = _chosen(args, models, default[task.name])
    if task.name == "multilabel":
        return _multilabel(args, task, chosen)
    return _classification(args, task, chosen)


def progress_verbose(choice: str) -> int:
    """The attention models' ``verbose`` for ``--progress``: 2 always, 1 on a terminal, 0."""
    if choice == "always":
        return 2
    return 1 if choice == "auto" and sys.stderr.isatty() else 0


def _with_progress(entry, verbose: int):
    """An entry whose attention models show their epochs (skorch's table and bar)."""
    from skattn.compare import ATTENTION_MODEL, ModelEntry

    if entry.kind != ATTENTION_MODEL:
        return entry

    def build():
        model = entry()
        return model.set_params(verbose=verbose) if "verbose" in model.get_params() else model

    return ModelEntry(build, entry.kind)


def _chosen(args, models: dict, default: list[str]) -> dict:
    """The models asked for (``--models``); a :class:`UsageError` names the unknown ones."""
    names = args.models.split(",") if args.models else default
    unknown = sorted(set(names) - set(models))
    if unknown:
        message = f"argument --models: unknown model(s) {unknown}; known: {sorted(models)}"
        if "fasttext" in unknown:
            message += "; fasttext needs the fasttext extra: pip install 'skattn[fasttext]'"
        raise UsageError(message)
    verbose = progress_verbose(args.progress)
    if not verbose:
        return {name: models[name] for name in names}
    return {name: _with_progress(models[name], verbose) for name in names}


def _classification(args, task: Task, models: dict) -> int:
    """Single-label classification: accuracy, paired tests against the best baseline."""
    from skattn.compare import compare, format_table, min_class_size
    from skattn.compare._io import PAIR_CORPORA

    dropped: dict = {}
    if args.max_docs and args.max_docs < len(task.X):
        _drop_rare(args, task, 2, dropped)
        _sample(args, task, stratify=True)
    needed = min_class_size(args.cv, task.test_mask)
    if needed > 1:
        _drop_rare(args, task, needed, dropped)
    split = split_name(args, task.test_mask)
    say(f"{args.dataset}: {len(task.X)} documents, {split}, seed {args.seed}")
    reports: dict = {}
    erasable = args.dataset not in PAIR_CORPORA
    results = compare(
        task.X,
        task.y,
        models,
        cv=args.cv,
        test_size=args.test_size,
        test_mask=task.test_mask,
        random_state=args.seed,
        progress=say,
        on_last_fold=attention_renderer(args, reports, erasable=erasable),
    )
    metadata = dict(split=split, documents=len(task.X), dropped_classes=dropped)
    return report(args, task, results, format_table(results), reports, "accuracy", **metadata)


def _drop_rare(args, task: Task, needed: int, dropped: dict) -> None:
    """Stratified splits need every class on both sides: smaller classes go, visibly."""
    from skattn.compare import drop_rare_classes

    task.X, task.y, keep, too_small = drop_rare_classes(task.X, task.y, needed)
    task.test_mask = None if task.test_mask is None else task.test_mask[keep]
    if too_small:
        say(
            f"{args.dataset}: dropped {len(too_small)} class(es) with fewer than {needed} "
            f"documents, {sum(too_small.values())} document(s) (class: documents): {too_small}"
        )
    dropped.update(too_small)


def _sample(args, task: Task, stratify: bool) -> None:
    """``--max-docs``: a sample (stratified by class when it can be), said with its size."""
    if stratify:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(
            np.arange(len(task.X)),
            train_size=args.max_docs,
            stratify=task.y,
            random_state=args.seed,
        )
    else:  # numbers and label lists have no single class to stratify on
        keep = np.random.default_rng(args.seed).choice(len(task.X), args.max_docs, replace=False)
    keep = np.sort(keep)
    say(f"{args.dataset}: a sample of {len(keep)} of its {len(task.X)} documents (--max-docs)")
    task.X, task.y = [task.X[i] for i in keep], task.y[keep]
    task.test_mask = None if task.test_mask is None else task.test_mask[keep]


def split_name(args, test_mask) -> str:
    """How a comparison splits its corpus, in words."""
    if args.cv and args.cv > 1:
        return f"{args.cv}-fold CV"
    if test_mask is not None:
        return "fixed train/test split"
    return f"{1 - args.test_size:.0%}/{args.test_size:.0%} split"


def _regression(args, task: Task) -> int:
    """Numeric labels: the attention regressors against ridge and linear TF-IDF baselines."""
    from skattn.compare._regression import (
        compare_regression,
        format_regression_table,
        regression_models,
    )

    models = _chosen(args, regression_models(args.quick, args.seed), DEFAULT_REGRESSION_MODELS)
    if args.max_docs and args.max_docs < len(task.X):
        _sample(args, task, stratify=False)
    split = split_name(args, None)
    say(f"{args.dataset}: {len(task.X)} documents, {split}, seed {args.seed}")
    reports: dict = {}
    results = compare_regression(
        task.X,
        task.y,
        models,
        cv=args.cv,
        test_size=args.test_size,
        random_state=args.seed,
        progress=say,
        on_last_fold=attention_renderer(args, reports, erasable=True),
    )
    table = format_regression_table(results)
    return report(args, task, results, table, reports, None, split=split, documents=len(task.X))


def _multilabel(args, task: Task, models: dict) -> int:
    """Multi-label: macro- and micro-F1 (see compare_multilabel)."""
    from skattn.compare import compare_multilabel, format_multilabel_table

    if args.max_docs and args.max_docs < len(task.X):
        _sample(args, task, stratify=False)
    empty = [name for name, count in zip(task.target_names, task.y.sum(axis=0)) if count == 0]
    if empty:
        keep = task.y.sum(axis=0) > 0
        task.y, task.target_names = (
            task.y[:, keep],
            [n for n, k in zip(task.target_names, keep) if k],
        )
        say(f"{args.dataset}: dropped {len(empty)} label(s) no document has: {empty}")
    split = split_name(args, task.test_mask)
    say(
        f"{args.dataset}: {len(task.X)} documents, {task.y.shape[1]} labels (multi-label), "
        f"{split}, seed {args.seed}"
    )
    reports: dict = {}
    results = compare_multilabel(
        task.X,
        task.y,
        models,
        cv=args.cv,
        test_size=args.test_size,
        test_mask=task.test_mask,
        random_state=args.seed,
        progress=say,
        on_last_fold=attention_renderer(args, reports, True, task.target_names),
        label_names=task.target_names,
    )
    table = format_multilabel_table(results)
    metadata = dict(split=split, documents=len(task.X), labels=task.target_names)
    return report(args, task, results, table, reports, "macro_f1", **metadata)
