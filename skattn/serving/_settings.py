"""Defaults of the service's settings, shared by the app and the command line (no imports)."""

#: :func:`skattn.serving.create_app`'s defaults; ``python -m skattn serve`` uses the same.
DEFAULTS = {
    "batching": "auto",
    "max_batch_size": 64,
    "max_wait_ms": 0.0,
    "max_body_bytes": 2**20,
    "max_texts": 1024,
    "max_tokens": 200_000,
    "read_timeout": 10.0,
    "head_timeout": 10.0,
    "keep_alive_timeout": 5.0,
    "threads": 1,
}

#: ``batching="auto"`` turns dynamic batching on for networks of at least this many MiB:
#: benchmarks/bench_server.py found it several times faster for the self-attentive
#: network at the paper's sizes and no faster for the default networks, whose call of
#: one text is already cheap (figures in RESULTS.md).
AUTO_BATCHING_MIB = 64
