"""The benchmark suite: speed and memory of both models, beside a bare PyTorch loop.

One command writes ``results.json`` and ``results.md`` (default folder
``benchmarks/results``)::

    SKATTN_DATA=../shared/data python benchmarks/run.py [--quick] [--output DIR]

Every case runs in a fresh Python process (so peak RSS is its own) and
prints one JSON line; this script collects them. Cases, for HAN on
movie_reviews (one sentence per line, 80/20 split, seed 0) and the
self-attentive model on sentence_polarity, each at the package defaults
and at the papers' sizes:

- ``main``: the estimator trains 2 epochs, then a bare PyTorch loop of the
  same modules trains 2 epochs on the same batches in the same process
  (``bare_loop.py``); for HAN at the papers' sizes, also a plain
  reproduction of the network, written as public PyTorch reproductions
  write it (``plain_han.py``: packed on the estimator's bucketed batches,
  packed and padded GRUs on random batches), 2 epochs each from the
  fitted weights; training docs/s and tokens/s per epoch, the whole
  fit with its vocabulary/encoding and initial-vector time shown apart,
  inference docs/s, RSS after the first and the last epoch, peak RSS;
- ``batch``: batch sizes 32, 64 and 128;
- ``unbucketed``: plain random batches instead of length buckets;
- ``tokens``: token-budget batches (as many tokens as an average batch);
- ``threads2``: two intra-op threads instead of one;
- ``fraction``: the whole fit on a quarter and a half of the training split.

The first epoch of a process pays for the memory allocator's warm-up (page
faults as large buffers are first mapped); every ratio compares second
epochs: the estimator's with each reference's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Model settings by (model, configuration).
SETTINGS = {
    ("han", "defaults"): {"sentence_split": "lines"},
    ("han", "paper"): {
        # Yang et al. 2016, section 3.3, with every word kept (a 39k vocabulary,
        # the worst case for the embedding and its initial vectors).
        "sentence_split": "lines",
        "embedding_dim": 200,
        "hidden_size": 50,
        "sentence_hidden_size": 50,
        "context_dim": 100,
        "min_count": 1,
        "dropout": 0.0,
        "batch_size": 64,
        "batch_tokens": None,  # the paper's batches of 64 documents
        "optimizer": "sgd",
        "lr": 0.1,
        "momentum": 0.9,
        "lr_schedule": "constant",
        "subword_buckets": None,  # the paper's word vectors only
    },
    ("self_attentive", "defaults"): {},
    ("self_attentive", "paper"): {
        # Lin et al. 2017, the authors' Yelp command line.
        "embedding_dim": 100,
        "hidden_size": 300,
        "attention_dim": 350,
        "attention_hops": 30,
        "mlp_hidden": 3000,
        "penalty": 1.0,
        "dropout": 0.3,
        "batch_size": 50,
        "batch_tokens": None,
        "clip_grad_norm": 0.5,
        "lr": 1e-3,
        "subword_buckets": None,
    },
}
#: Training documents per configuration (the paper-sized self-attentive
#: network is ~100x the default's work per document: a 2,000-document
#: sample keeps its case near a minute).
TRAIN_DOCUMENTS = {("self_attentive", "paper"): 2000}


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _corpus(model: str):
    from sklearn.model_selection import train_test_split

    from skattn.datasets import fetch_movie_reviews, fetch_sentence_polarity

    fetch = fetch_movie_reviews if model == "han" else fetch_sentence_polarity
    X, y = fetch(return_X_y=True)
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


def run_case(case: dict) -> dict:
    """Measure one case in this process; return its figures."""
    import numpy as np
    import torch
    from bare_loop import bare_reference
    from plain_han import plain_reference
    from skorch.callbacks import Callback

    from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    from skattn.embeddings import initial_vectors

    model, config = case["model"], case["config"]
    X_train, X_test, y_train, y_test = _corpus(model)
    n_train = TRAIN_DOCUMENTS.get((model, config), len(X_train))
    n_train = int(n_train * case.get("fraction", 1.0))
    X_train, y_train = X_train[:n_train], y_train[:n_train]
    cls = HierarchicalAttentionClassifier if model == "han" else SelfAttentiveClassifier
    params = {
        **SETTINGS[(model, config)],
        "random_state": 0,
        "max_epochs": case.get("epochs", 2),
        **case.get("params", {}),
    }

    class RecordRSS(Callback):
        def on_train_begin(self, net, **kwargs):
            self.rss = []

        def on_epoch_end(self, net, **kwargs):
            self.rss.append(_rss_mb())

    record = RecordRSS()
    estimator = cls(**params, callbacks=[record])
    # The parts of fit before training, timed alone on the same data.
    encoder = estimator.build_encoder()
    start = time.perf_counter()
    corpus = encoder.fit_encode(X_train)
    encode_seconds = time.perf_counter() - start
    tokens = int(corpus.document_lengths.sum())
    start = time.perf_counter()
    initial_vectors(estimator.embeddings, encoder, corpus, estimator.embedding_dim, 0)
    vectors_seconds = time.perf_counter() - start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        durations = list(estimator.history_[:, "dur"])
        start = time.perf_counter()
        estimator.predict(X_test)
        predict_seconds = time.perf_counter() - start
    result = {
        **case,
        "train_documents": n_train,
        "train_tokens": tokens,
        "vocabulary": int(encoder.vocab_size_),
        "epoch_seconds": durations,
        "train_docs_per_s": [n_train / d for d in durations],
        "train_tokens_per_s": [tokens / d for d in durations],
        "fit_seconds": fit_seconds,
        "fit_docs_per_s": n_train * len(durations) / fit_seconds,
        "encode_seconds": encode_seconds,
        "encode_tokens_per_s": tokens / encode_seconds,
        "vectors_seconds": vectors_seconds,
        "predict_docs_per_s": len(X_test) / predict_seconds,
        "rss_after_epoch_mb": record.rss,
        "threads": estimator.threads,
        "torch_threads_outside": torch.get_num_threads(),
    }
    if case.get("bare"):
        bare = bare_reference(estimator, X_train, y_train, epochs=2)
        result["bare_docs_per_s"] = n_train / bare[-1]
        result["estimator_over_bare"] = result["train_docs_per_s"][-1] / result["bare_docs_per_s"]
    # Peak and CPU time before the plain loops (their padded tensors are larger).
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result["system_seconds"], result["user_seconds"] = usage.ru_stime, usage.ru_utime
    if case.get("plain"):
        # The padded loop's large tensors last, so they precede no other loop.
        variants = {
            "packed_bucketed": (True, True),
            "packed": (True, False),
            "padded": (False, False),
        }
        result["plain_docs_per_s"] = {
            name: n_train
            / plain_reference(estimator, X_train, y_train, epochs=2, packed=p, bucketed=b)[-1]
            for name, (p, b) in variants.items()
        }
    np.asarray(0)  # keep numpy imported for the subprocess's JSON floats
    return result


def batch_size(model: str, config: str) -> int:
    """The documents a batch of ``config`` holds: its own setting, else the estimator's default."""
    from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier

    estimator = HierarchicalAttentionClassifier if model == "han" else SelfAttentiveClassifier
    return SETTINGS[(model, config)].get("batch_size", estimator().batch_size)


