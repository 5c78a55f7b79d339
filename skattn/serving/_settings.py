"""Defaults of the service's settings, shared by the app and the command line (no imports)."""

#: :func:`skattn.serving.create_app`'s defaults; ``python -m skattn serve`` uses the same.
DEFAULTS = {
    "batching": True,
    "max_batch_size": 64,
    "max_wait_ms": 0.0,
    "max_body_bytes": 2**20,
    "max_texts": 1024,
    "read_timeout": 10.0,
    "head_timeout": 10.0,
    "keep_alive_timeout": 5.0,
    "threads": 1,
}
