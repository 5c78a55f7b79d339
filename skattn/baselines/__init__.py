"""The baselines the attention models are compared with.

Zhang et al.'s Table-2 models (BOW, n-grams, their TF-IDF variants,
bag-of-means), tuned TF-IDF models, fastText and pair features.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "bow": "skattn.baselines._table2",
    "bow_tfidf": "skattn.baselines._table2",
    "ngrams": "skattn.baselines._table2",
    "ngrams_tfidf": "skattn.baselines._table2",
    "bag_of_means": "skattn.baselines._table2",
    "linear_baselines": "skattn.baselines._table2",
    "tfidf_logreg": "skattn.baselines._table2",
    "tuned_baselines": "skattn.baselines._table2",
    "BagOfMeans": "skattn.baselines._table2",
    "MeanWordVectors": "skattn.baselines._table2",
    "LogIdfTransformer": "skattn.baselines._table2",
    "LargestValueScaler": "skattn.baselines._table2",
    "FastTextClassifier": "skattn.baselines._fasttext",
    "fasttext_available": "skattn.baselines._fasttext",
    "PairFeatures": "skattn.baselines._pairs",
    "pair_baselines": "skattn.baselines._pairs",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
