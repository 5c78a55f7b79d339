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
  with the search). Its fits are not scored on their own training
  documents (``return_train_score=False``: the halving searches' default
  scores them, which the ranking never reads; ``--train-scores`` measures
  with them), and each rung's summed fit and held-out score seconds are
  reported (scikit-learn times the held-out scores only);
- **halving over documents at a constant rate**: the same search with
  ``lr_schedule="constant"`` in its rungs (no warm-up, no decay), the
  winner refitted with the default one-cycle schedule. A whole short
  one-cycle schedule lets the highest rate learn fastest and settle; at a
  constant rate the rungs' models are not annealed. All
searches run with ``n_jobs=2`` (two one-thread workers, as the model
selection guide recommends on two cores); the fit of the unit uses the
estimator's own threads. Each search refits its best candidate on the
whole training part, whose accuracy on the held-out snippets is reported:
the halving search should choose a model as good as the exhaustive one.
Encodings are shared by the fits of a fold in each worker
(``skattn.estimators._fit_cache``); ``--no-cache`` measures without
(``SKATTN_FIT_CACHE=0``).

- **landscape** (not timed): every candidate of the grid refitted at the
  default epochs on the whole training part with three seeds, two fits
  at a time, and scored on the held-out snippets: how far apart the
  candidates are, how far one candidate's seeds are, and so whether a
  search's choice can be told from another's. Each search run in the
  same process is then scored by its choice's mean over the seeds, and
  the exhaustive search's CV accuracies are set beside the held-out means
  (Spearman's rank correlation over the twelve candidates).

``--landscape-seeds N`` refits each candidate with seeds 0 to N - 1
(default 3); ``--candidates JSON`` limits the landscape to a list of
candidates (each a dict of the grid's three parameters), to judge a few
choices with more seeds.

Usage: SKATTN_DATA=../shared/data python benchmarks/bench_search.py
       [--only unit,halving,halving_documents,halving_constant,exhaustive,landscape]
       [--no-cache] [--seed 0] [--train-scores] [--landscape-seeds 3] [--candidates JSON]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from bench_training_time import main_split
from joblib import Parallel, delayed
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    ParameterGrid,
    StratifiedKFold,
)

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


def run_search(name: str, search, X, y, X_test, y_test, unit: float | None) -> dict:
    """Fit ``search``, report its cost and its choice; return the chosen parameters."""
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
    return {key: search.best_params_[key] for key in GRID}


#: Epochs of every candidate while the search over documents ranks them.
SEARCH_EPOCHS = 2


def halving_over_documents(
    X,
    y,
    X_test,
    y_test,
    unit: float | None,
    schedule: str = "onecycle",
    seed: int = 0,
    train_scores: bool = False,
) -> dict:
    """Rank candidates on a quarter of the documents, then all; refit the winner at the defaults.

    ``schedule``: the learning-rate schedule of the rungs' fits (the refit
    keeps the default); ``seed``: the estimators' ``random_state``;
    ``train_scores``: also score each fit on its own training documents
    (the halving searches' default, which ranking does not read).
    """
    rung_settings = {"max_epochs": SEARCH_EPOCHS, "lr_schedule": schedule}
    search = HalvingGridSearchCV(
        SelfAttentiveClassifier(random_state=seed, **rung_settings),
        GRID,
        resource="n_samples",
        min_resources=len(y) // 4,
        factor=4,  # 12 candidates on a quarter of the documents, then the best 3 on all
        cv=FOLDS,
        n_jobs=2,
        random_state=0,
        refit=False,
        return_train_score=train_scores,
    )
    start = time.perf_counter()
    search.fit(X, y)
    model = SelfAttentiveClassifier(random_state=seed, **search.best_params_).fit(X, y)
    seconds = time.perf_counter() - start
    name = "halving_documents" if schedule == "onecycle" else f"halving_{schedule}"
    report(f"{name}.wall_s", seconds, "s")
    if unit:
        report(f"{name}.wall_in_default_fits", seconds / unit, "x")
    report(f"{name}.best_params", str(search.best_params_))
    report(f"{name}.best_cv_accuracy", 100 * search.best_score_, "%")
    report(f"{name}.rungs", f"documents {search.n_resources_}, candidates {search.n_candidates_}")
    report_rung_times(name, search.cv_results_)
    report(f"{name}.test_accuracy", 100 * model.score(X_test, y_test), "%")
    return search.best_params_


def report_rung_times(name: str, results: dict) -> None:
    """Each rung's summed fit and held-out score seconds (its candidates and folds)."""
    folds = FOLDS.get_n_splits()
    for rung in np.unique(results["iter"]):
        at = results["iter"] == rung
        fit = folds * float(results["mean_fit_time"][at].sum())
        score = folds * float(results["mean_score_time"][at].sum())
        report(f"{name}.rung{rung}_fit_s", fit, "s")
        report(f"{name}.rung{rung}_score_s", score, "s")


def held_out_accuracy(params: dict, seed: int, X, y, X_test, y_test) -> float:
    """One candidate at the default epochs, fitted on the whole training part with one thread."""
    model = SelfAttentiveClassifier(random_state=seed, threads=1, **params).fit(X, y)
    return 100 * model.score(X_test, y_test)


def candidate_name(params: dict) -> str:
    return ", ".join(f"{key} {params[key]}" for key in GRID)


def landscape(
    X, y, X_test, y_test, choices: dict, cv_scores: dict | None, candidates: list, seeds: int
) -> None:
    """Each candidate's held-out accuracy over seeds; each search's choice scored by its mean."""
    jobs = [(params, seed) for params in candidates for seed in range(seeds)]
    scores = Parallel(n_jobs=2)(
        delayed(held_out_accuracy)(params, seed, X, y, X_test, y_test) for params, seed in jobs
    )
    by_seed = np.asarray(scores).reshape(len(candidates), seeds)
    means = by_seed.mean(axis=1)
    for params, row, mean in zip(candidates, by_seed, means):
        runs = ", ".join(f"{score:.2f}" for score in row)
        cv = f"; CV {100 * cv_scores[candidate_name(params)]:.2f}" if cv_scores else ""
        report(f"landscape.{candidate_name(params)}", f"{mean:.2f} (seeds {runs}){cv}", "%")
    report("landscape.candidate_means", f"{means.min():.2f} to {means.max():.2f}", "%")
    seed_sd = float(np.mean(by_seed.std(axis=1, ddof=1)))
    report("landscape.seed_sd_mean", seed_sd, "points")
    report("landscape.candidate_sd", float(means.std(ddof=1)), "points")
    mean_of = {candidate_name(params): mean for params, mean in zip(candidates, means)}
    for name, params in choices.items():
        if candidate_name(params) in mean_of:
            report(f"landscape.{name}_choice_mean", float(mean_of[candidate_name(params)]), "%")
    if cv_scores and len(candidates) == len(cv_scores):
        cv = [cv_scores[candidate_name(params)] for params in candidates]
        report("landscape.spearman_cv_vs_held_out", float(spearmanr(cv, means).statistic))


def parse_arguments() -> argparse.Namespace:
    """The command line (see the module's usage)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", default="unit,halving,halving_documents,halving_constant,exhaustive,landscape"
    )
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument(
        "--seed", type=int, default=0, help="random_state of the searches over documents"
    )
    parser.add_argument(
        "--train-scores",
        action="store_true",
        help="score the searches over documents on their training documents too",
    )
    parser.add_argument(
        "--landscape-seeds", type=int, default=3, help="seeds 0 to N - 1 for each candidate"
    )
    parser.add_argument(
        "--candidates",
        type=json.loads,
        default=None,
        help="the landscape's candidates, a JSON list of dicts of the grid's parameters "
        "(default: the whole grid)",
    )
    args = parser.parse_args()
    args.candidates = args.candidates or list(ParameterGrid(GRID))
    if any(set(params) != set(GRID) for params in args.candidates):
        parser.error(f"--candidates: each candidate names exactly {sorted(GRID)}")
    return args


def main() -> None:
    args = parse_arguments()
    if args.no_cache:
        os.environ["SKATTN_FIT_CACHE"] = "0"  # read by the workers as they start
        _fit_cache.fit_data_cache.max_entries = 0
    only = args.only.split(",")
    X, y, X_test, y_test = main_split()
    unit = unit_fit(X, y, X_test, y_test) if "unit" in only else None
    base = SelfAttentiveClassifier(random_state=0)
    choices, cv_scores = {}, None
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
        choices["halving"] = run_search("halving", halving, X, y, X_test, y_test, unit)
    if "halving_documents" in only:
        choices["halving_documents"] = halving_over_documents(
            X, y, X_test, y_test, unit, seed=args.seed, train_scores=args.train_scores
        )
    if "halving_constant" in only:
        choices["halving_constant"] = halving_over_documents(
            X,
            y,
            X_test,
            y_test,
            unit,
            schedule="constant",
            seed=args.seed,
            train_scores=args.train_scores,
        )
    if "exhaustive" in only:
        exhaustive = GridSearchCV(SelfAttentiveClassifier(random_state=0), GRID, cv=FOLDS, n_jobs=2)
        choices["exhaustive"] = run_search("exhaustive", exhaustive, X, y, X_test, y_test, unit)
        results = exhaustive.cv_results_
        cv_scores = {
            candidate_name(params): score
            for params, score in zip(results["params"], results["mean_test_score"])
        }
    if "landscape" in only:
        defaults = SelfAttentiveClassifier().get_params()
        choices["defaults"] = {key: defaults[key] for key in GRID}
        landscape(X, y, X_test, y_test, choices, cv_scores, args.candidates, args.landscape_seeds)
    report("peak_rss_mb", peak_rss_mb(), "MiB")


if __name__ == "__main__":
    main()
