"""Serve fitted models without the training stack: an ONNX artefact and a numpy runtime.

:func:`export` (needs torch) writes a fitted estimator to one file; the
classes below read it with numpy and onnxruntime only, so a web service or
batch job needs neither torch, skorch, scikit-learn nor scipy. Importing
this package imports none of them; :func:`export` loads torch when called.
"""

from __future__ import annotations

from skattn.serving.runtime import (
    ArtifactError,
    OnnxTextClassifier,
    OnnxTextEmbedder,
    OnnxTextRegressor,
    read_artifact,
)

__all__ = [
    "ArtifactError",
    "OnnxTextClassifier",
    "OnnxTextEmbedder",
    "OnnxTextRegressor",
    "export",
    "read_artifact",
]


def export(estimator, path):
    """Write a fitted estimator as an artefact; see :mod:`skattn.serving.exporting`.

    Examples
    --------
    >>> from skattn.serving import export
    >>> callable(export)
    True
    """
    from skattn.serving.exporting import export as _export

    return _export(estimator, path)
