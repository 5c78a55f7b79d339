"""Start-up of the command line: ``--version``, ``--help``, predicting 200 documents.

    SKATTN_DATA=../shared/data python benchmarks/bench_startup.py [--root PATH] [--runs 7]

``--root`` is the checkout whose ``skattn`` is timed (put first on
``PYTHONPATH``; default: this one). The setup (not timed) trains a small
self-attentive classifier on 500 sentence_polarity snippets, saves it
(``model.skattn``), exports it when the checkout can (``model.onnx.zip``)
and writes 200 other snippets to a text file, one a line. Each command then
runs ``--runs`` times in a fresh process; the median wall time is reported
(min and max beside it). The artefact's run also reports whether torch or
scikit-learn were imported (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

HERE = Path(__file__).resolve().parent


def _setup(root: Path, folder: Path) -> dict[str, Path]:
    """Train, save and export a small model; write 200 documents (in a child process)."""
    script = f"""
import sys
from pathlib import Path
from skattn import SelfAttentiveClassifier, save
from skattn.datasets import fetch_sentence_polarity
data = fetch_sentence_polarity(download_if_missing=False)
X = list(data.data[:250]) + list(data.data[-250:])
y = list(data.target[:250]) + list(data.target[-250:])
model = SelfAttentiveClassifier(max_epochs=1, embedding_dim=32, hidden_size=32, random_state=0)
model.fit(X, y)
folder = Path({str(folder)!r})
save(model, folder / "model.skattn")
(folder / "docs.txt").write_text("\\n".join(data.data[1000:1200]) + "\\n", encoding="utf-8")
try:
    from skattn.serving import export
    export(model, folder / "model.onnx.zip")
except Exception as error:
    print("no artefact:", error, file=sys.stderr)
"""
    subprocess.run([sys.executable, "-c", script], check=True, env=_env(root), cwd=root)
    paths = {"model": folder / "model.skattn", "docs": folder / "docs.txt"}
    if (folder / "model.onnx.zip").is_file():
        paths["artefact"] = folder / "model.onnx.zip"
    return paths


def _env(root: Path) -> dict[str, str]:
    # With cwd=root too: ``python -m`` puts the working folder before PYTHONPATH.
    return {**os.environ, "PYTHONPATH": str(root)}


def _time(command: list[str], root: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs + 1):  # the first run warms the file cache, not counted
        start = time.perf_counter()
        subprocess.run(
            command, env=_env(root), cwd=root, check=True, capture_output=True, text=True
        )
        times.append(time.perf_counter() - start)
    return times[1:]


def _heavy_imports(command: list[str], root: Path) -> list[str]:
    """Which of torch, sklearn, skorch, scipy the command imports."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", *command[1:]],
        env=_env(root),
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    return sorted({"torch", "sklearn", "skorch", "scipy"} & names)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    root = args.root.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = _setup(root, folder)
        cli = [sys.executable, "-m", "skattn"]
        commands = {
            "version": [*cli, "--version"],
            "help": [*cli, "--help"],
            "predict_200_saved_model": [
                *cli,
                "predict",
                str(paths["model"]),
                str(paths["docs"]),
                "--output",
                str(folder / "a.csv"),
                "--force",
            ],
        }
        if "artefact" in paths:
            commands["predict_200_artefact"] = [
                *cli,
                "predict",
                str(paths["artefact"]),
                str(paths["docs"]),
                "--output",
                str(folder / "b.csv"),
                "--force",
            ]
        print(f"root: {root}, runs: {args.runs}")
        for name, command in commands.items():
            _measure(name, command, root, args.runs)


def _measure(name: str, command: list[str], root: Path, runs: int) -> None:
    """Time one command; a checkout without --force runs it without; a failure is reported."""
    try:
        times = _time(command, root, runs)
    except subprocess.CalledProcessError:
        command = [part for part in command if part != "--force"]
        try:
            times = _time(command, root, runs)
        except subprocess.CalledProcessError as error:
            report(f"{name}_median", f"fails (exit {error.returncode}): {error.stderr[-200:]!r}")
            return
    report(
        f"{name}_median",
        statistics.median(times),
        f"s (min {min(times):.2f}, max {max(times):.2f})",
    )
    if name.startswith("predict"):
        report(f"{name}_heavy_imports", ",".join(_heavy_imports(command, root)) or "none")


if __name__ == "__main__":
    main()
