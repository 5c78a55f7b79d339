"""The served model behind the app: the runtime for an artefact, its kind and its methods.

The app answers with what the runtime returns: ``predict`` is the label
(thresholds included), a multi-label model's 0/1 rows become the names of
the labels set to 1, a regressor's values are its values. Nothing here
decides a label from probabilities.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skattn.serving._runtime import (
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextModel,
    OnnxTextRegressor,
    read_artifact,
)

__all__ = ["KINDS", "ServedModel", "jsonable", "load_served"]

#: What a served model is, and the methods (routes) each kind answers.
KINDS = {
    "classifier": ("predict", "predict_proba", "attention"),
    "multilabel": ("predict", "predict_proba", "attention"),
    "regressor": ("predict", "attention"),
    "embedder": ("transform", "attention"),
}


def jsonable(value: Any) -> Any:
    """``value`` with numpy arrays and scalars as lists and Python numbers.

    Examples
    --------
    >>> jsonable({"a": np.arange(2), "b": [np.float32(0.5)]})
    {'a': [0, 1], 'b': [0.5]}
    """
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


@dataclass
class ServedModel:
    """A runtime with what the app needs to know about it.

    Attributes
    ----------
    runtime : OnnxTextModel
        The :mod:`skattn.serving` runtime that computes every answer.
    kind : str
        "classifier", "multilabel", "regressor" or "embedder".
    name : str
        The model's name in the routes of the Open Inference Protocol.
    reads_pairs : bool
        Whether each sample is a pair of texts.
    network_bytes : int
        Size of the ONNX network.

    Examples
    --------
    >>> served = load_served("reviews.onnx.zip")  # doctest: +SKIP
    >>> served.kind, served.methods  # doctest: +SKIP
    ('classifier', ('predict', 'predict_proba', 'attention'))
    """

    runtime: OnnxTextModel
    kind: str
    name: str
    reads_pairs: bool
    network_bytes: int

    @property
    def methods(self) -> tuple[str, ...]:
        """The runtime methods this model answers (each one a route)."""
        return KINDS[self.kind]

    @property
    def classes(self) -> list | None:
        """What a classifier's probability columns are called, else None.

        The classes, or a multi-label model's labels: their names when it was
        fitted on named columns, else their indices.
        """
        if not hasattr(self.runtime, "classes_"):
            return None
        return self.runtime.decision_rule_.column_labels

    def function(self, method: str) -> Callable[[list], Any]:
        """The runtime method: samples in, one row per sample out (arrays or a list)."""
        return getattr(self.runtime, method)

    def rows_as_json(self, method: str, rows: Any) -> list:
        """The rows a method returned, as JSON values (one per sample)."""
        if method == "predict" and self.kind == "multilabel":
            return self.runtime.decision_rule_.labels(rows)
        return jsonable(rows)

    def description(self) -> dict[str, Any]:
        """What the model is, for ``GET /model`` and the readiness answer."""
        config = self.runtime.config
        return {
            "name": self.name,
            "estimator": config.get("estimator"),
            "architecture": config.get("architecture"),
            "kind": self.kind,
            "input": "pairs" if self.reads_pairs else "texts",
            "classes": self.classes,
            "routes": [f"/{_ROUTES[method]}" for method in self.methods],
        }


#: The simple JSON route of each runtime method.
_ROUTES = {
    "predict": "predict",
    "predict_proba": "predict_proba",
    "transform": "embed",
    "attention": "attention",
}


def _kind(config: dict[str, Any]) -> str:
    if config.get("embedder_output") is not None:
        return "embedder"
    if config.get("task") == "regressor":
        return "regressor"
    # The decision rule says it (an artefact of format 1 has it derived on reading).
    return "multilabel" if config["decision"]["kind"] == "multilabel" else "classifier"


def model_name(path: str | Path) -> str:
    """The artefact's file name without its ``.onnx.zip``/``.zip`` ending.

    Examples
    --------
    >>> model_name("/models/reviews.onnx.zip")
    'reviews'
    """
    name = Path(path).name
    for ending in (".onnx.zip", ".zip"):
        if name.endswith(ending) and len(name) > len(ending):
            return name[: -len(ending)]
    return name


def load_served(
    path: str | Path, *, threads: int | None = 1, name: str | None = None
) -> ServedModel:
    """The served model of an artefact: the runtime its kind needs.

    Parameters
    ----------
    path : str or Path
        An artefact written by :func:`skattn.serving.export`.
    threads : int or None, default=1
        onnxruntime's intra-op threads.
    name : str or None, default=None
        The model's name in the v2 routes (default: the file name without
        ``.onnx.zip``).

    Examples
    --------
    >>> load_served("reviews.onnx.zip").kind  # doctest: +SKIP
    'classifier'
    """
    config, network = read_artifact(path)
    kind = _kind(config)
    runtime_class = {
        "classifier": OnnxTextClassifier,
        "multilabel": OnnxTextClassifier,
        "regressor": OnnxTextRegressor,
        "embedder": OnnxTextEmbedder,
    }[kind]
    runtime = runtime_class(path, threads=threads)
    return ServedModel(
        runtime=runtime,
        kind=kind,
        name=name or model_name(path),
        reads_pairs=runtime.reads_pairs,
        network_bytes=len(network),
    )
