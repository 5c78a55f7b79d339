"""Choosing hyperparameters as the papers do, and decision thresholds tuned on held-out data.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "learning_rate_search": "skattn.model_selection._learning_rate",
    "LearningRateSearch": "skattn.model_selection._learning_rate",
    "TunedThresholdMultiLabelClassifier": "skattn.training._thresholds",
    "f1_thresholds": "skattn.training._thresholds",
    "tuned_macro_f1": "skattn.training._thresholds",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
