"""Nothing public is undocumented.

Every public module of the package (no part of its name starts with an
underscore) is walked; its public names are its ``__all__``, or else the
names without a leading underscore that it defines itself. Each must be on
the API reference (``docs/api.rst`` and the files it includes), and each
public class or function must carry its own numpydoc docstring with an
Examples section.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings
from functools import cache
from pathlib import Path

import pytest
from numpydoc.docscrape import NumpyDocString

import skattn

DOCS = Path(__file__).resolve().parents[1] / "docs"
API_PAGE = DOCS / "api.rst"
#: A directive that documents one object: ``.. autoclass:: name`` and the like.
AUTO_DIRECTIVE = re.compile(r"\.\. auto(?:class|function|data|exception|method):: (\S+)")


def public_modules() -> list[str]:
    """``skattn`` and every submodule and subpackage whose name has no ``_`` part."""
    names = ["skattn"] + [
        info.name for info in pkgutil.walk_packages(skattn.__path__, prefix="skattn.")
    ]
    return sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))


def public_names(module) -> list[str]:
    """``__all__`` if the module defines it, else the public names it defines itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, value in vars(module).items()
            if getattr(value, "__module__", None) == module.__name__
        ]
    return sorted(name for name in names if not name.startswith("_"))


def api_pages() -> list[Path]:
    """The API page and every file it includes, recursively."""
    pages, todo = [], [API_PAGE]
    while todo:
        page = todo.pop()
        pages.append(page)
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"^\.\. include:: (\S+)", text, flags=re.MULTILINE):
            todo.append((page.parent / match.group(1)).resolve())
    return pages


@cache
def documented() -> frozenset[str]:
    """Fully qualified names the API reference documents.

    The entries of its ``autosummary`` lists and its ``autoclass``,
    ``autofunction``, ``autodata`` (...) directives, each under the
    ``currentmodule`` in force (or already fully qualified).
    """
    names = set()
    for page in api_pages():
        module, in_autosummary = "skattn", False
        for line in page.read_text(encoding="utf-8").splitlines():
            if match := re.match(r"\.\. (?:current)?module:: (\S+)", line):
                module, in_autosummary = match.group(1), False
            elif re.match(r"\.\. autosummary::", line):
                in_autosummary = True
            elif match := AUTO_DIRECTIVE.match(line):
                names.add(_qualify(module, match.group(1)))
            elif in_autosummary and (match := re.match(r"\s+~?([A-Za-z_][\w.]*)\s*$", line)):
                names.add(_qualify(module, match.group(1)))
            elif line and not line[0].isspace():
                in_autosummary = False
    return frozenset(names)


def _qualify(module: str, name: str) -> str:
    return name if name.startswith("skattn.") or name == "skattn" else f"{module}.{name}"


