"""A small HTTP service for an exported model, on the standard library only.

``python -m skattn.serving.http MODEL.onnx.zip --port 8000`` answers

- ``GET /health``: ``{"status": "ok", "estimator": ..., "task": ...}``;
- ``POST /predict`` with ``{"texts": ["...", ...]}``: the labels and class
  probabilities (a classifier) or the predicted values (a regressor);
- ``POST /attention`` with the same body: each text's tokens and weights.

Bad requests get a 400 with a one-line reason. It is a starting point for
a real deployment (put it behind a production server or copy the handler
into one), kept small enough to read in one pass.
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

from skattn.serving._runtime import (
    OnnxTextClassifier,
    OnnxTextModel,
    OnnxTextRegressor,
    read_artifact,
)
from skattn.text._unicode import json_text

__all__ = ["answer", "load_model", "make_server"]

#: Largest request body read, in bytes.
MAX_BODY = 10 * 2**20


def load_model(path: str | Path, **options) -> OnnxTextModel:
    """The served model for an artefact: a classifier or a regressor, by its task.

    Examples
    --------
    >>> load_model("model.onnx.zip")  # doctest: +SKIP
    <skattn.serving._runtime.OnnxTextClassifier object at ...>
    """
    config, _ = read_artifact(path)
    runtime = OnnxTextClassifier if config["task"] == "classifier" else OnnxTextRegressor
    return runtime(path, **options)


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def answer(model: OnnxTextModel, route: str, body: dict) -> dict:
    """The JSON answer of one request (raises ValueError/TypeError on a bad body).

    Examples
    --------
    >>> answer(None, "/predict", {"text": "a"})
    Traceback (most recent call last):
    ...
    ValueError: the body must be {"texts": [...]}, a list of strings
    """
    texts = body.get("texts") if isinstance(body, dict) else None
    if not isinstance(texts, list):
        raise ValueError('the body must be {"texts": [...]}, a list of strings')
    if route == "/attention":
        return {"attention": _jsonable(model.attention(texts))}
    if isinstance(model, OnnxTextClassifier):
        probabilities = model.predict_proba(texts)
        labels = model.classes_[probabilities.argmax(axis=1)]
        return {
            "labels": _jsonable(labels),
            "probabilities": probabilities.tolist(),
            "classes": _jsonable(model.classes_),
        }
    return {"predictions": _jsonable(model.predict(texts))}


def make_server(
    model: OnnxTextModel, host: str = "127.0.0.1", port: int = 8000
) -> ThreadingHTTPServer:
    """An HTTP server answering for ``model`` (``port=0``: any free port).

    Examples
    --------
    >>> server = make_server(load_model("model.onnx.zip"), port=0)  # doctest: +SKIP
    >>> server.serve_forever()  # doctest: +SKIP
    """

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: dict) -> None:
            data = json_text(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path != "/health":
                return self._send(404, {"error": f"no route {self.path}; try /health"})
            config = model.config
            self._send(
                200, {"status": "ok", "estimator": config["estimator"], "task": config["task"]}
            )

        def do_POST(self) -> None:
            if self.path not in ("/predict", "/attention"):
                return self._send(
                    404, {"error": f"no route {self.path}; POST /predict or /attention"}
                )
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self._send(413, {"error": f"body of {length} bytes; at most {MAX_BODY}"})
            try:
                body = json.loads(self.rfile.read(length).decode("utf-8"))
                self._send(200, answer(model, self.path, body))
            except (ValueError, TypeError) as error:
                self._send(400, {"error": str(error)})

        def log_message(self, format: str, *args) -> None:  # quiet by default
            pass

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: list[str] | None = None) -> None:
    """``python -m skattn.serving.http MODEL [--host H] [--port P] [--threads N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m skattn.serving.http", description=__doc__.split("\n")[0]
    )
    parser.add_argument("model", type=Path, help="an artefact written by skattn.serving.export")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads per request")
    args = parser.parse_args(argv)
    server = make_server(load_model(args.model, threads=args.threads), args.host, args.port)
    print(f"serving {args.model} on http://{args.host}:{server.server_port}")
    server.serve_forever()


if __name__ == "__main__":
    main()
