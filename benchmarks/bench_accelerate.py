"""Data-parallel training on CPU processes: training docs/s per process and accuracy, 1 vs 2.

    SKATTN_DATA=../shared/data python benchmarks/bench_accelerate.py [--processes 2]

A SelfAttentiveClassifier at the package defaults (``random_state=0``, one
PyTorch thread per process) trains on sentence_polarity's stratified 80/20
split (seed 0) three ways, each in fresh processes:

- one process, no accelerator (the reference);
- ``--processes`` processes launched by torch's launcher
  (``python -m torch.distributed.run --standalone``: gloo over the loopback;
  ``accelerate launch --cpu`` would start one process only), each with
  ``accelerator=Accelerator(cpu=True)`` and the default 64 documents a
  batch, so one step averages ``processes`` × 64 documents;
- the same with 64 / ``processes`` documents a batch per process (one step
  averages 64 documents, as in one process).

Training docs/s per process is the documents a process trained on over the
sum of its epochs' durations (skorch's ``dur``: the gradient averaging is
inside); over all processes, every training document of every epoch over
the slowest process's time. Accuracy is on the 20% test split (every
process predicts every document; rank 0's). Prints the load average
before the runs (other jobs on the machine slow the processes down) and a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def worker(out: Path, batch_size: int, max_epochs, accelerated: bool) -> None:
    """One process's fit: writes ``out/rank<i>.json``."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    from skattn import SelfAttentiveClassifier
    from skattn.datasets import fetch_sentence_polarity

    accelerator = None
    if accelerated:
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=True)
    rank = 0 if accelerator is None else accelerator.process_index
    X, y = fetch_sentence_polarity(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    model = SelfAttentiveClassifier(
        random_state=0, batch_size=batch_size, max_epochs=max_epochs, accelerator=accelerator
    )
    model.fit(X_train, y_train)
    history = model.history_
    documents = int(
        sum(sum(epoch_sizes) for epoch_sizes in history[:, "batches", :, "train_batch_size"])
    )
    record = {
        "processes": 1 if accelerator is None else accelerator.num_processes,
        "batch_size": batch_size,
        "epochs": len(history),
        "documents": documents,
        "all_documents": len(history) * len(X_train),
        "seconds": float(sum(history[:, "dur"])),
        "accuracy": float(np.mean(model.predict(X_test) == y_test)),
    }
    (out / f"rank{rank}.json").write_text(json.dumps(record))


def run(out: Path, processes: int, batch_size: int, max_epochs: str) -> list[dict]:
    """Launch one configuration; the records of its processes."""
    script = [str(Path(__file__).resolve()), "--worker", str(out)]
    script += ["--batch-size", str(batch_size), "--max-epochs", max_epochs]
    if processes == 1:
        command = [sys.executable, *script]
    else:
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
        command += [f"--nproc_per_node={processes}", *script, "--accelerated"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(command, check=True, env=env, capture_output=True, text=True)
    return [json.loads(path.read_text()) for path in sorted(out.glob("rank*.json"))]


def row(label: str, records: list[dict]) -> str:
    first = records[0]
    per_process = [r["documents"] / r["seconds"] for r in records]
    overall = first["all_documents"] / max(r["seconds"] for r in records)
    per_step = first["batch_size"] * first["processes"]
    return (
        f"| {label} | {first['batch_size']} | {per_step} | {first['epochs']} | "
        f"{' / '.join(f'{v:,.0f}' for v in per_process)} | {overall:,.0f} | "
        f"{100 * first['accuracy']:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--max-epochs", default="auto")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--batch-size", type=int, default=64, help=argparse.SUPPRESS)
    parser.add_argument("--accelerated", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    max_epochs = args.max_epochs if args.max_epochs == "auto" else int(args.max_epochs)
    if args.worker is not None:
        worker(args.worker, args.batch_size, max_epochs, args.accelerated)
        return

    n = args.processes
    print(f"load average before the runs (1, 5, 15 min): {os.getloadavg()}", flush=True)
    configurations = [
        ("1 process, no accelerator", 1, 64),
        (f"{n} processes (gloo)", n, 64),
        (f"{n} processes (gloo), batch / {n}", n, 64 // n),
    ]
    lines = [
        "| training | batch per process | documents a step | epochs "
        "| training docs/s per process | training docs/s, all processes | test accuracy (%) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, processes, batch_size in configurations:
        with tempfile.TemporaryDirectory() as folder:
            lines.append(row(label, run(Path(folder), processes, batch_size, args.max_epochs)))
        print(lines[-1], flush=True)
    print(f"load average after the runs (1, 5, 15 min): {os.getloadavg()}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
