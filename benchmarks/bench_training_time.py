"""Default training time and accuracy, before and after the faster training defaults.

Both attention classifiers on sentence_polarity's 80/20 split of the main
job (``python -m skattn compare --dataset sentence_polarity``: a
stratified shuffle split, seed 0, ``random_state=0``), one thread. Each
model is fitted with the settings of skattn 0.3's first defaults
("before", given as parameters) and with today's defaults ("after"), in
turn, ``--repeats`` times, so that a load from other jobs falls on both
alike. Prints ``name: value unit`` lines: per configuration the median fit
wall time, each pair's after/before ratio and their median, the test
accuracy (the same every repeat: fits are reproducible), the epochs, the
optimizer steps and the padded and real tokens of one training epoch's
batches (work counted, not timed).

With ``--before-code DIR`` (a checkout of another skattn version, e.g.
``git worktree add /tmp/skattn-0.3 1515663``), "before" is instead that
code with its own defaults: every fit of either side runs in a new Python
process (``PYTHONPATH`` set to the checkout or to this one), on the same
snippets (this code's split, handed over in a temporary file), so both
pay the same start-up.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_training_time.py
       [--models self_attentive,han] [--repeats 3] [--after '{"max_epochs": 4}']
       [--before-code DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from sklearn.model_selection import StratifiedShuffleSplit

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity

from _common import report

MODELS = {"self_attentive": SelfAttentiveClassifier, "han": HierarchicalAttentionClassifier}
#: The training settings of the defaults before this change (sentence_polarity's
#: 8,529 training snippets: "auto" gave the base epochs, 8 and 5).
BEFORE = {
    "self_attentive": {"max_epochs": 8, "batch_size": 64, "lr": 3e-3, "lr_schedule": "cosine"},
    "han": {"max_epochs": 5, "batch_size": 32, "lr": 3e-3, "lr_schedule": "cosine"},
}
for _settings in BEFORE.values():
    _settings["batch_tokens"] = None


def main_split(seed: int = 0):
    """The main job's split: ``compare``'s stratified 80/20 hold-out split."""
    X, y = fetch_sentence_polarity(return_X_y=True)
    X, y = np.asarray(X, dtype=object), np.asarray(y)
    splitter = StratifiedShuffleSplit(1, test_size=0.2, random_state=seed)
    train, test = next(splitter.split(np.zeros(len(y)), y))
    return list(X[train]), y[train], list(X[test]), y[test]


def epoch_work(model, X_train, y_train) -> dict[str, int]:
    """Optimizer steps and padded / real tokens of one training epoch of a fitted ``model``."""
    dataset = model.to_dataset(X_train, y_train)
    net = model.net_
    steps, padded, real = 0, 0, 0
    torch.manual_seed(0)
    for batch in net._bucket_sampler(dataset):
        X, _ = dataset.collate(batch)
        steps += 1
        padded += int(X["tokens"].numel())
        real += int(X["lengths"].sum())
    return {"steps": steps, "padded_tokens": padded, "real_tokens": real}


def fit_once(cls, params: dict, data) -> tuple[float, object]:
    X_train, y_train, X_test, y_test = data
    model = cls(random_state=0, threads=1, **params)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - start
    model.accuracy_ = float(np.mean(model.predict(X_test) == y_test))
    return seconds, model


def bench(name: str, after: dict, repeats: int, data) -> None:
    cls = MODELS[name]
    configs = {"before": BEFORE[name], "after": after}
    seconds: dict[str, list[float]] = {label: [] for label in configs}
    fitted = {}
    for _ in range(repeats):
        for label, params in configs.items():
            took, fitted[label] = fit_once(cls, params, data)
            seconds[label].append(took)
    for label, params in configs.items():
        model = fitted[label]
        prefix = f"{name}_{label}_"
        report(f"{prefix}params", json.dumps(params))
        report(f"{prefix}fit_seconds_median", statistics.median(seconds[label]), "s")
        report(f"{prefix}fit_seconds_all", " ".join(f"{s:.1f}" for s in seconds[label]))
        report(f"{prefix}test_accuracy", 100 * model.accuracy_, "%")
        report(f"{prefix}epochs", len(model.history_))
        for key, value in epoch_work(model, data[0], data[1]).items():
            report(f"{prefix}epoch_{key}", value)
    ratios = [a / b for a, b in zip(seconds["after"], seconds["before"])]
    report(f"{name}_ratio_after_before_all", " ".join(f"{r:.3f}" for r in ratios))
    report(f"{name}_ratio_after_before_median", statistics.median(ratios))


#: One default fit in a new process; prints its seconds, accuracy, epochs and settings as JSON.
_FIT_IN_PROCESS = """
import json, pickle, sys, time
import numpy as np
import skattn
X, y, X_test, y_test = pickle.load(open(sys.argv[1], "rb"))
cls = {"self_attentive": skattn.SelfAttentiveClassifier,
       "han": skattn.HierarchicalAttentionClassifier}[sys.argv[2]]
