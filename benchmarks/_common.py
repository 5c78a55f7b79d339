"""Shared helpers of the benchmark scripts: timing, peak memory, stable output."""

from __future__ import annotations

import resource
import sys


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def report(name: str, value, unit: str = "") -> None:
    """Print one figure as ``name: value unit`` (a stable, grep-able format)."""
    if isinstance(value, float):
        value = f"{value:.1f}" if abs(value) >= 10 else f"{value:.4g}"
    print(f"{name}: {value}{' ' + unit if unit else ''}", flush=True)
    sys.stdout.flush()
