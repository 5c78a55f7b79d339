"""
HAN's attention, as in the paper's Figure 5
===========================================

Train :class:`~skattn.HierarchicalAttentionClassifier` on full movie reviews
(one sentence per line) and draw a review the way Yang et al. (2016) do in
Fig. 5: each sentence's weight p_s in red, each word shaded in blue by
√p_s · p_w.
"""

import os

from sklearn.model_selection import train_test_split

from skattn import HierarchicalAttentionClassifier
from skattn.datasets import fetch_movie_reviews

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_movie_reviews(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
if QUICK:
    X_train, y_train = X_train[:300], y_train[:300]

han = HierarchicalAttentionClassifier(
    sentence_split="lines", max_sentences=30, max_epochs=1 if QUICK else 5, random_state=0
)
han.fit(X_train, y_train)
print(f"held-out accuracy: {han.score(X_test[:200], y_test[:200]):.3f}")

# %%
# A review excerpt (the first six sentences of a test review, at most 14
# words each, so that the figure stays readable), as a matplotlib figure.
lines = [" ".join(line.split()[:14]) for line in X_test[0].splitlines()[:6]]
excerpt = "\n".join(lines)
explanation = han.explain([excerpt], [y_test[0]], method="attention")
figure = explanation.plot(0)

# %%
# The same as an HTML page.
explanation

# %%
# Attention is what the paper draws; the default explanation, integrated
# gradients, is the one whose words the prediction measurably rests on (see
# the user guide's *Explanations* page). Green words support the
# prediction, purple ones speak against it; the measured faithfulness on
# this excerpt is stated on the figure.
faithful = han.explain([excerpt], [y_test[0]], faithfulness=True)
figure = faithful.plot(0)
