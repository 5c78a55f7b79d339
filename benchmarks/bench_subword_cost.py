"""What the subword table costs a default fit: buckets, and its gradient alone.

On the main job's split of sentence_polarity (8,529 training snippets,
2,133 held out), each classifier at its defaults is fitted with the
default 50,000 subword buckets, with 20,000 and 10,000, without subwords
(``subword_buckets=None``), and with the 50,000-bucket table **frozen**
(its weights never get a gradient, so no dense gradient is filled,
clipped or stepped by Adam; the forward pass still reads it, and the
model does not learn its subwords: a bound on what any cheaper update of
the table could save, not a model to use), and with the table trained for
the first half of the epochs only (**half**: frozen from epoch
⌈E/2⌉ + 1 of E on; a probe of a cheaper schedule for the table, not a
setting of the package). The configurations take turns,
``--repeats`` times, in one process (after a warm-up fit that reads the
word vectors); the median wall time and the held-out accuracy of each
are reported (the accuracy is the last repeat's; fits are
deterministic. The first repeat of each configuration also encodes the
documents, which the median of three hides).

Accuracy here is one split's; the choice of the default was made by
cross-validation inside the training part (RESULTS.md, *Training
time*, "Where the rest of the time is").

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_subword_cost.py
       [--models self_attentive,han] [--repeats 3] [--configs buckets_50000,half_50000]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from bench_training_time import main_split
from skorch.callbacks import Callback

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.nn import SubwordEmbedding

from _common import report

MODELS = {"self_attentive": SelfAttentiveClassifier, "han": HierarchicalAttentionClassifier}


def freeze_subword_tables(net) -> None:
    """Stop every subword table of ``net``'s module from learning."""
    for module in net.module_.modules():
        if isinstance(module, SubwordEmbedding):
            module.bag.weight.requires_grad_(False)


class FreezeSubwordTables(Callback):
    """Stop every subword table from learning before the first epoch."""

    def on_train_begin(self, net, **kwargs):
        freeze_subword_tables(net)


class FreezeSubwordTablesAtHalf(Callback):
    """Let the subword tables learn for the first ⌈E/2⌉ of the E epochs, then stop them."""

    def on_epoch_begin(self, net, **kwargs):
        # skorch adds this epoch's history row before the callbacks run.
        if len(net.history) == math.ceil(net.max_epochs / 2) + 1:
            freeze_subword_tables(net)


#: Each configuration: its ``subword_buckets`` and the callback that freezes
#: the table (None: the table learns throughout).
CONFIGS = {
    "buckets_50000": (50_000, None),
    "buckets_20000": (20_000, None),
    "buckets_10000": (10_000, None),
    "no_subwords": (None, None),
    "frozen_50000": (50_000, FreezeSubwordTables),
    "half_50000": (50_000, FreezeSubwordTablesAtHalf),
}


def fit_seconds(cls, config: str, data) -> tuple[float, float]:
    """Wall time of one fit in ``config`` and its held-out accuracy (%)."""
    X, y, X_test, y_test = data
    buckets, freezer = CONFIGS[config]
    callbacks = [("freeze", freezer())] if freezer else None
    model = cls(random_state=0, subword_buckets=buckets, callbacks=callbacks)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return seconds, 100 * model.score(X_test, y_test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="self_attentive,han")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--configs", default=",".join(CONFIGS), help="comma-separated; the first is the base"
    )
    args = parser.parse_args()
    configs = args.configs.split(",")
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown or len(set(configs)) != len(configs):
        parser.error(f"--configs: each once, from {', '.join(CONFIGS)}; got {args.configs!r}")
    data = main_split()
    for name in args.models.split(","):
        cls = MODELS[name]
        cls(random_state=0, max_epochs=1).fit(data[0][:500], data[1][:500])  # warm-up
        times = {config: [] for config in configs}
        accuracy = {}
        for _ in range(args.repeats):
            for config in configs:
                seconds, accuracy[config] = fit_seconds(cls, config, data)
                times[config].append(seconds)
        base = statistics.median(times[configs[0]])
        for config in configs:
            median = statistics.median(times[config])
            report(f"{name}.{config}.fit_s", median, "s")
            report(f"{name}.{config}.runs", ", ".join(f"{t:.1f}" for t in times[config]))
            report(f"{name}.{config}.share_of_{configs[0]}", median / base, "x")
            report(f"{name}.{config}.test_accuracy", accuracy[config], "%")


if __name__ == "__main__":
    main()
