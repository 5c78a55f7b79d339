import dataclasses
import hashlib
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from skattn import datasets
from skattn.datasets import (
    RemoteFile,
    decoded_lines,
    fetch_goemotions,
    fetch_movie_reviews,
    fetch_nps_chat,
    fetch_product_reviews,
    fetch_sentence_polarity,
    fetch_sick,
    fetch_trec,
    get_data_home,
)


def test_sentence_polarity_is_balanced_and_decoded():
    bunch = fetch_sentence_polarity(download_if_missing=False)
    assert len(bunch.data) == 10662 and bunch.target_names == ["neg", "pos"]
    assert (bunch.target == "pos").sum() == 5331
    assert all(isinstance(d, str) and d for d in bunch.data)
    assert "sentence polarity" in bunch.DESCR.lower()


#: What UTF-8 text looks like when it was decoded as Latin-1 or cp1252 (é, è, and the
#: first two bytes of a curly quote or dash).
MOJIBAKE = ("Ã©", "Ã¨", "â€")


def _texts(X) -> list[str]:
    """Every text of a loader's documents (pairs give both texts)."""
    return [text for x in X for text in ((x,) if isinstance(x, str) else x)]


@pytest.mark.parametrize(
    "fetch",
    [
        fetch_sentence_polarity,
        fetch_movie_reviews,
        lambda **kw: fetch_trec(subset="all", **kw),
        fetch_nps_chat,
        fetch_product_reviews,
        lambda **kw: fetch_sick(subset="all", **kw),
        lambda **kw: fetch_goemotions(subset="all", **kw),
    ],
    ids=[
        "sentence_polarity",
        "movie_reviews",
        "trec",
        "nps_chat",
        "product_reviews",
        "sick",
        "goemotions",
    ],
)
def test_no_bundled_corpus_reads_as_mojibake(fetch):
    X, _ = fetch(return_X_y=True, download_if_missing=False)
    garbled = [text for text in _texts(X) if any(seq in text for seq in MOJIBAKE)]
    assert not garbled, f"{len(garbled)} texts hold mojibake, e.g. {garbled[:2]}"


def test_sentence_polarity_reads_its_utf8_lines_as_utf8():
    X = fetch_sentence_polarity(download_if_missing=False).data
    assert "the action clichés just pile up ." in X
    assert sum("é" in text for text in X) > 50


def test_lines_that_are_not_utf8_fall_back_to_latin1_one_by_one():
    raw = "café\n".encode() + "naïve\r\n".encode("latin-1") + b"a\x85b"
    assert decoded_lines(raw) == ["café", "naïve", "a\x85b"]


def test_movie_reviews_keep_sentence_boundaries():
    X, y = fetch_movie_reviews(return_X_y=True, download_if_missing=False)
    assert len(X) == 2000 and sorted(set(y)) == ["neg", "pos"]
    assert np.mean([d.count("\n") for d in X]) > 20  # ~33 sentences per review


def test_trec_coarse_and_fine_labels():
    train = fetch_trec(subset="train", download_if_missing=False)
    test = fetch_trec(subset="test", fine=True, download_if_missing=False)
    assert len(train.data) == 5452 and len(test.data) == 500
    assert train.target_names == ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]
    assert all(f.startswith(c + ":") for c, f in zip(test.target_coarse, test.target))
    assert len(set(train.target_fine)) in range(40, 51)


def test_data_home_order_argument_then_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SKATTN_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    assert get_data_home("/elsewhere") == Path("/elsewhere")
    monkeypatch.delenv("SKATTN_DATA")
    assert get_data_home() == Path.home() / "skattn_data"


def _local_remote(monkeypatch, sha256=None):
    source = Path(os.environ["SKATTN_DATA"]) / "qc.zip"
    digest = sha256 or hashlib.sha256(source.read_bytes()).hexdigest()
    monkeypatch.setitem(datasets.REMOTE_FILES, "qc", RemoteFile("qc.zip", source.as_uri(), digest))


def test_missing_file_downloads_with_checksum(monkeypatch, tmp_path):
    _local_remote(monkeypatch)
    X, y = fetch_trec(data_home=tmp_path, return_X_y=True)
    assert (tmp_path / "qc.zip").exists() and len(X) == 5452
    assert not list(tmp_path.glob("*.part"))


