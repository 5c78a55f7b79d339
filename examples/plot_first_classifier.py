"""
A first classifier and its attention
====================================

Train :class:`~skattn.SelfAttentiveClassifier` on sentence_polarity, score
it on held-out snippets, and show the attention of a few of them: the
tokens on the first row, shaded by the attention summed over the hops, and
one row per hop below.
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

clf = SelfAttentiveClassifier(max_epochs=1 if QUICK else 8, random_state=0)
clf.fit(X_train, y_train)
print(f"held-out accuracy: {clf.score(X_test, y_test):.3f}")

# %%
# Which words each of three test snippets' predictions rests on (the page is
# the same one ``explanations.save_html(path)`` writes): integrated
# gradients by default, green for the predicted class, purple against it.
explanations = clf.explain(X_test[:3], y_test[:3])
explanations

# %%
# The papers' attention, by name: the r hops and their sum.
clf.explain(X_test[:3], y_test[:3], method="attention")
