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
        ("nn/_attention.py", "import sklearn", "pure-torch"),
        ("nn/_encoders.py", "from skattn.text._encoder import PAD_ID", "pure-torch"),
        ("text/_encoder.py", "from skattn import persistence", "layers"),
        ("training/_net.py", "from skattn.estimators import SelfAttentiveClassifier", "layers"),
        ("explain/_erasure.py", "from skattn.estimators._base import FittedState", "layers"),
        ("serving/_runtime.py", "import torch", "serving-runtime"),
        ("serving/_text.py", "from skattn.text._encoder import TextEncoder", "serving-runtime"),
        # The decision rule and the archive checks are the serving runtime's: numpy only.
        ("decisions.py", "import torch", "serving-runtime"),
        ("utils/_archives.py", "import sklearn", "serving-runtime"),
        # The app imports no training stack; the runtime never imports the app.
        ("serving/_batching.py", "import torch", "serving-runtime"),
        ("serving/_text.py", "import fastapi", "serving-runtime-alone"),
    ],
)
def test_a_forbidden_import_breaks_a_contract(module, line, contract, tmp_path):
    shutil.copytree(ROOT / "skattn", tmp_path / "skattn")
    # Appending to a file that does not exist would create a module nobody imports.
    assert (tmp_path / "skattn" / module).is_file(), f"skattn/{module} does not exist"
    with open(tmp_path / "skattn" / module, "a") as handle:
        handle.write(f"\n{line}\n")
    result = _lint_imports(tmp_path, contract)
    assert result.returncode != 0 and "1 broken" in result.stdout, result.stdout


def test_importing_the_modules_loads_neither_scikit_learn_nor_skorch():
    code = "import sys, skattn.nn; print(sorted({'sklearn', 'skorch'} & set(sys.modules)))"
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


#: The most lines a function of skattn/ may have, def to last line, docstring included.
MAX_FUNCTION_LINES = 60

#: Functions still over the limit, being split (each must leave this list when it is).
STILL_LONG: set[tuple[str, str]] = set()


def _is_parameter_list(function) -> bool:
    """An estimator's ``__init__``: a docstring at most, then only ``self.name = name``."""
    import ast

    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return function.name == "__init__" and all(
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.targets[0].attr == node.value.id
        for node in body
    )


def long_functions(root: Path) -> dict[tuple[str, str], int]:
    """Every function of ``root``'s skattn/ longer than the limit -> its length."""
    import ast

    found = {}
    for path in sorted((root / "skattn").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and not _is_parameter_list(node):
                    found[(str(path.relative_to(root)), node.name)] = length
    return found


def test_no_function_is_longer_than_60_lines():
    # Estimators' __init__ are exempt: scikit-learn wants every parameter
    # named in the signature and stored as given, one line each.
    found = long_functions(ROOT)
    assert set(found) <= STILL_LONG, {k: v for k, v in found.items() if k not in STILL_LONG}
    assert set(found) == STILL_LONG, (
        f"now short enough, leave STILL_LONG: {STILL_LONG - set(found)}"
    )


def test_the_length_rule_sees_a_long_function(tmp_path):
    (tmp_path / "skattn").mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    params = "\n".join(f"        self.p{i} = p{i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "skattn" / "m.py").write_text(
        f"def long():\n{body}\n\n\nclass E:\n    def __init__(self):\n{params}\n"
    )
    assert long_functions(tmp_path) == {("skattn/m.py", "long"): MAX_FUNCTION_LINES + 1}


def import_cycles(package: str = "skattn") -> set[tuple[str, str]]:
    """Pairs of modules of ``package`` that import each other, directly or through others."""
    import grimp

    graph = grimp.build_graph(package)
    cycles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.find_shortest_chain(importer=imported, imported=module):
                cycles.add(tuple(sorted((module, imported))))
    return cycles


def test_no_module_imports_itself_back():
    # The training nets and their accelerated siblings used to (skattn.net and
    # skattn.net.accelerated); the chooser of both now sits beside them.
    assert import_cycles() == set()


def test_the_cycle_check_sees_a_cycle(tmp_path, monkeypatch):
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "__init__.py").write_text("")
    (tmp_path / "loop" / "a.py").write_text("from loop import b\n")
    (tmp_path / "loop" / "b.py").write_text("def f():\n    from loop import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("loop") == {("loop.a", "loop.b")}
