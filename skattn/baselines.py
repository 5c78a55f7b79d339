"""The linear baselines of the HAN paper's Table 2 (after Zhang et al. 2015).

Each is a scikit-learn :class:`~sklearn.pipeline.Pipeline` ending in
multinomial logistic regression:

- ``bow``: counts of the 50,000 most frequent words;
- ``bow_tfidf``: the same words, TF-IDF weighted;
- ``ngrams``: counts of the 500,000 most frequent 1- to 5-grams;
- ``ngrams_tfidf``: the same n-grams, TF-IDF weighted;
- ``bag_of_means``: the average word2vec vector of a document, word2vec
  trained with gensim on the training documents (:class:`MeanWordVectors`).

Every size is a parameter; :func:`linear_baselines` returns them all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted

from skattn.embeddings import train_word2vec
from skattn.text import DEFAULT_TOKEN_PATTERN, TextEncoder
from skattn.utils.validation import check_text_input


def _linear(features, C: float) -> Pipeline:
    """``features`` followed by (multinomial, for > 2 classes: lbfgs) logistic regression."""
    return Pipeline(
        [
            (type(features).__name__.lower(), features),
            ("logisticregression", LogisticRegression(C=C, max_iter=2000)),
        ]
    )


def bow(max_features: int = 50_000, C: float = 1.0) -> Pipeline:
    """Bag of words (counts) + logistic regression.

    Examples
    --------
    >>> bow().named_steps["countvectorizer"].max_features
    50000
    """
    return _linear(CountVectorizer(max_features=max_features), C)


def bow_tfidf(max_features: int = 50_000, C: float = 10.0) -> Pipeline:
    """Bag of words, TF-IDF weighted + logistic regression.

    Examples
    --------
    >>> bow_tfidf().named_steps["tfidfvectorizer"].max_features
    50000
    """
    return _linear(TfidfVectorizer(max_features=max_features), C)


def ngrams(max_n: int = 5, max_features: int = 500_000, C: float = 1.0) -> Pipeline:
    """Counts of 1- to ``max_n``-grams + logistic regression.

    Examples
    --------
    >>> ngrams().named_steps["countvectorizer"].ngram_range
    (1, 5)
    """
    return _linear(CountVectorizer(ngram_range=(1, max_n), max_features=max_features), C)


def ngrams_tfidf(max_n: int = 5, max_features: int = 500_000, C: float = 10.0) -> Pipeline:
    """TF-IDF weighted 1- to ``max_n``-grams + logistic regression.

    Examples
    --------
    >>> ngrams_tfidf().named_steps["tfidfvectorizer"].max_features
    500000
    """
    return _linear(TfidfVectorizer(ngram_range=(1, max_n), max_features=max_features), C)


def tfidf_logreg(C: float = 10.0) -> Pipeline:
    """A tuned linear reference (not one of the paper's five): TF-IDF of 1–2-grams.

    Sublinear term frequency, terms in at least 2 documents, C=10.

    Examples
    --------
    >>> tfidf_logreg().steps[-1][0]
    'logisticregression'
    """
    features = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    return _linear(features, C)


class MeanWordVectors(TransformerMixin, BaseEstimator):
    """The average word2vec vector of each document (bag of means).

    ``fit`` trains word2vec on the training documents; ``transform`` averages
    the vectors of each document's known words (zeros when it has none).

    Parameters
    ----------
    vector_size : int, default=100
    window : int, default=5
    min_count : int, default=1
    epochs : int, default=10
    lowercase : bool, default=True
    token_pattern : str, default=DEFAULT_TOKEN_PATTERN
    random_state : int, default=0

    Attributes
    ----------
    vectors_ : gensim.models.KeyedVectors
        The trained word vectors.

    Examples
    --------
    >>> docs = ["a good film", "a bad film"] * 10
    >>> MeanWordVectors(vector_size=3).fit_transform(docs).shape  # doctest: +SKIP
    (20, 3)
    """

    def __init__(
        self,
        vector_size: int = 100,
        window: int = 5,
        min_count: int = 1,
        epochs: int = 10,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        random_state: int = 0,
    ):
        self.vector_size = vector_size
        self.window = window
        self.min_count = min_count
        self.epochs = epochs
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.random_state = random_state

    def _analyzer(self):
        return TextEncoder(
            lowercase=self.lowercase, token_pattern=self.token_pattern
        ).build_analyzer()

    def fit(self, X: Sequence[str], y=None) -> MeanWordVectors:
        """Train word2vec on the documents ``X``."""
        analyze = self._analyzer()
        self.vectors_ = train_word2vec(
            [analyze(doc) for doc in check_text_input(X)],
            vector_size=self.vector_size,
            window=self.window,
            min_count=self.min_count,
            epochs=self.epochs,
            random_state=self.random_state,
        )
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Mean vector of each document's known words, shape (n, vector_size)."""
        check_is_fitted(self, "vectors_")
        analyze, vectors = self._analyzer(), self.vectors_
        out = np.zeros((len(X), self.vector_size), dtype=np.float32)
        for i, doc in enumerate(check_text_input(X)):
            ids = [vectors.key_to_index[t] for t in analyze(doc) if t in vectors.key_to_index]
            if ids:
                out[i] = vectors.vectors[ids].mean(axis=0)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


def bag_of_means(vector_size: int = 100, epochs: int = 10, C: float = 10.0) -> Pipeline:
    """Average word2vec embedding (trained on the training data) + logistic regression.

    Examples
    --------
    >>> bag_of_means().named_steps["meanwordvectors"].vector_size
    100
    """
    return _linear(MeanWordVectors(vector_size=vector_size, epochs=epochs), C)


def linear_baselines() -> dict[str, Pipeline]:
    """The five baselines of HAN Table 2, by name, with the paper's sizes.

    Returns
    -------
    dict of str to Pipeline

    Examples
    --------
    >>> list(linear_baselines())
    ['bow', 'bow_tfidf', 'ngrams', 'ngrams_tfidf', 'bag_of_means']
    """
    return {
        "bow": bow(),
        "bow_tfidf": bow_tfidf(),
        "ngrams": ngrams(),
        "ngrams_tfidf": ngrams_tfidf(),
        "bag_of_means": bag_of_means(),
    }
