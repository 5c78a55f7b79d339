"""The public estimators: the two papers' models, their regressors, the embedder and pairs.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "SelfAttentiveClassifier": "skattn.estimators._classifiers",
    "HierarchicalAttentionClassifier": "skattn.estimators._classifiers",
    "SelfAttentiveRegressor": "skattn.estimators._regressors",
    "HierarchicalAttentionRegressor": "skattn.estimators._regressors",
    "SelfAttentiveEmbedder": "skattn.estimators._embedder",
    "SelfAttentivePairClassifier": "skattn.estimators._pairs",
    "SelfAttentivePairRegressor": "skattn.estimators._pairs",
    "FittedState": "skattn.estimators._base",
    "WeightsMismatchError": "skattn.estimators._base",
    "Departure": "skattn.estimators._architectures",
    "Task": "skattn.estimators._tasks",
    "SingleLabelTask": "skattn.estimators._tasks",
    "MultiLabelTask": "skattn.estimators._tasks",
    "RegressionTask": "skattn.estimators._tasks",
    "Input": "skattn.estimators._inputs",
    "TextInput": "skattn.estimators._inputs",
    "PairInput": "skattn.estimators._inputs",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
