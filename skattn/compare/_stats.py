"""How sure a comparison is: intervals on accuracies, paired tests against the best baseline.

Every record of :func:`~skattn.compare.compare` keeps, per fold, which test
documents the model got right (``correct``); every model sees the same
folds, so two models' vectors are paired document by document. From them:

**Accuracy intervals.** With several folds, the table shows the mean and
standard deviation over folds. With one split, a 95% percentile bootstrap
interval over the test documents (1,000 resamples, seed 0): resampling the
``n`` test documents with replacement and counting the correct ones is a
Binomial(n, accuracy) draw, so :func:`bootstrap_interval` draws those
counts directly (the same distribution as resampling indices, in O(number
of resamples) memory, vectorised). It says how much the figure owes to the
choice of test documents, not to the training run.

**Paired test of each attention model against the best baseline** (the
baseline kind with the highest mean accuracy in the run: Table-2, tuned
and other baselines such as fastText), at 5%:

- *Several folds: the corrected resampled t-test* (Nadeau & Bengio 2003;
  studied for k-fold CV by Bouckaert & Frank 2004). The plain paired
  t-test over the k fold differences assumes them independent, but the
  training sets of k-fold CV overlap (any two share (k-2)/(k-1) of their
  documents), so the folds' accuracies are positively correlated, the
  variance of the mean difference is underestimated and the test rejects
  far too often (Dietterich 1998). Nadeau & Bengio's correction multiplies
  the variance by ``1/k + n_test/n_train`` instead of ``1/k``: for 5-fold CV
  0.45 instead of 0.2, i.e. a standard error 1.5 times larger; k - 1
  degrees of freedom. We chose it over a paired bootstrap of test documents
  pooled across folds because that bootstrap sees only the test-set
  sampling noise and none of the training-set variability that k-fold
  exposes (a different split trains a different model), which is exactly
  the optimism the correction removes. The correction was derived for
  repeated random subsampling; for k-fold CV it is a heuristic, far closer
  to the nominal 5% than the plain test. Its power with 5 folds (4 degrees
  of freedom) is low: a small margin is rarely significant.
- *One split: McNemar's exact test* on the paired predictions: of the test
  documents the two models classify differently (one right, the other
  wrong), under the null hypothesis each is equally likely to be the one
  that is right, so the count of "attention right, baseline wrong" is
  Binomial(discordant, 1/2) (:func:`scipy.stats.binomtest`, two-sided).
  We chose it over a paired bootstrap because it is exact, needs no
  random resampling (the p-value is reproducible by hand from two counts),
  and is the test Dietterich (1998) recommends when each model can be
  trained only once. Like any single-split test it ignores training
  variability (another seed or split trains another model): run several
  folds for that.

The tests are uncorrected for multiplicity (one test per attention model).
Choosing the best baseline on the same data favours the baseline, so the
attention models' margins are, if anything, understated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from skattn.compare._registry import ATTENTION_MODEL, BASELINE_KINDS

#: Significance level of the paired tests.
ALPHA = 0.05
#: Resamples and seed of the bootstrap intervals.
N_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
#: The names the records and the table give the two tests.
CORRECTED_T_TEST = "corrected resampled t-test"
MCNEMAR_TEST = "McNemar exact"


def bootstrap_interval(
    correct: Sequence[bool],
    *,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
    random_state: int | None = BOOTSTRAP_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of an accuracy, resampling the test documents.

    Resampling the ``n`` documents with replacement and counting the correct
    ones is a Binomial(n, accuracy) draw; the counts are drawn directly.

    Parameters
    ----------
    correct : sequence of bool
        Whether each test document was classified correctly.
    n_resamples : int, default=1000
    confidence : float, default=0.95
    random_state : int or None, default=0
        Seed of the resampling.

    Returns
    -------
    (low, high) : tuple of float
        Accuracies (fractions), ``low <= accuracy <= high``.

    Examples
    --------
    >>> low, high = bootstrap_interval([True] * 80 + [False] * 20)
    >>> round(low, 2), round(high, 2)
    (0.72, 0.88)
    """
    correct = np.asarray(correct, dtype=bool).ravel()
    if correct.size == 0:
        raise ValueError("correct is empty; an interval needs at least one test document.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")
    n, accuracy = correct.size, correct.mean()
    counts = np.random.default_rng(random_state).binomial(n, accuracy, size=n_resamples)
    tail = (1 - confidence) / 2
    low, high = np.quantile(counts / n, [tail, 1 - tail])
    # The percentile interval of a skewed resample distribution can miss the
    # estimate by a rounding step; it always holds it.
    return float(min(low, accuracy)), float(max(high, accuracy))


