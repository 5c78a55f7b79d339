"""skattn: attention models for text classification as scikit-learn estimators."""

from skattn.classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.embedders import SelfAttentiveEmbedder
from skattn.persistence import load, save
from skattn.text import TextEncoder

__version__ = "0.1.0"

__all__ = [
    "HierarchicalAttentionClassifier",
    "SelfAttentiveClassifier",
    "SelfAttentiveEmbedder",
    "TextEncoder",
    "__version__",
    "load",
    "save",
]