model = cls(random_state=0, **json.loads(sys.argv[3]))
start = time.perf_counter()
model.fit(X, y)
seconds = time.perf_counter() - start
settings = {k: v for k, v in model.get_params().items()
            if k in ("max_epochs", "batch_size", "lr", "lr_schedule", "threads")}
print(json.dumps({"seconds": seconds, "accuracy": float(np.mean(model.predict(X_test) == y_test)),
                  "epochs": len(model.history_), "settings": settings,
                  "version": skattn.__version__}))
"""


def fit_in_process(code_dir: Path, name: str, params: dict, split_file: str) -> dict:
    """One fit of ``name`` by the skattn at ``code_dir``, in a new process."""
    env = dict(os.environ, PYTHONPATH=str(code_dir))
    command = [sys.executable, "-c", _FIT_IN_PROCESS, split_file, name, json.dumps(params)]
    # cwd: ``python -c`` puts the working directory first on sys.path, before PYTHONPATH.
    done = subprocess.run(
        command, env=env, cwd=Path(split_file).parent, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench_against_code(name: str, before_code: Path, after: dict, repeats: int, data) -> None:
    """``name``'s default fit by the code at ``before_code`` against this code's, in turn."""
    this_code = Path(__file__).resolve().parents[1]
    sides = {"before": (before_code, {}), "after": (this_code, after)}
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as scratch:
        split_file = str(Path(scratch) / "split.pkl")
        with open(split_file, "wb") as handle:
            pickle.dump(data, handle)
        for _ in range(repeats):
            for side, (code_dir, params) in sides.items():
                runs[side].append(fit_in_process(code_dir, name, params, split_file))
    for side, (code_dir, _) in sides.items():
        prefix = f"{name}_{side}_"
        report(f"{prefix}code", f"{code_dir} (skattn {runs[side][0]['version']})")
        report(f"{prefix}settings", json.dumps(runs[side][0]["settings"]))
        seconds = [run["seconds"] for run in runs[side]]
        report(f"{prefix}fit_seconds_median", statistics.median(seconds), "s")
        report(f"{prefix}fit_seconds_all", " ".join(f"{s:.1f}" for s in seconds))
        report(f"{prefix}test_accuracy", 100 * runs[side][0]["accuracy"], "%")
        report(f"{prefix}epochs", runs[side][0]["epochs"])
    ratios = [a["seconds"] / b["seconds"] for a, b in zip(runs["after"], runs["before"])]
    report(f"{name}_ratio_after_before_all", " ".join(f"{r:.3f}" for r in ratios))
    report(f"{name}_ratio_after_before_median", statistics.median(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="self_attentive,han")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--after", default="{}", help="parameters of 'after' (JSON); default: none")
    parser.add_argument(
        "--before-code", type=Path, help="a checkout whose defaults are 'before' (new processes)"
    )
    args = parser.parse_args()
    data = main_split()
    print("dataset: sentence_polarity, 80/20 (the main job's split, seed 0)", flush=True)
    for name in args.models.split(","):
        if args.before_code is None:
            bench(name, json.loads(args.after), args.repeats, data)
        else:
            bench_against_code(
                name, args.before_code.resolve(), json.loads(args.after), args.repeats, data
            )


if __name__ == "__main__":
    main()
