"""The text side of a served model in plain Python: strings to padded id arrays.

This reproduces :class:`skattn.text.TextEncoder` (and the scikit-learn
analyzer it builds) without importing scikit-learn: lowercasing, accent
stripping, the token pattern or a built-in tokenizer, the character
analyzer, sentence splitting, the truncation rule and the vocabulary with
its reserved ids; the hashed character n-grams are
``skattn.text._subwords.ngram_ids`` itself, at the lengths the artefact
records. It imports only the standard library, numpy and skattn's own
scikit-learn-free text modules.
The parity of every step with the training code is tested.
"""

from __future__ import annotations

import re
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skattn.text._subwords import ngram_ids
from skattn.text._truncation import truncate
from skattn.text._unicode import join_surrogate_pairs

PAD_ID, UNK_ID = 0, 1
EMPTY_TOKEN = "<empty>"
_RESERVED = ("<pad>", "<unk>", "<empty>")
_WHITE_SPACES = re.compile(r"\s\s+")
_CHARACTER = re.compile(r"\S")
#: Tokens whose n-gram ids a pipeline keeps at most (the least recently used go first).
NGRAM_CACHE_SIZE = 2**14
_SENTENCE_END = re.compile(r"(?<=[.!?\u061f\u06d4])\s+|(?<=[。！？｡।॥።։။])\s*|\n+")


def _strip_accents_unicode(text: str) -> str:
    try:
        text.encode("ASCII", errors="strict")
        return text
    except UnicodeEncodeError:
        normalized = unicodedata.normalize("NFKD", text)
        return "".join(c for c in normalized if not unicodedata.combining(c))


def _strip_accents_ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ASCII", "ignore").decode("ASCII")


_ACCENTS = {None: None, "unicode": _strip_accents_unicode, "ascii": _strip_accents_ascii}
_TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "whitespace": str.split,
    "characters": _CHARACTER.findall,
}
_SPLITTERS: dict[Any, Callable[[str], list[str]]] = {
    None: lambda text: [text],
    "punctuation": _SENTENCE_END.split,
    "lines": str.splitlines,
}


