"""Pure PyTorch building blocks and networks (no scikit-learn, no skorch)."""

from skattn.modules.attention import (
    ContextAttention,
    SequencePooling,
    StructuredSelfAttention,
    attention_penalty,
    length_mask,
    masked_pool,
    masked_softmax,
)
from skattn.modules.encoders import BiRNNEncoder, SubwordEmbedding
from skattn.modules.hierarchical import HierarchicalAttentionNet, HierarchicalOutput
from skattn.modules.pair import PairOutput, SelfAttentivePairNet
from skattn.modules.self_attentive import SelfAttentiveNet, SelfAttentiveOutput

__all__ = [
    "BiRNNEncoder",
    "ContextAttention",
    "HierarchicalAttentionNet",
    "HierarchicalOutput",
    "PairOutput",
    "SequencePooling",
    "SelfAttentiveNet",
    "SelfAttentiveOutput",
    "SelfAttentivePairNet",
    "StructuredSelfAttention",
    "SubwordEmbedding",
    "attention_penalty",
    "length_mask",
    "masked_pool",
    "masked_softmax",
]
