"""Inference on a cluster: a fitted model over a dask text column, partition by partition.

Each partition (a pandas Series of texts) goes to a worker, which runs the
model on it and returns a Series (``predict``) or a DataFrame (one column
per class for ``predict_proba``, per output column otherwise) with the
partition's index. On a dask.distributed cluster the model is scattered
to every worker once before the partitions run, rather than travelling
inside the task graph (a fitted model weighs tens of MB, which dask warns
about in a graph); the workers need skattn and its dependencies
installed. Nothing is gathered until the caller asks (``.compute()``,
``.to_parquet(...)``): a corpus larger than one machine's memory is
scored where it lies.

Needs the ``dask`` extra (``pip install 'skattn[dask]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skattn.text._streaming import STREAMED_METHODS

__all__ = ["predict_partitions"]

#: The methods :func:`predict_partitions` applies (those a stream can apply).
PARTITION_METHODS = STREAMED_METHODS


def predict_partitions(estimator, texts, method: str = "predict"):
    """``estimator.<method>`` of a dask Series of texts, computed partition by partition.

    Parameters
    ----------
    estimator : fitted estimator
        Reads a list of str (any skattn estimator, a scikit-learn text
        pipeline).
    texts : dask.dataframe.Series
        One document per row (e.g. ``ddf["text"]``).
    method : {"predict", "predict_proba", "decision_function", "transform"}

    Returns
    -------
    dask.dataframe.Series or dask.dataframe.DataFrame
        Lazy, with the index of ``texts``: a Series for one value per
        document, else a DataFrame whose columns are the classes
        (``proba_<class>``; a multi-label model's labels, by name when it
        was fitted on named columns), features (``get_feature_names_out``),
        a multi-label ``predict``'s labels (``predict_<label>``) or
        ``<method>_<j>`` (a multi-output regressor).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> from skattn.baselines._table2 import tfidf_logreg
    >>> model = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> texts = dd.from_pandas(pd.Series(["good", "bad", "good"]), npartitions=2)
    >>> predict_partitions(model, texts).compute().tolist()
    [1, 0, 1]
    """

    if method not in PARTITION_METHODS:
        raise ValueError(f"method must be one of {PARTITION_METHODS}, got {method!r}.")
    import pandas as pd

    # The result's columns and dtypes (dask's "meta"), from one blank document
    # scored here: nothing of ``texts`` is read or computed for it.
    example = _frame(pd.Series([""]), estimator, method).iloc[:0]
    meta = example.set_axis(texts._meta.index, axis=0)
    return texts.map_partitions(_frame, _shared(estimator), method, meta=meta)


def _shared(estimator):
    """The model as every partition's task should see it.

    On a dask.distributed cluster: scattered to every worker first, so the
    task graph carries a reference, not the model. Without a client (dask's
    local schedulers): one node of the graph.
    """
    import dask

    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no distributed, or no client: local scheduler
        return dask.delayed(estimator, pure=True)
    return client.scatter(estimator, broadcast=True)


def _frame(part, estimator, method: str) -> Any:
    """One partition's outputs as a pandas Series or DataFrame with the partition's index."""
    import pandas as pd

    values = getattr(estimator, method)(part.tolist())
    values = values.toarray() if hasattr(values, "toarray") else np.asarray(values)
    if values.ndim == 1:
        return pd.Series(values, index=part.index, name=method)
    labels = _column_labels(estimator)
    if method in ("predict", "predict_proba") and values.shape[1] == len(labels):
        prefix = "proba" if method == "predict_proba" else method
        columns = [f"{prefix}_{label}" for label in labels]
    elif method == "transform" and hasattr(estimator, "get_feature_names_out"):
        columns = [str(name) for name in estimator.get_feature_names_out()]
    else:
        columns = [f"{method}_{j}" for j in range(values.shape[1])]
    return pd.DataFrame(values, index=part.index, columns=columns)


def _column_labels(estimator) -> list:
    """What the estimator's score columns are called (a multi-label model's label names)."""
    rule = getattr(estimator, "decision_rule_", None)
    if rule is not None and rule.column_labels is not None:
        return rule.column_labels
    return list(getattr(estimator, "classes_", []))
