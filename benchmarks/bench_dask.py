"""Inference on a dask cluster beside one local process: docs/s of the same predictions.

    SKATTN_DATA=../shared/data python benchmarks/bench_dask.py [--documents 200000] [--workers 2]

A default self-attentive model trained one epoch on 2,000 sentence_polarity
snippets scores N snippets (drawn with replacement): locally with
``predict`` (one process, one thread) and on a ``LocalCluster`` of
``--workers`` single-threaded worker processes on 127.0.0.1 with
:func:`skattn.serving._partitions.predict_partitions` over a Parquet folder of
4 partitions per worker that the workers read themselves (the time
includes reading, sending the model to the workers and gathering the
labels). The cluster runs twice: with dask's default worker environment
(which sets ``MALLOC_TRIM_THRESHOLD_=65536``, ``OMP_NUM_THREADS=1`` ...
before a worker starts) and with that environment cleared
(``distributed.nanny.pre-spawn-environ: {}``). Prints one JSON line per
run and whether the labels equal the local ones.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

#: dask's environment for a worker process, set before it starts.
PRE_SPAWN = "distributed.nanny.pre-spawn-environ"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    import dask
    import dask.dataframe as dd
    import numpy as np
    import pandas as pd
    from dask.distributed import Client, LocalCluster

    from skattn import SelfAttentiveClassifier
    from skattn.datasets import fetch_sentence_polarity
    from skattn.serving._partitions import predict_partitions

    X, y = fetch_sentence_polarity(return_X_y=True)
    rng = np.random.default_rng(0)
    train = rng.permutation(len(X))[:2000]
    model = SelfAttentiveClassifier(max_epochs=1, random_state=0)
    model.fit([X[i] for i in train], y[train])
    texts = [X[i] for i in rng.integers(0, len(X), size=args.documents)]

    start = time.perf_counter()
    local = model.predict(texts)
    local_seconds = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as folder:
        parts = np.array_split(np.arange(args.documents), 4 * args.workers)
        for i, rows in enumerate(parts):
            frame = pd.DataFrame({"text": [texts[j] for j in rows]}, index=rows)
            frame.to_parquet(f"{folder}/part-{i:03d}.parquet")
        for environment in ("dask default", "cleared"):
            overrides = {} if environment == "dask default" else {PRE_SPAWN: {}}
            with dask.config.set(overrides):
                cluster = LocalCluster(
                    n_workers=args.workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    silence_logs=40,
                )
            with Client(cluster) as client:
                client.run(lambda: __import__("torch"))  # imports are not inference
                start = time.perf_counter()
                frame = dd.read_parquet(folder)
                remote = client.compute(predict_partitions(model, frame["text"]), sync=True)
                cluster_seconds = time.perf_counter() - start
            cluster.close()
            print(
                json.dumps(
                    {
                        "documents": args.documents,
                        "local_docs_per_s": round(args.documents / local_seconds),
                        "workers": args.workers,
                        "worker_environment": environment,
                        "cluster_docs_per_s": round(args.documents / cluster_seconds),
                        "cluster_seconds": round(cluster_seconds, 1),
                        "labels_equal": bool(np.array_equal(remote.to_numpy(), local)),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
