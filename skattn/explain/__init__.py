"""Why a model decided: token and sentence scores, pages, figures and their faithfulness.

The attribution methods, the explanation records and how they render, and
the ERASER erasure test of how faithful a ranking is, for any text
classifier.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "Explanations": "skattn.explain._explanations",
    "explanation_records": "skattn.explain._attribution",
    "token_scores": "skattn.explain._attribution",
    "METHODS": "skattn.explain._attribution",
    "DEFAULT_METHOD": "skattn.explain._attribution",
    "faithfulness_report": "skattn.explain._faithfulness",
    "FaithfulnessReport": "skattn.explain._faithfulness",
    "erasure_curves": "skattn.explain._faithfulness",
    "linear_token_scores": "skattn.explain._faithfulness",
    "ModelDocuments": "skattn.explain._erasure",
    "TextDocuments": "skattn.explain._erasure",
    "PairDocuments": "skattn.explain._erasure",
    "leave_one_out": "skattn.explain._erasure",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
