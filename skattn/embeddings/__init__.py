"""Initial word vectors for the networks' embedding layers.

GloVe and other named vectors, word2vec and PPMI vectors learned from the
fit data, and text files of vectors.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "initial_vectors": "skattn.embeddings._vectors",
    "InitialVectors": "skattn.embeddings._vectors",
    "ppmi_vectors": "skattn.embeddings._vectors",
    "train_word2vec": "skattn.embeddings._vectors",
    "read_text_vectors": "skattn.embeddings._vectors",
    "NAMED_VECTORS": "skattn.embeddings._pretrained",
    "MIN_TOKEN_COVERAGE": "skattn.embeddings._pretrained",
    "AUTO_MAX_TOKENS": "skattn.embeddings._pretrained",
    "WordVectors": "skattn.embeddings._pretrained",
    "load_named_vectors": "skattn.embeddings._pretrained",
    "named_vectors_installed": "skattn.embeddings._pretrained",
    "token_coverage": "skattn.embeddings._pretrained",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
