"""The repository keeps its promises to a fresh clone: declared dependencies, small files.

A newcomer installs the ``dev`` extra and runs the tests; the docs build
installs the ``docs`` extra. Every third-party module the tests (or the
docs' configuration and gallery) import must therefore come from a
distribution that extra declares, directly or through the core
dependencies; otherwise the suite passes only where someone installed the
package by hand. And no tracked file is larger than 1 MB: every clone
downloads it.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from importlib.metadata import packages_distributions, requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Modules that belong to the repository itself, not to a distribution.
FIRST_PARTY = {"skattn", "estimators", "conftest", "accelerate_worker", "_common", "_training"}

#: The largest file git may track, in bytes.
MAX_TRACKED_BYTES = 1 << 20


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares them (``Scikit_Learn`` -> ``scikit-learn``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    """The distribution a requirement string names (``dask[distributed]>=1`` -> ``dask``)."""
    return normalise(re.match(r"[A-Za-z0-9_.\-]+", requirement).group(0))


def declared(extra: str) -> set[str]:
    """The distributions an install of ``skattn[extra]`` asks for by name: core plus the extra.

    Read from the installed package's metadata (``Requires-Dist``), which
    is what pip acts on: ``name>=1; extra == "dev"`` belongs to ``dev``.
    """
    names = set()
    for requirement in requires("skattn") or []:
        _, _, marker = requirement.partition(";")
        extras = re.findall(r"""extra\s*==\s*["']([^"']+)["']""", marker)
        if not extras or extra in extras:
            names.add(requirement_name(requirement))
    return names


def imported_modules(path: Path) -> set[str]:
    """Top-level names of a Python file's absolute imports, wherever they sit in it.

    ``pytest.importorskip("name")`` counts as an import: the ``dev`` extra
    must install what a test would otherwise skip without a word.
    """
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value).split(".")[0])
    return names


def third_party(paths: list[Path]) -> dict[str, list[str]]:
    """Each third-party module imported by ``paths`` -> the files that import it."""
    found: dict[str, list[str]] = {}
    for path in paths:
        for name in imported_modules(path):
            if name in sys.stdlib_module_names or name in FIRST_PARTY or name == "__future__":
                continue
            if (path.parent / f"{name}.py").exists():
                continue  # a module beside the importing file (tests/ is on sys.path)
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def undeclared(paths: list[Path], extra: str) -> list[str]:
    """What ``paths`` import that ``.[extra]`` does not declare, one line each."""
    distributions = packages_distributions()
    wanted = declared(extra)
    problems = []
    for module, files in sorted(third_party(paths).items()):
        owners = {normalise(d) for d in distributions.get(module, [])}
        if not owners and normalise(module) in wanted:
            continue  # not installed here, but declared under its own name
        if not owners:
            problems.append(
                f"{module} (imported by {files[0]}) is not installed here, and no requirement "
                f"of the {extra!r} extra is named after it"
            )
        elif not owners & wanted:
            problems.append(
                f"{module} (imported by {files[0]}) comes from {sorted(owners)}, "
                f"which the {extra!r} extra does not declare"
            )
    return problems


def test_the_dev_extra_declares_every_module_the_tests_import():
    files = [ROOT / "conftest.py", *sorted((ROOT / "tests").rglob("*.py"))]
    assert not undeclared(files, "dev"), undeclared(files, "dev")


def test_the_docs_extra_declares_every_module_the_docs_build_imports():
    files = [ROOT / "docs" / "conf.py", *sorted((ROOT / "examples").glob("*.py"))]
    assert not undeclared(files, "docs"), undeclared(files, "docs")


def test_a_module_not_installed_passes_only_when_declared_by_its_name(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    probe = tmp_path / "conf.py"
    probe.write_text("import sphinx_gallery_missing_here\nimport sphinx_gallery\n")
    monkeypatch.setattr(
        sys.modules[__name__], "packages_distributions", lambda: {}
    )  # as in an environment of the dev extra alone
    problems = undeclared([probe], "docs")
    assert [p.split()[0] for p in problems] == ["sphinx_gallery_missing_here"]


def test_the_check_names_a_module_no_extra_declares(tmp_path, monkeypatch):
    # The check itself can fail: a test file importing an undeclared module.
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import numpy\nfrom numpydoc.docscrape import NumpyDocString\n"
        "def test():\n    pytest.importorskip('sphinx')\n"
    )
    problems = undeclared([probe], "serving")
    assert [p.split()[0] for p in problems] == ["numpydoc", "sphinx"]


def tracked_files() -> list[Path]:
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listing.decode("utf-8").split("\0") if name]


def oversized(paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)"
        for path in paths
        if path.is_file() and path.stat().st_size > MAX_TRACKED_BYTES
    ]


def test_no_tracked_file_is_larger_than_1_mb():
    assert not oversized(tracked_files())


def test_the_size_check_names_a_large_file(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "big.whl").write_bytes(b"\0" * (MAX_TRACKED_BYTES + 1))
    (tmp_path / "small.txt").write_bytes(b"\0" * MAX_TRACKED_BYTES)
    assert oversized([tmp_path / "big.whl", tmp_path / "small.txt"]) == [
        f"big.whl ({MAX_TRACKED_BYTES + 1:,} bytes)"
    ]


def test_every_test_has_a_time_limit(pytestconfig):
    # pytest-timeout's per-test limit, set in setup.cfg: a hang fails with a traceback.
    assert 0 < float(pytestconfig.getini("timeout")) <= 900


def auto_workers(counted: int) -> int:
    """What the repository's conftest.py makes of pytest-xdist's own count for ``-n auto``."""
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    root = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(root)
    hook = root.pytest_xdist_auto_num_workers(config=None)
    next(hook)  # a wrapper: it receives xdist's count where it yields
    with pytest.raises(StopIteration) as returned:
        hook.send(counted)
    return returned.value.value


def test_auto_workers_follow_xdists_count_up_to_four(monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    assert [auto_workers(n) for n in (1, 2, 4, 16)] == [1, 2, 4, 4]
    # The variable xdist documents still sets the count, above the cap too.
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "7")
    assert auto_workers(7) == 7
