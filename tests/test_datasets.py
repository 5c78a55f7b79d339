import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from skattn import datasets
from skattn.datasets import (
    RemoteFile,
    fetch_movie_reviews,
    fetch_sentence_polarity,
    fetch_trec,
    get_data_home,
)


def test_sentence_polarity_is_balanced_and_decoded():
    bunch = fetch_sentence_polarity(download_if_missing=False)
    assert len(bunch.data) == 10662 and bunch.target_names == ["neg", "pos"]
    assert (bunch.target == "pos").sum() == 5331
    assert all(isinstance(d, str) and d for d in bunch.data)
    assert "sentence polarity" in bunch.DESCR.lower()


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


def test_missing_file_without_download_names_path_and_source(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"qc\.zip does not exist.*download_if_missing"):
        fetch_trec(data_home=tmp_path, download_if_missing=False)
