"""Inference on a cluster: a fitted model over a dask text column, partition by partition.

Each partition (a pandas Series of texts) goes to a worker, which runs the
model on it and returns a Series (``predict``) or a DataFrame (one column
per class for ``predict_proba``, per output column otherwise) with the
partition's index. The model is one node of the task graph
(``dask.delayed``), so it is pickled once and sent to each worker once,
whatever the number of partitions; the workers need skattn and its
dependencies installed. Nothing is gathered until the caller asks
(``.compute()``, ``.to_parquet(...)``): a corpus larger than one machine's
memory is scored where it lies.

Needs the ``dask`` extra (``pip install 'skattn[dask]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["predict_partitions"]

#: The methods :func:`predict_partitions` applies.
PARTITION_METHODS = ("predict", "predict_proba", "decision_function", "transform")


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
        (``proba_<class>``), features (``get_feature_names_out``) or
        ``<method>_<j>`` (a multi-label ``predict``, a multi-output regressor).

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> from skattn.baselines import tfidf_logreg
    >>> model = tfidf_logreg().fit(["good", "bad"] * 5, [1, 0] * 5)
    >>> texts = dd.from_pandas(pd.Series(["good", "bad", "good"]), npartitions=2)
    >>> predict_partitions(model, texts).compute().tolist()
    [1, 0, 1]
    """
    import dask

    if method not in PARTITION_METHODS:
        raise ValueError(f"method must be one of {PARTITION_METHODS}, got {method!r}.")
    # The shape of the result, from one document scored here (dask's "meta").
    example = _frame(texts.head(1, npartitions=-1), estimator, method)
    model = dask.delayed(estimator, pure=True)
    return texts.map_partitions(_frame, model, method, meta=example.iloc[:0])


def _frame(part, estimator, method: str) -> Any:
    """One partition's outputs as a pandas Series or DataFrame with the partition's index."""
    import pandas as pd

    values = getattr(estimator, method)(part.tolist())
    values = values.toarray() if hasattr(values, "toarray") else np.asarray(values)
    if values.ndim == 1:
        return pd.Series(values, index=part.index, name=method)
    if method == "predict_proba" and values.shape[1] == len(getattr(estimator, "classes_", [])):
        columns = [f"proba_{c}" for c in estimator.classes_]
    elif method == "transform" and hasattr(estimator, "get_feature_names_out"):
        columns = [str(name) for name in estimator.get_feature_names_out()]
    else:
        columns = [f"{method}_{j}" for j in range(values.shape[1])]
    return pd.DataFrame(values, index=part.index, columns=columns)
