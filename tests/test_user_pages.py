"""The pages a user reads speak about the package, not about how its work was organised."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Words about the project's own process, which mean nothing to a reader of the docs.
INTERNAL = re.compile(
    r"\bissue\s+#?\d+|(?<![\w&])#\d{2,4}(?!\w)|\b(?:this|previous|last|next) (?:session|round)\b"
    r"|\bre-read\b|\breview pass\b",
    re.IGNORECASE,
)


def user_pages(root: Path) -> list[Path]:
    """The README, the results and every hand-written page and gallery example."""
    docs = root / "docs"
    written = [
        p
        for p in docs.rglob("*.rst")
        if not {"_build", "generated", "auto_examples"} & set(p.relative_to(docs).parts)
    ]
    pages = [root / "README.md", root / "RESULTS.md", *written, *(root / "examples").glob("*.py")]
    return [p for p in pages if p.exists()]


def internal_words(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [
        f"{path.name}:{number}: {match.group(0)!r}"
        for number, line in enumerate(lines, 1)
        for match in INTERNAL.finditer(line)
    ]


def test_no_user_page_names_an_issue_or_the_work_rounds():
    pages = user_pages(ROOT)
    assert len(pages) > 20  # the README, the results, the guide and the gallery
    found = [hit for page in pages for hit in internal_words(page)]
    assert not found, found


@pytest.mark.parametrize(
    "line",
    [
        "Fixed in issue 33.",
        "see #123 for the history",
        "As this round measured",
        "after the re-read",
    ],
)
def test_the_check_sees_internal_words(tmp_path, line):
    page = tmp_path / "page.rst"
    page.write_text(f"Title\n=====\n\n{line}\n", encoding="utf-8")
    assert internal_words(page)


def test_the_check_leaves_ordinary_words_alone(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text(
        "An onnxruntime session; chat sessions; colours #fff and #888888; issue a request.\n"
    )
    assert not internal_words(page)
