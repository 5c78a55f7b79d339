"""The one reader of document files: its formats, and one test per error it reports."""

import csv
import json
import pickle
import tracemalloc
from pathlib import Path

import pytest

import skattn.text
from skattn.compare import load_dataset, read_documents, read_table
from skattn.datasets import fetch_goemotions, fetch_sick
from skattn.text import DocumentFile, DocumentFileError, iter_documents
from skattn.text import read_documents as text_read_documents
from skattn.text._readers import FORMATS, read_records


def _write(path: Path, content) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def _real_sentences(count: int) -> list[str]:
    """Real captions from SICK, for files of real text."""
    X, _ = fetch_sick(subset="trial", return_X_y=True)
    return [a for a, _ in X[:count]]


# -- formats -------------------------------------------------------------------


def test_a_utf8_byte_order_mark_does_not_break_the_header(tmp_path):
    texts = _real_sentences(3)
    rows = "".join(f"{t},{i}\n" for i, t in enumerate(texts))
    for suffix, content in [
        (".csv", "text,label\n" + rows),
        (".jsonl", "".join(json.dumps({"text": t}) + "\n" for t in texts)),
        (".txt", "".join(t + "\n" for t in texts)),
        (".json", json.dumps(texts)),
    ]:
        path = _write(tmp_path / f"bom{suffix}", b"\xef\xbb\xbf" + content.encode("utf-8"))
        assert list(text_read_documents(path)) == texts, suffix
    assert read_table(tmp_path / "bom.csv").y.tolist() == ["0", "1", "2"]


def test_a_field_over_the_csv_modules_limit_is_read(tmp_path):
    limit = csv.field_size_limit()
    long = " ".join(_real_sentences(5)) * (2 * limit // 200)
    assert len(long) > 131_072
    for suffix, delimiter in [(".csv", ","), (".tsv", "\t")]:
        path = tmp_path / f"long{suffix}"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, delimiter=delimiter).writerows([["text", "label"], [long, "a"]])
        assert list(text_read_documents(path)) == [long]
        assert [r["label"] for r in read_records(path, columns=["label"])] == ["a"]
    assert csv.field_size_limit() == limit  # put back once the readers are done


def test_a_malformed_json_lines_line_names_the_file_and_its_line(tmp_path):
    # Blank lines count as lines: the broken record is on line 5, the 3rd record.
    path = _write(tmp_path / "docs.jsonl", '{"text": "a"}\n\n{"text": "b"}\n\n{"text": "c"\n')
    expected = r"docs\.jsonl: line 5: expected a JSON object, "
    with pytest.raises(DocumentFileError, match=expected) as e:
        list(text_read_documents(path))
    assert e.value.line == 5 and e.value.path == str(path)


def test_a_json_lines_line_that_is_not_an_object_is_named(tmp_path):
    for value, kind in [("[1, 2]", "an array"), ('"just text"', "a string"), ("3", "a number")]:
        path = _write(tmp_path / "docs.jsonl", '{"text": "a"}\n' + value + "\n")
        with pytest.raises(DocumentFileError, match=rf"line 2: expected a JSON object .*{kind}"):
            list(text_read_documents(path))


def test_bytes_that_are_not_utf8_name_the_file_the_line_and_the_byte(tmp_path):
    latin = "naïve café".encode("latin-1")  # "ï" is byte 0xef, the 3rd character
    cases = [(".txt", b"fine\nstill fine\n", 3), (".csv", b'text\nfine\n"two\nlines"\n', 5)]
    for suffix, head, line in cases:
        path = _write(tmp_path / f"latin{suffix}", head + latin + b"\n")
        expected = rf"latin\{suffix}: line {line}: byte 0xef \(column 3\) is not UTF-8"
        with pytest.raises(DocumentFileError, match=expected):
            list(text_read_documents(path))
    # Past the first block the file is decoded in: still the right line.
    path = _write(tmp_path / "late.txt", b"line\n" * 20_000 + latin + b"\n")
    with pytest.raises(DocumentFileError, match="line 20001: byte 0xef"):
        list(text_read_documents(path))


def test_a_missing_column_names_the_columns_present(tmp_path):
    csv_path = _write(tmp_path / "d.csv", "body,label\ngood,pos\n")
    with pytest.raises(
        DocumentFileError,
        match=r"line 1: the header has no column 'text'; its columns are "
        r"\['body', 'label'\]",
    ):
        list(text_read_documents(csv_path))
    jsonl = _write(tmp_path / "d.jsonl", '{"text": "a"}\n{"body": "b", "id": 2}\n')
    with pytest.raises(
        DocumentFileError, match=r"line 2: has no column 'text'; its columns are \['body', 'id'\]"
    ):
        list(text_read_documents(jsonl))
    with pytest.raises(DocumentFileError, match="has no column 'tag'; its columns are"):
        read_table(csv_path, text_column="body", label_column="tag")


