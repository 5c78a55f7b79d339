"""The linear baselines of the HAN paper's Table 2, exactly as Zhang et al. 2015.

Yang et al. 2016 (Table 2) copy these figures from Zhang, Zhao & LeCun 2015,
*Character-level convolutional networks for text classification*, section
3.1. Each is a scikit-learn :class:`~sklearn.pipeline.Pipeline` of public
transformers ending in multinomial logistic regression, so each can be
grid-searched:

- ``bow``: counts of the 50,000 most frequent words of the training split,
  divided by the largest feature value (:class:`LargestValueScaler`);
- ``bow_tfidf``: the same counts as term frequency times idf = log(N/df)
  (:class:`LogIdfTransformer`: no smoothing, no +1, no row norm), divided
  by the largest feature value;
- ``ngrams``: counts of the 500,000 most frequent 1- to 5-grams, divided by
  the largest feature value;
- ``ngrams_tfidf``: the same n-grams, TF-IDF as ``bow_tfidf``;
- ``bag_of_means``: 300-d word2vec learnt on the training split (words seen
  more than 5 times), k-means with 5,000 means over those vectors, each word
  mapped to its mean, and the counts of means used as bag-of-words features
  (:class:`BagOfMeans`), divided by the largest feature value.

Two readings are ours, as the paper leaves them open: "divided by the
largest feature value" is one number, the largest value of the training
feature matrix (not a per-column maximum); the logistic regression, for
which the paper names no regularisation, has a weak L2 penalty (C=100):
with features divided by their largest value, scikit-learn's default C=1
underfits (measured on TREC's fixed split, BOW TFIDF: 70.0% at C=1, 84.6%
at C=10, 86.4% at C=100, 87.2% at C=1000). Words are scikit-learn's default
tokens (two or more word characters, lowercased).

The better-tuned variants the project used before (scikit-learn's smoothed,
L2-normalised TF-IDF, C=10; the average word2vec vector) stay available
under their own names in :func:`tuned_baselines`, with ``tfidf_logreg``, a
tuned 1–2-gram TF-IDF reference. :func:`linear_baselines` returns the five
of Table 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.cluster import MiniBatchKMeans
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted

from skattn.embeddings import train_word2vec
from skattn.text import DEFAULT_TOKEN_PATTERN, TextEncoder
from skattn.utils.validation import check_text_input


def _text_tags(tags):
    """Documents are text, as in scikit-learn's own vectorizers."""
    tags.input_tags.string = True
    tags.input_tags.two_d_array = False
    return tags


class LogIdfTransformer(TransformerMixin, BaseEstimator):
    """Multiply term counts by idf = log(N / df), df counted on the fit data.

    Zhang et al. 2015's TF-IDF: counts as term frequency, no smoothing, no
    +1, no row normalisation (unlike scikit-learn's ``TfidfTransformer``).

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[2, 1, 0], [1, 0, 1], [0, 0, 3]])
    >>> LogIdfTransformer().fit(counts).idf_.round(4).tolist()  # log(3/2), log(3), log(3/2)
    [0.4055, 1.0986, 0.4055]
    """

    def fit(self, X, y=None) -> LogIdfTransformer:
        """Count each feature's document frequency in ``X`` (documents × features)."""
        X = sp.csr_matrix(X)
        df = np.bincount(X.indices, minlength=X.shape[1])
        # A feature seen in no fit document gets idf 0 (it cannot be weighed).
        self.idf_ = np.log(X.shape[0] / np.maximum(df, 1)) * (df > 0)
        return self

    def transform(self, X) -> sp.csr_matrix:
        """``X`` with each column multiplied by its idf."""
        check_is_fitted(self, "idf_")
        return sp.csr_matrix(X).multiply(self.idf_).tocsr()


class LargestValueScaler(TransformerMixin, BaseEstimator):
    """Divide every feature by the largest feature value of the fit data.

    Attributes
    ----------
    scale_ : float
        The largest value of the fit matrix (1 if it is all zeros).

    Examples
    --------
    >>> import numpy as np
    >>> scaler = LargestValueScaler().fit(np.array([[1.0, 4.0], [2.0, 0.0]]))
    >>> scaler.scale_, scaler.transform(np.array([[2.0, 8.0]])).toarray().tolist()
    (4.0, [[0.5, 2.0]])
    """

    def fit(self, X, y=None) -> LargestValueScaler:
        """Find the largest value of ``X``."""
        largest = sp.csr_matrix(X).max()
        self.scale_ = float(largest) if largest > 0 else 1.0
        return self

    def transform(self, X) -> sp.csr_matrix:
        """``X`` divided by ``scale_``."""
        check_is_fitted(self, "scale_")
        return sp.csr_matrix(X, dtype=np.float64) / self.scale_


