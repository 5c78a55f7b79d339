"""Nothing public is undocumented: the API page lists every public name."""

import importlib
import inspect
import re
from pathlib import Path

import pytest

import skattn

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.rst"
#: The submodules users import, whose public functions and classes the API page lists.
SUBMODULES = [
    "skattn.datasets",
    "skattn.baselines",
    "skattn.embeddings",
    "skattn.explain",
    "skattn.compare",
    "skattn.utils.estimator_checks",
]


def documented() -> set[str]:
    """Fully qualified names under each ``currentmodule`` of the API page's autosummaries."""
    names, module = set(), "skattn"
    for line in API_PAGE.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif re.match(r"   [A-Za-z_]\w*$", line):
            names.add(f"{module}.{line.strip()}")
    return names


def test_every_name_of_the_package_is_on_the_api_page():
    missing = {f"skattn.{n}" for n in skattn.__all__ if n != "__version__"} - documented()
    assert not missing, f"undocumented: {sorted(missing)}"


@pytest.mark.parametrize("module_name", SUBMODULES)
def test_every_public_function_of_the_submodules_is_on_the_api_page(module_name):
    module = importlib.import_module(module_name)
    public = {
        f"{module_name}.{name}"
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == module_name
    }
    missing = public - documented()
    assert not missing, f"undocumented: {sorted(missing)}"
