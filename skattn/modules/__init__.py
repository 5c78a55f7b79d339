"""Pure PyTorch building blocks and networks (no scikit-learn, no skorch)."""

from skattn.modules.attention import (
    ContextAttention,
    StructuredSelfAttention,
    attention_penalty,
    length_mask,
    masked_pool,
    masked_softmax,
)
from skattn.modules.encoders import BiRNNEncoder
from skattn.modules.self_attentive import SelfAttentiveNet, SelfAttentiveOutput

__all__ = [
    "BiRNNEncoder",
    "ContextAttention",
    "SelfAttentiveNet",
    "SelfAttentiveOutput",
    "StructuredSelfAttention",
    "attention_penalty",
    "length_mask",
    "masked_pool",
    "masked_softmax",
]