class _Word2VecFeatures(TransformerMixin, BaseEstimator):
    """What the word2vec-based baselines share: tokens, and word2vec on the fit documents."""

    def _analyzer(self):
        return TextEncoder(
            lowercase=self.lowercase, token_pattern=self.token_pattern
        ).build_analyzer()

    def _train_vectors(self, X: Sequence[str]):
        analyze = self._analyzer()
        return train_word2vec(
            [analyze(doc) for doc in check_text_input(X)],
            vector_size=self.vector_size,
            window=self.window,
            min_count=self.min_count,
            epochs=self.epochs,
            random_state=self.random_state,
        )

    def __sklearn_tags__(self):
        return _text_tags(super().__sklearn_tags__())


class BagOfMeans(_Word2VecFeatures):
    """Bag of k-means of word2vec vectors (Zhang et al. 2015's bag-of-means).

    ``fit`` trains word2vec (gensim skip-gram) on the documents, keeping
    words seen at least ``min_count`` times, clusters their vectors into
    ``n_means`` means with scikit-learn's :class:`~sklearn.cluster.MiniBatchKMeans`
    (full k-means over 5,000 centres is slow and MiniBatchKMeans is its
    documented large-scale form), and maps each word to its mean;
    ``transform`` counts the means of each document's words, as a sparse
    bag of words over the means.

    Parameters
    ----------
    vector_size : int, default=300
    min_count : int, default=6
        Words seen fewer times get no vector (the paper: "more than 5 times").
    n_means : int, default=5000
        Means; at most the number of words with a vector.
    window, epochs : int, default=5
        word2vec's context window and passes.
    lowercase : bool, default=True
    token_pattern : str, default=DEFAULT_TOKEN_PATTERN
    random_state : int, default=0

    Attributes
    ----------
    word_means_ : dict of str to int
        The mean (cluster) of each word with a vector.
    n_means_ : int
        Means actually used.

    Examples
    --------
    >>> docs = ["good film", "bad film", "good plot", "bad plot"] * 10
    >>> bag = BagOfMeans(vector_size=4, n_means=2, min_count=1)  # doctest: +SKIP
    >>> bag.fit_transform(docs).shape  # doctest: +SKIP
    (40, 2)
    """

    def __init__(
        self,
        vector_size: int = 300,
        min_count: int = 6,
        n_means: int = 5000,
        window: int = 5,
        epochs: int = 5,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        random_state: int = 0,
    ):
        self.vector_size = vector_size
        self.min_count = min_count
        self.n_means = n_means
        self.window = window
        self.epochs = epochs
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.random_state = random_state

    def fit(self, X: Sequence[str], y=None) -> BagOfMeans:
        """Learn word vectors, their means, and each word's mean."""
        vectors = self._train_vectors(X)
        self.n_means_ = min(self.n_means, len(vectors.index_to_key))
        kmeans = MiniBatchKMeans(
            self.n_means_, random_state=self.random_state, n_init=3, batch_size=4096
        ).fit(vectors.vectors)
        self.word_means_ = dict(zip(vectors.index_to_key, kmeans.labels_.tolist()))
        return self

    def transform(self, X: Sequence[str]) -> sp.csr_matrix:
        """Counts of the means of each document's words, shape (n, ``n_means_``)."""
        check_is_fitted(self, "word_means_")
        analyze, means = self._analyzer(), self.word_means_
        rows, cols = [], []
        for i, doc in enumerate(check_text_input(X)):
            found = [means[t] for t in analyze(doc) if t in means]
            rows += [i] * len(found)
            cols += found
        data = np.ones(len(rows))
        return sp.csr_matrix((data, (rows, cols)), shape=(len(X), self.n_means_))


def _logistic(C: float = 1.0) -> LogisticRegression:
    """Multinomial logistic regression (lbfgs; multinomial for more than two classes)."""
    return LogisticRegression(C=C, max_iter=2000)


def bow(max_features: int = 50_000, C: float = 100.0) -> Pipeline:
    """Zhang et al.'s BOW: word counts / largest value + logistic regression.

    Examples
    --------
    >>> [name for name, _ in bow().steps]
    ['countvectorizer', 'largestvaluescaler', 'logisticregression']
    """
    return make_pipeline(
        CountVectorizer(max_features=max_features), LargestValueScaler(), _logistic(C)
    )


