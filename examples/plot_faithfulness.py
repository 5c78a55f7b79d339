"""
How faithful is each explanation? The erasure test
==================================================

Fit the self-attentive model and a TF-IDF logistic regression on
sentence_polarity, then ask of each explanation method: if we erase the
words it ranks highest, does the prediction fall (comprehensiveness, higher
is better)? If we keep only them, does it hold (sufficiency, lower is
better)? A random ranking is the floor; leave-one-out occlusion the
reference (ERASER, DeYoung et al. 2020).
"""

import os

from matplotlib.figure import Figure
from sklearn.model_selection import train_test_split

from skattn import SelfAttentiveClassifier
from skattn.baselines import tfidf_logreg
from skattn.datasets import fetch_sentence_polarity
from skattn.explain import faithfulness_report

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
if QUICK:
    X_train, y_train = X_train[:1500], y_train[:1500]
n_documents = 40 if QUICK else 200

clf = SelfAttentiveClassifier(max_epochs=1 if QUICK else 8, random_state=0).fit(X_train, y_train)
report = faithfulness_report(clf, X_test[:n_documents])
print(report)

# %%
# The linear baseline, explained by coefficient × feature value, on the same
# documents.
baseline = tfidf_logreg().fit(X_train, y_train)
print(faithfulness_report(baseline, X_test[:n_documents], ["coefficients"]))

# %%
# Comprehensiveness and sufficiency of each method, with their intervals.
frame = report.to_frame()
figure = Figure(figsize=(7, 3))
axes = figure.subplots(1, 2, sharey=True)
for ax, measure in zip(axes, ("comprehensiveness", "sufficiency")):
    errors = [
        frame[measure] - frame[f"{measure}_low"],
        frame[f"{measure}_high"] - frame[measure],
    ]
    ax.barh(frame.index, frame[measure], xerr=errors, color="#4c72b0")
    ax.set_title(f"{measure} ({'higher' if measure[0] == 'c' else 'lower'} is better)")
    ax.axvline(0, color="black", lw=0.5)
figure.tight_layout()
figure
