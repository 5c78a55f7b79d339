"""The HTTP service under load: requests/s and p50/p99 latency, on 127.0.0.1 only.

    SKATTN_DATA=../shared/data python benchmarks/bench_server.py [--only NAME] [--seconds 5]

Needs the ``server`` extra and ``wrk`` (``apt-get install wrk``), the load
generator: a C program, so the client takes little of the CPU the server
needs. For each model it

- builds an artefact: the defaults trained one epoch on 2,000
  sentence_polarity snippets; the self-attentive model at the paper's
  sizes (u 300, d_a 350, r 30, MLP 3,000) trained one epoch on 200, i.e.
  practically its random initialisation, which serves at the same speed;
- measures the in-process onnxruntime rate on the same snippets (one
  thread; batches of 1, 8 and 64);
- starts each server on a free port of 127.0.0.1: the old standard-library
  server (``--old-checkout``, a checkout that still has
  ``skattn/serving/http.py``) and ``python -m skattn serve`` with 1 and 2
  workers, dynamic batching off and on;
- runs wrk against each for 1, 16 and 64 concurrent clients (keep-alive
  connections), each request holding 1 or 8 snippets, for ``--seconds``
  each (four times as long for the paper-sized model, whose answers take
  seconds at 64 clients), after a one-second warm-up on one connection,
  and waits for the requests left in flight to be answered before the next
  run (their work would load it); every run is bounded in time.

One JSON line per measurement on standard output.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MODELS = {
    "self_attentive": ("SelfAttentiveClassifier", {}, 2000),
    "han": ("HierarchicalAttentionClassifier", {}, 2000),
    "self_attentive_paper": (
        "SelfAttentiveClassifier",
        {"hidden_size": 300, "attention_dim": 350, "attention_hops": 30, "mlp_hidden": 3000},
        200,
    ),
}
CONCURRENCY = (1, 16, 64)
PAYLOADS = (1, 8)

#: wrk's script: POST one of the bodies in turn; at the end, one JSON line of results.
LUA = """
bodies = {%s}
local i = 0
request = function()
  i = i %% #bodies + 1
  return wrk.format("POST", "/predict", {["Content-Type"] = "application/json"}, bodies[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %%d, "seconds": %%f, "p50_ms": %%f, "p99_ms": %%f, "max_ms": %%f, ' ..
    '"errors": %%d, "status_errors": %%d, "timeouts": %%d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3,
    latency:percentile(99) / 1e3, latency.max / 1e3,
    e.connect + e.read + e.write + e.status + e.timeout, e.status, e.timeout))
end
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _build(name: str, folder: Path) -> tuple[Path, list[str]]:
    """The artefact of ``name`` and held-out snippets to send."""
    import numpy as np

    import skattn
    from skattn.datasets import fetch_sentence_polarity
    from skattn.serving import export

    class_name, params, n_train = MODELS[name]
    X, y = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    order = np.random.RandomState(0).permutation(len(X))
    X, y = [X[i] for i in order], y[order]
    model = getattr(skattn, class_name)(**params, max_epochs=1, random_state=0)
    model.fit(X[:n_train], y[:n_train])
    return export(model, folder / f"{name}.onnx.zip"), X[-2000:]


def _in_process(path: Path, texts: list[str]) -> dict:
    """onnxruntime's texts/s in this process, one thread, at batch 1, 8 and 64."""
    from skattn.serving import OnnxTextClassifier

    served = OnnxTextClassifier(path, threads=1)
    rates = {}
    for size, count in ((1, 600), (8, 150), (64, 30)):
        batches = [texts[i * size : (i + 1) * size] for i in range(count)]
        served.predict(batches[0])
        start = time.perf_counter()
        for batch in batches:
            served.predict(batch)
        rates[f"batch{size}_texts_per_s"] = size * count / (time.perf_counter() - start)
    return rates