def bow_tfidf(max_features: int = 50_000, C: float = 100.0) -> Pipeline:
    """Zhang et al.'s BOW TFIDF: counts × log(N/df) / largest value + logistic regression.

    Examples
    --------
    >>> [name for name, _ in bow_tfidf().steps][1]
    'logidftransformer'
    """
    return make_pipeline(
        CountVectorizer(max_features=max_features),
        LogIdfTransformer(),
        LargestValueScaler(),
        _logistic(C),
    )


def ngrams(max_n: int = 5, max_features: int = 500_000, C: float = 100.0) -> Pipeline:
    """Zhang et al.'s n-grams: 1- to 5-gram counts / largest value + logistic regression.

    Examples
    --------
    >>> ngrams().named_steps["countvectorizer"].ngram_range
    (1, 5)
    """
    return make_pipeline(
        CountVectorizer(ngram_range=(1, max_n), max_features=max_features),
        LargestValueScaler(),
        _logistic(C),
    )


def ngrams_tfidf(max_n: int = 5, max_features: int = 500_000, C: float = 100.0) -> Pipeline:
    """Zhang et al.'s n-grams TFIDF: as ``ngrams``, times log(N/df).

    Examples
    --------
    >>> ngrams_tfidf().named_steps["countvectorizer"].max_features
    500000
    """
    return make_pipeline(
        CountVectorizer(ngram_range=(1, max_n), max_features=max_features),
        LogIdfTransformer(),
        LargestValueScaler(),
        _logistic(C),
    )


def bag_of_means(
    vector_size: int = 300, n_means: int = 5000, min_count: int = 6, C: float = 100.0
) -> Pipeline:
    """Zhang et al.'s bag-of-means: counts of k-means of word2vec vectors + logistic regression.

    Examples
    --------
    >>> bag_of_means().named_steps["bagofmeans"].n_means
    5000
    """
    return make_pipeline(
        BagOfMeans(vector_size=vector_size, n_means=n_means, min_count=min_count),
        LargestValueScaler(),
        _logistic(C),
    )


#: The names of HAN Table 2's five baselines, in the paper's order.
TABLE_2 = ("bow", "bow_tfidf", "ngrams", "ngrams_tfidf", "bag_of_means")


def linear_baselines() -> dict[str, Pipeline]:
    """The five baselines of HAN Table 2 (Zhang et al. 2015), by name.

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


def tfidf_logreg(C: float = 10.0) -> Pipeline:
    """A tuned linear reference (not one of the paper's five): TF-IDF of 1–2-grams.

    Sublinear term frequency, terms in at least 2 documents, C=10.

    Examples
    --------
    >>> tfidf_logreg().steps[-1][0]
    'logisticregression'
    """
    features = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    return make_pipeline(features, _logistic(C))


class MeanWordVectors(_Word2VecFeatures):
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

    def fit(self, X: Sequence[str], y=None) -> MeanWordVectors:
        """Train word2vec on the documents ``X``."""
        self.vectors_ = self._train_vectors(X)
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


def tuned_baselines() -> dict[str, Pipeline]:
    """Better-tuned linear variants (not the paper's), by name.

    ``*_tuned``: scikit-learn's TF-IDF (smoothed idf + 1, L2-normalised
    rows) or raw counts with C=10 for TF-IDF, C=1 for counts;
    ``mean_word2vec``: the average word2vec vector of a document
    (:class:`MeanWordVectors`); ``tfidf_logreg``: :func:`tfidf_logreg`.

    Examples
    --------
    >>> sorted(tuned_baselines())[:2]
    ['bow_tfidf_tuned', 'bow_tuned']
    """
    return {
        "bow_tuned": make_pipeline(CountVectorizer(max_features=50_000), _logistic(1.0)),
        "bow_tfidf_tuned": make_pipeline(TfidfVectorizer(max_features=50_000), _logistic(10.0)),
        "ngrams_tuned": make_pipeline(
            CountVectorizer(ngram_range=(1, 5), max_features=500_000), _logistic(1.0)
        ),
        "ngrams_tfidf_tuned": make_pipeline(
            TfidfVectorizer(ngram_range=(1, 5), max_features=500_000), _logistic(10.0)
        ),
        "mean_word2vec": make_pipeline(MeanWordVectors(), _logistic(10.0)),
        "tfidf_logreg": tfidf_logreg(),
    }
