"""Prometheus metrics of the app: requests, errors, latency, batch sizes.

Each app has its own registry (several apps in one process do not mix).
Under several workers, set ``PROMETHEUS_MULTIPROC_DIR`` to an empty folder
before the workers start (``python -m skattn serve`` does): every worker
then writes its values there and ``GET /metrics`` of any worker adds up
all of them, as prometheus-client's multiprocess mode documents.
"""

from __future__ import annotations

import os
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

__all__ = ["Metrics", "MetricsMiddleware"]

#: Latency buckets, in seconds: 1 ms to 10 s.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Samples per model call.
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


class Metrics:
    """The app's counters and histograms, and the ASGI middleware that fills them.

    Examples
    --------
    >>> metrics = Metrics()
    >>> metrics.batch("predict", 8)
    >>> b"skattn_batch_size_count" in metrics.render()[0]
    True
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "skattn_requests",
            "HTTP requests answered, by route and status.",
            ["route", "status"],
            registry=self.registry,
        )
        self.errors = Counter(
            "skattn_request_errors",
            "HTTP requests answered with a 4xx or 5xx status, by route and status.",
            ["route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "skattn_request_duration_seconds",
            "Time from a request's start to its answer, by route.",
            ["route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "skattn_batch_size",
            "Samples in each model call (dynamic batching gathers requests), by method.",
            ["method"],
            buckets=BATCH_BUCKETS,
            registry=self.registry,
        )

    def batch(self, method: str, size: int) -> None:
        """Record one model call of ``size`` samples."""
        self.batch_size.labels(method=method).observe(size)

    def answered(self, route: str, status: int, seconds: float) -> None:
        """Record one answered request."""
        self.requests.labels(route=route, status=str(status)).inc()
        if status >= 400:
            self.errors.labels(route=route, status=str(status)).inc()
        self.latency.labels(route=route).observe(seconds)

    def render(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, and its content type."""
        folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if folder:
            registry = CollectorRegistry()
            MultiProcessCollector(registry, path=folder)
            return generate_latest(registry), CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class MetricsMiddleware:
    """ASGI middleware that counts and times every HTTP request into ``metrics``.

    Examples
    --------
    >>> async def app(scope, receive, send): ...
    >>> MetricsMiddleware(app, Metrics()).metrics.registry is not None
    True
    """

    def __init__(self, app, metrics: Metrics):
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start, status = time.perf_counter(), 500

        async def send_and_note(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            self.metrics.answered(_route(scope, status), status, time.perf_counter() - start)


def _route(scope: dict[str, Any], status: int) -> str:
    """The matched route's template (``/v2/models/{name}/infer``), never a client's raw path.

    Routes that do not record themselves (the OpenAPI schema, the docs'
    static files) are served paths, a fixed set; a refused request that no
    route matched is "unmatched".
    """
    route = getattr(scope.get("route"), "path", None)
    if route:
        return route
    return scope.get("path", "unmatched") if status < 400 else "unmatched"
