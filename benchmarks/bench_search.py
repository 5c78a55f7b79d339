"""What a grid search over the self-attentive classifier costs, exhaustive and halved.

On the main job's split of sentence_polarity (8,529 training snippets, 2,133
held out), a 12-candidate grid (learning rate × hops × dropout) with
3-fold cross-validation on the training part:

- **one default fit**: ``SelfAttentiveClassifier(random_state=0)`` on the
  whole training part, first in its process (as a user's one fit: GloVe is
  read from disk), the unit every search is measured in; a second fit of
  the same process, without the shared encoding, is reported beside it;
- **exhaustive**: ``GridSearchCV`` at the default epochs, every candidate
  on every fold;
- **halving**: ``HalvingGridSearchCV(resource="max_epochs")``: every
  candidate for 1 epoch (a whole one-cycle schedule), the best third for
  3, then the best refitted.

The halving search's winner is also refitted at the default epochs
(``max_epochs="auto"``), as the model selection guide suggests.

- **halving over documents**: ``HalvingGridSearchCV(resource="n_samples")``
  with every candidate at 2 epochs: all 12 on a quarter of each fold's
  training documents, the best 3 on all of them; the winner is then
  refitted at the default epochs (``refit=False`` and one ``fit``, timed
  with the search). Both
searches run with ``n_jobs=2`` (two one-thread workers, as the model
selection guide recommends on two cores); the fit of the unit uses the
estimator's own threads. Each search refits its best candidate on the
whole training part, whose accuracy on the held-out snippets is reported:
the halving search should choose a model as good as the exhaustive one.
Encodings are shared by the fits of a fold in each worker
(``skattn.estimators._fit_cache``); ``--no-cache`` measures without
(``SKATTN_FIT_CACHE=0``).

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_search.py
       [--only unit,halving,halving_documents,exhaustive] [--no-cache]
"""

from __future__ import annotations

import argparse
import os
import time

from bench_training_time import main_split
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import GridSearchCV, HalvingGridSearchCV, StratifiedKFold

from skattn import SelfAttentiveClassifier
from skattn.estimators import _fit_cache

from _common import peak_rss_mb, report

GRID = {"lr": [2e-3, 4e-3, 8e-3], "attention_hops": [2, 4], "dropout": [0.3, 0.5]}
FOLDS = StratifiedKFold(3, shuffle=True, random_state=0)


def unit_fit(X, y, X_test, y_test) -> float:
    """One default fit, first in its process (word vectors read from disk), then again."""
    start = time.perf_counter()
    model = SelfAttentiveClassifier(random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    report("unit.fit_s", seconds, "s")
    report("unit.test_accuracy", 100 * model.score(X_test, y_test), "%")
    _fit_cache.fit_data_cache.clear()
    start = time.perf_counter()
    SelfAttentiveClassifier(random_state=0).fit(X, y)
    report("unit.second_fit_s", time.perf_counter() - start, "s")
    return seconds


def run_search(name: str, search, X, y, X_test, y_test, unit: float | None) -> None:
    start = time.perf_counter()
    search.fit(X, y)
    seconds = time.perf_counter() - start
    report(f"{name}.wall_s", seconds, "s")
    if unit:
        report(f"{name}.wall_in_default_fits", seconds / unit, "x")
    report(f"{name}.best_params", str(search.best_params_))
    report(f"{name}.best_cv_accuracy", 100 * search.best_score_, "%")
    report(f"{name}.test_accuracy", 100 * search.best_estimator_.score(X_test, y_test), "%")
    if hasattr(search, "n_resources_"):
        report(f"{name}.rungs", f"epochs {search.n_resources_}, candidates {search.n_candidates_}")
        # The winner of the last rung, refitted at the default epochs.
        start = time.perf_counter()
        refit = clone(search.best_estimator_).set_params(max_epochs="auto").fit(X, y)
        report(f"{name}.refit_at_default_epochs_s", time.perf_counter() - start, "s")
        accuracy = 100 * refit.score(X_test, y_test)
        report(f"{name}.refit_at_default_epochs_test_accuracy", accuracy, "%")


#: Epochs of every candidate while the search over documents ranks them.
SEARCH_EPOCHS = 2


def halving_over_documents(X, y, X_test, y_test, unit: float | None) -> None:
    """Rank candidates on a quarter of the documents, then all; refit the winner at the defaults."""
    search = HalvingGridSearchCV(
        SelfAttentiveClassifier(random_state=0, max_epochs=SEARCH_EPOCHS),
        GRID,
        resource="n_samples",
        min_resources=len(y) // 4,
        factor=4,  # 12 candidates on a quarter of the documents, then the best 3 on all
        cv=FOLDS,
        n_jobs=2,
        random_state=0,
        refit=False,
    )
    start = time.perf_counter()
    search.fit(X, y)
    model = SelfAttentiveClassifier(random_state=0, **search.best_params_).fit(X, y)
    seconds = time.perf_counter() - start
    name = "halving_documents"
    report(f"{name}.wall_s", seconds, "s")
    if unit:
        report(f"{name}.wall_in_default_fits", seconds / unit, "x")
    report(f"{name}.best_params", str(search.best_params_))
    report(f"{name}.best_cv_accuracy", 100 * search.best_score_, "%")
    report(f"{name}.rungs", f"documents {search.n_resources_}, candidates {search.n_candidates_}")
    report(f"{name}.test_accuracy", 100 * model.score(X_test, y_test), "%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="unit,halving,halving_documents,exhaustive")
    parser.add_argument("--no-cache", action="store_true")
    args = parser.parse_args()
    if args.no_cache:
        os.environ["SKATTN_FIT_CACHE"] = "0"  # read by the workers as they start
        _fit_cache.fit_data_cache.max_entries = 0
    only = args.only.split(",")
    X, y, X_test, y_test = main_split()
    unit = unit_fit(X, y, X_test, y_test) if "unit" in only else None
    base = SelfAttentiveClassifier(random_state=0)
    if "halving" in only:
        halving = HalvingGridSearchCV(
            base.set_params(max_epochs=1),
            GRID,
            resource="max_epochs",
            min_resources=1,
            max_resources=3,
            factor=3,
            cv=FOLDS,
            n_jobs=2,
            random_state=0,
        )
        run_search("halving", halving, X, y, X_test, y_test, unit)
    if "halving_documents" in only:
        halving_over_documents(X, y, X_test, y_test, unit)
    if "exhaustive" in only:
        exhaustive = GridSearchCV(SelfAttentiveClassifier(random_state=0), GRID, cv=FOLDS, n_jobs=2)
        run_search("exhaustive", exhaustive, X, y, X_test, y_test, unit)
    report("peak_rss_mb", peak_rss_mb(), "MiB")


if __name__ == "__main__":
    main()
