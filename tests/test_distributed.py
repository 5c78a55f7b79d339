"""Grid search on a dask.distributed cluster equals the local search."""

import re

import joblib
import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline

from estimators import small_self_attentive

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    # Two single-threaded worker processes on the loopback interface only.
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=40,
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def _search(n_jobs):
    pipeline = Pipeline([("clf", small_self_attentive(max_epochs=2))])
    grid = {"clf__min_count": [1, 2], "clf__attention_hops": [1, 3]}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    return GridSearchCV(pipeline, grid, cv=cv, n_jobs=n_jobs)


#: What joblib's dask backend names each task: a batch of ``n`` calls of ``function``.
JOBLIB_TASK = re.compile(r"batch_of_(?P<function>\w+)_(?P<n>\d+)_calls")


@pytest.mark.timeout(300)
def test_dask_backed_search_equals_the_local_search(client, polarity_small):
    X, y = polarity_small
    X, y = X[:300], y[:300]
    local = _search(n_jobs=2).fit(X, y)
    # The scheduler records every task it runs while this block is open.
    with distributed.get_task_stream(client) as stream:
        with joblib.parallel_config(backend="dask"):
            remote = _search(n_jobs=-1).fit(X, y)
    assert remote.best_params_ == local.best_params_
    for key in [k for k in local.cv_results_ if k.startswith("split") or k == "mean_test_score"]:
        np.testing.assert_array_equal(remote.cv_results_[key], local.cv_results_[key])
    # The work ran on the cluster: every one of the 4 candidates x 3 folds
    # fits was a task of the scheduler, run by one of its two workers.
    workers = set(client.scheduler_info()["workers"])
    assert len(workers) == 2
    tasks = [(JOBLIB_TASK.match(str(task["key"])), task) for task in stream.data]
    fits = [(m, task) for m, task in tasks if m and m["function"].endswith("fit_and_score")]
    assert sum(int(match["n"]) for match, _ in fits) == 4 * 3, [t["key"] for _, t in tasks]
    assert all(task["status"] == "OK" and task["worker"] in workers for _, task in fits)
    # 12 tasks of about a second each on two single-threaded workers: both work.
    assert {task["worker"] for _, task in fits} == workers


def test_a_dask_text_column_is_scored_partition_by_partition_on_the_cluster(client, polarity_small):
    import pandas as pd

    dd = pytest.importorskip("dask.dataframe")
    from skattn.serving import predict_partitions

    X, y = polarity_small
    model = small_self_attentive(max_epochs=2).fit(X[:400], y[:400])
    frame = pd.DataFrame({"text": X[400:]}, index=np.arange(1000, 1000 + len(X) - 400))
    texts = dd.from_pandas(frame, npartitions=3)["text"]
    labels = predict_partitions(model, texts)
    proba = predict_partitions(model, texts, "predict_proba")
    # Computed by the cluster's workers, not here: the task stream records where.
    with distributed.get_task_stream(client) as stream:
        computed_labels, computed_proba = client.compute([labels, proba], sync=True)
    workers = {record["worker"] for record in stream.data}
    assert workers and workers <= set(client.scheduler_info()["workers"])
    assert len(stream.data) >= 2 * texts.npartitions
    assert computed_labels.index.tolist() == frame.index.tolist()
    np.testing.assert_array_equal(computed_labels.to_numpy(), model.predict(X[400:]))
    assert list(computed_proba.columns) == [f"proba_{c}" for c in model.classes_]
    np.testing.assert_allclose(
        computed_proba.to_numpy(), model.predict_proba(X[400:]), rtol=1e-5, atol=1e-6
    )
