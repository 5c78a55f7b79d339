"""Models saved and pickled by skattn 0.3 load and answer as they did then.

``tests/data/v0_3/`` holds one small fitted model of each kind, written by
0.3.0.dev0 (``write_fixtures.py`` there) as a model file, a pickle and, for
the two classifiers, a serving artefact, with the outputs 0.3 gave on ten
documents. Today's code must load every file and give the same outputs to
float32 precision.
"""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

import skattn

FIXTURES = Path(__file__).resolve().parent / "data" / "v0_3"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
KINDS = sorted(name for name in EXPECTED if name != "version")
#: Probabilities and embeddings are float32 network outputs.
ATOL = 1e-5


def _inputs(kind: str) -> list:
    return [tuple(x) if isinstance(x, list) else x for x in EXPECTED[kind]["X"]]


def _check_outputs(model, kind: str) -> None:
    expected, X = EXPECTED[kind], _inputs(kind)
    if "predict_proba" in expected:
        np.testing.assert_allclose(model.predict_proba(X), expected["predict_proba"], atol=ATOL)
    if "transform" in expected:
        np.testing.assert_allclose(model.transform(X), expected["transform"], atol=ATOL)
    if "predict" in expected:
        predicted = np.asarray(model.predict(X))
        if predicted.dtype.kind == "f":
            np.testing.assert_allclose(predicted, expected["predict"], rtol=1e-5, atol=ATOL)
        else:
            assert predicted.tolist() == expected["predict"]


def test_the_fixtures_were_written_by_0_3():
    assert EXPECTED["version"].startswith("0.3.")
    assert len(KINDS) == 8


@pytest.mark.parametrize("kind", KINDS)
def test_a_model_file_saved_by_0_3_loads_and_answers_the_same(kind):
    _check_outputs(skattn.load(FIXTURES / f"{kind}.skattn"), kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_model_pickled_by_0_3_loads_and_answers_the_same(kind):
    with warnings.catch_warnings():
        # Old module paths may warn (FutureWarning) while they are kept.
        warnings.simplefilter("ignore", FutureWarning)
        with open(FIXTURES / f"{kind}.pkl", "rb") as handle:
            model = pickle.load(handle)
    _check_outputs(model, kind)


@pytest.mark.parametrize("kind", ["self_attentive_classifier", "hierarchical_classifier"])
def test_an_artefact_exported_by_0_3_serves_the_same(kind):
    pytest.importorskip("onnxruntime")
    from skattn.serving import OnnxTextClassifier

    served = OnnxTextClassifier(FIXTURES / f"{kind}.onnx.zip")
    expected, X = EXPECTED[kind], _inputs(kind)
    np.testing.assert_allclose(served.predict_proba(X), expected["predict_proba"], atol=ATOL)
    assert served.predict(X).tolist() == expected["predict"]


#: Names 0.3 documented that 0.4 removed on purpose, and why.
REMOVED = {
    # The explained column is an argument now, not a context variable.
    "skattn.erasure.fixed_column": "explicit state",
    # The standard-library HTTP service gave way to the ASGI app (create_app).
    "skattn.serving.http.answer": "a real server",
    "skattn.serving.http.load_model": "a real server",
    "skattn.serving.http.make_server": "a real server",
}

#: Every name the 0.3 API reference documented, by its 0.3 path.
DOCUMENTED_0_3 = [
    line
    for line in (FIXTURES / "documented_names.txt").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#") and line not in REMOVED
]


def _old_modules() -> list[str]:
    return sorted({name.rpartition(".")[0] for name in DOCUMENTED_0_3})


def test_every_name_0_3_documented_imports_from_its_0_3_path():
    import importlib

    missing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for qualified in DOCUMENTED_0_3:
            module, _, name = qualified.rpartition(".")
            if not hasattr(importlib.import_module(module), name):
                missing.append(qualified)
    assert not missing


def test_each_moved_module_path_warns_once_and_names_the_new_place():
    # A fresh interpreter: no module is imported yet.
    import subprocess
    import sys

    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('always')\n"
        f"for name in {_old_modules()!r}:\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        importlib.import_module(name)\n"
        "        importlib.import_module(name)\n"
        "    moved = [str(w.message) for w in caught if w.category is FutureWarning]\n"
        "    print(name, len(moved), moved[0] if moved else '')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        name, count, message = line.split(" ", 2)
        if _is_an_old_path(name):
            # Moved: one warning on first import, naming the public package now.
            assert count == "1", line
            assert f"{name} moved in skattn 0.4: import from skattn." in message, line
        else:  # still a module or package of its own
            assert count == "0", line


def _is_an_old_path(name: str) -> bool:
    """Whether ``name`` imports through the 0.3 paths' finder (no file of its own)."""
    import importlib.util

    from skattn._compat import _MovedModule

    return isinstance(importlib.util.find_spec(name).loader, _MovedModule)
