"""
Sentence embeddings as features
===============================

:class:`~skattn.SelfAttentiveEmbedder` learns the r × 2u embedding M on the
labels; here it feeds a logistic regression, and a 2-D projection of the
test embeddings (PCA) shows how the classes separate.
"""

import os

from matplotlib.figure import Figure
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skattn import SelfAttentiveClassifier, SelfAttentiveEmbedder
from skattn.datasets import fetch_sentence_polarity

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
if QUICK:
    X_train, y_train, X_test, y_test = X_train[:1500], y_train[:1500], X_test[:300], y_test[:300]

embedder = SelfAttentiveEmbedder(
    SelfAttentiveClassifier(max_epochs=1 if QUICK else 6, random_state=0), output="mean"
)
pipeline = make_pipeline(embedder, LogisticRegression(max_iter=1000)).fit(X_train, y_train)
print(f"embedder + logistic regression, held-out accuracy: {pipeline.score(X_test, y_test):.3f}")

# %%
# The test embeddings, projected on their first two principal components.
points = PCA(2, random_state=0).fit_transform(pipeline[0].transform(X_test))
figure = Figure(figsize=(6, 5))
ax = figure.subplots()
for label, colour in (("neg", "#c44e52"), ("pos", "#4c72b0")):
    mask = y_test == label
    ax.scatter(points[mask, 0], points[mask, 1], s=6, alpha=0.5, color=colour, label=label)
ax.set_xlabel("first principal component")
ax.set_ylabel("second principal component")
ax.legend(title="true label")
ax.set_title("Self-attentive embeddings of test snippets (mean over hops)")
