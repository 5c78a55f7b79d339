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
which the paper names no regularisation, has a weak L2 penalty (C=100),
as scikit-learn's default C=1 underfits features divided by their largest
value (RESULTS.md has the measurements). The count baselines' words are
scikit-learn's default tokens (two or more word characters, lowercased);
:class:`BagOfMeans` tokenises as the attention models do
(``DEFAULT_TOKEN_PATTERN``).

Better-tuned variants that are not the paper's (scikit-learn's smoothed,
L2-normalised TF-IDF, C=10; the average word2vec vector) are in
:func:`tuned_baselines`, with ``tfidf_logreg``, a tuned 1–2-gram TF-IDF
reference. :func:`linear_baselines` returns the five of Table 2.

Vocabulary options keep scikit-learn's names here. The attention
estimators (and :class:`~skattn.text.TextEncoder`) name the same two
choices differently:

- ``max_features`` (an argument of :func:`bow`, :func:`bow_tfidf`,
  :func:`ngrams`, :func:`ngrams_tfidf`) is their ``max_vocab``: both keep
  the terms with the largest total count in the fit documents (ties at the
  cut: alphabetical for ``max_vocab``, unspecified for ``max_features``).
  The attention models add three reserved ids (padding, unknown, blank
  document) to their ``max_vocab`` words.
- ``min_df`` (the vectorizer's, e.g. ``countvectorizer__min_df`` in
  ``set_params``) plays the part of their ``min_count`` in another unit:
  ``min_df`` counts the documents that contain a term (a float is a share
  of the documents), ``min_count`` counts the term's occurrences. A word
  used three times in one document has count 3 but document frequency 1,
  so ``min_df=k`` keeps only words that ``min_count=k`` keeps too.
- :class:`BagOfMeans` and :class:`MeanWordVectors` take ``min_count`` in
  the attention models' sense (occurrences; word2vec's own option).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    OneToOneFeatureMixin,
    TransformerMixin,
)
from sklearn.cluster import MiniBatchKMeans
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from skattn.embeddings._vectors import train_word2vec
from skattn.text._encoder import DEFAULT_TOKEN_PATTERN, TextEncoder
from skattn.utils._params import POSITIVE_INT, Interval, validate_params
from skattn.utils._validation import check_text_input, text_input_tags

#: What the numeric transformers read: dense or sparse, converted to float.
_NUMERIC = dict(accept_sparse="csr", dtype=(np.float64, np.float32))


# The transformers with sparse output opt out of set_output's pandas wrapping
# (auto_wrap_output_keys=None), as scikit-learn's TfidfTransformer does: a
# pandas output configuration then leaves their sparse matrices as they are.


def _sparse_input_tags(tags):
    """Numbers, dense or sparse (the output of a vectorizer)."""
    tags.input_tags.sparse = True
    return tags


