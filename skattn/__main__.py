"""Command line: ``python -m skattn compare ...`` and ``python -m skattn explain ...``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

from skattn.compare import available_models, compare, format_table, load_dataset, plot_results

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
]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m skattn")
    commands = parser.add_subparsers(dest="command", required=True)
    cmp = commands.add_parser(
        "compare", help="attention models vs linear baselines on a corpus, same folds"
    )
    cmp.add_argument(
        "--dataset",
        default="sentence_polarity",
        help="sentence_polarity, movie_reviews, trec, or a .csv/.jsonl file",
    )
    cmp.add_argument("--text-column", default="text", help="text column of a file")
    cmp.add_argument("--label-column", default="label", help="label column of a file")
    cmp.add_argument(
        "--models", default=None, help="comma-separated model names (default: all); see --list"
    )
    cmp.add_argument(
        "--cv",
        type=int,
        default=None,
        help="K for stratified K-fold; default: the corpus' fixed split (trec), "
        "else one stratified hold-out split of --test-size",
    )
    cmp.add_argument("--test-size", type=float, default=0.2)
    cmp.add_argument("--quick", action="store_true", help="small models, few epochs")
    cmp.add_argument("--seed", type=int, default=0)
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
    cmp.add_argument("--list", action="store_true", help="list model names and exit")

    exp = commands.add_parser("explain", help="attention of a saved model as an HTML page")
    exp.add_argument("model", type=Path, help="a file written by skattn.save / estimator.save")
    source = exp.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", action="append", help="a document (repeatable)")
    source.add_argument("--file", type=Path, help="UTF-8 text file, one document per line")
    exp.add_argument("--output", type=Path, default=Path("attention.html"))
    return parser


def _explain(args) -> int:
    from skattn.persistence import load

    model = load(args.model)
    if args.file:
        documents = [
            line for line in args.file.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    else:
        documents = args.text
    classifier = getattr(model, "classifier_", model)
    path = classifier.explain(documents).save_html(args.output)
    print(f"wrote attention of {len(documents)} document(s) to {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m skattn`` and of the ``skattn`` script."""
    args = _parser().parse_args(argv)
    if args.command == "explain":
        return _explain(args)
    models = available_models(quick=args.quick, vectors=args.vectors, vectors_dim=args.vectors_dim)
    if args.list:
        print("\n".join(models))
        return 0
    names = args.models.split(",") if args.models else DEFAULT_MODELS
    unknown = sorted(set(names) - set(models))
    if unknown:
        print(f"unknown model(s) {unknown}; known: {sorted(models)}", file=sys.stderr)
        return 2
    corpus = load_dataset(
        args.dataset, text_column=args.text_column, label_column=args.label_column
    )
    X, y, test_mask = corpus.X, corpus.y, corpus.test_mask
    if args.max_docs and args.max_docs < len(X):
        keep, _ = train_test_split(
            np.arange(len(X)), train_size=args.max_docs, stratify=y, random_state=args.seed
        )
        keep = np.sort(keep)
        X, y = [X[i] for i in keep], y[keep]
        test_mask = None if test_mask is None else test_mask[keep]
    if args.cv:
        split = f"{args.cv}-fold CV"
    elif test_mask is not None:
        split = "fixed train/test split"
    else:
        split = f"{1 - args.test_size:.0%}/{args.test_size:.0%} split"
    print(f"{args.dataset}: {len(X)} documents, {split}, seed {args.seed}", flush=True)
    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)

    def render_attention(name, model, X_test, y_test):
        if args.output and hasattr(model, "explain"):
            page = model.explain(list(X_test[:8]), y_test[:8]).save_html(
                args.output / f"attention_{name}.html"
            )
            print(f"{name}: attention of 8 test documents in {page}", flush=True)

    results = compare(
        X,
        y,
        {name: models[name] for name in names},
        cv=args.cv,
        test_size=args.test_size,
        test_mask=test_mask,
        random_state=args.seed,
        progress=lambda line: print(line, flush=True),
        on_last_fold=render_attention,
    )
    table = format_table(results)
    print(table)
    if args.output:
        (args.output / "results.md").write_text(table + "\n")
        (args.output / "results.json").write_text(
            json.dumps(
                {"dataset": args.dataset, "split": split, "seed": args.seed, "results": results},
                indent=2,
            )
        )
        try:
            plot_results(results, args.output / "results.png", f"{args.dataset}, {split}")
        except ImportError:
            print("matplotlib is not installed: no chart (pip install 'skattn[plot]')")
        print(f"results in {args.output}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
