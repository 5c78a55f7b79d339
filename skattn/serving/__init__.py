"""Serve fitted models without the training stack: an ONNX artefact and a numpy runtime.

:func:`export` (needs torch) writes a fitted estimator to one file; the
classes below read it with numpy and onnxruntime only, so a web service or
batch job needs neither torch, skorch, scikit-learn nor scipy. Importing
this package imports none of them; :func:`export` loads torch when called.
"""

from __future__ import annotations

from skattn._compat import lazy_exports
from skattn.serving._runtime import (
    ArtifactError,
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextRegressor,
    read_artifact,
)

#: Names that need more than numpy and onnxruntime, imported on first use:
#: ``export`` needs torch, ``predict_partitions`` a fitted estimator and dask.
_LAZY = {
    "export": "skattn.serving._export",
    "predict_partitions": "skattn.serving._partitions",
}

__all__ = [
    "ArtifactError",
    "OnnxTextClassifier",
    "OnnxTextEmbedder",
    "OnnxTextRegressor",
    "read_artifact",
    *_LAZY,
]
__getattr__, _lazy_dir = lazy_exports(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
