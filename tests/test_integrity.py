"""Files that cannot lie, writers that cannot half-write, CSV of any length, bounded caches."""

import ast
import csv
import json
import zipfile
from pathlib import Path

import pytest

from skattn.compare._io import read_table
from skattn.text import DocumentFile, iter_documents
from skattn.utils._archives import (
    ArchiveError,
    atomic_write,
    read_archive,
    read_legacy_archive,
    refuse_same_file,
    write_archive,
)

from _common import declare_size, flip_member_byte, members, write_members

PACKAGE = Path(__file__).resolve().parents[1] / "skattn"
CONTENTS = {"config.json": b'{"a": 1}', "model.onnx": bytes(range(256)) * 40}


def test_an_archive_round_trips_and_each_damage_names_its_member(tmp_path):
    path = write_archive(tmp_path / "a.zip", CONTENTS)
    assert read_archive(path, list(CONTENTS)) == CONTENTS
    damaged = members(path)
    flip_member_byte(damaged, "model.onnx")
    write_members(tmp_path / "flipped.zip", damaged)
    with pytest.raises(ArchiveError, match="model.onnx: its bytes do not match") as refused:
        read_archive(tmp_path / "flipped.zip", list(CONTENTS))
    assert refused.value.member == "model.onnx"
    write_members(tmp_path / "extra.zip", {**members(path), "extra.txt": b""})
    with pytest.raises(ArchiveError, match="extra.txt: in the archive, but not a member"):
        read_archive(tmp_path / "extra.zip", list(CONTENTS))
    with pytest.raises(ArchiveError, match="other.json: missing from the archive"):
        read_archive(path, [*CONTENTS, "other.json"])


def test_a_member_twice_is_refused(tmp_path):
    path = tmp_path / "twice.zip"
    with zipfile.ZipFile(path, "w") as archive, pytest.warns(UserWarning, match="Duplicate"):
        archive.writestr("config.json", b"{}")
        archive.writestr("config.json", b'{"b": 2}')
    with pytest.raises(ArchiveError, match="config.json: appears twice"):
        read_legacy_archive(path, ["config.json"])


def test_declared_sizes_are_checked_before_decompression(tmp_path):
    path = write_archive(tmp_path / "a.zip", CONTENTS)
    declare_size(path, "model.onnx", 3 * 2**30)
    with pytest.raises(ArchiveError, match="declares 3221225472 bytes, the manifest 10240"):
        read_archive(path, list(CONTENTS))
    legacy = tmp_path / "legacy.zip"
    write_members(legacy, CONTENTS)
    declare_size(legacy, "model.onnx", 2**31)
    with pytest.raises(ArchiveError, match="over the limit of 1073741824"):
        read_legacy_archive(legacy, list(CONTENTS))


def test_a_writer_that_fails_leaves_the_previous_file_as_it_was(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("what was there", encoding="utf-8")
    with pytest.raises(RuntimeError, match="half-way"), atomic_write(path) as handle:
        handle.write("half of the new")
        raise RuntimeError("half-way")
    assert path.read_text(encoding="utf-8") == "what was there"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with atomic_write(path) as handle:
        handle.write("new")
    assert path.read_text(encoding="utf-8") == "new"


def test_explanations_are_written_atomically(tmp_path, monkeypatch):
    from skattn.explain import Explanations

    page = tmp_path / "page.html"
    page.write_text("the old page", encoding="utf-8")
    explanations = Explanations([])
    monkeypatch.setattr(Explanations, "to_html", lambda self: "<p>new</p>")
    assert explanations.save_html(page).read_text(encoding="utf-8") == "<p>new</p>"
    monkeypatch.setattr(Explanations, "to_html", lambda self: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        explanations.save_html(page)
    assert page.read_text(encoding="utf-8") == "<p>new</p>"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    model = tmp_path / "m.skattn"
    model.write_bytes(b"model")
    refuse_same_file(tmp_path / "out.csv", model=model, input=None)
    with pytest.raises(ValueError, match="is the model it reads"):
        refuse_same_file(tmp_path / "." / "m.skattn", model=model)
    (tmp_path / "link").symlink_to(model)
    with pytest.raises(ValueError, match="is the input it reads"):
        refuse_same_file(tmp_path / "link", input=model)


LONG = "a" * 200_000


def test_a_csv_field_of_200000_characters_is_read(tmp_path):
    path = tmp_path / "long.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerows([["text", "label"], [LONG, "pos"], ["short", "neg"]])
    limit = csv.field_size_limit()
    assert list(iter_documents(path)) == [LONG, "short"]
    assert DocumentFile(path).column("label") == ["pos", "neg"]
    corpus = read_table(path)
    assert corpus.X == [LONG, "short"] and corpus.y.tolist() == ["pos", "neg"]
    assert csv.field_size_limit() == limit  # put back once the readers are done


def test_malformed_csv_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_text('text,label\ngood,pos\n"unterminated,neg\nmore,pos\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken.csv: line \d+: unexpected end of data"):
        list(iter_documents(path))
    with pytest.raises(ValueError, match="broken.csv"):
        read_table(path)


def _cache_decorators(tree: ast.AST):
    """Every decorator of the package's functions that caches: (name, maxsize or "unbounded")."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            text = ast.unparse(decorator)
            if "cache" not in text:
                continue
            bounded = isinstance(decorator, ast.Call) and any(
                keyword.arg == "maxsize" and ast.unparse(keyword.value) != "None"
                for keyword in decorator.keywords
            )
            yield node.name, text, bounded


def test_every_cache_of_the_package_has_a_size_limit():
    found = []
    for source in PACKAGE.rglob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        found += [(source.name, *entry) for entry in _cache_decorators(tree)]
    assert found, "the scan finds the package's caches"
    unbounded = [entry for entry in found if not entry[-1]]
    assert unbounded == []
    from skattn.training._net import fused_optimizer_works

    assert fused_optimizer_works.cache_info().maxsize is not None


def test_manifest_records_every_member(tmp_path):
    path = write_archive(tmp_path / "a.zip", CONTENTS)
    manifest = json.loads(members(path)["manifest.json"])
    assert sorted(manifest["members"]) == sorted(CONTENTS)
    assert [m["size"] for m in manifest["members"].values()] == [len(v) for v in CONTENTS.values()]