def test_a_tsv_file_is_read_as_tsv(tmp_path):
    texts = ["good, even great", 'a "quoted" word', "tab\tinside", ""]
    path = tmp_path / "d.tsv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(["id", "text", "label"])
        writer.writerows([i, t, "pos"] for i, t in enumerate(texts))
    assert list(text_read_documents(path)) == texts
    assert read_table(path).y.tolist() == ["pos"] * 4
    assert list(text_read_documents(path, format="lines"))[0] == "id\ttext\tlabel"


def test_a_json_array_of_strings_or_objects(tmp_path):
    texts = _real_sentences(3) + [""]
    strings = _write(tmp_path / "s.json", json.dumps(texts, indent=1))
    assert list(text_read_documents(strings)) == texts
    objects = [{"text": t, "label": i} for i, t in enumerate(texts)]
    path = _write(tmp_path / "o.json", json.dumps(objects, indent=1))
    assert list(text_read_documents(path)) == texts
    assert read_table(path).y.tolist() == [0, 1, 2, 3]
    # An element that is neither, an object at the top: their line and what was expected.
    _write(path, '[\n  "one",\n  {"text": "two"},\n  3\n]\n')
    with pytest.raises(DocumentFileError, match=r"o\.json: line 4: expected a string or an object"):
        list(text_read_documents(path))
    _write(path, '{"text": ["one", "two"]}')
    with pytest.raises(DocumentFileError, match=r"line 1: expected a JSON array \('\['\)"):
        list(text_read_documents(path))
    _write(path, '[\n  "one",\n  "two" "three"\n]')
    with pytest.raises(DocumentFileError, match="line 3: expected ',' or ']'"):
        list(text_read_documents(path))
    with pytest.raises(DocumentFileError, match="expected a JSON object, found a string"):
        list(read_records(strings))


def test_an_unknown_extension_lists_the_formats(tmp_path):
    path = _write(tmp_path / "notes.md", "one\ntwo\n")
    with pytest.raises(DocumentFileError, match=r"notes\.md: cannot tell its format.*'\.md'") as e:
        text_read_documents(path)  # raised at the call, before any reading
    assert all(repr(fmt) in str(e.value) for fmt in FORMATS)
    assert list(text_read_documents(path, format="lines")) == ["one", "two"]
    with pytest.raises(ValueError, match="format must be one of"):
        text_read_documents(path, format="xlsx")
    with pytest.raises(DocumentFileError, match="cannot tell its format"):
        DocumentFile(path)
    assert list(DocumentFile(path, format="lines")) == ["one", "two"]
    with pytest.raises(ValueError, match=r"or a file with one of the extensions \['\.csv'"):
        load_dataset(str(path))


def test_the_line_of_an_error_after_a_record_over_several_lines(tmp_path):
    content = 'text,label\n"one\nrecord",pos\n"two\n\nblank-lined",neg\n"never closed,pos\nx,neg\n'
    path = _write(tmp_path / "multi.csv", content)
    with pytest.raises(DocumentFileError, match=r"multi\.csv: line 7: unexpected end of data"):
        list(text_read_documents(path))
    _write(path, 'text,label\n"one\nrecord",pos\n"two\nlines",neg,extra\n')
    with pytest.raises(DocumentFileError, match=r"line 4: expected 2 fields .*found 3"):
        list(text_read_documents(path))
    _write(path, 'text,label\n"one\nrecord",pos\n"two\nlines",neg\n')
    assert list(text_read_documents(path)) == ["one\nrecord", "two\nlines"]


def test_blank_documents_are_data(tmp_path):
    lines = _write(tmp_path / "d.txt", "a\n\n  \nb\n")
    assert list(text_read_documents(lines)) == ["a", "", "  ", "b"]
    one_column = _write(tmp_path / "d.csv", 'text\na\n\n""\nb\n')
    assert list(text_read_documents(one_column)) == ["a", "", "", "b"]
    jsonl = _write(tmp_path / "d.jsonl", '{"text": ""}\n{"text": " "}\n')
    assert list(text_read_documents(jsonl)) == ["", " "]
    # In a table of several columns a blank line holds no record; "" fields are kept.
    table = _write(tmp_path / "t.csv", "text,label\n,pos\n\nb,neg\n")
    assert read_table(table).X == ["", "b"]


def test_a_text_that_is_not_a_string_and_a_repeated_column_are_errors(tmp_path):
    path = _write(tmp_path / "d.jsonl", '{"text": "a"}\n{"text": null}\n')
    with pytest.raises(DocumentFileError, match="line 2: 'text' is None, expected a string"):
        list(text_read_documents(path))
    path = _write(tmp_path / "d.csv", "text,label,text\na,b,c\n")
    with pytest.raises(DocumentFileError, match="line 1: the header names the column 'text' twice"):
        list(text_read_documents(path))