class TextPipeline:
    """Turn documents into the id arrays a served network reads.

    Parameters
    ----------
    config : dict
        The ``"text"`` section of an artefact: the encoder's settings, its
        vocabulary (``id_to_token``) and the id of blank documents.
    ngram_cache_size : int, default=NGRAM_CACHE_SIZE
        Tokens whose hashed n-gram ids are kept for reuse, at most (a
        served model sees unbounded distinct tokens: the least recently
        used are dropped).

    Examples
    --------
    >>> pipeline = TextPipeline({"lowercase": True, "token_pattern": r"(?u)\\w+",
    ...     "tokenizer": None, "strip_accents": None, "analyzer": "word",
    ...     "sentence_split": None, "max_length": None, "max_sentences": None,
    ...     "max_sentence_length": None, "subword_buckets": None,
    ...     "id_to_token": ["<pad>", "<unk>", "<empty>", "good", "film"], "empty_id": 1,
    ...     "ngram_range": [3, 5], "max_ngrams": 32})
    >>> pipeline.tokenize("Good FILM, good")
    [['good', 'film', 'good']]
    >>> pipeline.ids([["good", "plot"]])
    [[3, 1]]
    """

    def __init__(self, config: dict, ngram_cache_size: int = NGRAM_CACHE_SIZE):
        if isinstance(ngram_cache_size, bool) or not isinstance(ngram_cache_size, int):
            raise TypeError(f"ngram_cache_size must be an int, got {ngram_cache_size!r}.")
        if ngram_cache_size < 0:
            raise ValueError(f"ngram_cache_size must be 0 or more, got {ngram_cache_size}.")
        self.config = config
        self.ngram_cache_size = ngram_cache_size
        self.vocabulary = {token: i for i, token in enumerate(config["id_to_token"])}
        self.vocabulary[EMPTY_TOKEN] = config["empty_id"]
        self._analyze = self._build_analyzer()
        self._split = _SPLITTERS[config["sentence_split"]]
        self._ngram_cache: OrderedDict[str, list[int]] = OrderedDict()

    def _build_analyzer(self) -> Callable[[str], list[str]]:
        config = self.config
        accents = _ACCENTS[config["strip_accents"]]
        lowercase = config["lowercase"]

        def preprocess(text: str) -> str:
            if lowercase:
                text = text.lower()
            return accents(text) if accents is not None else text

        if config["analyzer"] == "char":
            return lambda text: list(_WHITE_SPACES.sub(" ", preprocess(text)))
        tokenizer = (
            _TOKENIZERS.get(config["tokenizer"]) or re.compile(config["token_pattern"]).findall
        )
        return lambda text: tokenizer(preprocess(text))

    def tokenize(self, text: str) -> list[list[str]]:
        """One document's kept sentences, each a list of tokens (the truncation rule)."""
        config = self.config
        text = join_surrogate_pairs(text)
        sentences = [tokens for s in self._split(text) if (tokens := self._analyze(s))]
        if not sentences:
            return [[EMPTY_TOKEN]]
        limits = (config["max_sentences"], config["max_sentence_length"], config["max_length"])
        return truncate(sentences, *limits)[0]

    def ids(self, sentences: list[list[str]]) -> list[list[int]]:
        """Token ids of tokenised sentences (unknown words: UNK)."""
        lookup = self.vocabulary.get
        return [[lookup(token, UNK_ID) for token in sentence] for sentence in sentences]

    def ngram_ids(self, token: str) -> list[int]:
        """A token's hashed character n-gram ids (none for reserved tokens)."""
        cache = self._ngram_cache
        cached = cache.get(token)
        if cached is not None:
            cache.move_to_end(token)
            return cached
        cached = [] if token in _RESERVED else self._hash_ngrams(token)
        if self.ngram_cache_size:
            if len(cache) >= self.ngram_cache_size:
                cache.popitem(last=False)
            cache[token] = cached
        return cached

    def _hash_ngrams(self, word: str) -> list[int]:
        config = self.config
        low, high = config["ngram_range"]
        return ngram_ids(word, config["subword_buckets"], (low, high), config["max_ngrams"])

    # -- batches ----------------------------------------------------------------
    def flat_batch(self, documents: Sequence[str]) -> tuple[dict[str, np.ndarray], list]:
        """Inputs of a self-attentive network: tokens (batch, time), lengths, subwords.

        Returns the arrays and each document's kept tokens.
        """
        tokens = [[t for s in self.tokenize(doc) for t in s] for doc in documents]
        width = max(map(len, tokens))
        ids = np.zeros((len(tokens), width), dtype=np.int64)
        for i, doc in enumerate(tokens):
            ids[i, : len(doc)] = self.ids([doc])[0]
        arrays = {"tokens": ids, "lengths": np.array([len(d) for d in tokens], dtype=np.int64)}
        if self.config["subword_buckets"] is not None:
            arrays["subwords"] = self._subword_array([tokens], (len(tokens), width))
        return arrays, tokens

    def nested_batch(self, documents: Sequence[str]) -> tuple[dict[str, np.ndarray], list]:
        """Inputs of a hierarchical network: tokens (batch, sentences, words), lengths."""
        docs = [self.tokenize(doc) for doc in documents]
        n_sentences = max(map(len, docs))
        n_words = max(len(s) for doc in docs for s in doc)
        ids = np.zeros((len(docs), n_sentences, n_words), dtype=np.int64)
        lengths = np.zeros((len(docs), n_sentences), dtype=np.int64)
        for i, doc in enumerate(docs):
            for j, (sentence, sentence_ids) in enumerate(zip(doc, self.ids(doc))):
                ids[i, j, : len(sentence)] = sentence_ids
                lengths[i, j] = len(sentence)
        arrays = {"tokens": ids, "lengths": lengths}
        if self.config["subword_buckets"] is not None:
            arrays["subwords"] = self._subword_array(docs, ids.shape)
        return arrays, docs

    def _subword_array(self, nested: list, shape: tuple[int, ...]) -> np.ndarray:
        """n-gram ids for every token position of ``shape``, padded with 0."""
        per_position: list[tuple[tuple[int, ...], list[int]]] = []
        for i, doc in enumerate(nested[0] if len(shape) == 2 else nested):
            if len(shape) == 2:
                per_position += [((i, k), self.ngram_ids(t)) for k, t in enumerate(doc)]
            else:
                for j, sentence in enumerate(doc):
                    per_position += [((i, j, k), self.ngram_ids(t)) for k, t in enumerate(sentence)]
        width = max([1, *(len(grams) for _, grams in per_position)])
        array = np.zeros((*shape, width), dtype=np.int64)
        for position, grams in per_position:
            array[position][: len(grams)] = grams
        return array
