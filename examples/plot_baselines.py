"""
Attention models against the linear baselines
=============================================

The main job of the package: :func:`skattn.compare.compare` fits the
attention models and the baselines of HAN Table 2 on the same folds. The
bar chart colours the kinds of model; bars start at 0.
"""

import os

import numpy as np

from skattn.compare import available_models, compare, format_table, plot_results
from skattn.datasets import fetch_sentence_polarity

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
rows = np.random.RandomState(0).permutation(len(X))[: 1500 if QUICK else len(X)]
X, y = [X[i] for i in rows], y[rows]

models = available_models(quick=QUICK)
names = ["self_attentive", "han", "bow", "bow_tfidf", "ngrams_tfidf", "tfidf_logreg"]
results = compare(X, y, {name: models[name] for name in names}, cv=None, random_state=0)
print(format_table(results))

# %%
# The chart that ``python -m skattn compare --output DIR`` writes.
figure = plot_results(results, title="sentence_polarity, one 80/20 split")
