"""Serving speed: onnxruntime on the exported artefact beside PyTorch eager.

    SKATTN_DATA=../shared/data python benchmarks/bench_serving.py [--only NAME]

For each model (self-attentive and HAN, at the defaults and at the papers'
sizes), trains one epoch on 2,000 sentence_polarity snippets (the weights
do not change the speed), exports it, and measures from raw strings to
probabilities, tokenisation included, with 1 and 2 threads (and times the
export itself):

- latency at batch 1 (p50 and p99 over 300 single-snippet calls);
- throughput at batch 64 (snippets/s over 40 batches);

for ``predict_proba`` of the estimator (PyTorch eager) and of
:class:`~skattn.serving.OnnxTextClassifier`, plus the artefact's size,
its load time, and the import time of ``skattn.serving`` beside the
training stack's. One JSON line per model; each model runs in its own
process.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = {
    "self_attentive": ("SelfAttentiveClassifier", {}),
    "self_attentive_paper": (
        "SelfAttentiveClassifier",
        {"hidden_size": 300, "attention_dim": 350, "attention_hops": 30, "mlp_hidden": 3000},
    ),
    "han": ("HierarchicalAttentionClassifier", {}),
    "han_paper": ("HierarchicalAttentionClassifier", {"embedding_dim": 200, "hidden_size": 50}),
}


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def _latency_ms(predict, documents: list[str]) -> tuple[float, float]:
    predict(documents[:5])  # warm-up
    times = []
    for doc in documents:
        start = time.perf_counter()
        predict([doc])
        times.append(1000 * (time.perf_counter() - start))
    return _percentile(times, 50), _percentile(times, 99)


def _throughput(predict, batches: list[list[str]]) -> float:
    predict(batches[0])
    start = time.perf_counter()
    for batch in batches:
        predict(batch)
    return sum(map(len, batches)) / (time.perf_counter() - start)


def _import_seconds(statement: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - start


def run(name: str) -> dict:
    import numpy as np
    import torch

    import skattn
    from skattn.datasets import fetch_sentence_polarity
    from skattn.serving import OnnxTextClassifier, export

    class_name, params = MODELS[name]
    X, y = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    order = np.random.RandomState(0).permutation(len(X))
    X, y = [X[i] for i in order], y[order]
    model = getattr(skattn, class_name)(**params, max_epochs=1, random_state=0).fit(
        X[:2000], y[:2000]
    )
    singles, batches = X[-300:], [X[-2560:][i : i + 64] for i in range(0, 2560, 64)]
    result: dict = {
        "model": name,
        "parameters": sum(p.numel() for p in model.net_.module_.parameters()),
    }
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        path = export(model, Path(folder) / "model.onnx.zip")
        result["export_s"] = time.perf_counter() - start
        result["artifact_mib"] = path.stat().st_size / 2**20
        start = time.perf_counter()
        OnnxTextClassifier(path)
        result["artifact_load_s"] = time.perf_counter() - start
        for threads in (1, 2):
            served = OnnxTextClassifier(path, threads=threads)
            model.set_params(threads=threads)
            torch.set_num_threads(threads)
            worst = float(
                np.abs(served.predict_proba(X[-500:]) - model.predict_proba(X[-500:])).max()
            )
            for engine, predict in (
                ("eager", model.predict_proba),
                ("onnxruntime", served.predict_proba),
            ):
                p50, p99 = _latency_ms(predict, singles)
                result[f"{engine}_t{threads}"] = {
                    "batch1_p50_ms": p50,
                    "batch1_p99_ms": p99,
                    "batch64_docs_per_s": _throughput(predict, batches),
                }
            result[f"max_proba_difference_t{threads}"] = worst
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=sorted(MODELS))
    args = parser.parse_args()
    if args.only:
        print(json.dumps(run(args.only)), flush=True)
        return
    print(
        json.dumps(
            {
                "import_s_serving": _import_seconds("import skattn.serving"),
                "import_s_training": _import_seconds(
                    "import skattn; skattn.SelfAttentiveClassifier"
                ),
            }
        ),
        flush=True,
    )
    for name in MODELS:
        subprocess.run([sys.executable, __file__, "--only", name], check=True)


if __name__ == "__main__":
    main()
