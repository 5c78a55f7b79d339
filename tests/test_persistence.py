"""Safe save/load: identical predictions, clear errors on bad files, no pickle executed."""

import io
import json
import os
import pickle
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from skattn import SelfAttentiveEmbedder, load, save
from skattn.__main__ import main

from estimators import SMALL_ESTIMATORS, small_self_attentive

DATA = Path(__file__).parent / "data"
#: How close probabilities computed in float32 on another CPU must be to
#: those stored in tests/data: kernels differ in the order they sum in, so the
#: digits beyond float32's precision (about 1e-7 relative per operation,
#: accumulated through the network) are not the model's.
FLOAT32_PROBA = dict(rtol=1e-4, atol=1e-6)


@pytest.fixture(scope="module", params=list(SMALL_ESTIMATORS))
def fitted(request, toy):
    X, y = toy
    return SMALL_ESTIMATORS[request.param]().fit(X, np.where(y == "pos", 1, 0))


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write_members(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def test_round_trip_gives_identical_predictions(fitted, toy, tmp_path):
    X, _ = toy
    path = save(fitted, tmp_path / "model.skattn")
    restored = load(path)
    assert type(restored) is type(fitted) and restored.get_params() == fitted.get_params()
    np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
    assert restored.predict(X[:3]).dtype == fitted.classes_.dtype
    assert restored.history_.to_list() == fitted.history_.to_list()
    umask = os.umask(0)  # reading the mask here is the test's business, not the package's
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    members = _members(path)
    assert sorted(members) == ["metadata.json", "weights.safetensors"]
    assert json.loads(members["metadata.json"])["format_version"] == 2


def test_embedder_round_trip(toy, tmp_path):
    X, y = toy
    embedder = SelfAttentiveEmbedder(small_self_attentive(), output="mean").fit(X, y)
    restored = load(save(embedder, tmp_path / "embedder.skattn"))
    assert restored.get_params()["classifier__attention_hops"] == 2
    np.testing.assert_array_equal(restored.transform(X[:20]), embedder.transform(X[:20]))


def test_a_version_1_file_still_loads():
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    model = load(DATA / "model_v1.skattn")
    np.testing.assert_allclose(
        model.predict_proba(expected["documents"]), expected["proba"], **FLOAT32_PROBA
    )
    assert model.predict(expected["documents"]).tolist() == expected["predictions"]


def test_the_version_1_tolerance_catches_a_weight_in_the_wrong_layer(tmp_path):
    """The float32 tolerance above still fails when one tensor goes to another layer."""
    members = _members(DATA / "model_v1.skattn")
    weights = torch.load(io.BytesIO(members["weights.pt"]), weights_only=True)
    by_shape = {}
    for name, tensor in weights.items():
        by_shape.setdefault(tuple(tensor.shape), []).append(name)
    first, second = next(names for names in by_shape.values() if len(names) > 1)[:2]
    weights[first], weights[second] = weights[second], weights[first]
    swapped = io.BytesIO()
    torch.save(weights, swapped)
    members["weights.pt"] = swapped.getvalue()
    _write_members(tmp_path / "swapped.skattn", members)
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    proba = load(tmp_path / "swapped.skattn").predict_proba(expected["documents"])
    assert not np.allclose(proba, expected["proba"], **FLOAT32_PROBA), (first, second)


def test_weights_tagged_for_a_gpu_load_on_the_cpu(tmp_path, monkeypatch):
    members = _members(DATA / "model_v1.skattn")
    weights = torch.load(io.BytesIO(members["weights.pt"]), weights_only=True)
    # Write the tensors as torch.save does on a GPU machine: storages tagged "cuda:0".
    monkeypatch.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
    tagged = io.BytesIO()
    torch.save(weights, tagged)
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="CUDA"):  # what a plain torch.load does here
        torch.load(io.BytesIO(tagged.getvalue()), weights_only=True)
    members["weights.pt"] = tagged.getvalue()
    _write_members(tmp_path / "gpu.skattn", members)
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    model = load(tmp_path / "gpu.skattn")
    assert next(model.net_.module_.parameters()).device.type == "cpu"
    np.testing.assert_allclose(
        model.predict_proba(expected["documents"]), expected["proba"], **FLOAT32_PROBA
    )


