"""Inference on a dask cluster beside one local process: docs/s of the same predictions.

    SKATTN_DATA=../shared/data python benchmarks/bench_dask.py [--documents 200000] [--workers 2]

A default self-attentive model trained one epoch on 2,000 sentence_polarity
snippets scores N snippets (drawn with replacement): locally with
``predict`` (one process, one thread) and on a ``LocalCluster`` of
``--workers`` single-threaded worker processes on 127.0.0.1 with
:func:`skattn.partitions.predict_partitions` over a dask DataFrame of
4 partitions per worker (the time includes sending the model and the
texts to the workers and gathering the labels). Prints one JSON line and
whether the two label arrays are equal.
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    import dask.dataframe as dd
    import numpy as np
    import pandas as pd
    from dask.distributed import Client, LocalCluster

    from skattn import SelfAttentiveClassifier
    from skattn.datasets import fetch_sentence_polarity
    from skattn.partitions import predict_partitions

    X, y = fetch_sentence_polarity(return_X_y=True)
    rng = np.random.default_rng(0)
    train = rng.permutation(len(X))[:2000]
    model = SelfAttentiveClassifier(max_epochs=1, random_state=0)
    model.fit([X[i] for i in train], y[train])
    texts = [X[i] for i in rng.integers(0, len(X), size=args.documents)]

    start = time.perf_counter()
    local = model.predict(texts)
    local_seconds = time.perf_counter() - start

    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=40,
    )
    with Client(cluster) as client:
        frame = dd.from_pandas(pd.DataFrame({"text": texts}), npartitions=4 * args.workers)
        start = time.perf_counter()
        remote = client.compute(predict_partitions(model, frame["text"]), sync=True)
        cluster_seconds = time.perf_counter() - start
    cluster.close()
    print(
        json.dumps(
            {
                "documents": args.documents,
                "local_docs_per_s": round(args.documents / local_seconds),
                "local_seconds": round(local_seconds, 1),
                "workers": args.workers,
                "cluster_docs_per_s": round(args.documents / cluster_seconds),
                "cluster_seconds": round(cluster_seconds, 1),
                "labels_equal": bool(np.array_equal(remote.to_numpy(), local)),
            }
        )
    )


if __name__ == "__main__":
    main()
