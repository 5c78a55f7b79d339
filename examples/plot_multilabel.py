"""
Several labels per comment: emotions in GoEmotions
==================================================

GoEmotions gives each Reddit comment one or more of 28 labels (27 emotions
and "neutral"). A multi-label ``y`` is a 0/1 indicator matrix; the
classifiers learn one sigmoid per label and choose each label's decision
threshold for F1 on held-out comments of the fit data
(``threshold="auto"``). Here a self-attentive classifier beside a
one-vs-rest TF-IDF logistic regression that tunes its thresholds the same
way (TF-IDF of 1–2-grams, C=4), then the per-label F1 with tuned
thresholds against 0.5, and what
drove one label. (The documentation may build this page on 8,000 training
comments and 4 epochs; the figures on the whole corpus are on the
*Results* page.)
"""

import os

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from sklearn.metrics import f1_score

from skattn import SelfAttentiveClassifier
from skattn.baselines import tfidf_logreg
from skattn.compare import one_vs_rest
from skattn.datasets import fetch_goemotions

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

train = fetch_goemotions(subset="train")
test = fetch_goemotions(subset="test")
names = train.target_names
# A DataFrame whose columns are the label names: the model keeps them
# (``label_names_``) and lists labels by name wherever it lists them.
X_train, Y_train = train.data, pd.DataFrame(train.target, columns=names)
if QUICK:
    X_train, Y_train = X_train[:8000], Y_train.iloc[:8000]

model = SelfAttentiveClassifier(max_epochs=4 if QUICK else "auto", random_state=0)
model.fit(X_train, Y_train)
linear = one_vs_rest(tfidf_logreg(C=4.0)).set_params(random_state=0)
linear.fit(X_train, Y_train)
for label, fitted in (("self-attentive", model), ("one-vs-rest TF-IDF", linear)):
    predicted = fitted.predict(test.data)
    print(
        f"{label}: macro-F1 {f1_score(test.target, predicted, average='macro'):.3f}, "
        f"micro-F1 {f1_score(test.target, predicted, average='micro'):.3f}"
    )

# %%
# Each label's F1 on the test comments, with the thresholds tuned on the
# held-out tenth of the fit data (``thresholds_``) and with every threshold
# at 0.5. Labels are ordered by how often they occur in training: at 0.5
# the rare ones are almost never predicted.
proba = model.predict_proba(test.data)
tuned = f1_score(test.target, proba >= model.thresholds_, average=None, zero_division=0)
half = f1_score(test.target, proba >= 0.5, average=None, zero_division=0)
order = np.argsort(-Y_train.to_numpy().sum(axis=0))
figure = Figure(figsize=(8, 7))
ax = figure.subplots()
rows = np.arange(len(order))
ax.barh(rows - 0.2, tuned[order], height=0.4, label="tuned thresholds", color="#4c72b0")
ax.barh(rows + 0.2, half[order], height=0.4, label="threshold 0.5", color="#c0c0c0")
ax.set_yticks(rows, [names[j] for j in order], fontsize=8)
ax.invert_yaxis()
ax.set_xlabel("F1 on the test comments")
ax.set_title(
    f"macro-F1 {tuned.mean():.3f} with tuned thresholds, {half.mean():.3f} at 0.5 "
    "(labels by training frequency)",
    fontsize=10,
)
ax.legend(loc="lower right")
figure.tight_layout()
figure

# %%
# ``predict`` answers the indicator matrix, as scikit-learn does; the
# decision rule lists each comment's labels by name (what ``python -m skattn
# predict`` and the web service answer for this model).
comments = ["Thank you so much, this made my day!", "Thanks, but that is not what I asked."]
model.decision_rule_.labels(model.predict(comments))

# %%
# Which words drove a label: ``explain`` with ``label=`` scores the tokens
# for that label's probability (here "gratitude", by its name); the page
# lists each comment's predicted labels with their probabilities.
model.explain(comments, label="gratitude")
