"""Picking hyperparameters the way the papers do, with scikit-learn's own search.

``fit`` fits one model. Where a paper picks a setting on a validation set
(Yang et al. 2016 pick the learning rate so), :func:`learning_rate_search`
builds the scikit-learn search that does it: a :class:`GridSearchCV` over
``lr`` with one stratified validation split, refitted on all the data. Its
fitted attributes (``best_params_``, ``cv_results_``, ``best_estimator_``)
are scikit-learn's; save ``best_estimator_`` with :func:`skattn.save`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from numbers import Real

from sklearn.base import BaseEstimator, is_regressor
from sklearn.model_selection import GridSearchCV, ShuffleSplit, StratifiedShuffleSplit

__all__ = ["LearningRateSearch", "learning_rate_search"]


class LearningRateSearch(GridSearchCV):
    """A :class:`~sklearn.model_selection.GridSearchCV` over ``lr`` that warns
    when the best rate is the smallest or the largest of its grid.

    A best rate at an edge means the grid may not hold the best rate at
    all: extend it past that edge. Built by :func:`learning_rate_search`;
    parameters and attributes are GridSearchCV's.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> search = learning_rate_search(SelfAttentiveClassifier(), [0.001, 0.01])
    >>> isinstance(search, GridSearchCV)
    True
    """

    def fit(self, X, y=None, **params):
        """Try each rate on the validation split, refit the best on all of ``X``; warn at an edge.

        Parameters
        ----------
        X : sequence of str
        y : array-like
        **params
            Passed to the estimator's ``fit``.

        Returns
        -------
        self
        """
        super().fit(X, y, **params)
        rates = sorted(self.param_grid["lr"])
        best = self.best_params_["lr"]
        if len(rates) > 1 and best in (rates[0], rates[-1]):
            side = "smallest" if best == rates[0] else "largest"
            warnings.warn(
                f"the best learning rate, {best}, is the {side} of the grid {rates}: a rate "
                f"beyond it may be better; extend the grid past {best}.",
                UserWarning,
                stacklevel=2,
            )
        return self


def learning_rate_search(
    estimator: BaseEstimator,
    learning_rates: Iterable[float],
    *,
    validation_fraction: float = 0.1,
    scoring=None,
    random_state: int = 0,
    n_jobs: int | None = None,
) -> GridSearchCV:
    """A search that picks ``lr`` on one stratified validation split, then refits on all data.

    Parameters
    ----------
    estimator : estimator with an ``lr`` parameter
        For example ``HierarchicalAttentionClassifier.from_paper()``.
    learning_rates : iterable of float
        The rates to try (each positive).
    validation_fraction : float, default=0.1
        Share of the fit data held out to score each rate (stratified by class).
    scoring : str, callable or None, default=None
        As in :class:`~sklearn.model_selection.GridSearchCV` (None: ``score``).
    random_state : int, default=0
        Seeds the validation split.
    n_jobs : int or None, default=None
        Rates tried in parallel.

    Returns
    -------
    LearningRateSearch
        A GridSearchCV, not fitted; ``fit(X, y)`` tries each rate, refits
        the best on all of ``X``, and warns when it is at an edge of the grid.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> search = learning_rate_search(
    ...     SelfAttentiveClassifier(max_epochs=20, random_state=0), [0.003, 0.01, 0.03],
    ...     validation_fraction=0.25,
    ... ).fit(X, y)
    >>> search.best_estimator_.predict(["great", "bad"]).tolist()
    ['pos', 'neg']
    """
    rates = _checked_rates(learning_rates)
    # Regressors have no classes to stratify by.
    splitter = ShuffleSplit if is_regressor(estimator) else StratifiedShuffleSplit
    split = splitter(n_splits=1, test_size=validation_fraction, random_state=random_state)
    return LearningRateSearch(
        estimator,
        {"lr": rates},
        cv=split,
        scoring=scoring,
        refit=True,
        n_jobs=n_jobs,
        error_score="raise",
    )


def _checked_rates(learning_rates: Iterable[float]) -> list[float]:
    rates = list(learning_rates)
    if not rates or not all(
        isinstance(rate, Real) and not isinstance(rate, bool) and rate > 0 for rate in rates
    ):
        raise ValueError(f"learning_rates={rates!r}: give one or more positive numbers to try.")
    return rates
