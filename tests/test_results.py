"""RESULTS.md reads as the current state by topic, for a user.

No issue numbers and no words about how the work was organised; every
``##`` topic has a command block, and every table comes after a command
block of its own section (``###`` if it has one, else ``##``). A command
block is a fenced block with an info string (```` ```sh ````,
```` ```python ````, ```` ```text ```` for a script that is not shipped);
a bare fence (a command's printed output) does not count. Each check is
shown to fail on a small file written to ``tmp_path``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "RESULTS.md"

#: Words about how the work was organised (whole words, any case).
ORGANISATION_WORDS = (
    "issue",
    "issues",
    "session",
    "sessions",
    "round",
    "rounds",
    "re-read",
    "review pass",
    "helper",
    "helpers",
    "lead",
    "brief",
    "briefs",
)
ISSUE_NUMBER = re.compile(r"\bissues?\s+#?\d+|(?<![\w#&])#\d+\b", re.IGNORECASE)
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)\s*(\S*)")
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
TABLE_ROW = re.compile(r"^\s{0,3}\|")
DELIMITER_ROW = re.compile(r"^\s{0,3}\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def issue_numbers(text: str) -> list[str]:
    """Every issue number in ``text`` ("issue 12", "issues 3", "#12")."""
    return [match.group(0) for match in ISSUE_NUMBER.finditer(text)]


def organisation_words(text: str) -> list[str]:
    """Every organisation word in ``text``, as written."""
    found = []
    for word in ORGANISATION_WORDS:
        pattern = r"(?<![\w-])" + re.escape(word).replace(r"\ ", r"\s+") + r"(?![\w-])"
        found += [m.group(0) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return found


def events(text: str) -> list[tuple[str, int, str]]:
    """Headings, command blocks and tables in order: (kind, line number, detail).

    Lines inside fenced blocks are neither headings nor tables.
    """
    lines = text.split("\n")
    found: list[tuple[str, int, str]] = []
    fence = None
    for number, line in enumerate(lines, 1):
        match = FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            if match.group(2):
                found.append(("command", number, match.group(2)))
            continue
        heading = HEADING.match(line)
        if heading:
            found.append((f"h{len(heading.group(1))}", number, heading.group(2)))
        elif (
            TABLE_ROW.match(line)
            and number < len(lines)
            and DELIMITER_ROW.match(lines[number])
            and not (number > 1 and TABLE_ROW.match(lines[number - 2]))
        ):
            found.append(("table", number, line.strip()))
    return found


def structure_problems(text: str) -> list[str]:
    """What breaks "every topic has a command, every table follows one"."""
    problems = []
    topics: dict[str, int] = {}
    topic = None
    section_has_command = False
    for kind, number, detail in events(text):
        if kind == "h2":
            topic = detail
            topics[topic] = 0
            section_has_command = False
        elif kind in ("h3", "h4", "h5", "h6"):
            section_has_command = False
        elif kind == "command":
            section_has_command = True
            if topic is not None:
                topics[topic] += 1
        elif kind == "table" and not section_has_command:
            problems.append(f"line {number}: a table with no command before it in its section")
        elif kind == "table" and topic is None:
            problems.append(f"line {number}: a table before the first topic")
    if not topics:
        problems.append("no '##' topic section")
    problems += [f"topic {name!r} has no command block" for name, n in topics.items() if not n]
    return problems


def test_results_name_no_issue_numbers() -> None:
    assert issue_numbers(RESULTS.read_text(encoding="utf-8")) == []


def test_results_use_no_words_about_how_the_work_was_organised() -> None:
    assert organisation_words(RESULTS.read_text(encoding="utf-8")) == []


def test_results_topics_have_commands_and_every_table_follows_one() -> None:
    assert structure_problems(RESULTS.read_text(encoding="utf-8")) == []


def test_results_have_one_title_and_the_page_adds_none() -> None:
    titles = [e for e in events(RESULTS.read_text(encoding="utf-8")) if e[0] == "h1"]
    assert len(titles) == 1
    page = (ROOT / "docs" / "results.rst").read_text(encoding="utf-8")
    assert ".. include:: ../RESULTS.md" in page
    assert ":parser: myst_parser.sphinx_" in page
    assert not re.search(r"^(=+|-+|~+|\*+)\s*$", page, re.MULTILINE), "the page has an rst title"


GOOD = """# Results

**Machine.** 2 cores.

## Speed

```sh
python benchmarks/run.py
```

| a | b |
|---|---|
| 1 | 2 |

### Threads

```text
a script not in the repository
```

| a | b |
|---|---|
| 1 | 2 |
"""


@pytest.fixture
def write(tmp_path):
    def write(text: str) -> str:
        path = tmp_path / "RESULTS.md"
        path.write_text(text, encoding="utf-8")
        return path.read_text(encoding="utf-8")

    return write


def test_results_checks_pass_a_good_file(write) -> None:
    text = write(GOOD)
    assert issue_numbers(text) == []
    assert organisation_words(text) == []
    assert structure_problems(text) == []


@pytest.mark.parametrize(
    "line", ["Fixed in issue 12.", "See issues 3 and 4.", "(#12)", "Issue #7 moved it."]
)
def test_results_issue_number_check_fails(write, line) -> None:
    assert issue_numbers(write(GOOD + "\n" + line + "\n"))


@pytest.mark.parametrize(
    "line",
    [
        "Measured this session.",
        "After the re-read.",
        "The previous Round's figure.",
        "After the review  pass.",
        "The lead merged it.",
        "As the brief asked.",
        "A helper ran it.",
    ],
)
def test_results_organisation_word_check_fails(write, line) -> None:
    assert organisation_words(write(GOOD + "\n" + line + "\n"))


@pytest.mark.parametrize("line", ["Around 5 s.", "Rounded to 2 digits.", "Misleading."])
def test_results_organisation_words_are_whole_words(write, line) -> None:
    assert organisation_words(write(GOOD + "\n" + line + "\n")) == []


def test_results_a_table_without_a_command_in_its_section_fails(write) -> None:
    text = write(GOOD + "\n### Memory\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert structure_problems(text) == ["line 27: a table with no command before it in its section"]


def test_results_a_table_after_printed_output_only_fails(write) -> None:
    text = write(GOOD + "\n### Memory\n\n```\nfit: 3 s\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert len(structure_problems(text)) == 1


def test_results_a_topic_without_a_command_fails(write) -> None:
    text = write(GOOD + "\n## Serving\n\nNo command here.\n")
    assert structure_problems(text) == ["topic 'Serving' has no command block"]


def test_results_a_file_without_topics_fails(write) -> None:
    assert structure_problems(write("# Results\n\nNothing.\n")) == ["no '##' topic section"]


def test_results_headings_inside_code_are_not_headings(write) -> None:
    text = write(GOOD + "\n```python\n## not a topic\n| a | b |\n|---|---|\n```\n")
    assert structure_problems(text) == []
