"""The server: the app under uvicorn, with workers, for ``python -m skattn serve``.

``python -m skattn serve ARTEFACT --workers N`` checks the artefact, writes
the settings to the ``SKATTN_SERVE`` environment variable and replaces
itself with ``python -m skattn.serving._server``, a process that imports
only the serving stack (the command line's own imports hold torch and
scikit-learn, which uvicorn's worker processes would import again). That
process runs uvicorn, which builds the app in each worker from the same
settings (:func:`app_from_environment`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from skattn.serving._settings import DEFAULTS

__all__ = ["add_arguments", "app_from_environment", "launch"]


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    return parse


def _non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


#: serve's numeric options: flag, type, setting (its default), help.
_NUMERIC_OPTIONS = (
    ("--max-batch-size", _positive(int), "max_batch_size", "most samples in one gathered call"),
    (
        "--max-wait-ms",
        _non_negative,
        "max_wait_ms",
        "how long a call waits for more requests (0: takes those already queued)",
    ),
    (
        "--max-body-bytes",
        _positive(int),
        "max_body_bytes",
        "largest request body in bytes; a larger one is refused",
    ),
    ("--max-texts", _positive(int), "max_texts", "most samples in one request"),
    (
        "--max-tokens",
        _positive(int),
        "max_tokens",
        "most tokens in one request, as the model reads them (after its truncation); "
        "bounds a request's time and the size of its answer, /attention's above all",
    ),
    ("--read-timeout", _positive(float), "read_timeout", "seconds for a request's body to arrive"),
    (
        "--head-timeout",
        _positive(float),
        "head_timeout",
        "seconds for a request's head to arrive (idle new connections are closed)",
    ),
    (
        "--keep-alive-timeout",
        _positive(float),
        "keep_alive_timeout",
        "seconds an idle keep-alive connection stays open",
    ),
    ("--threads", _positive(int), "threads", "onnxruntime threads"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m skattn serve``, added to ``parser``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> parser.parse_args(["model.onnx.zip", "--workers", "2"]).workers
    2
    """
    parser.add_argument(
        "artifact",
        type=Path,
        metavar="ARTEFACT",
        help="an artefact written by skattn.serving.export",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: %(default)s)")
    parser.add_argument(
        "--workers",
        type=_positive(int),
        default=1,
        help="processes, each with the model (default: %(default)s)",
    )
    parser.add_argument(
        "--batching",
        choices=["auto", "on", "off"],
        default="auto",
        help="gather concurrent requests into one onnxruntime call (dynamic batching); "
        "auto (default): on for networks of 64 MiB or more (GET /model says which)",
    )
    for flag, kind, setting, text in _NUMERIC_OPTIONS:
        parser.add_argument(
            flag, type=kind, default=DEFAULTS[setting], help=f"{text} (default: %(default)s)"
        )
    parser.add_argument(
        "--model-name",
        default=None,
        help="name in the v2 routes (default: the file name less .onnx.zip)",
    )
    parser.add_argument("--access-log", action="store_true", help="log every request")


def settings_from(args: argparse.Namespace) -> dict[str, Any]:
    """The server's settings, as JSON values, from parsed arguments."""
    settings = {key: value for key, value in vars(args).items() if key in _SETTINGS}
    settings["artifact"] = str(Path(args.artifact).resolve())
    settings["batching"] = {"on": True, "off": False}.get(args.batching, "auto")
    return settings


_SETTINGS = (
    "artifact host port workers batching max_batch_size max_wait_ms max_body_bytes max_texts "
    "max_tokens read_timeout head_timeout keep_alive_timeout threads model_name access_log"
).split()
_APP_SETTINGS = (
    "batching max_batch_size max_wait_ms max_body_bytes max_texts max_tokens read_timeout threads "
    "model_name"
).split()


#: What the server imports (the ``server`` extra).
_SERVER_PACKAGES = ("fastapi", "fastapi_offline", "uvicorn", "httptools", "prometheus_client")


def launch(args: argparse.Namespace) -> int:
    """Check the artefact, then become a fresh serving process (see the module's docstring)."""
    import importlib.util

    from skattn.serving._runtime import read_artifact

    missing = [name for name in _SERVER_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"serve needs {missing}: pip install 'skattn[server]'")
    read_artifact(args.artifact)  # a missing or corrupt file: one line, before any worker
    os.environ["SKATTN_SERVE"] = json.dumps(settings_from(args))
    command = [sys.executable, "-m", "skattn.serving._server"]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(sys.executable, command)
    return subprocess.call(command)


def _environment_settings() -> dict[str, Any]:
    text = os.environ.get("SKATTN_SERVE")
    if not text:
        raise RuntimeError("SKATTN_SERVE is not set; start the server with python -m skattn serve.")
    return json.loads(text)


def app_from_environment():
    """The app of the settings in ``SKATTN_SERVE`` (uvicorn's factory, once per worker).

    Examples
    --------
    >>> app_from_environment()  # doctest: +SKIP
    <fastapi.applications.FastAPI object at ...>
    """
    from skattn.serving._app import create_app

    settings = _environment_settings()
    return create_app(settings["artifact"], **{k: settings[k] for k in _APP_SETTINGS})


def run(settings: dict[str, Any]) -> None:
    """Run uvicorn with ``settings`` (already in ``SKATTN_SERVE``) until it is stopped."""
    import uvicorn

    uvicorn.run(
        "skattn.serving._server:app_from_environment",
        factory=True,
        host=settings["host"],
        port=settings["port"],
        workers=settings["workers"],
        http="skattn.serving._protocol:HeadTimeoutProtocol",
        timeout_keep_alive=settings["keep_alive_timeout"],
        access_log=settings["access_log"],
        backlog=2048,
        lifespan="on",
    )


def main() -> None:
    """``python -m skattn.serving._server``: run the server of ``SKATTN_SERVE``."""
    settings = _environment_settings()
    folder = None
    if settings["workers"] > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Each worker writes its metrics here; /metrics of any one adds them all up.
        folder = tempfile.mkdtemp(prefix="skattn-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        run(settings)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
