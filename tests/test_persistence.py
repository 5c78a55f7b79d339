"""Safe save/load: identical predictions, clear errors on bad files, no pickle."""

import json
import os
import zipfile

import numpy as np
import pytest

from skattn import SelfAttentiveEmbedder, load
from skattn.__main__ import main

from estimators import SMALL_ESTIMATORS, small_self_attentive


@pytest.fixture(scope="module", params=list(SMALL_ESTIMATORS))
def fitted(request, polarity_small):
    X, y = polarity_small
    return SMALL_ESTIMATORS[request.param]().fit(X, np.where(y == "pos", 1, 0))


def test_round_trip_gives_identical_predictions(fitted, polarity_small, tmp_path):
    X, _ = polarity_small
    path = fitted.save(tmp_path / "model.skattn")
    restored = load(path)
    assert type(restored) is type(fitted) and restored.get_params() == fitted.get_params()
    np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
    assert restored.predict(X[:3]).dtype == fitted.classes_.dtype
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not left private by mkstemp
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["metadata.json", "weights.pt"]
        assert json.loads(archive.read("metadata.json"))["format_version"] == 1


def test_embedder_round_trip(polarity_small, tmp_path):
    X, y = polarity_small
    embedder = SelfAttentiveEmbedder(small_self_attentive(), output="mean").fit(X, y)
    restored = load(embedder.save(tmp_path / "embedder.skattn"))
    np.testing.assert_array_equal(restored.transform(X[:20]), embedder.transform(X[:20]))


def test_code_parameters_must_be_supplied_again(polarity_small, tmp_path):
    X, y = polarity_small
    clf = small_self_attentive(tokenizer=str.split, max_epochs=1).fit(X, y)
    path = clf.save(tmp_path / "m.skattn")
    with pytest.raises(ValueError, match=r"\['tokenizer'\].*load\(path, tokenizer=\.\.\.\)"):
        load(path)
    np.testing.assert_array_equal(load(path, tokenizer=str.split).predict(X), clf.predict(X))


@pytest.mark.parametrize(
    "damage",
    ["truncated", "garbage", "foreign_zip", "bad_weights", "future_version", "wrong_shapes"],
)
def test_damaged_files_give_clear_errors(damage, fitted, tmp_path):
    path = fitted.save(tmp_path / "model.skattn")
    raw = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a model at all")
    else:
        with zipfile.ZipFile(path) as archive:
            members = {n: archive.read(n) for n in archive.namelist()}
        metadata = json.loads(members["metadata.json"])
        if damage == "foreign_zip":
            members = {"something.txt": b"hello"}
        elif damage == "bad_weights":
            members["weights.pt"] = b"\x80\x04not torch"
        elif damage == "future_version":
            metadata["format_version"] = 99
        elif damage == "wrong_shapes":
            metadata["tokens"] = metadata["tokens"][:10]
            metadata["token_counts"] = metadata["token_counts"][:10]
        if "metadata.json" in members:
            members["metadata.json"] = json.dumps(metadata).encode()
        with zipfile.ZipFile(path, "w") as archive:
            for name, data in members.items():
                archive.writestr(name, data)
    with pytest.raises(ValueError, match="is not a valid skattn model file"):
        load(path)


def test_failed_save_leaves_the_previous_file_intact(fitted, tmp_path, monkeypatch):
    path = fitted.save(tmp_path / "model.skattn")
    before = path.read_bytes()
    monkeypatch.setattr(json, "dumps", lambda *a, **k: (_ for _ in ()).throw(OSError("disk")))
    with pytest.raises(OSError):
        fitted.save(path)
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1


def test_explain_command_writes_html(fitted, tmp_path, capsys):
    model = fitted.save(tmp_path / "model.skattn")
    output = tmp_path / "page.html"
    assert (
        main(
            [
                "explain",
                str(model),
                "--text",
                "a <b>fine</b> film",
                "--text",
                "dull",
                "--output",
                str(output),
            ]
        )
        == 0
    )
    page = output.read_text(encoding="utf-8")
    assert page.count('class="doc"') == 2 and "&lt;" in page and "<b>fine" not in page
    assert "wrote attention of 2 document(s)" in capsys.readouterr().out


def test_joblib_still_works(fitted, polarity_small, tmp_path):
    import joblib

    X, _ = polarity_small
    joblib.dump(fitted, tmp_path / "model.joblib")
    restored = joblib.load(tmp_path / "model.joblib")
    np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
