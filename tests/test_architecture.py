"""The layers import one way, and nothing the package does changes global state."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from skorch.callbacks import Callback

from estimators import SMALL_ESTIMATORS

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports(package_parent: Path, *contracts: str) -> subprocess.CompletedProcess:
    """Run import-linter's ``lint-imports`` on the skattn package found in ``package_parent``."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    command = [
        sys.executable,
        "-c",
        "from importlinter.cli import lint_imports_command; lint_imports_command()",
        "--config",
        str(ROOT / ".importlinter"),
        "--no-cache",
    ]
    for contract in contracts:
        command += ["--contract", contract]
    return subprocess.run(command, cwd=package_parent, env=env, capture_output=True, text=True)


def test_layer_contracts_hold():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, line, contract",
    [
        ("modules/attention.py", "import sklearn", "pure-torch"),
        ("modules/encoders.py", "from skattn.text import PAD_ID", "pure-torch"),
        ("text.py", "from skattn import persistence", "layers"),
        ("net.py", "from skattn.classifiers import SelfAttentiveClassifier", "layers"),
        ("serving/_batching.py", "import torch", "serving-runtime"),
        ("serving/text.py", "import fastapi", "serving-runtime-alone"),
    ],
)
def test_a_forbidden_import_breaks_a_contract(module, line, contract, tmp_path):
    shutil.copytree(ROOT / "skattn", tmp_path / "skattn")
    with open(tmp_path / "skattn" / module, "a") as handle:
        handle.write(f"\n{line}\n")
    result = _lint_imports(tmp_path, contract)
    assert result.returncode != 0 and "1 broken" in result.stdout, result.stdout


def test_importing_the_modules_loads_neither_scikit_learn_nor_skorch():
    code = "import sys, skattn.modules; print(sorted({'sklearn', 'skorch'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip() == "[]", result.stderr


def test_plotting_leaves_the_matplotlib_backend_alone(toy, tmp_path):
    import matplotlib

    from skattn.compare import plot_results

    previous = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        X, y = toy
        clf = SMALL_ESTIMATORS["SelfAttentiveClassifier"](max_epochs=1).fit(X, y)
        figure = clf.explain(X[:1], method="attention").plot()
        plot_results(
            [{"model": "m", "accuracy_mean": 0.8, "accuracy_std": 0.01}], tmp_path / "r.png"
        )
        assert matplotlib.get_backend() == "svg"
        assert figure.axes and (tmp_path / "r.png").stat().st_size > 0
    finally:
        matplotlib.use(previous)


class _RecordThreads(Callback):
    def on_epoch_end(self, net, **kwargs):
        self.seen = torch.get_num_threads()


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_fit_and_predict_leave_global_state_as_they_found_it(make, toy, monkeypatch):
    X, y = toy
    calls = []
    monkeypatch.setattr(os, "umask", lambda *a: calls.append("umask"))
    for name in ("manual_seed", "manual_seed_all", "seed", "seed_all"):
        monkeypatch.setattr(torch.cuda, name, lambda *a, _n=name: calls.append(_n))
    threads = torch.get_num_threads()
    other = 2 if threads == 1 else 1
    torch.set_num_threads(other)
    try:
        cpu_state = torch.random.get_rng_state()
        record = _RecordThreads()
        est = make(threads=1, callbacks=[record]).fit(X, y)
        est.predict(X[:5])
        assert record.seen == 1 and torch.get_num_threads() == other
        assert torch.equal(torch.random.get_rng_state(), cpu_state)
        make(threads=None, callbacks=[record]).fit(X, y)
        assert record.seen == other  # None leaves PyTorch's setting alone
    finally:
        torch.set_num_threads(threads)
    assert calls == []
    assert np.isfinite(est.predict_proba(X[:2])).all()