def test_files_are_read_a_record_at_a_time(tmp_path):
    sentences = _real_sentences(50)
    path = tmp_path / "big.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "label"])
        writer.writerows([sentences[i % 50], i % 2] for i in range(40_000))
    _write(path.with_suffix(".broken"), path.read_text(encoding="utf-8") + '"open,1\n')
    documents = text_read_documents(path.with_suffix(".broken"), format="csv")
    assert next(documents) == sentences[0]  # the error at the end is not read yet
    tracemalloc.start()
    try:
        count = sum(1 for _ in text_read_documents(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 40_000
    assert peak < path.stat().st_size / 10, (peak, path.stat().st_size)


def test_the_error_is_public_a_value_error_and_pickles():
    assert "DocumentFileError" in skattn.text.__all__ and "read_documents" in skattn.text.__all__
    error = DocumentFileError("d.csv", 3, "expected 2 fields")
    assert isinstance(error, ValueError) and str(error) == "d.csv: line 3: expected 2 fields"
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.path, copy.line, copy.reason) == (str(error), "d.csv", 3, error.reason)


# -- every surface reads through the one reader ----------------------------------


@pytest.mark.parametrize(
    "name, content, message",
    [
        (
            "d.jsonl",
            '{"text": "a", "label": 1}\n\n[1]\n',
            r"d\.jsonl: line 3: expected a JSON object",
        ),
        ("d.csv", b"text,label\na,1\nb\xff,2\n", r"d\.csv: line 3: byte 0xff \(column 2\)"),
        ("d.tsv", 'text\tlabel\n"a\nb"\t1\n"c\t2\n', r"d\.tsv: line 4: unexpected end of data"),
        ("d.json", '[{"text": "a", "label": 1},\n 7]', r"d\.json: line 2: expected a string or"),
    ],
)
def test_compare_streaming_and_fit_files_give_the_same_error(name, content, message, tmp_path):
    path = _write(tmp_path / name, content)
    surfaces = {
        "skattn.text.read_documents": lambda: list(text_read_documents(path)),
        "iter_documents": lambda: list(iter_documents(path)),
        "DocumentFile": lambda: list(DocumentFile(path)),
        "DocumentFile.column": lambda: DocumentFile(path).column("label"),
        "compare.read_documents": lambda: read_documents(path),
        "compare.read_table": lambda: read_table(path),
        "compare.load_dataset": lambda: load_dataset(str(path)),
    }
    messages = {}
    for surface, read in surfaces.items():
        with pytest.raises(DocumentFileError, match=message) as error:
            read()
        messages[surface] = str(error.value)
    assert len(set(messages.values())) == 1, messages


def test_the_dataset_loaders_read_through_the_one_reader(tmp_path):
    home = tmp_path / "data"
    sick = home / "sick"
    sick.mkdir(parents=True)
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
    _write(sick / "SICK_trial.txt", (header + "1\ta\tb\t4.5\tNEUTRAL\n").encode() + b"2\t\xe9\n")
    with pytest.raises(DocumentFileError, match=r"SICK_trial\.txt: line 3: byte 0xe9"):
        fetch_sick(subset="trial", data_home=home, download_if_missing=False)
    _write(sick / "SICK_trial.txt", header.replace("entailment_judgment", "judgment"))
    with pytest.raises(DocumentFileError, match="has no column 'entailment_judgment'"):
        fetch_sick(subset="trial", data_home=home, download_if_missing=False)
    emotions = home / "goemotions"
    emotions.mkdir()
    _write(emotions / "emotions.txt", "joy\nsadness\n")
    _write(emotions / "dev.tsv", 'fine\t0\tid1\n"never closed\t1\tid2\n')
    with pytest.raises(DocumentFileError, match=r"dev\.tsv: line 2: unexpected end of data"):
        fetch_goemotions(subset="dev", data_home=home, download_if_missing=False)
    _write(emotions / "dev.tsv", "fine\t0\tid1\ttoo many\n")
    with pytest.raises(DocumentFileError, match=r"dev\.tsv: line 1: expected 3 fields"):
        fetch_goemotions(subset="dev", data_home=home, download_if_missing=False)


def test_a_parquet_file_is_a_table_of_rows(tmp_path):
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    texts = _real_sentences(5)
    path = tmp_path / "d.parquet"
    parquet.write_table(pyarrow.table({"text": texts, "label": list(range(5))}), path)
    assert list(text_read_documents(path)) == texts
    assert read_table(path).y.tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(DocumentFileError, match=r"has no column 'body'; its columns are \['text'"):
        list(text_read_documents(path, text_column="body"))
    fake = _write(tmp_path / "fake.parquet", "text\nnot a table\n")
    with pytest.raises(DocumentFileError, match=r"fake\.parquet: expected a Parquet file"):
        list(text_read_documents(fake))
    parquet.write_table(pyarrow.table({"text": ["a", None]}), path)
    with pytest.raises(DocumentFileError, match="row 2: 'text' is None, expected a string"):
        list(text_read_documents(path))