def cases(quick: bool) -> list[dict]:
    """Every case of the suite (``quick``: the main cases on small fractions)."""
    if quick:
        return [
            {"kind": "main", "model": m, "config": "defaults", "fraction": 0.1, "bare": True}
            for m in ("han", "self_attentive")
        ]
    suite = []
    for model in ("han", "self_attentive"):
        for config in ("defaults", "paper"):
            case = {"kind": "main", "model": model, "config": config, "bare": True}
            if (model, config) == ("han", "paper"):
                case["plain"] = True
            suite.append(case)
    for model, config in (("han", "paper"), ("han", "defaults"), ("self_attentive", "defaults")):
        for batch in (32, 64, 128):
            if batch == batch_size(model, config):
                continue  # the main case
            suite.append(
                {
                    "kind": "batch",
                    "model": model,
                    "config": config,
                    "params": {"batch_size": batch},
                    "bare": model == "han" and config == "paper",
                }
            )
    for model, config in (("han", "defaults"), ("han", "paper")):
        suite.append(
            {
                "kind": "unbucketed",
                "model": model,
                "config": config,
                "params": {"net_params": {"bucket_pool": 1}},
            }
        )
        suite.append({"kind": "tokens", "model": model, "config": config})
    for model, config in (("han", "paper"), ("self_attentive", "defaults")):
        suite.append(
            {"kind": "threads2", "model": model, "config": config, "params": {"threads": 2}}
        )
    for model in ("han", "self_attentive"):
        for fraction in (0.25, 0.5):
            suite.append(
                {"kind": "fraction", "model": model, "config": "defaults", "fraction": fraction}
            )
    return suite


def _token_budget(case: dict) -> dict:
    """A ``tokens`` case gets the average tokens of a document-count batch as its budget."""
    if case["kind"] != "tokens":
        return case
    from skattn import HierarchicalAttentionClassifier

    X_train, _, _, _ = _corpus(case["model"])
    settings = SETTINGS[(case["model"], case["config"])]
    encoder = HierarchicalAttentionClassifier(**settings).build_encoder()
    mean_tokens = encoder.fit_encode(X_train).document_lengths.mean()
    batch = batch_size(case["model"], case["config"])
    return {**case, "params": {"batch_tokens": int(mean_tokens * batch)}}


