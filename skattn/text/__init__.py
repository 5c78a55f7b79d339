"""From raw text to what the networks read.

Tokenising and the vocabulary, flat arrays of ids, batches, pairs of
texts, and documents read from files a chunk at a time.

The names below are the package's public API; the code lives in its
private modules, imported on first use.
"""

from skattn._compat import lazy_exports

#: Public name -> the private module that defines it.
_EXPORTS = {
    "TextEncoder": "skattn.text._encoder",
    "EncodedCorpus": "skattn.text._encoder",
    "character_tokens": "skattn.text._encoder",
    "whitespace_tokens": "skattn.text._encoder",
    "split_sentences": "skattn.text._encoder",
    "split_lines": "skattn.text._encoder",
    "DEFAULT_TOKEN_PATTERN": "skattn.text._encoder",
    "PAD_ID": "skattn.text._encoder",
    "UNK_ID": "skattn.text._encoder",
    "EMPTY_ID": "skattn.text._encoder",
    "EMPTY_TOKEN": "skattn.text._encoder",
    "DocumentDataset": "skattn.text._batching",
    "BucketBatchSampler": "skattn.text._batching",
    "PairCorpus": "skattn.text._pairs",
    "PairDataset": "skattn.text._pairs",
    "read_documents": "skattn.text._readers",
    "DocumentFileError": "skattn.text._readers",
    "DocumentFile": "skattn.text._streaming",
    "iter_documents": "skattn.text._streaming",
    "iter_chunks": "skattn.text._streaming",
    "iter_predictions": "skattn.text._streaming",
    "DEFAULT_CHUNK_SIZE": "skattn.text._streaming",
    "char_ngrams": "skattn.text._subwords",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
