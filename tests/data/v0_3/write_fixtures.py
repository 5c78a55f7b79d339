"""Write the 0.3 compatibility fixtures: one small fitted model of each kind, saved and pickled.

These files were written by skattn 0.3.0.dev0 (the flat layout, before the
0.4 reorganisation); ``tests/test_compatibility.py`` loads them with today's
code and compares its predictions with the ones recorded here. Running this
script again with a later version would overwrite them with that version's
files, which would no longer test anything about 0.3: do not.

    SKATTN_DATA=../shared/data python tests/data/v0_3/write_fixtures.py
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import skattn  # noqa: E402
from conftest import make_toy_corpus  # noqa: E402
from skattn.datasets import fetch_sick  # noqa: E402
from skattn.serving import export  # noqa: E402

SMALL = dict(
    embedding_dim=8,
    hidden_size=4,
    max_epochs=2,
    batch_size=32,
    random_state=0,
    min_count=2,
    subword_buckets=200,
)
SELF = dict(SMALL, attention_dim=4, attention_hops=2, mlp_hidden=8)
HAN = dict(SMALL, sentence_hidden_size=4, context_dim=4)


def models():
    X, y = make_toy_corpus(n_documents=120, seed=0)
    X, y = list(X), np.asarray(y)
    share = np.array([sum(w in t for w in ("great", "superb")) / 4 for t in X])
    Y = np.stack([(y == y[0]).astype(int), np.array([len(t) > 60 for t in X], dtype=int)], 1)
    sick = fetch_sick(subset="train", download_if_missing=False)
    related = fetch_sick(subset="train", target="relatedness", download_if_missing=False)
    pairs = [tuple(p) for p in sick.data[:120]]
    yield "self_attentive_classifier", skattn.SelfAttentiveClassifier(**SELF), X, y
    yield "hierarchical_classifier", skattn.HierarchicalAttentionClassifier(**HAN), X, y
    yield "self_attentive_multilabel", skattn.SelfAttentiveClassifier(**SELF), X, Y
    yield "self_attentive_regressor", skattn.SelfAttentiveRegressor(**SELF), X, share
    yield "hierarchical_regressor", skattn.HierarchicalAttentionRegressor(**HAN), X, share
    yield (
        "embedder",
        skattn.SelfAttentiveEmbedder(skattn.SelfAttentiveClassifier(**SELF)),
        X,
        y,
    )
    pair = dict(SELF, gated_dim=4, embeddings=None)
    yield (
        "pair_classifier",
        skattn.SelfAttentivePairClassifier(**pair),
        pairs,
        np.asarray(sick.target[:120]),
    )
    yield (
        "pair_regressor",
        skattn.SelfAttentivePairRegressor(**pair),
        pairs,
        np.asarray(related.target[:120], dtype=float),
    )


def outputs(model, X) -> dict:
    if hasattr(model, "predict_proba"):
        return {
            "predict_proba": model.predict_proba(X).tolist(),
            "predict": np.asarray(model.predict(X)).tolist(),
        }
    if hasattr(model, "predict"):
        return {"predict": np.asarray(model.predict(X), dtype=float).tolist()}
    return {"transform": model.transform(X).tolist()}


def main() -> None:
    expected = {"version": skattn.__version__}
    for name, model, X, y in models():
        model.fit(X, y)
        probe = X[:10]
        skattn.save(model, HERE / f"{name}.skattn")
        with open(HERE / f"{name}.pkl", "wb") as handle:
            pickle.dump(model, handle, protocol=4)
        if name in ("self_attentive_classifier", "hierarchical_classifier"):
            export(model, HERE / f"{name}.onnx.zip")
        expected[name] = {
            "X": [list(x) if isinstance(x, tuple) else x for x in probe],
            **outputs(model, probe),
        }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