def markdown(results: list[dict]) -> str:
    """The results as Markdown tables."""
    lines = [
        "| case | model | config | batch | docs | epoch 1 docs/s | epoch 2 docs/s | "
        "tokens/s | bare docs/s | est ÷ bare | fit s (encode, vectors) | fit docs/s | "
        "predict docs/s | RSS ep1 → last MiB | peak MiB | sys/user s |",
        "|" + "---|" * 16,
    ]
    for r in results:
        params = r.get("params", {})
        batch = params.get("batch_tokens")
        batch = (
            f"{batch} tokens"
            if batch
            else params.get("batch_size", batch_size(r["model"], r["config"]))
        )
        label = r["kind"] + (f" ×{r['fraction']}" if "fraction" in r else "")
        if params.get("threads") == 2:
            label += " (2 threads)"
        speeds = r["train_docs_per_s"]
        bare = f"{r['bare_docs_per_s']:.1f}" if "bare_docs_per_s" in r else ""
        ratio = f"{r['estimator_over_bare']:.2f}" if "estimator_over_bare" in r else ""
        rss = r["rss_after_epoch_mb"]
        lines.append(
            f"| {label} | {r['model']} | {r['config']} | {batch} | {r['train_documents']} | "
            f"{speeds[0]:.1f} | {speeds[-1]:.1f} | {r['train_tokens_per_s'][-1]:.0f} | {bare} | "
            f"{ratio} | {r['fit_seconds']:.1f} ({r['encode_seconds']:.1f}, "
            f"{r['vectors_seconds']:.1f}) | {r['fit_docs_per_s']:.1f} | "
            f"{r['predict_docs_per_s']:.0f} | {rss[0]:.0f} → {rss[-1]:.0f} | "
            f"{r['peak_rss_mb']:.0f} | {r['system_seconds']:.1f}/{r['user_seconds']:.1f} |"
        )
    for r in results:
        if "plain_docs_per_s" in r:
            steady = r["train_docs_per_s"][-1]
            lines += [
                "",
                f"{r['model']} {r['config']} against a plain reproduction (plain_han.py):",
            ]
            lines += [
                f"- {name.replace('_', ', ')}: {speed:.1f} docs/s (estimator ÷ plain "
                f"{steady / speed:.2f})"
                for name, speed in r["plain_docs_per_s"].items()
            ]
    encode = [r["encode_tokens_per_s"] for r in results]
    lines += [
        "",
        "Encoding (tokenise + vocabulary + ids): "
        f"{min(encode):,.0f} to {max(encode):,.0f} tokens/s.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two small cases (a smoke run)")
    parser.add_argument("--output", type=Path, default=HERE / "results")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, as JSON
    parser.add_argument("--only", default=None, help="comma-separated case kinds to run")
    parser.add_argument(
        "--resume", action="store_true", help="keep the cases already in results.jsonl"
    )
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(json.loads(args.case))), flush=True)
        return
    suite = cases(args.quick)
    if args.only:
        suite = [c for c in suite if c["kind"] in args.only.split(",")]
    env = {**os.environ, "PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # Each finished case is appended to results.jsonl at once, so an
    # interrupted run keeps its figures and --resume skips what is there.
    args.output.mkdir(parents=True, exist_ok=True)
    journal = args.output / "results.jsonl"
    done = []
    if args.resume and journal.exists():
        done = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    elif journal.exists():
        journal.unlink()
    results = list(done)
    for number, case in enumerate(suite, start=1):
        case = _token_budget(case)
        if any(all(r.get(k) == v for k, v in case.items()) for r in done):
            continue
        output = subprocess.run(
            [sys.executable, __file__, "--case", json.dumps(case)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
        result = json.loads(output.strip().splitlines()[-1])
        results.append(result)
        with open(journal, "a") as handle:
            handle.write(json.dumps(result) + "\n")
        print(
            f"[{number}/{len(suite)}] {case['kind']} {case['model']} {case['config']} "
            f"{case.get('params', '')}: train "
            + " / ".join(f"{s:.1f}" for s in result["train_docs_per_s"])
            + " docs/s"
            + (f", bare {result['bare_docs_per_s']:.1f}" if "bare_docs_per_s" in result else "")
            + "".join(
                f", plain {name} {speed:.1f}"
                for name, speed in result.get("plain_docs_per_s", {}).items()
            )
            + f", peak {result['peak_rss_mb']:.0f} MiB",
            flush=True,
        )
    (args.output / "results.json").write_text(json.dumps(results, indent=1))
    table = markdown(results)
    (args.output / "results.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()