def test_checksum_mismatch_leaves_nothing_behind(monkeypatch, tmp_path):
    _local_remote(monkeypatch, sha256="0" * 64)
    with pytest.raises(OSError, match="Checksum mismatch"):
        fetch_trec(data_home=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_download_names_the_source_and_the_way_out_and_leaves_no_folder(
    monkeypatch, tmp_path
):
    missing = (tmp_path / "nowhere" / "qc.zip").as_uri()  # urllib fails to open it
    monkeypatch.setitem(datasets.REMOTE_FILES, "qc", RemoteFile("qc.zip", missing, "0" * 64))
    home = tmp_path / "mistyped" / "data"
    said = r"could not download file:.*qc\.zip.*SKATTN_DATA.*a folder that holds qc\.zip"
    with pytest.raises(OSError, match=said):
        fetch_trec(data_home=home)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_missing_file_without_download_names_path_and_source(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"qc\.zip does not exist.*download_if_missing"):
        fetch_trec(data_home=tmp_path, download_if_missing=False)


def test_nps_chat_real_file_posts_and_dialogue_acts():
    bunch = fetch_nps_chat(download_if_missing=False)
    assert len(bunch.data) == 10567 and len(bunch.target_names) == 15
    assert bunch.target_names == sorted(set(bunch.target))
    counts = dict(zip(*np.unique(bunch.target, return_counts=True)))
    assert counts["Statement"] == 3185 and counts["System"] == 2632 and counts["Other"] == 35
    assert min(counts.values()) == 35  # stratified K-fold works up to K = 35
    assert all(isinstance(d, str) and d == d.strip() for d in bunch.data)
    # Grouped by session (15 files, in name order), posts in time order.
    assert bunch.sessions[0] == "10-19-20s_706posts" and len(set(bunch.sessions)) == 15
    assert list(bunch.sessions) == sorted(bunch.sessions)
    assert bunch.data[:2] == ["now im left with this gay name", ":P"]
    assert bunch.users[0] == "10-19-20sUser7"
    assert "NPS Chat Corpus" in bunch.DESCR


def _chat_zip(folder):
    """A small nps_chat.zip in nltk_data layout: two sessions, XML posts with POS tags."""

    def session(posts):
        body = "".join(
            f'<Post class="{act}" user="{user}">{text}<terminals><t pos="UH" word="x"/>'
            "</terminals></Post>"
            for act, user, text in posts
        )
        return f'<?xml version="1.0"?><Session><Posts>{body}</Posts></Session>'

    path = Path(folder) / "nps_chat.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("nps_chat/", "")
        # Written out of order: the reader sorts the sessions by name.
        archive.writestr(
            "nps_chat/11-09-teens_2posts.xml",
            session([("Greet", "u3", "hi all"), ("Bye", "u3", "bye &amp; later")]),
        )
        archive.writestr(
            "nps_chat/10-19-20s_3posts.xml",
            session(
                [
                    ("Statement", "u1", "  lol ok  "),
                    ("whQuestion", "u2", "who?"),
                    ("System", "u1", ""),
                ]
            ),
        )
        archive.writestr("nps_chat/README.txt", "NPS Chat Corpus, a small copy")
        archive.writestr("nps_chat/postClassPOSTagset.xsd", "<schema/>")
    return path


def test_nps_chat_from_a_local_zip_in_nltk_layout(tmp_path):
    _chat_zip(tmp_path)
    bunch = fetch_nps_chat(data_home=tmp_path, download_if_missing=False)
    assert bunch.data == ["lol ok", "who?", "", "hi all", "bye & later"]
    assert bunch.target.tolist() == ["Statement", "whQuestion", "System", "Greet", "Bye"]
    assert bunch.target_names == ["Bye", "Greet", "Statement", "System", "whQuestion"]
    assert bunch.sessions.tolist() == ["10-19-20s_3posts"] * 3 + ["11-09-teens_2posts"] * 2
    assert bunch.users.tolist() == ["u1", "u2", "u1", "u3", "u3"]
    X, y = fetch_nps_chat(data_home=tmp_path, download_if_missing=False, return_X_y=True)
    assert X == bunch.data and y.tolist() == bunch.target.tolist()


def test_nps_chat_download_is_checked_against_its_checksum(monkeypatch, tmp_path):
    remote = datasets.REMOTE_FILES["nps_chat"]
    assert remote.url.endswith("/nltk_data/gh-pages/packages/corpora/nps_chat.zip")
    assert remote.sha256 == "a4433d5da5e62fdbede49efa572a53a0139fff1014ffbe86cb263e17cbb4a837"
    (tmp_path / "source").mkdir()
    source = _chat_zip(tmp_path / "source")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    local = RemoteFile("nps_chat.zip", source.as_uri(), digest)
    monkeypatch.setitem(datasets.REMOTE_FILES, "nps_chat", local)
    home = tmp_path / "home"
    assert len(fetch_nps_chat(data_home=home).data) == 5
    assert (home / "nps_chat.zip").read_bytes() == source.read_bytes()
    (home / "nps_chat.zip").unlink()
    monkeypatch.setitem(
        datasets.REMOTE_FILES, "nps_chat", dataclasses.replace(local, sha256="0" * 64)
    )
    with pytest.raises(OSError, match="Checksum mismatch"):
        fetch_nps_chat(data_home=home)
    assert list(home.iterdir()) == []


def test_sick_subsets_pairs_judgments_and_scores():
    sizes = {"train": 4500, "trial": 500, "test": 4927}
    for subset, size in sizes.items():
        bunch = fetch_sick(subset=subset, download_if_missing=False)
        assert len(bunch.data) == size
        assert all(isinstance(pair, tuple) and len(pair) == 2 for pair in bunch.data)
        assert set(bunch.target) == set(bunch.target_names)
        assert 1.0 <= bunch.relatedness.min() and bunch.relatedness.max() <= 5.0
    test = fetch_sick(subset="test", download_if_missing=False)
    # The first test pair as the released file has it (pair 6).
    assert test.pair_ids[0] == 6
    assert test.data[0][0] == "There is no boy playing outdoors and there is no man smiling"
    assert test.entailment[0] == "NEUTRAL" and test.relatedness[0] == 3.3
    X, y = fetch_sick(
        subset="all", target="relatedness", download_if_missing=False, return_X_y=True
    )
    assert len(X) == sum(sizes.values()) and y.dtype == np.float64


def test_sick_download_is_checked_against_its_checksum(monkeypatch, tmp_path):
    remote = datasets.REMOTE_FILES["sick_trial"]
    assert remote.sha256 == "5a88cfb62f8c6bd2a3cce0f2421ba2cb8c2be5ab4a800f6f01e2c64aafb7db56"
    source = tmp_path / "SICK_trial.txt"
    source.write_text(
        "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment\n"
        "1\tA man sings\tA person sings\t4.5\tENTAILMENT\n",
        encoding="utf-8",
    )
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    local = RemoteFile("sick/SICK_trial.txt", source.as_uri(), digest)
    monkeypatch.setitem(datasets.REMOTE_FILES, "sick_trial", local)
    home = tmp_path / "home"
    bunch = fetch_sick(subset="trial", data_home=home)
    assert bunch.data == [("A man sings", "A person sings")] and bunch.target == ["ENTAILMENT"]
    assert (home / "sick" / "SICK_trial.txt").exists()
    with pytest.raises(ValueError, match="subset must be"):
        fetch_sick(subset="dev", data_home=home)


def test_goemotions_splits_labels_and_quoted_comments():
    sizes = {"train": 43410, "dev": 5426, "test": 5427}
    for subset, size in sizes.items():
        bunch = fetch_goemotions(subset=subset, download_if_missing=False)
        assert len(bunch.data) == size and bunch.target.shape == (size, 28)
        assert bunch.target.dtype == np.int64 and set(np.unique(bunch.target)) == {0, 1}
        assert (bunch.target.sum(axis=1) >= 1).all()  # every comment has a label
    train = fetch_goemotions(download_if_missing=False)
    assert train.target_names[0] == "admiration" and train.target_names[-1] == "neutral"
    # The counts the dataset card gives for the training split.
    counts = dict(zip(train.target_names, train.target.sum(axis=0).tolist()))
    assert counts["grief"] == 77 and counts["neutral"] == 14219
    assert 0.15 < (train.target.sum(axis=1) >= 2).mean() < 0.17
    # The first training comment, and a CSV-quoted one read without its quotes.
    assert train.data[0] == "My favourite food is anything I didn't have to cook myself."
    assert train.comment_ids[0] == "eebbqej" and train.target[0].nonzero()[0].tolist() == [27]
    quoted = train.data[list(train.comment_ids).index("eetq9g0")]
    assert quoted == 'Three words, no subtlety. "Dude. Stop. Seriously." '
    X, Y = fetch_goemotions(subset="all", download_if_missing=False, return_X_y=True)
    assert len(X) == sum(sizes.values()) == len(Y)


def test_goemotions_download_is_checked_against_its_checksum(monkeypatch, tmp_path):
    files = {
        "dev": 'A "quoted" comment\t15,17\tc1\nPlain one\t27\tc2\n',
        "emotions": "\n".join(f"label{j}" for j in range(28)) + "\n",
    }
    for part, text in files.items():
        source = tmp_path / f"{part}.src"
        source.write_text(text, encoding="utf-8")
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        name = datasets.REMOTE_FILES[f"goemotions_{part}"].filename
        monkeypatch.setitem(
            datasets.REMOTE_FILES, f"goemotions_{part}", RemoteFile(name, source.as_uri(), digest)
        )
    home = tmp_path / "home"
    bunch = fetch_goemotions(subset="dev", data_home=home)
    assert bunch.data == ['A "quoted" comment', "Plain one"]
    assert bunch.target[0].nonzero()[0].tolist() == [15, 17] and bunch.target[1, 27] == 1
    assert (home / "goemotions" / "dev.tsv").exists()
    with pytest.raises(ValueError, match="subset must be"):
        fetch_goemotions(subset="validation", data_home=home)
