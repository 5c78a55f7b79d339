"""Safe save/load: identical predictions, clear errors on bad files, no pickle executed."""

import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from skattn import SelfAttentiveEmbedder, load, save
from skattn.__main__ import main
from skattn.persistence import ModelFileError
from skattn.training._net import fused_optimizer_works

from _common import (
    declare_size,
    flip_compressed_byte,
    flip_member_byte,
    members,
    write_members,
    write_signed,
)
from estimators import SMALL_ESTIMATORS, KeepOptimizer, small_hierarchical, small_self_attentive

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


def _edit_metadata(path, edit):
    """Change metadata.json with ``edit(metadata)`` and write it back with fresh digests."""
    contents = members(path)
    metadata = json.loads(contents["metadata.json"])
    edit(metadata)
    contents["metadata.json"] = json.dumps(metadata).encode()
    write_signed(path, contents)


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
    contents = members(path)
    assert sorted(contents) == ["manifest.json", "metadata.json", "weights.safetensors"]
    assert json.loads(contents["metadata.json"])["format_version"] == 3
    manifest = json.loads(contents["manifest.json"])["members"]
    for name in ("metadata.json", "weights.safetensors"):
        data = contents[name]
        assert manifest[name] == {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


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


def test_a_version_2_file_still_loads_and_decides_at_its_threshold():
    """Written by the code before manifests (tests/data/write_old_format_fixtures.py)."""
    expected = json.loads((DATA / "model_v2_expected.json").read_text(encoding="utf-8"))
    model = load(DATA / "model_v2.skattn")
    proba = model.predict_proba(expected["documents"])
    np.testing.assert_allclose(proba, expected["proba"], **FLOAT32_PROBA)
    predictions = model.predict(expected["documents"]).tolist()
    assert predictions == expected["predictions"]
    # Fitted with threshold=0.505: some documents are not given their most probable class.
    assert predictions != model.classes_[proba.argmax(axis=1)].tolist()
    assert model.decision_rule_.thresholds == (0.505,)


def test_the_version_1_tolerance_catches_a_weight_in_the_wrong_layer(tmp_path):
    """The float32 tolerance above still fails when one tensor goes to another layer."""
    contents = members(DATA / "model_v1.skattn")
    weights = torch.load(io.BytesIO(contents["weights.pt"]), weights_only=True)
    by_shape = {}
    for name, tensor in weights.items():
        by_shape.setdefault(tuple(tensor.shape), []).append(name)
    first, second = next(names for names in by_shape.values() if len(names) > 1)[:2]
    weights[first], weights[second] = weights[second], weights[first]
    swapped = io.BytesIO()
    torch.save(weights, swapped)
    contents["weights.pt"] = swapped.getvalue()
    write_members(tmp_path / "swapped.skattn", contents)
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    proba = load(tmp_path / "swapped.skattn").predict_proba(expected["documents"])
    assert not np.allclose(proba, expected["proba"], **FLOAT32_PROBA), (first, second)


def test_weights_tagged_for_a_gpu_load_on_the_cpu(tmp_path, monkeypatch):
    contents = members(DATA / "model_v1.skattn")
    weights = torch.load(io.BytesIO(contents["weights.pt"]), weights_only=True)
    # Write the tensors as torch.save does on a GPU machine: storages tagged "cuda:0".
    monkeypatch.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
    tagged = io.BytesIO()
    torch.save(weights, tagged)
    monkeypatch.undo()
    with pytest.raises(RuntimeError, match="CUDA"):  # what a plain torch.load does here
        torch.load(io.BytesIO(tagged.getvalue()), weights_only=True)
    contents["weights.pt"] = tagged.getvalue()
    write_members(tmp_path / "gpu.skattn", contents)
    expected = json.loads((DATA / "model_v1_expected.json").read_text())
    model = load(tmp_path / "gpu.skattn")
    assert next(model.net_.module_.parameters()).device.type == "cpu"
    np.testing.assert_allclose(
        model.predict_proba(expected["documents"]), expected["proba"], **FLOAT32_PROBA
    )


def test_a_model_saved_on_an_absent_device_loads_on_the_cpu(fitted, toy, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    _edit_metadata(path, lambda metadata: metadata["estimator"]["params"].update(device="cuda:0"))
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


@pytest.mark.parametrize("where", ["v1_weights", "v3_weights", "v3_extra_member"])
def test_a_hostile_pickle_is_never_executed(where, fitted, tmp_path):
    marker = tmp_path / "pwned"
    hostile = pickle.dumps(_Hostile(marker))
    pickle.loads(hostile)  # proof that the payload works
    assert marker.exists()
    marker.unlink()
    if where == "v1_weights":
        path = tmp_path / "v1.skattn"
        shutil.copy(DATA / "model_v1.skattn", path)
        contents = {**members(path), "weights.pt": hostile}
    else:
        path = save(fitted, tmp_path / "v3.skattn")
        contents = members(path)
        key = "weights.safetensors" if where == "v3_weights" else "weights.pt"
        contents[key] = hostile
    if where == "v3_weights":
        write_signed(path, contents)  # digests that match: the reader itself must refuse
    else:
        write_members(path, contents)
    expected = (
        "weights.pt: in the archive, but not"
        if where == "v3_extra_member"
        else ("weights cannot be read")
    )
    with pytest.raises(ModelFileError, match=expected):
        load(path)
    assert not marker.exists()


def test_a_torch_optimizer_class_is_stored_by_name(toy, tmp_path):
    X, y = toy
    clf = small_self_attentive(optimizer=torch.optim.SGD, lr=0.1, max_epochs=1).fit(X, y)
    restored = load(save(clf, tmp_path / "sgd.skattn"))
    assert restored.optimizer is torch.optim.SGD
    kept = KeepOptimizer()
    restored.set_params(warm_start=True, callbacks=[kept]).fit(X, y)  # trains with a real SGD
    assert isinstance(kept.optimizer_, torch.optim.SGD)


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


def _characters(text):
    return [character for character in text if not character.isspace()]


def _lower_words(text):
    return text.lower().split()


def _ascii_characters(text):
    text.encode("ascii")  # refuses other characters
    return _characters(text)


def _lines(text):
    return [line for line in text.split("\n") if line]


def _refused_for(path, **code):
    with pytest.raises(TypeError, match=r"which reads .* as .*fitted with code that read it as"):
        load(path, **code)


def test_code_passed_again_must_read_text_as_the_saved_code_did(toy, tmp_path):
    X, y = toy
    clf = small_self_attentive(tokenizer=_characters, max_epochs=1).fit(X, y)
    path = save(clf, tmp_path / "m.skattn")
    # Another function, another built-in name, the default pattern: each would
    # read the documents otherwise, and each is refused naming both readings.
    for other in (str.split, "whitespace", None):
        _refused_for(path, tokenizer=other)
    # The same function, and the built-in name that reads the same way, read as fitted.
    for same in (_characters, "characters"):
        np.testing.assert_allclose(
            load(path, tokenizer=same).predict_proba(X), clf.predict_proba(X), rtol=1e-5
        )

    # The model lowercases before its tokenizer: str.split reads as _lower_words there.
    lower = save(
        small_self_attentive(tokenizer=_lower_words, max_epochs=1).fit(X, y), tmp_path / "l"
    )
    assert load(lower, tokenizer="whitespace").tokenizer == "whitespace"
    # Code that fails on some text: a name that reads that text is another reading.
    ascii_only = small_self_attentive(tokenizer=_ascii_characters, max_epochs=1).fit(X, y)
    _refused_for(save(ascii_only, tmp_path / "a"), tokenizer="characters")

    han = small_hierarchical(sentence_split=_lines, max_epochs=1).fit(X, y)
    han_path = save(han, tmp_path / "han.skattn")
    _refused_for(han_path, sentence_split="punctuation")
    restored = load(han_path, sentence_split="lines")  # reads the texts as _lines did
    np.testing.assert_allclose(restored.predict_proba(X), han.predict_proba(X), rtol=1e-5)


def test_check_reading_false_loads_another_reading_with_a_warning(toy, tmp_path):
    # Code whose reading is meant to change (an upgraded tokenizer library):
    # the user accepts it knowingly, and is told what changed.
    X, y = toy
    clf = small_self_attentive(tokenizer=_characters, max_epochs=1).fit(X, y)
    path = save(clf, tmp_path / "m.skattn")
    with pytest.raises(TypeError, match=r"check_reading=False\) accepts it"):
        load(path, tokenizer=str.split)
    with pytest.warns(UserWarning, match=r"loaded anyway \(check_reading=False\)"):
        other = load(path, tokenizer=str.split, check_reading=False)
    assert other.tokenizer is str.split
    assert other.predict_proba(X).shape == clf.predict_proba(X).shape
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same reading: nothing to say
        load(path, tokenizer=_characters, check_reading=False)


def test_a_file_without_readings_warns_when_a_name_replaces_its_code(toy, tmp_path):
    # Files written before the readings were stored: the code cannot be checked.
    X, y = toy
    path = save(small_self_attentive(tokenizer=_characters, max_epochs=1).fit(X, y), tmp_path / "m")
    contents = members(path)
    metadata = json.loads(contents["metadata.json"])
    for record in _records_with(metadata, "$probe"):
        del record["$probe"]
    contents["metadata.json"] = json.dumps(metadata).encode()
    write_signed(path, contents)
    with pytest.warns(UserWarning, match=r"cannot be checked"):
        load(path, tokenizer="whitespace")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(path, tokenizer=_characters)  # the function itself is taken on trust, silently


def _records_with(value, key):
    """Every dict inside ``value`` (JSON) that holds ``key``."""
    if isinstance(value, dict):
        found = [value] if key in value else []
        return found + [r for v in value.values() for r in _records_with(v, key)]
    if isinstance(value, list):
        return [r for v in value for r in _records_with(v, key)]
    return []


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
        contents = members(path)
        metadata = json.loads(contents["metadata.json"])
        if damage == "foreign_zip":
            contents = {"something.txt": b"hello"}
        elif damage == "bad_weights":
            contents["weights.safetensors"] = b"\x80\x04not tensors"
        elif damage == "future_version":
            metadata["format_version"] = 99
        elif damage == "wrong_shapes":
            metadata["state"]["tokens"] = metadata["state"]["tokens"][:10]
            metadata["state"]["token_counts"] = metadata["state"]["token_counts"][:10]
        if "metadata.json" in contents:
            contents["metadata.json"] = json.dumps(metadata).encode()
        # Fresh digests: what is checked here is the content, not the manifest.
        write_signed(path, contents)
    with pytest.raises(ModelFileError, match=f"{path.name} is not a valid skattn model file"):
        load(path)


#: tampering -> the member the error must name (None: the file as a whole).
TAMPERING = {
    "metadata_edited": "metadata.json",
    "weights_byte_flipped": "weights.safetensors",
    "compressed_byte_flipped": "weights.safetensors",
    "weights_missing": "weights.safetensors",
    "extra_member": "notes.txt",
    "manifest_missing": "manifest.json",
    "truncated": None,
}


@pytest.mark.parametrize("tampering", TAMPERING)
def test_a_tampered_file_is_refused_naming_the_file_and_member(tampering, fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    contents = members(path)
    if tampering == "metadata_edited":  # classes swapped: a file that would lie
        metadata = json.loads(contents["metadata.json"])
        metadata["state"]["classes"] = metadata["state"]["classes"][::-1]
        contents["metadata.json"] = json.dumps(metadata).encode()
    elif tampering == "weights_byte_flipped":
        flip_member_byte(contents, "weights.safetensors")
    elif tampering == "weights_missing":
        del contents["weights.safetensors"]
    elif tampering == "extra_member":
        contents["notes.txt"] = b"hello"
    elif tampering == "manifest_missing":
        del contents["manifest.json"]
    if tampering == "compressed_byte_flipped":
        flip_compressed_byte(path, "weights.safetensors")
    elif tampering == "truncated":
        path.write_bytes(path.read_bytes()[:-200])
    else:
        write_members(path, contents)
    with pytest.raises(ModelFileError) as refused:
        load(path)
    assert refused.value.path == path and refused.value.member == TAMPERING[tampering]
    assert str(path) in str(refused.value)


#: An edit with fresh digests -> what the validation of the metadata says.
SIGNED_EDITS = {
    "classes_swapped": (
        lambda m: m["state"].update(classes=m["state"]["classes"][::-1]),
        "not sorted and distinct",
    ),
    "token_repeated": (
        lambda m: m["state"]["tokens"].__setitem__(4, m["state"]["tokens"][3]),
        "token twice",
    ),
    "threshold_out_of_range": (
        lambda m: m["state"]["attributes"].update(thresholds=[1.5]),
        r"thresholds \[1.5\] must lie in \[0, 1\]",
    ),
    "tokenizer_setting": (
        lambda m: m["estimator"]["params"].update(lowercase="yes"),
        "'lowercase' parameter",
    ),
    "no_state": (lambda m: m.pop("state"), "missing or wrong field"),
}


@pytest.mark.parametrize("edit", SIGNED_EDITS)
def test_an_edit_that_passes_the_digests_fails_validation(edit, fitted, tmp_path):
    change, reason = SIGNED_EDITS[edit]
    path = save(fitted, tmp_path / "model.skattn")
    _edit_metadata(path, change)
    with pytest.raises(ModelFileError, match=reason) as refused:
        load(path)
    assert refused.value.member == "metadata.json"


def test_an_old_file_without_digests_is_still_validated(tmp_path):
    contents = members(DATA / "model_v2.skattn")
    metadata = json.loads(contents["metadata.json"])
    metadata["state"]["classes"] = metadata["state"]["classes"][::-1]  # labels swapped
    contents["metadata.json"] = json.dumps(metadata).encode()
    write_members(tmp_path / "swapped.skattn", contents)
    with pytest.raises(ModelFileError, match="metadata.json: .*not sorted"):
        load(tmp_path / "swapped.skattn")


def test_a_zip_bomb_is_refused_before_decompression(fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    # A member that declares 4 GB: refused from the declaration (and the manifest).
    declared = tmp_path / "declared.skattn"
    shutil.copy(path, declared)
    declare_size(declared, "weights.safetensors", 2**32 - 1)
    with pytest.raises(
        ModelFileError, match="weights.safetensors: the archive declares 4294967295"
    ):
        load(declared)
    # A real bomb: 64 MiB of zeros in 64 KiB, digests right, over the caller's cap.
    contents = members(path)
    contents["weights.safetensors"] = bytes(64 * 2**20)
    bomb = tmp_path / "bomb.skattn"
    write_signed(bomb, contents)
    assert bomb.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match="over the limit of 16777216"):
            load(bomb, max_bytes=16 * 2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak  # nothing of the 64 MiB was decompressed


def test_load_refuses_keywords_that_would_replace_fitted_state(fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    for name, value in [("min_count", 3), ("threshold", 0.9), ("hidden_size", 99)]:
        if name not in fitted.get_params():
            continue
        with pytest.raises(TypeError, match=rf"{name}={value}.*refit to change"):
            load(path, **{name: value})
    # The saved value again changes nothing; how the model runs may change.
    assert load(path, lowercase=fitted.lowercase, threads=2, batch_size=7).batch_size == 7
    with pytest.raises(ValueError, match="'threads' parameter"):
        load(path, threads=0)  # the caller's bad value, named as the caller's


def test_failed_save_leaves_the_previous_file_intact(fitted, tmp_path, monkeypatch):
    path = save(fitted, tmp_path / "model.skattn")
    before = path.read_bytes()
    monkeypatch.setattr(json, "dumps", lambda *a, **k: (_ for _ in ()).throw(OSError("disk")))
    with pytest.raises(OSError):
        save(fitted, path)
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1


def test_a_save_that_fails_mid_write_leaves_the_previous_file_intact(fitted, tmp_path, monkeypatch):
    path = save(fitted, tmp_path / "model.skattn")
    before = path.read_bytes()
    writestr = zipfile.ZipFile.writestr

    def fail_at_the_weights(archive, name, data, *args, **kwargs):
        if name == "weights.safetensors":
            raise OSError("disk full")
        return writestr(archive, name, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", fail_at_the_weights)
    with pytest.raises(OSError, match="disk full"):
        save(fitted, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.skattn"]


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


@pytest.mark.parametrize("name", list(SMALL_ESTIMATORS))
def test_a_fitted_model_pickles_at_the_size_of_its_weights_not_its_optimizer(toy, name):
    # Adam's two moments per weight, kept by the net and again by the schedule,
    # made a pickle six times the weights; a fitted model keeps neither.
    X, y = toy
    model = SMALL_ESTIMATORS[name]().fit(X, y)
    weight_bytes = sum(p.numel() * p.element_size() for p in model.net_.module_.parameters())
    assert weight_bytes > 1_000_000  # the weights outweigh vocabulary and history
    assert len(pickle.dumps(model)) < 1.3 * weight_bytes
    assert model.net_.optimizer_ is None
    assert all(getattr(c, "lr_scheduler_", None) is None for _, c in model.net_.callbacks_)
    assert all(p.grad is None for p in model.net_.module_.parameters())  # as large as the weights
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X), model.predict(X))


@pytest.mark.parametrize("loaded", [False, True], ids=["fitted", "loaded"])
def test_a_fitted_or_loaded_net_keeps_the_models_optimizer_settings(toy, tmp_path, loaded):
    # No optimizer is kept, but its settings are: an optimizer built from the
    # net gets the model's own (not bare defaults), set_params records new
    # ones, and skorch's partial_fit refuses, naming what to do instead.
    X, y = toy
    model = small_self_attentive(max_epochs=1, weight_decay=0.01).fit(X, y)
    if loaded:
        model = load(save(model, tmp_path / "model.skattn"))
    net = model.net_
    net.set_params(lr=0.125, optimizer__eps=1e-6)
    _, settings = net.get_params_for_optimizer("optimizer", net.get_all_learnable_params())
    assert (settings["lr"], settings["weight_decay"], settings["eps"]) == (0.125, 0.01, 1e-6)
    assert settings.get("fused", False) == fused_optimizer_works(torch.optim.Adam, "cpu")
    before = [p.clone() for p in net.module_.parameters()]
    with pytest.raises(RuntimeError, match="warm_start=True"):
        net.partial_fit(model.to_dataset(X, y), None)
    assert all(torch.equal(p, q) for p, q in zip(before, net.module_.parameters()))


def test_a_loaded_model_predicts_without_building_an_optimizer(toy, tmp_path):
    # Building an optimizer imports torch._dynamo (seconds), which predicting never needs.
    X, y = toy
    model = small_self_attentive(max_epochs=1).fit(X, y)
    path = save(model, tmp_path / "model.skattn")
    assert load(path).net_.optimizer_ is None
    script = (
        "import sys, skattn; before = 'torch._dynamo' in sys.modules; "
        f"print(before, skattn.load({str(path)!r}).predict({X[:3]!r}).tolist(), "
        "'torch._dynamo' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    before = done.stdout.split(" ", 1)[0]  # as it was once skattn was imported
    assert done.stdout.strip() == f"{before} {model.predict(X[:3]).tolist()} {before}"
