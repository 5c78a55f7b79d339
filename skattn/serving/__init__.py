"""Serve fitted models without the training stack: an ONNX artefact and a numpy runtime.

:func:`export` (needs torch) writes a fitted estimator to one file; the
classes below read it with numpy and onnxruntime only, so a web service or
batch job needs neither torch, skorch, scikit-learn nor scipy. Importing
this package imports none of them; :func:`export` loads torch when called.
:func:`create_app` (the ``server`` extra: FastAPI, uvicorn,
prometheus-client) builds an ASGI service; fastapi is imported only then.
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
    "create_app",
    "read_artifact",
    *_LAZY,
]
__getattr__, _lazy_dir = lazy_exports(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)


def create_app(artifact, **settings):
    """An ASGI application serving an artefact (see the *Deployment* guide).

    Needs the ``server`` extra (``pip install 'skattn[server]'``); FastAPI
    is imported only here. Settings: see ``skattn.serving._app.create_app``.

    Examples
    --------
    >>> from skattn.serving import create_app
    >>> app = create_app("reviews.onnx.zip", max_wait_ms=2)  # doctest: +SKIP
    >>> import uvicorn; uvicorn.run(app, host="127.0.0.1", port=8000)  # doctest: +SKIP
    """
    try:
        from skattn.serving._app import create_app as _create_app
    except ImportError as error:
        raise ImportError(
            f"the service needs the server extra ({error}): pip install 'skattn[server]'"
        ) from error
    return _create_app(artifact, **settings)