def test_a_model_saved_on_an_absent_device_loads_on_the_cpu(fitted, toy, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    members = _members(path)
    metadata = json.loads(members["metadata.json"])
    metadata["estimator"]["params"]["device"] = "cuda:0"
    members["metadata.json"] = json.dumps(metadata).encode()
    _write_members(path, members)
    model = load(path)
    assert model.device == "cpu"
    np.testing.assert_array_equal(model.predict_proba(toy[0]), fitted.predict_proba(toy[0]))
    with pytest.raises(ValueError, match="not available"):
        load(path, device="cuda:0")


class _Hostile:
    """Unpickling this runs code: it creates the file named ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@pytest.mark.parametrize("where", ["v1_weights", "v2_weights", "v2_extra_member"])
def test_a_hostile_pickle_is_never_executed(where, fitted, tmp_path):
    marker = tmp_path / "pwned"
    hostile = pickle.dumps(_Hostile(marker))
    pickle.loads(hostile)  # proof that the payload works
    assert marker.exists()
    marker.unlink()
    if where == "v1_weights":
        path = tmp_path / "v1.skattn"
        shutil.copy(DATA / "model_v1.skattn", path)
        members = {**_members(path), "weights.pt": hostile}
    else:
        path = save(fitted, tmp_path / "v2.skattn")
        members = _members(path)
        key = "weights.safetensors" if where == "v2_weights" else "weights.pt"
        members[key] = hostile
    _write_members(path, members)
    if where == "v2_extra_member":
        load(path)  # the extra member is never read
    else:
        with pytest.raises(ValueError, match="weights cannot be read"):
            load(path)
    assert not marker.exists()


def test_a_torch_optimizer_class_is_stored_by_name(toy, tmp_path):
    X, y = toy
    clf = small_self_attentive(optimizer=torch.optim.SGD, lr=0.1, max_epochs=1).fit(X, y)
    restored = load(save(clf, tmp_path / "sgd.skattn"))
    assert restored.optimizer is torch.optim.SGD
    restored.set_params(warm_start=True).fit(X, y)  # trains again: the optimizer is real
    assert isinstance(restored.net_.optimizer_, torch.optim.SGD)


def test_an_optimizer_that_is_not_data_is_refused_at_save(toy, tmp_path):
    class MyAdam(torch.optim.Adam):
        pass

    X, y = toy
    clf = small_self_attentive(optimizer=MyAdam, max_epochs=1).fit(X, y)
    with pytest.raises(TypeError, match="'optimizer' parameter of SelfAttentiveClassifier"):
        save(clf, tmp_path / "m.skattn")
    assert list(tmp_path.iterdir()) == []


def test_code_needed_to_read_text_must_be_passed_again(toy, tmp_path):
    X, y = toy
    clf = small_self_attentive(tokenizer=str.split, max_epochs=1).fit(X, y)
    path = save(clf, tmp_path / "m.skattn")
    with pytest.raises(ValueError, match=r"\['tokenizer'\].*load\(path, tokenizer=\.\.\.\)"):
        load(path)
    np.testing.assert_array_equal(load(path, tokenizer=str.split).predict(X), clf.predict(X))


def test_training_only_objects_come_back_as_defaults_with_a_warning(toy, tmp_path):
    from skorch.callbacks import PrintLog

    X, y = toy
    clf = small_self_attentive(callbacks=[PrintLog()], max_epochs=1, verbose=0).fit(X, y)
    path = save(clf, tmp_path / "m.skattn")
    with pytest.warns(UserWarning, match=r"callbacks \(a list; now None\)"):
        restored = load(path)
    assert restored.callbacks is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(path, callbacks=[]).callbacks == []


@pytest.mark.parametrize(
    "damage",
    ["truncated", "garbage", "foreign_zip", "bad_weights", "future_version", "wrong_shapes"],
)
def test_damaged_files_give_clear_errors(damage, fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    raw = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a model at all")
    else:
        members = _members(path)
        metadata = json.loads(members["metadata.json"])
        if damage == "foreign_zip":
            members = {"something.txt": b"hello"}
        elif damage == "bad_weights":
            members["weights.safetensors"] = b"\x80\x04not tensors"
        elif damage == "future_version":
            metadata["format_version"] = 99
        elif damage == "wrong_shapes":
            metadata["state"]["tokens"] = metadata["state"]["tokens"][:10]
            metadata["state"]["token_counts"] = metadata["state"]["token_counts"][:10]
        if "metadata.json" in members:
            members["metadata.json"] = json.dumps(metadata).encode()
        _write_members(path, members)
    with pytest.raises(ValueError, match="is not a valid skattn model file"):
        load(path)


def test_failed_save_leaves_the_previous_file_intact(fitted, tmp_path, monkeypatch):
    path = save(fitted, tmp_path / "model.skattn")
    before = path.read_bytes()
    monkeypatch.setattr(json, "dumps", lambda *a, **k: (_ for _ in ()).throw(OSError("disk")))
    with pytest.raises(OSError):
        save(fitted, path)
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1


def test_save_never_changes_the_umask(fitted, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "umask", lambda *a: calls.append(a))
    save(fitted, tmp_path / "model.skattn")
    assert calls == []


def test_explain_command_writes_html(fitted, tmp_path, capsys):
    model = save(fitted, tmp_path / "model.skattn")
    output = tmp_path / "page.html"
    argv = ["explain", str(model), "--text", "a <b>fine</b> film", "--text", "dull"]
    assert main([*argv, "--output", str(output)]) == 0
    page = output.read_text(encoding="utf-8")
    assert page.count('class="doc"') == 2 and "&lt;" in page and "<b>fine" not in page
    assert "wrote explanations of 2 document(s)" in capsys.readouterr().out


def test_joblib_still_works(fitted, toy, tmp_path):
    import joblib

    X, _ = toy
    joblib.dump(fitted, tmp_path / "model.joblib")
    restored = joblib.load(tmp_path / "model.joblib")
    np.testing.assert_array_equal(restored.predict_proba(X), fitted.predict_proba(X))