def _wait_ready(port: int, process: subprocess.Popen, route: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{route}", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"server on {port} did not start: {process.communicate()}")


def _start(server: dict, path: Path, old_checkout: Path | None) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    env, cwd = {**os.environ, "OMP_NUM_THREADS": "1"}, None
    if server["kind"] == "old":  # run from its checkout: python -m puts the folder first
        cwd = old_checkout
        env["PYTHONPATH"] = str(old_checkout)
        command = [sys.executable, "-m", "skattn.serving.http", str(path), "--port", str(port)]
        route = "/health"
    else:
        command = [sys.executable, "-m", "skattn", "serve", str(path), "--port", str(port)]
        command += ["--workers", str(server["workers"]), "--batching", server["batching"]]
        route = "/ready"
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _wait_ready(port, process, route)
    return process, port


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _script(folder: Path, texts: list[str], payload: int) -> Path:
    bodies = [json.dumps({"texts": texts[i : i + payload]}) for i in range(0, 400, payload)]
    path = folder / f"load_{payload}.lua"
    path.write_text(LUA % ", ".join(f"[==[{body}]==]" for body in bodies))
    return path


def _batch_means(port: int) -> tuple[float, float]:
    """(calls, samples) of predict in the server's /metrics (0, 0 for the old server)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    except OSError:
        return 0.0, 0.0
    found = [
        sum(map(float, re.findall(rf'skattn_batch_size_{part}{{method="predict"}} (\S+)', text)))
        for part in ("count", "sum")
    ]
    return found[0], found[1]


def _wrk(port: int, script: Path, clients: int, seconds: float) -> dict:
    command = ["wrk", "-t1", f"-c{clients}", f"-d{int(seconds)}s", "--timeout", "30s"]
    command += ["-s", str(script), f"http://127.0.0.1:{port}/predict"]
    output = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    lines = [line for line in output.stdout.splitlines() if line.startswith('{"requests"')]
    if not lines:
        raise RuntimeError(f"wrk gave no result: {output.stdout} {output.stderr}")
    return json.loads(lines[-1])


def _settle(port: int, old: bool, wait: float) -> None:
    """Wait until the requests wrk left in flight are answered (they would load the next run)."""
    if old:  # no metrics: wait out the last run's slowest answers
        time.sleep(wait)
        return
    deadline, last = time.monotonic() + 120, None
    while time.monotonic() < deadline:
        now = _batch_means(port)
        if now == last:
            return
        last = now
        time.sleep(1.0)


def _load(port: int, scripts: dict, seconds: float, old: bool) -> list[dict]:
    rows = []
    for payload, script in scripts.items():
        for clients in CONCURRENCY:
            _wrk(port, script, 1, 1)  # warm-up, one connection: little left in flight
            _settle(port, old, 2.0)
            calls, samples = _batch_means(port)
            result = _wrk(port, script, clients, seconds)
            after_calls, after_samples = _batch_means(port)
            _settle(port, old, min(30.0, max(2.0, 2 * result["max_ms"] / 1000)))
            result.update(
                clients=clients,
                texts_per_request=payload,
                requests_per_s=result["requests"] / result["seconds"],
                texts_per_s=payload * result["requests"] / result["seconds"],
            )
            if after_calls > calls:
                result["mean_batch"] = (after_samples - samples) / (after_calls - calls)
            rows.append(result)
    return rows


SERVERS = [
    {"kind": "old", "label": "stdlib http.server (old)"},
    *(
        {"kind": "new", "workers": workers, "batching": batching}
        for workers in (1, 2)
        for batching in ("off", "on")
    ),
]


def _seconds(name: str, seconds: int) -> int:
    """Each run's length: the paper-sized model answers 64 clients of 8 texts in seconds."""
    return 4 * seconds if name.endswith("_paper") else seconds


def run(name: str, seconds: float, old_checkout: Path | None) -> None:
    load = os.popen("uptime").read().strip()
    with tempfile.TemporaryDirectory(prefix="skattn-bench-server-") as folder:
        folder = Path(folder)
        path, texts = _build(name, folder)
        print(json.dumps({"model": name, "in_process": _in_process(path, texts), "uptime": load}))
        scripts = {payload: _script(folder, texts, payload) for payload in PAYLOADS}
        for server in SERVERS:
            if server["kind"] == "old" and old_checkout is None:
                continue
            process, port = _start(server, path, old_checkout)
            try:
                for row in _load(port, scripts, _seconds(name, seconds), server["kind"] == "old"):
                    print(json.dumps({"model": name, **server, **row}), flush=True)
            finally:
                _stop(process)


def _label(row: dict) -> str:
    if row["kind"] == "old":
        return "stdlib (old)"
    return f"{row['workers']} worker{'s' if row['workers'] > 1 else ''}, batching {row['batching']}"


def table(path: Path) -> str:
    """Markdown tables (one per model) of a file of this script's JSON lines."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out = []
    for row in rows:
        if "in_process" in row:
            rates = row["in_process"]
            out += [
                f"\n**{row['model']}**: in-process onnxruntime (1 thread) "
                + ", ".join(
                    f"batch {n}: {rates[f'batch{n}_texts_per_s']:,.0f} texts/s" for n in (1, 8, 64)
                )
                + f" (`uptime` before: {row['uptime'].split('load average: ')[-1]})\n",
                "| server | texts/request | clients | requests/s | texts/s | p50 ms | p99 ms "
                "| p99/p50 | errors | mean batch |",
                "|---|---|---|---|---|---|---|---|---|---|",
            ]
            continue
        batch = f"{row['mean_batch']:.1f}" if "mean_batch" in row else "–"
        out.append(
            f"| {_label(row)} | {row['texts_per_request']} | {row['clients']} "
            f"| {row['requests_per_s']:,.0f} | {row['texts_per_s']:,.0f} | {row['p50_ms']:.1f} "
            f"| {row['p99_ms']:.1f} | {row['p99_ms'] / row['p50_ms']:.1f} | {row['errors']} "
            f"| {batch} |"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=sorted(MODELS), action="append")
    parser.add_argument("--seconds", type=int, default=5, help="length of each load run")
    parser.add_argument(
        "--old-checkout",
        type=Path,
        default=None,
        help="a checkout with the old skattn/serving/http.py, to measure it too",
    )
    parser.add_argument("--table", type=Path, help="print the tables of an earlier run's output")
    args = parser.parse_args()
    if args.table:
        print(table(args.table))
        return
    for name in args.only or MODELS:
        run(name, args.seconds, args.old_checkout)


if __name__ == "__main__":
    main()
