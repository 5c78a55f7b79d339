"""Linear baselines for sentence pairs: TF-IDF pair features ``[a, b, a ⊙ b, abs(a − b)]``.

The standard features of sentence-pair work since InferSent: each text's
vector (here its TF-IDF vector, one vocabulary for both sides), their
element-wise product and their absolute difference, side by side.
:class:`PairFeatures` makes them from pairs of raw texts (the input of
:class:`~skattn.SelfAttentivePairClassifier`); :func:`pair_baselines` puts
a logistic regression (labels) and a ridge regression (scores) on top,
both with scikit-learn's default penalty (C = 1, alpha = 1).
"""

from __future__ import annotations

import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

from skattn.text._pairs import check_pair_input
from skattn.utils._validation import text_input_tags

__all__ = ["PairFeatures", "pair_baselines"]


class PairFeatures(TransformerMixin, BaseEstimator):
    """``[a, b, a ⊙ b, abs(a − b)]`` of each pair's two vectors, as one sparse row.

    Parameters
    ----------
    vectorizer : scikit-learn text vectorizer or None, default=None
        Fitted on the texts of both sides (one vocabulary); None: a
        ``TfidfVectorizer(sublinear_tf=True)``.

    Attributes
    ----------
    vectorizer_ : the fitted vectorizer

    Examples
    --------
    >>> features = PairFeatures().fit([("a man sings", "a man dances")])
    >>> features.transform([("a man sings", "a man dances")]).shape  # 4 blocks of 3 words
    (1, 12)
    """

    def __init__(self, vectorizer=None):
        self.vectorizer = vectorizer

    def fit(self, X, y=None) -> PairFeatures:
        """Fit the vectorizer on both texts of every pair.

        Parameters
        ----------
        X : pairs of str
        y : ignored

        Returns
        -------
        self
        """
        pairs = check_pair_input(X)
        vectorizer = self.vectorizer
        if vectorizer is None:
            vectorizer = TfidfVectorizer(sublinear_tf=True)
        self.vectorizer_ = clone(vectorizer).fit([text for pair in pairs for text in pair])
        return self

    def transform(self, X) -> sp.csr_matrix:
        """The four blocks of each pair, side by side.

        Parameters
        ----------
        X : pairs of str

        Returns
        -------
        csr_matrix of shape (n_pairs, 4 * vocabulary size)
        """
        check_is_fitted(self, "vectorizer_")
        pairs = check_pair_input(X)
        first = self.vectorizer_.transform([a for a, _ in pairs])
        second = self.vectorizer_.transform([b for _, b in pairs])
        return sp.hstack([first, second, first.multiply(second), abs(first - second)], format="csr")

    def __sklearn_tags__(self):
        return text_input_tags(super().__sklearn_tags__())


def pair_baselines() -> dict[str, Pipeline]:
    """The linear pair baselines: ``tfidf_pair_logreg`` (labels), ``tfidf_pair_ridge`` (scores).

    Returns
    -------
    dict of str to Pipeline
        Unfitted; each takes pairs of raw texts.

    Examples
    --------
    >>> sorted(pair_baselines())
    ['tfidf_pair_logreg', 'tfidf_pair_ridge']
    """
    return {
        "tfidf_pair_logreg": make_pipeline(PairFeatures(), LogisticRegression(max_iter=2000)),
        "tfidf_pair_ridge": make_pipeline(PairFeatures(), Ridge(alpha=1.0)),
    }
