"""
Grid search over the hops and the penalty
=========================================

A :class:`~sklearn.pipeline.Pipeline` around the classifier, searched with
:class:`~sklearn.model_selection.GridSearchCV` over the number of hops r and
the penalty coefficient, with two worker processes; then the same grid
with successive halving over the epochs
(:class:`~sklearn.model_selection.HalvingGridSearchCV`,
``resource="max_epochs"``), which trains every candidate briefly and only
the best ones longer, and over documents (``resource="n_samples"``), whose
rungs train at a constant rate and whose winner is refitted with the
default schedule. The fits of a fold share its encoding.
"""

import os

import numpy as np
import pandas as pd
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline

from skattn import SelfAttentiveClassifier
from skattn.datasets import fetch_sentence_polarity

QUICK = os.environ.get("SKATTN_EXAMPLES_QUICK") == "1"

X, y = fetch_sentence_polarity(return_X_y=True)
rows = np.random.RandomState(0).permutation(len(X))[: 600 if QUICK else 3000]
X, y = [X[i] for i in rows], y[rows]

pipeline = Pipeline(
    [("clf", SelfAttentiveClassifier(max_epochs=1 if QUICK else 4, random_state=0))]
)
grid = {"clf__attention_hops": [1, 4], "clf__penalty": [0.0, 1.0]}
search = GridSearchCV(pipeline, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=2)
search.fit(X, y)

results = pd.DataFrame(search.cv_results_)[
    ["param_clf__attention_hops", "param_clf__penalty", "mean_test_score", "std_test_score"]
]
print(results.round(3).to_string(index=False))
print("best:", search.best_params_)

# %%
# Successive halving: every candidate trains for one epoch, the best half
# for more (the grid must not hold ``max_epochs``, the resource).
halving = HalvingGridSearchCV(
    SelfAttentiveClassifier(random_state=0),
    {"attention_hops": [1, 4], "penalty": [0.0, 1.0]},
    resource="max_epochs",
    min_resources=1,
    max_resources=2 if QUICK else 4,
    factor=2,
    cv=StratifiedKFold(3, shuffle=True, random_state=0),
    n_jobs=2,
    random_state=0,
).fit(X, y)
rungs = pd.DataFrame(halving.cv_results_)[
    ["iter", "n_resources", "param_attention_hops", "param_penalty", "mean_test_score"]
]
print(rungs.round(3).to_string(index=False))
print("best:", halving.best_params_)

# %%
# Successive halving over documents: every candidate trains two epochs at
# a constant rate on a quarter of each fold's documents, the best quarter
# of them on all; the winner is refitted once with the default one-cycle
# schedule and epochs. At a constant rate a rung's model is not annealed
# (a whole short one-cycle schedule lets the highest rate settle, and
# favours it).
by_documents = HalvingGridSearchCV(
    SelfAttentiveClassifier(max_epochs=1 if QUICK else 2, lr_schedule="constant", random_state=0),
    {"lr": [2e-3, 8e-3], "attention_hops": [1, 4]},
    resource="n_samples",
    min_resources=len(y) // 4,
    factor=4,  # 4 candidates on a quarter of the documents, then the best one on all
    cv=StratifiedKFold(3, shuffle=True, random_state=0),
    n_jobs=2,
    random_state=0,
    refit=False,
    return_train_score=False,  # halving scores the training parts too unless told not to
).fit(X, y)
rungs = pd.DataFrame(by_documents.cv_results_)[
    ["iter", "n_resources", "param_lr", "param_attention_hops", "mean_test_score"]
]
print(rungs.round(3).to_string(index=False))
final = SelfAttentiveClassifier(
    random_state=0, max_epochs=1 if QUICK else "auto", **by_documents.best_params_
).fit(X, y)
epochs = final.choices_["max_epochs"]["value"]
print("best:", by_documents.best_params_, f"refitted for {epochs} epochs")
