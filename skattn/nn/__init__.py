"""The networks and their layers in pure PyTorch (no scikit-learn, no skorch).

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "SelfAttentiveNet": "skattn.nn._self_attentive",
    "HierarchicalAttentionNet": "skattn.nn._hierarchical",
    "SelfAttentivePairNet": "skattn.nn._pair",
    "StructuredSelfAttention": "skattn.nn._attention",
    "ContextAttention": "skattn.nn._attention",
    "SequencePooling": "skattn.nn._attention",
    "attention_penalty": "skattn.nn._attention",
    "masked_softmax": "skattn.nn._attention",
    "masked_pool": "skattn.nn._attention",
    "length_mask": "skattn.nn._attention",
    "BiRNNEncoder": "skattn.nn._encoders",
    "SubwordEmbedding": "skattn.nn._encoders",
    "ModuleOutput": "skattn.nn._outputs",
    "SelfAttentiveOutput": "skattn.nn._self_attentive",
    "LabelAttentionHead": "skattn.nn._self_attentive",
    "HierarchicalOutput": "skattn.nn._hierarchical",
    "PairOutput": "skattn.nn._pair",
    "PrunedMatrixLayer": "skattn.nn._pruned",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
