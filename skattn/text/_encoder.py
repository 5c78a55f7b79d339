"""From raw strings to ragged integer ids.

The tokenisation reuses scikit-learn's analyzer machinery
(:class:`~sklearn.feature_extraction.text.CountVectorizer` builds it), so
``lowercase``, ``token_pattern``, ``strip_accents``, a custom ``tokenizer``
and the character analyzer behave exactly as users know them from there.

Every corpus is stored two-level and flat: one integer array of token ids,
the offsets of each sentence in it, and the offsets of each document in the
sentences. A model that ignores sentences (the self-attentive network) sees
each document as one sentence.

Truncation rule (applied identically in ``fit`` and ``encode``):

1. a document is split into sentences by ``sentence_split`` (no split:
   the whole document is one sentence); sentences with no token are
   skipped, as they carry nothing;
2. only the first ``max_sentences`` sentences are kept;
3. only the first ``max_sentence_length`` tokens of each sentence are kept;
4. only the first ``max_length`` tokens of the document are kept, counted
   over the kept sentences in order.

Documents that lose tokens are counted in ``EncodedCorpus.n_truncated``
(and per limit in ``EncodedCorpus.truncated_by``).

Blank documents are data (as in scikit-learn's vectorizers): a document
that yields no token at all (empty, white space only, or nothing the
tokenizer keeps) is encoded as one sentence holding the single reserved
token ``<empty>`` (id 2). Its embedding is learned from the blank documents
of the fit data; when the fit data held none, ``<empty>`` was never
trained and blank documents are encoded as ``<unk>`` instead.
``EncodedCorpus.n_blank`` counts them.

Any script: the default token pattern keeps words of space-separated
scripts whole, combining marks and joiners included, and makes every
ideograph and kana character (Chinese, Japanese) a token of its own, as
multilingual tokenizers do; sentence
splitting knows the terminators of CJK (。！？), Devanagari (। ॥), Arabic
(؟ ۔) and other scripts. Built-in tokenizers can be chosen by name
(:data:`TOKENIZERS`), which a model file can store.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.validation import check_is_fitted

from skattn.text._marks import COMBINING_MARKS
from skattn.text._streaming import DEFAULT_CHUNK_SIZE, in_stream, iter_chunks
from skattn.text._subwords import subword_table
from skattn.text._truncation import truncate
from skattn.text._unicode import join_surrogate_pairs
from skattn.utils._params import POSITIVE_INT, Options, validate_params
from skattn.utils._validation import check_text_input, text_input_tags

PAD_ID = 0
UNK_ID = 1
EMPTY_ID = 2
PAD_TOKEN = "<pad>"
UNK_TOKEN = "<unk>"
EMPTY_TOKEN = "<empty>"
#: Tokens with fixed ids before the words, in id order.
RESERVED_TOKENS = (PAD_TOKEN, UNK_TOKEN, EMPTY_TOKEN)
#: How a document without any token is tokenised (never modified in place).
_BLANK_DOCUMENT = [[EMPTY_TOKEN]]

#: Characters of scripts written without spaces between words: ideographs
#: (CJK unified, extensions, compatibility) and kana (hiragana, katakana,
#: half-width katakana). Each is a token of its own.
_IDEOGRAPHIC = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0003134f"
)

#: Zero-width non-joiner and joiner: inside Persian words and Indic conjuncts.
_JOINERS = "\u200c\u200d"

#: A letter or digit that can be part of a word (not an ideograph or kana).
_LETTER = rf"[^\W{_IDEOGRAPHIC}]"

#: A word: letters and digits with the combining marks after them and the
#: joiners between them (Hindi's vowel signs, Arabic's and Hebrew's points,
#: decomposed accents, Persian's non-joiner), which ``\w`` alone does not
#: match. The look-ahead (a character that is neither a letter, white space
#: nor ASCII, which every mark and joiner is) lets a word without marks end
#: after one cheap test: entering the group costs about twice the old
#: pattern's time on English text.
_WORD = (
    rf"{_LETTER}+(?:(?=[^\w\s\x00-\x7f])"
    rf"(?:[{COMBINING_MARKS}]|[{_JOINERS}]+(?={_LETTER}))+{_LETTER}*)*"
)

#: Words (with an inner apostrophe), single ideographs or kana, and single
#: punctuation marks: sentiment lives in "!" and "?" too.
DEFAULT_TOKEN_PATTERN = rf"(?u)[{_IDEOGRAPHIC}]|{_WORD}(?:'{_WORD})?|[^\w\s]"

#: Sentence ends: after . ! ? ؟ ۔ followed by white space; after the
#: full-width and other scripts' terminators (written without a following
#: space); and at line breaks.
_SENTENCE_END = re.compile(r"(?<=[.!?\u061f\u06d4])\s+|(?<=[。！？｡।॥።։။])\s*|\n+")


def split_sentences(text: str) -> list[str]:
    """Split a text after sentence-ending punctuation and at line breaks.

    A small rule: a sentence ends after ``.``, ``!``, ``?`` (and the Arabic
    ``؟`` and ``۔``) followed by white space; right after the CJK
    terminators ``。！？｡``, the Devanagari ``।`` ``॥``, the Ethiopic ``።``,
    the Armenian ``։`` and the Burmese ``။``; and at any line break.

    Parameters
    ----------
    text : str
        The document.

    Returns
    -------
    list of str
        The sentences, in order (possibly empty strings, which the encoder
        skips).

    Examples
    --------
    >>> split_sentences("Great film. Loved it!\\nWould watch again")
    ['Great film.', 'Loved it!', 'Would watch again']
    >>> split_sentences("第一句。第二句！第三句？")
    ['第一句。', '第二句！', '第三句？', '']
    """
    return _SENTENCE_END.split(text)


def split_lines(text: str) -> list[str]:
    """Take each line of a text as one sentence.

    Parameters
    ----------
    text : str
        The document.

    Returns
    -------
    list of str
        Its lines.

    Examples
    --------
    >>> split_lines("first line\\nsecond line")
    ['first line', 'second line']
    """
    return text.splitlines()


_SENTENCE_SPLITTERS: dict[str, Callable[[str], list[str]]] = {
    "punctuation": split_sentences,
    "lines": split_lines,
}

_CHARACTER = re.compile(r"\S")


def whitespace_tokens(text: str) -> list[str]:
    """Split on white space only (the text's own tokens, punctuation attached).

    Examples
    --------
    >>> whitespace_tokens("pre-tokenised text , here")
    ['pre-tokenised', 'text', ',', 'here']
    """
    return text.split()


def character_tokens(text: str) -> list[str]:
    """Every character that is not white space is a token.

    Examples
    --------
    >>> character_tokens("好 看!")
    ['好', '看', '!']
    """
    return _CHARACTER.findall(text)


#: Built-in tokenizers by name (``tokenizer="whitespace"``): a name, unlike
#: a callable, is stored in a model file. None uses ``token_pattern``.
TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "whitespace": whitespace_tokens,
    "characters": character_tokens,
}


@dataclass(frozen=True)
class EncodedCorpus:
    """A corpus of documents as flat integer arrays.

    Attributes
    ----------
    token_ids : ndarray of int32, shape (n_tokens,)
        Every kept token of every document, in order (int32: half the
        memory of int64; batches are int64).
    sentence_offsets : ndarray of int64, shape (n_sentences + 1,)
        Sentence ``j`` is ``token_ids[sentence_offsets[j]:sentence_offsets[j + 1]]``.
    document_offsets : ndarray of int64, shape (n_documents + 1,)
        Document ``i`` holds sentences
        ``document_offsets[i]:document_offsets[i + 1]``.
    n_truncated : int
        How many documents lost tokens to the length limits.
    truncated_by : dict of str to int
        For each length parameter (``max_length``, ``max_sentences``,
        ``max_sentence_length``), how many documents it shortened.
    n_blank : int
        How many documents yielded no token (encoded as ``<empty>``).
    token_types : ndarray of int32, shape (n_tokens,), or None
        With subwords (``subword_buckets``): each token's row in
        ``subword_table`` (one row per distinct token of this corpus, known
        to the vocabulary or not).
    subword_table : ndarray of int64, shape (n_types + 1, width), or None
        The character n-gram ids of each distinct token
        (:func:`skattn.text._subwords.subword_table`); row 0 pads.

    Examples
    --------
    >>> enc = TextEncoder(sentence_split="punctuation").fit(["Good film. Loved it!", "Dull."])
    >>> corpus = enc.encode(["Good film. Loved it!", "Dull."])
    >>> len(corpus), corpus.document_lengths.tolist(), corpus.sentence_counts.tolist()
    (2, [6, 2], [2, 1])
    >>> [[enc.id_to_token_[i] for i in s] for s in corpus.sentences(0)]
    [['good', 'film', '.'], ['loved', 'it', '!']]
    >>> corpus.token_ids.dtype, corpus.sentence_offsets.tolist(), corpus.document_offsets.tolist()
    (dtype('int32'), [0, 3, 6, 8], [0, 2, 3])
    """

    token_ids: np.ndarray
    sentence_offsets: np.ndarray
    document_offsets: np.ndarray
    n_truncated: int = 0
    truncated_by: dict = field(default_factory=dict)
    n_blank: int = 0
    token_types: np.ndarray | None = None
    subword_table: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.document_offsets) - 1

    @property
    def document_token_offsets(self) -> np.ndarray:
        """Offsets of each document in ``token_ids``, shape (n_documents + 1,)."""
        return self.sentence_offsets[self.document_offsets]

    @property
    def document_lengths(self) -> np.ndarray:
        """Number of kept tokens of each document."""
        return np.diff(self.document_token_offsets)

    @property
    def sentence_counts(self) -> np.ndarray:
        """Number of kept sentences of each document."""
        return np.diff(self.document_offsets)

    def document_spans(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where documents ``indices`` start in ``token_ids``, and their lengths.

        Reads only those documents' offsets: a batch costs its own size, not
        the corpus's (``document_lengths`` derives every document's).

        Examples
        --------
        >>> corpus = TextEncoder().fit_encode(["a b c", "a", "b c"])
        >>> [a.tolist() for a in corpus.document_spans(np.array([2, 0]))]
        [[4, 0], [2, 3]]
        """
        starts = self.sentence_offsets[self.document_offsets[indices]]
        ends = self.sentence_offsets[self.document_offsets[indices + 1]]
        return starts, ends - starts

    def document(self, i: int) -> np.ndarray:
        """Token ids of document ``i``, sentences concatenated."""
        (start,), (length,) = self.document_spans(np.array([i]))
        return self.token_ids[start : start + length]

    def sentences(self, i: int) -> list[np.ndarray]:
        """Token ids of each sentence of document ``i``."""
        bounds = self.sentence_offsets[self.document_offsets[i] : self.document_offsets[i + 1] + 1]
        return [self.token_ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Start offsets of consecutive runs of these lengths, and the end: (n + 1,)."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _stored_offsets(chunks: list[np.ndarray], folder, name: str) -> np.ndarray:
    """The offsets of a stream's chunks of run lengths; with ``folder``, written to
    ``folder/name.npy`` and returned memory-mapped, read-only (what grows with
    the corpus stays on disk)."""
    offsets = _offsets(np.concatenate(chunks))
    if folder is None:
        return offsets
    path = Path(folder) / f"{name}.npy"
    np.save(path, offsets)
    return np.load(path, mmap_mode="r")


#: dtype of token ids (and subword rows) in an EncodedCorpus.
ID_DTYPE = np.int32


def _final_ids(chunks: list[np.ndarray], lookup, folder, name: str, consume: bool):
    """The final ids of a stream's chunks of provisional ids, concatenated:
    ``lookup[chunk]``, or ``chunk + 1`` without a lookup (subword rows).

    Filled chunk by chunk into one array (with ``consume``, each chunk is
    dropped from ``chunks`` once mapped, so memory never holds more than the
    final arrays); with ``folder``, written chunk by chunk to
    ``folder/name.npy`` instead and returned memory-mapped, read-only."""
    total = sum(len(chunk) for chunk in chunks)
    path = None if folder is None else Path(folder) / f"{name}.npy"
    final = np.empty(total, dtype=ID_DTYPE) if path is None else None
    with contextlib.nullcontext() if path is None else open(path, "wb") as handle:
        if handle is not None:
            header = {"descr": np.dtype(ID_DTYPE).str, "fortran_order": False, "shape": (total,)}
            np.lib.format.write_array_header_1_0(handle, header)
        start = 0
        for i, chunk in enumerate(chunks):
            part = (chunk + 1) if lookup is None else lookup[chunk]
            if consume:
                chunks[i] = None
            if handle is None:
                final[start : start + len(part)] = part
            else:
                handle.write(part.tobytes())
            start += len(part)
    return final if path is None else np.load(path, mmap_mode="r")


class TextEncoder(BaseEstimator):
    """Tokenise texts, build a vocabulary and encode texts to ragged ids.

    Parameters
    ----------
    lowercase : bool, default=True
        Lowercase before tokenising.
    token_pattern : str, default=DEFAULT_TOKEN_PATTERN
        Regular expression of a token (words, with an inner apostrophe, and
        single punctuation marks). Ignored when ``tokenizer`` is given or
        ``analyzer="char"``.
    tokenizer : {"whitespace", "characters"}, callable or None, default=None
        Replaces the token pattern: a built-in by name (see
        :data:`TOKENIZERS`; stored in model files) or any callable
        ``str -> list of str`` (which must be passed again to
        :func:`skattn.load`).
    strip_accents : {"ascii", "unicode"} or None, default=None
        Accent removal, as in scikit-learn's vectorizers.
    analyzer : {"word", "char"}, default="word"
        ``"char"`` makes each character a token (for scripts written
        without spaces).
    min_count : int, default=1
        Tokens seen fewer times in ``fit`` map to UNK.
    max_vocab : int or None, default=None
        Keep only the most frequent tokens (ties broken alphabetically).
    max_length : int or None, default=None
        Tokens kept per document (the first ones).
    sentence_split : {"punctuation", "lines"}, callable or None, default=None
        How to split a document into sentences; None keeps each document
        as a single sentence.
    max_sentences : int or None, default=None
        Sentences kept per document (the first ones).
    max_sentence_length : int or None, default=None
        Tokens kept per sentence (the first ones).
    subword_buckets : int or None, default=None
        When set, encoded corpora also carry each token's hashed character
        n-grams in this many buckets (``token_types`` and
        ``subword_table``; :mod:`skattn.text._subwords`), for unknown words too.

    Attributes
    ----------
    vocabulary_ : dict of str to int
        Word to id; ids start at 3 (0 is padding, 1 unknown, 2 empty document).
    id_to_token_ : list of str
        The token of each id, ``"<pad>"``, ``"<unk>"``, ``"<empty>"`` first.
    token_counts_ : ndarray of int64
        Count of each id's token in the fit data (0 for PAD and UNK; the
        number of blank documents for ``"<empty>"``).

    Examples
    --------
    >>> enc = TextEncoder().fit(["a good film", "a bad film"])
    >>> corpus = enc.encode(["a good plot"])
    >>> [enc.id_to_token_[i] for i in corpus.document(0)]
    ['a', 'good', '<unk>']
    >>> enc.encode([""]).token_ids.tolist()  # no blank document in fit: <unk>
    [1]
    """

    #: What an encoder pickled before skattn 0.3 had: no subwords.
    subword_buckets = None

    _parameter_constraints: dict = {
        "lowercase": ["boolean"],
        "token_pattern": [str],
        "tokenizer": [Options(TOKENIZERS), callable, None],
        "strip_accents": [Options({"ascii", "unicode"}), None],
        "analyzer": [Options({"word", "char"})],
        "min_count": [POSITIVE_INT],
        "max_vocab": [POSITIVE_INT, None],
        "max_length": [POSITIVE_INT, None],
        "sentence_split": [Options(set(_SENTENCE_SPLITTERS)), callable, None],
        "max_sentences": [POSITIVE_INT, None],
        "max_sentence_length": [POSITIVE_INT, None],
        "subword_buckets": [POSITIVE_INT, None],
    }

    def __init__(
        self,
        *,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        strip_accents: str | None = None,
        analyzer: str = "word",
        min_count: int = 1,
        max_vocab: int | None = None,
        max_length: int | None = None,
        sentence_split: str | Callable[[str], list[str]] | None = None,
        max_sentences: int | None = None,
        max_sentence_length: int | None = None,
        subword_buckets: int | None = None,
    ):
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.strip_accents = strip_accents
        self.analyzer = analyzer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.max_length = max_length
        self.sentence_split = sentence_split
        self.max_sentences = max_sentences
        self.max_sentence_length = max_sentence_length
        self.subword_buckets = subword_buckets

    # -- building blocks -------------------------------------------------
    def build_analyzer(self) -> Callable[[str], list[str]]:
        """Return the callable that turns one sentence into its tokens.

        Returns
        -------
        callable
            scikit-learn's analyzer for these settings (unigrams, no stop
            words), so it honours ``lowercase``, ``strip_accents``,
            ``token_pattern``, ``tokenizer`` (a callable or a name of
            :data:`TOKENIZERS`) and ``analyzer``.

        Examples
        --------
        >>> TextEncoder().build_analyzer()("It's GREAT!")
        ["it's", 'great', '!']
        >>> TextEncoder().build_analyzer()("这部电影很好看")
        ['这', '部', '电', '影', '很', '好', '看']
        """
        tokenizer = TOKENIZERS.get(self.tokenizer, self.tokenizer)
        custom = tokenizer is not None or self.analyzer == "char"
        return CountVectorizer(
            lowercase=self.lowercase,
            strip_accents=self.strip_accents,
            analyzer=self.analyzer,
            tokenizer=tokenizer,
            token_pattern=None if custom else self.token_pattern,
        ).build_analyzer()

    def build_sentence_splitter(self) -> Callable[[str], list[str]]:
        """Return the callable that splits a document into sentences.

        Returns
        -------
        callable
            ``str -> list of str``; the identity split when
            ``sentence_split`` is None.

        Examples
        --------
        >>> TextEncoder(sentence_split="lines").build_sentence_splitter()("a\\nb")
        ['a', 'b']
        """
        if self.sentence_split is None:
            return lambda text: [text]
        if callable(self.sentence_split):
            return self.sentence_split
        return _SENTENCE_SPLITTERS[self.sentence_split]

    def tokenize(self, X: Iterable[str]) -> list[list[list[str]]]:
        """Split and tokenise documents, applying the truncation rule.

        Parameters
        ----------
        X : iterable of str
            Documents.

        Returns
        -------
        list of list of list of str
            For each document, its kept sentences, each a list of tokens;
            a blank document is ``[["<empty>"]]``.

        Examples
        --------
        >>> TextEncoder(sentence_split="punctuation").tokenize(["Good. Very good!", " "])
        [[['good', '.'], ['very', 'good', '!']], [['<empty>']]]
        """
        tokenize_one = self._document_tokenizer()
        return [tokenize_one(doc)[0] for doc in X]

    def _document_tokenizer(self) -> Callable[[str], tuple[list[list[str]], tuple[str, ...]]]:
        """``text -> (kept sentences as token lists, names of the limits that cut it)``."""
        analyze, split = self.build_analyzer(), self.build_sentence_splitter()

        def tokenize_one(text: str) -> tuple[list[list[str]], tuple[str, ...]]:
            text = join_surrogate_pairs(text)
            sentences = [tokens for s in split(text) if (tokens := analyze(s))]
            if not sentences:
                return _BLANK_DOCUMENT, ()
            return truncate(
                sentences, self.max_sentences, self.max_sentence_length, self.max_length
            )

        return tokenize_one

    def _tokenized(self, documents: Sequence[str]):
        """Tokenise validated documents: a list of (sentences, limits that cut it)."""
        tokenize_one = self._document_tokenizer()
        return [tokenize_one(doc) for doc in documents]

    # -- estimator API -----------------------------------------------------
    def fit(self, X: Sequence[str], y=None) -> TextEncoder:
        """Build the vocabulary from documents.

        Parameters
        ----------
        X : sequence of str
            Training documents (blank ones included; not all blank).
        y : ignored

        Returns
        -------
        self : TextEncoder

        Examples
        --------
        >>> TextEncoder(min_count=2).fit(["a b", "a c"]).vocabulary_
        {'a': 3}
        """
        validate_params(self)
        self._fit_vocabulary(self._tokenized(check_text_input(X)))
        return self

    def _fit_vocabulary(self, results) -> None:
        counts = Counter(chain.from_iterable(chain.from_iterable(s for s, _ in results)))
        self._fit_vocabulary_from_counts(counts, len(results))

    def _fit_vocabulary_from_counts(self, counts: dict[str, int], n_documents: int) -> None:
        """The vocabulary of these token counts (``<empty>``: the blank documents)."""
        counts = dict(counts)
        n_blank = counts.pop(EMPTY_TOKEN, 0)
        if not counts:
            raise ValueError(
                f"X holds {n_documents} document(s) and every one is blank or yields no "
                "token (check token_pattern/tokenizer); a vocabulary needs some text."
            )
        kept = sorted(
            (item for item in counts.items() if item[1] >= self.min_count),
            key=lambda item: (-item[1], item[0]),
        )[: self.max_vocab]
        if not kept:
            raise ValueError(
                f"min_count={self.min_count} leaves an empty vocabulary: the most frequent "
                f"token is seen {max(counts.values())} times."
            )
        self.set_vocabulary(
            list(RESERVED_TOKENS) + [token for token, _ in kept],
            [0, 0, n_blank] + [count for _, count in kept],
        )

    def set_vocabulary(self, id_to_token: Sequence[str], counts: Sequence[int]) -> TextEncoder:
        """Make ``id_to_token`` the fitted vocabulary: how ``fit`` ends, and how a
        saved encoder is rebuilt.

        Parameters
        ----------
        id_to_token : sequence of str
            The token of each id: ``"<pad>"``, ``"<unk>"`` (and, since
            skattn 0.2, ``"<empty>"``) first, then the words, most frequent
            first.
        counts : sequence of int
            How often each was seen in the fit data (for ``"<empty>"``: how
            many blank documents).

        Returns
        -------
        self : TextEncoder

        Examples
        --------
        >>> enc = TextEncoder().set_vocabulary(["<pad>", "<unk>", "<empty>", "film"], [0, 0, 0, 3])
        >>> enc.vocabulary_
        {'film': 3}
        """
        if list(id_to_token[:2]) != [PAD_TOKEN, UNK_TOKEN] or len(id_to_token) != len(counts):
            raise ValueError(
                "id_to_token must start with '<pad>', '<unk>' and have one count per token."
            )
        self.id_to_token_ = list(id_to_token)
        self.token_counts_ = np.asarray(counts, dtype=np.int64)
        reserved = [i for i, token in enumerate(self.id_to_token_) if token in RESERVED_TOKENS]
        self.vocabulary_ = {
            token: i for i, token in enumerate(self.id_to_token_) if i >= len(reserved)
        }
        return self

    @property
    def vocab_size_(self) -> int:
        """Number of ids, PAD, UNK and EMPTY included."""
        check_is_fitted(self, "vocabulary_")
        return len(self.id_to_token_)

    @property
    def empty_id_(self) -> int:
        """The id blank documents are encoded as: ``<empty>`` if fit saw blanks, else UNK.

        Examples
        --------
        >>> TextEncoder().fit(["a b", " "]).empty_id_, TextEncoder().fit(["a b"]).empty_id_
        (2, 1)
        """
        check_is_fitted(self, "vocabulary_")
        trained = (
            len(self.id_to_token_) > EMPTY_ID
            and self.id_to_token_[EMPTY_ID] == EMPTY_TOKEN
            and self.token_counts_[EMPTY_ID] > 0
        )
        return EMPTY_ID if trained else UNK_ID

    def encode(
        self,
        X: Sequence[str],
        *,
        name: str = "X",
        return_tokens: bool = False,
        validated: bool = False,
    ):
        """Encode documents to an :class:`EncodedCorpus`.

        Parameters
        ----------
        X : sequence of str
            Documents.
        name : str, default="X"
            How errors name the input.
        return_tokens : bool, default=False
            Also return the kept tokens, as :meth:`tokenize` would (without
            tokenising twice).
        validated : bool, default=False
            ``X`` is a list of str that
            :func:`~skattn.utils._validation.check_text_input` already
            returned: skip that check (the fast path of callers that
            validated their input once).

        Returns
        -------
        EncodedCorpus, or (EncodedCorpus, list of list of list of str)

        Examples
        --------
        >>> enc = TextEncoder().fit(["a b c"])
        >>> enc.encode(["c a", "b"]).token_ids.tolist()
        [5, 3, 4]
        """
        check_is_fitted(self, "vocabulary_")
        documents = X if validated else check_text_input(X, name=name)
        results = self._tokenized(documents)
        corpus = self._encode_tokenized(results)
        return (corpus, [sentences for sentences, _ in results]) if return_tokens else corpus

    def fit_encode(self, X: Sequence[str], *, validated: bool = False) -> EncodedCorpus:
        """Fit the vocabulary and encode the same documents (tokenised once).

        Parameters
        ----------
        X : sequence of str
            Documents.
        validated : bool, default=False
            ``X`` and this encoder's parameters were already checked by
            the caller: skip those checks (see :meth:`encode`).

        Returns
        -------
        EncodedCorpus

        Examples
        --------
        >>> len(TextEncoder().fit_encode(["a b", "c"]))
        2
        """
        if not validated:
            validate_params(self)
            X = check_text_input(X)
        results = self._tokenized(X)
        self._fit_vocabulary(results)
        return self._encode_tokenized(results)

    def fit_encode_stream(
        self,
        X: Iterable[str],
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        memmap_dir: str | os.PathLike | None = None,
    ) -> EncodedCorpus:
        """Fit the vocabulary and encode a stream of documents in one pass, a chunk at a time.

        The same :class:`EncodedCorpus` (ids, offsets, subwords, counts) as
        :meth:`fit_encode` of the whole list, without holding every
        document's tokens at once: each chunk is tokenised, its tokens get
        provisional ids in order of first appearance, and once the stream
        ends one lookup array maps them to the vocabulary. Memory grows
        with the vocabulary and the flat id arrays, not with the text.

        Parameters
        ----------
        X : iterable of str
            Documents, read once (a generator, a file's
            :func:`~skattn.text._encoder.iter_documents`, a list...).
        chunk_size : int, default=4096
            Documents tokenised at a time.
        memmap_dir : str or path-like, optional
            Write the token ids (and subword rows), and the sentence and
            document offsets, there as ``.npy`` files
            and return them memory-mapped, read-only: the operating system
            keeps in RAM only the pages in use. The folder must exist and
            outlive the corpus.

        Returns
        -------
        EncodedCorpus

        Examples
        --------
        >>> docs = ["a b", "c a", " ", "a"]
        >>> streamed = TextEncoder(min_count=1).fit_encode_stream(iter(docs), chunk_size=3)
        >>> whole = TextEncoder(min_count=1).fit_encode(docs)
        >>> streamed.token_ids.tolist() == whole.token_ids.tolist()
        True
        """
        validate_params(self)
        return self._encode_stream(X, chunk_size, memmap_dir, fit=True)

    def encode_stream(
        self,
        X: Iterable[str],
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        memmap_dir: str | os.PathLike | None = None,
    ) -> EncodedCorpus:
        """Encode a stream of documents with the fitted vocabulary, a chunk at a time.

        The same :class:`EncodedCorpus` as :meth:`encode` of the whole list
        (see :meth:`fit_encode_stream` for the parameters).

        Parameters
        ----------
        X : iterable of str
        chunk_size : int, default=4096
        memmap_dir : str or path-like, optional

        Returns
        -------
        EncodedCorpus

        Examples
        --------
        >>> enc = TextEncoder().fit(["a b c"])
        >>> enc.encode_stream(iter(["c a", "b"]), chunk_size=1).token_ids.tolist()
        [5, 3, 4]
        """
        check_is_fitted(self, "vocabulary_")
        return self._encode_stream(X, chunk_size, memmap_dir, fit=False)

    def _encode_stream(self, X, chunk_size, memmap_dir, fit: bool) -> EncodedCorpus:
        """One pass over ``X``: provisional ids per chunk, mapped to the vocabulary at the end
        (fitted from the stream's counts first when ``fit``)."""
        tokenize_one = self._document_tokenizer()
        provisional: dict[str, int] = {}  # token -> id in order of first appearance
        counts = np.zeros(0, dtype=np.int64)
        ids, sentence_lengths, sentence_counts = [], [], []
        truncated_by: Counter = Counter()
        n_documents = n_truncated = n_blank = 0
        for chunk in iter_chunks(X, chunk_size):
            try:
                documents = check_text_input(chunk)
            except TypeError as error:
                raise in_stream(error, n_documents, len(chunk)) from error
            results = [tokenize_one(doc) for doc in documents]
            sentences = [s for doc, _ in results for s in doc]
            chunk_ids = np.fromiter(
                (
                    provisional.setdefault(t, len(provisional))
                    for t in chain.from_iterable(sentences)
                ),
                dtype=ID_DTYPE,
            )
            if fit:
                counts = np.pad(counts, (0, len(provisional) - len(counts)))
                counts += np.bincount(chunk_ids, minlength=len(provisional))
            ids.append(chunk_ids)
            sentence_lengths.append(np.fromiter(map(len, sentences), dtype=np.int64))
            sentence_counts.append(np.fromiter((len(doc) for doc, _ in results), dtype=np.int64))
            truncated_by.update(chain.from_iterable(cut for _, cut in results))
            n_truncated += sum(bool(cut) for _, cut in results)
            n_blank += sum(doc == _BLANK_DOCUMENT for doc, _ in results)
            n_documents += len(documents)
        if n_documents == 0:
            raise ValueError("X is empty; at least one document is needed.")
        if fit:
            self._fit_vocabulary_from_counts(dict(zip(provisional, counts.tolist())), n_documents)
        lookup = {**self.vocabulary_, EMPTY_TOKEN: self.empty_id_}
        to_final = np.fromiter((lookup.get(t, UNK_ID) for t in provisional), dtype=ID_DTYPE)
        token_types = table = None
        if self.subword_buckets is not None:
            # The rows of the subword table follow first appearance, as in encode.
            token_types = _final_ids(ids, None, memmap_dir, "token_types", consume=False)
            words = [None] + [None if t in RESERVED_TOKENS else t for t in provisional]
            table = subword_table(words, self.subword_buckets)
        # The last pass frees each chunk as it is mapped.
        token_ids = _final_ids(ids, to_final, memmap_dir, "token_ids", consume=True)
        return EncodedCorpus(
            token_ids=token_ids,
            sentence_offsets=_stored_offsets(sentence_lengths, memmap_dir, "sentence_offsets"),
            document_offsets=_stored_offsets(sentence_counts, memmap_dir, "document_offsets"),
            n_truncated=n_truncated,
            truncated_by=dict(truncated_by),
            n_blank=n_blank,
            token_types=token_types,
            subword_table=table,
        )

    def _encode_tokenized(self, results) -> EncodedCorpus:
        lookup = {**self.vocabulary_, EMPTY_TOKEN: self.empty_id_}.get
        sentences = [s for doc, _ in results for s in doc]
        token_ids = np.fromiter(
            (lookup(t, UNK_ID) for t in chain.from_iterable(sentences)), dtype=ID_DTYPE
        )
        sentence_offsets = _offsets(np.fromiter(map(len, sentences), dtype=np.int64))
        document_offsets = _offsets(np.fromiter((len(d) for d, _ in results), dtype=np.int64))
        truncated_by = Counter(chain.from_iterable(cut for _, cut in results))
        token_types = table = None
        if self.subword_buckets is not None:
            # Each distinct token (known or not) gets a row of n-gram ids;
            # row 0 pads, reserved tokens have no n-grams.
            types: dict[str, int] = {}
            token_types = np.fromiter(
                (types.setdefault(t, len(types) + 1) for t in chain.from_iterable(sentences)),
                dtype=ID_DTYPE,
                count=len(token_ids),
            )
            words = [None] + [None if t in RESERVED_TOKENS else t for t in types]
            table = subword_table(words, self.subword_buckets)
        return EncodedCorpus(
            token_ids=token_ids,
            sentence_offsets=sentence_offsets,
            document_offsets=document_offsets,
            n_truncated=sum(bool(cut) for _, cut in results),
            truncated_by=dict(truncated_by),
            n_blank=sum(doc == _BLANK_DOCUMENT for doc, _ in results),
            token_types=token_types,
            subword_table=table,
        )

    @classmethod
    def parameter_constraints(cls, names: Sequence[str]) -> dict[str, list]:
        """The constraints of the text parameters ``names``, for estimators that take them.

        Parameters
        ----------
        names : sequence of str
            Parameter names of this class.

        Returns
        -------
        dict of str to list

        Examples
        --------
        >>> TextEncoder.parameter_constraints(["lowercase"])
        {'lowercase': ['boolean']}
        """
        return {name: cls._parameter_constraints[name] for name in names}

    def __sklearn_tags__(self):
        return text_input_tags(super().__sklearn_tags__())
