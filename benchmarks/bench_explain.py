"""What each explanation method costs: documents per second and peak memory.

For the self-attentive model on sentence_polarity and HAN on movie_reviews
(one sentence per line), each at the package defaults and at the papers'
sizes (the settings of ``run.py``), every ``explain`` method on test
documents of the 80/20 split (seed 0). The cost of a method does not depend
on how well the network is trained, so each network trains one epoch on
``--train`` documents (the explanations' speed is what is measured, not
their quality: ``RESULTS.md`` has the faithfulness figures). Leave-one-out
costs one forward pass per token: it runs on fewer documents (``--loo``).

Each configuration runs in a fresh process (its own peak RSS). Prints
``name: value unit`` lines.

Usage::

    SKATTN_DATA=../shared/data python benchmarks/bench_explain.py [--quick]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings
from pathlib import Path

from run import SETTINGS

from _common import peak_rss_mb, report
from _training import split

HERE = Path(__file__).resolve().parent
CONFIGURATIONS = [
    ("self_attentive", "defaults"),
    ("self_attentive", "paper"),
    ("han", "defaults"),
    ("han", "paper"),
]


def run_configuration(model: str, configuration: str, args) -> None:
    import torch

    from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity
    from skattn.explain import METHODS

    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    fetch = fetch_movie_reviews if model == "han" else fetch_sentence_polarity
    X_train, X_test, y_train, _ = split(*fetch(return_X_y=True))
    cls = HierarchicalAttentionClassifier if model == "han" else SelfAttentiveClassifier
    params = {**SETTINGS[(model, configuration)], "max_epochs": 1, "random_state": 0}
    estimator = cls(**params).fit(X_train[: args.train], y_train[: args.train])
    prefix = f"{model}_{configuration}_"
    n_tokens = estimator.encoder_.encode(X_test[: args.documents]).document_lengths
    report(f"{prefix}tokens_per_document", float(n_tokens.mean()))
    start = time.perf_counter()
    estimator.predict_proba(X_test[: args.documents])
    report(f"{prefix}predict_docs_per_s", args.documents / (time.perf_counter() - start), "docs/s")
    for method in METHODS:
        if method == "sentence_occlusion" and model != "han":
            continue
        documents = X_test[: args.loo if method == "occlusion" else args.documents]
        start = time.perf_counter()
        estimator.explain(documents, method=method)
        seconds = time.perf_counter() - start
        report(f"{prefix}{method}_docs_per_s", len(documents) / seconds, "docs/s")
    report(f"{prefix}peak_rss", peak_rss_mb(), "MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few documents, for a smoke run")
    parser.add_argument("--only", default=None, help="model:configuration (internal)")
    parser.add_argument("--train", type=int, default=None)
    parser.add_argument("--documents", type=int, default=None)
    parser.add_argument("--loo", type=int, default=None)
    args = parser.parse_args()
    args.train = args.train or (300 if args.quick else 2000)
    args.documents = args.documents or (20 if args.quick else 200)
    args.loo = args.loo or (4 if args.quick else 20)
    if args.only:
        run_configuration(*args.only.split(":"), args)
        return
    for model, configuration in CONFIGURATIONS:
        command = [
            sys.executable,
            str(HERE / "bench_explain.py"),
            "--only",
            f"{model}:{configuration}",
            "--train",
            str(args.train),
            "--documents",
            str(args.documents),
            "--loo",
            str(args.loo),
        ]
        subprocess.run(command, check=True, cwd=HERE)


if __name__ == "__main__":
    main()