class LogIdfTransformer(
    OneToOneFeatureMixin, TransformerMixin, BaseEstimator, auto_wrap_output_keys=None
):
    """Multiply term counts by idf = log(N / df), df counted on the fit data.

    Zhang et al. 2015's TF-IDF: counts as term frequency, no smoothing, no
    +1, no row normalisation (unlike scikit-learn's ``TfidfTransformer``).
    N is the number of fit documents (rows) and df the number of them in
    which the feature is non-zero; a feature that is zero in every fit
    document gets idf 0.

    Attributes
    ----------
    idf_ : ndarray of shape (n_features,)
        The idf of each feature.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen in ``fit``, when ``X`` had string column
        names (a DataFrame).

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[2, 1, 0], [1, 0, 1], [0, 0, 3]])
    >>> idf = LogIdfTransformer().fit(counts)
    >>> idf.idf_.round(4).tolist()  # log(3/2), log(3), log(3/2)
    [0.4055, 1.0986, 0.4055]
    >>> idf.transform(counts).toarray().round(4).tolist()[0]
    [0.8109, 1.0986, 0.0]
    """

    def fit(self, X, y=None) -> LogIdfTransformer:
        """Count each feature's document frequency.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_features)
            Term counts (finite numbers).
        y : ignored

        Returns
        -------
        self : LogIdfTransformer
        """
        X = validate_data(self, X, **_NUMERIC)
        if sp.issparse(X):
            df = np.bincount(X.indices, weights=X.data != 0, minlength=X.shape[1])
        else:
            df = np.count_nonzero(X, axis=0)
        seen = df > 0
        self.idf_ = np.zeros(X.shape[1])
        self.idf_[seen] = np.log(X.shape[0] / df[seen])
        return self

    def transform(self, X) -> sp.csr_matrix:
        """Multiply each column of ``X`` by its idf.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_features)

        Returns
        -------
        csr_matrix of float64, shape (n_documents, n_features)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, **_NUMERIC)
        return (sp.csr_matrix(X) @ sp.diags(self.idf_)).tocsr()

    def __sklearn_tags__(self):
        return _sparse_input_tags(super().__sklearn_tags__())


class LargestValueScaler(
    OneToOneFeatureMixin, TransformerMixin, BaseEstimator, auto_wrap_output_keys=None
):
    """Divide every feature by the largest feature value of the fit data.

    One number for the whole matrix (not one per column), as Zhang et al.
    2015 divide their features "by the largest feature value".

    Attributes
    ----------
    scale_ : float
        The largest value of the fit matrix (1 if none is positive).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen in ``fit``, when ``X`` had string column
        names (a DataFrame).

    Examples
    --------
    >>> import numpy as np
    >>> scaler = LargestValueScaler().fit(np.array([[1.0, 4.0], [2.0, 0.0]]))
    >>> scaler.scale_, scaler.transform(np.array([[2.0, 8.0]])).toarray().tolist()
    (4.0, [[0.5, 2.0]])
    """

    def fit(self, X, y=None) -> LargestValueScaler:
        """Find the largest value of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_features)
            Finite numbers.
        y : ignored

        Returns
        -------
        self : LargestValueScaler
        """
        X = validate_data(self, X, **_NUMERIC)
        largest = float(X.max())
        self.scale_ = largest if largest > 0 else 1.0
        return self

    def transform(self, X) -> sp.csr_matrix:
        """Divide ``X`` by ``scale_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_documents, n_features)

        Returns
        -------
        csr_matrix of float64, shape (n_documents, n_features)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, **_NUMERIC)
        return sp.csr_matrix(X, dtype=np.float64) / self.scale_

    def __sklearn_tags__(self):
        return _sparse_input_tags(super().__sklearn_tags__())


class _Word2VecFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """What the word2vec-based baselines share: tokens, and word2vec on the fit documents."""

    _parameter_constraints: dict = {
        "vector_size": [POSITIVE_INT],
        "min_count": [POSITIVE_INT],
        "window": [POSITIVE_INT],
        "epochs": [POSITIVE_INT],
        "lowercase": ["boolean"],
        "token_pattern": [str],
        # gensim takes an int seed below 2**32 or None, never a RandomState.
        "random_state": [Interval(Integral, 0, 2**32 - 1, "both"), None],
    }

    def _analyzer(self):
        return TextEncoder(
            lowercase=self.lowercase, token_pattern=self.token_pattern
        ).build_analyzer()

    def _train_vectors(self, X: Sequence[str]):
        """Validate the parameters and ``X``, then train word2vec on its tokens."""
        validate_params(self)
        analyze = self._analyzer()
        sentences = [analyze(doc) for doc in check_text_input(X)]
        counts = Counter(chain.from_iterable(sentences))
        most = max(counts.values(), default=0)
        if most < self.min_count:
            raise ValueError(
                f"min_count={self.min_count} leaves no word with a vector: the most frequent "
                f"token of X is seen {most} times."
            )
        return train_word2vec(
            sentences,
            vector_size=self.vector_size,
            window=self.window,
            min_count=self.min_count,
            epochs=self.epochs,
            random_state=self.random_state,
        )

    def __sklearn_tags__(self):
        return text_input_tags(super().__sklearn_tags__())