def resolve(qualified: str):
    """The object a fully qualified name points to (raises LookupError if none)."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attribute in parts[cut:]:
                value = getattr(value, attribute)
        except AttributeError:
            break
        return value
    raise LookupError(qualified)


def _is_class_or_function(value) -> bool:
    return inspect.isclass(value) or inspect.isroutine(inspect.unwrap(value))


@cache
def documented_objects() -> tuple:
    """The classes and functions the API reference documents (under any of their names)."""
    objects = []
    for name in documented():
        try:
            value = resolve(name)
        except LookupError:
            continue
        if _is_class_or_function(value):
            objects.append(value)
    return tuple(objects)


def docstring_problems(value) -> list[str]:
    """What is missing from the object's own numpydoc docstring."""
    # The object's own docstring: inspect.getdoc would inherit a base class's.
    doc = vars(value).get("__doc__") if inspect.isclass(value) else value.__doc__
    if not doc or not doc.strip():
        return ["no docstring"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = NumpyDocString(inspect.cleandoc(doc))
    problems = [f"numpydoc: {w.message}" for w in caught]
    if not "".join(parsed["Summary"]).strip():
        problems.append("no summary line")
    if not "".join(parsed["Examples"]).strip():
        problems.append("no Examples section")
    return problems


def test_the_walk_reaches_every_public_package():
    modules = public_modules()
    for name in ("skattn", "skattn.text", "skattn.nn", "skattn.estimators", "skattn.serving"):
        assert name in modules
    assert not any("__main__" in name for name in modules)
    # The user guide's :func:`skattn.nn.attention_penalty` has a page to point to.
    assert "skattn.nn.attention_penalty" in documented(), "attention_penalty is not listed"


def test_the_public_surface_is_a_few_packages():
    # Implementation lives in private modules; a newcomer meets at most 20 public ones.
    modules = public_modules()
    assert len(modules) <= 20, modules
    assert not [m for m in modules if m.count(".") > 2], modules


@pytest.mark.parametrize("module_name", public_modules())
def test_every_public_name_is_on_the_api_page_with_a_docstring_and_examples(module_name):
    module = importlib.import_module(module_name)
    problems = []
    for name in public_names(module):
        qualified, value = f"{module_name}.{name}", getattr(module, name)
        listed = qualified in documented() or (
            _is_class_or_function(value) and any(value is other for other in documented_objects())
        )
        if not listed:
            problems.append(f"{qualified}: not on the API page")
        if _is_class_or_function(value):
            problems += [f"{qualified}: {p}" for p in docstring_problems(inspect.unwrap(value))]
    assert not problems, "\n".join(problems)


def test_every_entry_of_the_api_page_exists():
    missing = []
    for name in sorted(documented()):
        try:
            resolve(name)
        except LookupError:
            missing.append(name)
    assert not missing, f"the API page names what does not exist: {missing}"


# --- The extras tables of the README and Getting started agree with pyproject.toml -----------

ROOT = DOCS.parent


def _pyproject_extras() -> dict[str, set[str]]:
    """Extra -> the distributions it installs (names only)."""
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as handle:
        extras = tomllib.load(handle)["project"]["optional-dependencies"]
    return {
        extra: {re.split(r"[<>=!;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}
        for extra, requirements in extras.items()
    }


def _readme_extras() -> dict[str, str]:
    """The README's table of extras: extra -> its "installs" cell."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| extra | installs | for |") :].split("\n\n")[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    return {name.strip().strip("`"): installs.strip() for name, installs in rows}


def _getting_started_extras() -> dict[str, str]:
    """Getting started's list-table of extras: extra -> its "installs" cell."""
    text = (DOCS / "getting_started.rst").read_text(encoding="utf-8")
    table = text[text.index("   * - extra") : text.index("The two commands")]
    found = re.findall(r"   \* - ``([\w-]+)``\n     - (.*)\n", table)
    return dict(found)


@pytest.mark.parametrize("table", [_readme_extras, _getting_started_extras])
def test_the_readme_and_getting_started_extras_tables_agree_with_pyproject(table):
    declared, shown = _pyproject_extras(), table()
    assert list(shown) == list(declared)  # every extra, in pyproject's order
    for extra, installs in shown.items():
        if extra in ("docs", "dev"):  # long lists: described, not spelled out
            continue
        assert {name.strip() for name in installs.split(",")} == declared[extra], extra


def test_the_extras_table_check_sees_a_missing_extra(monkeypatch):
    real = _pyproject_extras()
    monkeypatch.setitem(globals(), "_pyproject_extras", lambda: {**real, "new": {"thing"}})
    with pytest.raises(AssertionError):
        test_the_readme_and_getting_started_extras_tables_agree_with_pyproject(_readme_extras)


def _readme_commands() -> list[str]:
    """The two command lines of the README's first code block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("```bash\n") + len("```bash\n") :]
    return block[: block.index("```")].strip().splitlines()


def test_getting_started_shows_the_readmes_two_commands_verbatim():
    commands = _readme_commands()
    assert len(commands) == 2 and all(line.startswith("pip install torch==") for line in commands)
    page = (DOCS / "getting_started.rst").read_text(encoding="utf-8")
    literal = page[page.index("The two commands") :].split("::\n\n", 1)[1].split("\n\n")[0]
    assert [line.strip() for line in literal.splitlines()] == commands
