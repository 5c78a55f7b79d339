"""How the old-format fixtures of tests/data were written (by the code of commit dc5fcc4).

``artifact_v1.onnx.zip`` (artefact format 1: no manifest) and
``model_v2.skattn`` (model file format 2: no manifest), each with the
answers that code gave (``*_expected.json``). The classifier decides at a
fixed threshold of 0.505, so that some documents get another label than the
most probable one. Run at that commit:
``PYTHONPATH=. python tests/data/write_old_format_fixtures.py tests/data``.
"""

import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import make_toy_corpus  # noqa: E402
from skattn import SelfAttentiveClassifier, save  # noqa: E402
from skattn.serving import OnnxTextClassifier, export  # noqa: E402


def main(folder: Path) -> None:
    torch.set_num_threads(1)
    folder.mkdir(exist_ok=True)
    X, y = make_toy_corpus(120, seed=1)
    clf = SelfAttentiveClassifier(
        embedding_dim=8,
        hidden_size=4,
        attention_dim=4,
        attention_hops=2,
        mlp_hidden=8,
        max_epochs=8,
        lr=2e-2,
        random_state=0,
        embeddings=None,
        threads=1,
        threshold=0.505,
    ).fit(X, y)
    p = clf.predict_proba(X)[:, 1]
    order = np.argsort(p)
    # The extremes, and documents on both sides of the threshold and of 0.5.
    pick = sorted(
        set(order[[0, 1, -1, -2]].tolist())
        | set(np.flatnonzero((p >= 0.5) & (p < 0.505))[:3].tolist())
        | set(np.flatnonzero(p < 0.5)[-2:].tolist())
    )
    documents = [X[i] for i in pick] + ["", "an unseen word café"]
    served = OnnxTextClassifier(export(clf, folder / "artifact_v1.onnx.zip"))
    proba = served.predict_proba(documents)
    expected = {
        "documents": documents,
        "proba": proba.tolist(),
        "predictions": served.predict(documents).tolist(),
        "argmax_predictions": served.classes_[proba.argmax(1)].tolist(),
    }
    _write(folder / "artifact_v1_expected.json", expected)
    save(clf, folder / "model_v2.skattn")
    expected = {
        "documents": documents,
        "proba": clf.predict_proba(documents).tolist(),
        "predictions": clf.predict(documents).tolist(),
    }
    _write(folder / "model_v2_expected.json", expected)


def _write(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