def mcnemar_test(correct_a: Sequence[bool], correct_b: Sequence[bool]) -> dict:
    """McNemar's exact test: do two models err on the same test documents equally often?

    Parameters
    ----------
    correct_a, correct_b : sequence of bool
        Per test document, whether each model was right (same documents,
        same order).

    Returns
    -------
    dict
        ``a_only`` (documents only model a got right), ``b_only`` and
        ``p_value`` (two-sided exact binomial test of ``a_only`` out of
        ``a_only + b_only`` at 1/2; 1.0 when the models never disagree).

    Examples
    --------
    >>> a = [True] * 10 + [False] * 2 + [True] * 88
    >>> b = [False] * 10 + [True] * 2 + [True] * 88
    >>> result = mcnemar_test(a, b)
    >>> result["a_only"], result["b_only"], round(result["p_value"], 4)
    (10, 2, 0.0386)
    """
    a = np.asarray(correct_a, dtype=bool).ravel()
    b = np.asarray(correct_b, dtype=bool).ravel()
    if a.shape != b.shape:
        raise ValueError(f"correct_a has {a.size} documents, correct_b {b.size}; pair them.")
    a_only, b_only = int(np.sum(a & ~b)), int(np.sum(~a & b))
    discordant = a_only + b_only
    p_value = 1.0 if discordant == 0 else stats.binomtest(a_only, discordant, 0.5).pvalue
    return {"a_only": a_only, "b_only": b_only, "p_value": float(p_value)}


def corrected_resampled_ttest(differences: Sequence[float], n_train: float, n_test: float) -> dict:
    """Nadeau & Bengio's corrected resampled t-test on per-fold score differences.

    ``t = mean(d) / sqrt((1/k + n_test/n_train) · var(d))`` with the sample
    variance (ddof 1) of the k differences ``d``, and k - 1 degrees of
    freedom; two-sided.

    Parameters
    ----------
    differences : sequence of float
        Per fold, score of model a minus score of model b (k ≥ 2 folds).
    n_train, n_test : float
        Training and test documents per fold (their means when folds differ).

    Returns
    -------
    dict
        ``t``, ``df`` and ``p_value``. When every difference is the same the
        variance is 0: ``p_value`` is 1 if they are 0, else 0 (``t`` ±inf).

    Examples
    --------
    >>> result = corrected_resampled_ttest([0.02, 0.01, 0.03, 0.02, 0.02], 800, 200)
    >>> round(result["t"], 3), result["df"], round(result["p_value"], 4)
    (4.216, 4, 0.0135)
    """
    d = np.asarray(differences, dtype=float).ravel()
    k = d.size
    if k < 2:
        raise ValueError(f"the t-test needs at least 2 folds, got {k}.")
    if n_train <= 0 or n_test <= 0:
        raise ValueError(f"n_train and n_test must be positive, got {n_train}, {n_test}.")
    mean, variance = d.mean(), d.var(ddof=1)
    if variance <= 0:
        t = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
        return {"t": t, "df": k - 1, "p_value": 1.0 if mean == 0 else 0.0}
    t = mean / np.sqrt((1 / k + n_test / n_train) * variance)
    p_value = 2 * stats.t.sf(abs(t), k - 1)
    return {"t": float(t), "df": k - 1, "p_value": float(p_value)}


def best_baseline(results: list[dict]) -> dict | None:
    """The baseline record with the highest mean accuracy (the first of a tie), or None.

    Baselines are the records whose ``kind`` is one of ``BASELINE_KINDS``
    (Table-2, tuned and other baselines).

    Parameters
    ----------
    results : list of dict
        Records of :func:`~skattn.compare.compare`.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> records = [{"model": "a", "kind": "tuned baseline", "accuracy_mean": 0.7},
    ...            {"model": "b", "kind": "Table-2 baseline", "accuracy_mean": 0.8},
    ...            {"model": "c", "kind": "attention model", "accuracy_mean": 0.9}]
    >>> best_baseline(records)["model"]
    'b'
    """
    baselines = [r for r in results if r.get("kind") in BASELINE_KINDS]
    if not baselines:
        return None
    return max(baselines, key=lambda r: r["accuracy_mean"])