class BagOfMeans(_Word2VecFeatures, auto_wrap_output_keys=None):
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
    random_state : int or None, default=0
        Seed of word2vec and k-means: an int in [0, 2**32 - 1] (gensim's
        seed), or None for unseeded (not reproducible) fits.

    Attributes
    ----------
    word_means_ : dict of str to int
        The mean (cluster) of each word with a vector.
    n_means_ : int
        Means actually used.

    Examples
    --------
    >>> docs = ["good film", "bad film", "good plot", "bad plot"] * 10
    >>> bag = BagOfMeans(vector_size=4, n_means=2, min_count=1).fit(docs)
    >>> bag.transform(["good film", "a good good plot"]).toarray().sum(axis=1).tolist()
    [2.0, 3.0]
    >>> bag.get_feature_names_out().tolist()
    ['bagofmeans0', 'bagofmeans1']
    """

    _parameter_constraints: dict = {
        **_Word2VecFeatures._parameter_constraints,
        "n_means": [POSITIVE_INT],
    }

    def __init__(
        self,
        vector_size: int = 300,
        min_count: int = 6,
        n_means: int = 5000,
        window: int = 5,
        epochs: int = 5,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        random_state: int | None = 0,
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
        """Learn word vectors, their means, and each word's mean.

        Parameters
        ----------
        X : sequence of str
            Training documents.
        y : ignored

        Returns
        -------
        self : BagOfMeans
        """
        vectors = self._train_vectors(X)
        n_words = len(vectors.index_to_key)
        self.n_means_ = min(self.n_means, n_words)
        if self.n_means_ == n_words:
            warnings.warn(
                f"BagOfMeans: only {n_words} words are seen at least min_count={self.min_count} "
                f"times, not more than n_means={self.n_means}, so every word is its own mean "
                "and the features are a bag of words. Lower n_means (or min_count) for a "
                "bag of means.",
                UserWarning,
                stacklevel=2,
            )
        kmeans = MiniBatchKMeans(
            self.n_means_, random_state=self.random_state, n_init=3, batch_size=4096
        ).fit(vectors.vectors)
        self.word_means_ = dict(zip(vectors.index_to_key, kmeans.labels_.tolist()))
        return self

    def transform(self, X: Sequence[str]) -> sp.csr_matrix:
        """Count the means of each document's words (words without a vector are skipped).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        csr_matrix of float64, shape (n_documents, ``n_means_``)
        """
        check_is_fitted(self, "word_means_")
        docs = check_text_input(X)
        analyze, means = self._analyzer(), self.word_means_
        rows, cols = [], []
        for i, doc in enumerate(docs):
            found = [means[t] for t in analyze(doc) if t in means]
            rows += [i] * len(found)
            cols += found
        data = np.ones(len(rows))
        return sp.csr_matrix((data, (rows, cols)), shape=(len(docs), self.n_means_))

    @property
    def _n_features_out(self) -> int:
        """Number of output columns, for ``get_feature_names_out``."""
        return self.n_means_


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


# Words of any length and single punctuation marks (see tfidf_logreg).
_WORDS_AND_PUNCTUATION = r"(?u)\b\w+\b|[^\w\s]"


def tfidf_logreg(C: float = 10.0) -> Pipeline:
    """A tuned linear reference (not one of the paper's five): TF-IDF of 1–2-grams.

    Sublinear term frequency, terms in at least 2 documents, C=10. Tokens
    are words of any length and single punctuation marks (``?``, ``!``,
    emoticons' parts), which carry the question and dialogue-act signal of
    short texts.

    Examples
    --------
    >>> tfidf_logreg().steps[-1][0]
    'logisticregression'
    >>> tfidf_logreg()[0].build_analyzer()("Why not?")
    ['why', 'not', '?', 'why not', 'not ?']
    """
    features = TfidfVectorizer(
        ngram_range=(1, 2), min_df=2, sublinear_tf=True, token_pattern=_WORDS_AND_PUNCTUATION
    )
    return make_pipeline(features, _logistic(C))


class MeanWordVectors(_Word2VecFeatures):
    """The average word2vec vector of each document.

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
    random_state : int or None, default=0
        Seed of word2vec: an int in [0, 2**32 - 1] (gensim's seed), or None
        for unseeded (not reproducible) fits.

    Attributes
    ----------
    vectors_ : gensim.models.KeyedVectors
        The trained word vectors.

    Examples
    --------
    >>> docs = ["a good film", "a bad film"] * 10
    >>> MeanWordVectors(vector_size=3).fit_transform(docs).shape
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
        random_state: int | None = 0,
    ):
        self.vector_size = vector_size
        self.window = window
        self.min_count = min_count
        self.epochs = epochs
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.random_state = random_state

    def fit(self, X: Sequence[str], y=None) -> MeanWordVectors:
        """Train word2vec on the documents ``X``.

        Parameters
        ----------
        X : sequence of str
            Training documents.
        y : ignored

        Returns
        -------
        self : MeanWordVectors
        """
        self.vectors_ = self._train_vectors(X)
        return self

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Average the vectors of each document's known words (zeros when it has none).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32, shape (n_documents, vector_size)
        """
        check_is_fitted(self, "vectors_")
        docs = check_text_input(X)
        analyze, vectors = self._analyzer(), self.vectors_
        out = np.zeros((len(docs), vectors.vector_size), dtype=np.float32)
        for i, doc in enumerate(docs):
            ids = [vectors.key_to_index[t] for t in analyze(doc) if t in vectors.key_to_index]
            if ids:
                out[i] = vectors.vectors[ids].mean(axis=0)
        return out

    @property
    def _n_features_out(self) -> int:
        """Number of output columns, for ``get_feature_names_out``."""
        return self.vectors_.vector_size


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