def paired_test(record: dict, baseline: dict, *, alpha: float = ALPHA) -> dict:
    """Paired test of one model's record against a baseline's, on the same folds.

    Several folds: the corrected resampled t-test on the per-fold accuracy
    differences (:func:`corrected_resampled_ttest`); one split: McNemar's
    exact test on the per-document correctness (:func:`mcnemar_test`). The
    module docstring says why.

    Parameters
    ----------
    record, baseline : dict
        Records of :func:`~skattn.compare.compare` with ``correct`` (per
        fold, per test document) and ``n_train`` (per fold).
    alpha : float, default=0.05

    Returns
    -------
    dict
        ``baseline`` (its name), ``margin`` (mean accuracy difference, in
        points), ``test``, ``p_value``, ``significant`` (``p_value < alpha``),
        ``alpha``, and the test's own numbers (``t`` and ``df``, or
        ``model_only`` and ``baseline_only``: documents only one of them got
        right).

    Examples
    --------
    >>> import numpy as np
    >>> model = {"correct": [np.r_[np.ones(90), np.zeros(10)]], "n_train": [400]}
    >>> base = {"model": "bow", "correct": [np.r_[np.ones(80), np.zeros(20)]], "n_train": [400]}
    >>> result = paired_test(model, base)
    >>> result["test"], result["margin"], result["model_only"], result["significant"]
    ('McNemar exact', 10.0, 10, True)
    """
    ours = [np.asarray(c, dtype=bool) for c in record["correct"]]
    theirs = [np.asarray(c, dtype=bool) for c in baseline["correct"]]
    if [c.shape for c in ours] != [c.shape for c in theirs]:
        raise ValueError("the two records do not hold the same folds; pair records of one run.")
    accuracy_differences = np.array([a.mean() - b.mean() for a, b in zip(ours, theirs)])
    result = {
        "baseline": baseline.get("model"),
        "margin": float(100 * accuracy_differences.mean()),
    }
    if len(ours) > 1:
        n_test = np.mean([c.size for c in ours])
        n_train = np.mean(record["n_train"])
        numbers = corrected_resampled_ttest(accuracy_differences, n_train, n_test)
        result.update(test=CORRECTED_T_TEST, t=numbers["t"], df=numbers["df"])
    else:
        numbers = mcnemar_test(ours[0], theirs[0])
        result.update(
            test=MCNEMAR_TEST, model_only=numbers["a_only"], baseline_only=numbers["b_only"]
        )
    p_value = numbers["p_value"]
    result.update(p_value=p_value, significant=bool(p_value < alpha), alpha=alpha)
    return result


def add_statistics(
    results: list[dict],
    *,
    alpha: float = ALPHA,
    n_resamples: int = N_RESAMPLES,
    random_state: int | None = BOOTSTRAP_SEED,
) -> list[dict]:
    """Add intervals and paired tests to the records of one comparison, in place.

    Each record gets ``accuracy_interval``: ``[low, high]``, the bootstrap
    interval of its accuracy for one split (None with several folds, where
    ``accuracy_std`` says the spread), and ``paired_test``: for an attention
    model, :func:`paired_test` against :func:`best_baseline` (None for the
    other records, or when the run has no baseline).

    Parameters
    ----------
    results : list of dict
        Records of one :func:`~skattn.compare.compare` run, with ``correct``
        and ``n_train``.
    alpha : float, default=0.05
    n_resamples : int, default=1000
    random_state : int or None, default=0
        Seed of the bootstrap.

    Returns
    -------
    list of dict
        ``results``.

    Examples
    --------
    >>> import numpy as np
    >>> right = lambda k, n: [np.r_[np.ones(k, bool), np.zeros(n - k, bool)]]
    >>> records = [
    ...     {"model": "att", "kind": "attention model", "accuracy_mean": 0.9,
    ...      "correct": right(90, 100), "n_train": [400]},
    ...     {"model": "bow", "kind": "Table-2 baseline", "accuracy_mean": 0.8,
    ...      "correct": right(80, 100), "n_train": [400]}]
    >>> att, bow = add_statistics(records)
    >>> att["paired_test"]["baseline"], bow["paired_test"] is None
    ('bow', True)
    >>> [round(x, 2) for x in bow["accuracy_interval"]]
    [0.72, 0.88]
    """
    reference = best_baseline(results)
    for record in results:
        folds = record["correct"]
        record["accuracy_interval"] = (
            list(bootstrap_interval(folds[0], n_resamples=n_resamples, random_state=random_state))
            if len(folds) == 1
            else None
        )
        is_attention = record.get("kind") == ATTENTION_MODEL
        record["paired_test"] = (
            paired_test(record, reference, alpha=alpha)
            if is_attention and reference is not None
            else None
        )
    return results
