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

Documents that lose tokens are counted in ``EncodedCorpus.n_truncated``.
A document with no token at all is an error: it cannot be classified.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.utils.validation import check_is_fitted

from skattn.utils.params import Interval, Options, validate_params
from skattn.utils.validation import check_text_input

PAD_ID = 0
UNK_ID = 1
PAD_TOKEN = "<pad>"
UNK_TOKEN = "<unk>"

#: Words and single punctuation marks: sentiment lives in "!" and "?" too.
DEFAULT_TOKEN_PATTERN = r"(?u)\w+(?:'\w+)?|[^\w\s]"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str) -> list[str]:
    """Split a text after sentence-ending punctuation and at line breaks.

    A small rule: a sentence ends after ``.``, ``!`` or ``?`` followed by
    white space, or at any line break.

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


@dataclass(frozen=True)
class EncodedCorpus:
    """A corpus of documents as flat integer arrays.

    Attributes
    ----------
    token_ids : ndarray of int64, shape (n_tokens,)
        Every kept token of every document, in order.
    sentence_offsets : ndarray of int64, shape (n_sentences + 1,)
        Sentence ``j`` is ``token_ids[sentence_offsets[j]:sentence_offsets[j + 1]]``.
    document_offsets : ndarray of int64, shape (n_documents + 1,)
        Document ``i`` holds sentences
        ``document_offsets[i]:document_offsets[i + 1]``.
    n_truncated : int
        How many documents lost tokens to the length limits.
    """

    token_ids: np.ndarray
    sentence_offsets: np.ndarray
    document_offsets: np.ndarray
    n_truncated: int = 0

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

    def document(self, i: int) -> np.ndarray:
        """Token ids of document ``i``, sentences concatenated."""
        starts = self.document_token_offsets
        return self.token_ids[starts[i] : starts[i + 1]]

    def sentences(self, i: int) -> list[np.ndarray]:
        """Token ids of each sentence of document ``i``."""
        bounds = self.sentence_offsets[self.document_offsets[i] : self.document_offsets[i + 1] + 1]
        return [self.token_ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


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
    tokenizer : callable or None, default=None
        Callable ``str -> list of str`` replacing the token pattern.
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

    Attributes
    ----------
    vocabulary_ : dict of str to int
        Token to id; ids start at 2 (0 is padding, 1 is unknown).
    id_to_token_ : list of str
        Inverse of ``vocabulary_``, with ``"<pad>"`` and ``"<unk>"`` first.
    token_counts_ : ndarray of int64
        Count of each id's token in the fit data (0 for PAD and UNK).

    Examples
    --------
    >>> enc = TextEncoder().fit(["a good film", "a bad film"])
    >>> corpus = enc.encode(["a good plot"])
    >>> [enc.id_to_token_[i] for i in corpus.document(0)]
    ['a', 'good', '<unk>']
    """

    _parameter_constraints: dict = {
        "lowercase": ["boolean"],
        "token_pattern": [str],
        "tokenizer": [callable, None],
        "strip_accents": [Options({"ascii", "unicode"}), None],
        "analyzer": [Options({"word", "char"})],
        "min_count": [Interval(Integral, 1, None, "left")],
        "max_vocab": [Interval(Integral, 1, None, "left"), None],
        "max_length": [Interval(Integral, 1, None, "left"), None],
        "sentence_split": [Options(set(_SENTENCE_SPLITTERS)), callable, None],
        "max_sentences": [Interval(Integral, 1, None, "left"), None],
        "max_sentence_length": [Interval(Integral, 1, None, "left"), None],
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

    # -- building blocks -------------------------------------------------
    def build_analyzer(self) -> Callable[[str], list[str]]:
        """Return the callable that turns one sentence into its tokens.

        Returns
        -------
        callable
            scikit-learn's analyzer for these settings (unigrams, no stop
            words), so it honours ``lowercase``, ``strip_accents``,
            ``token_pattern``, ``tokenizer`` and ``analyzer``.

        Examples
        --------
        >>> TextEncoder().build_analyzer()("It's GREAT!")
        ["it's", 'great', '!']
        """
        custom = self.tokenizer is not None or self.analyzer == "char"
        return CountVectorizer(
            lowercase=self.lowercase,
            strip_accents=self.strip_accents,
            analyzer=self.analyzer,
            tokenizer=self.tokenizer,
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
            For each document, its kept sentences, each a list of tokens.

        Examples
        --------
        >>> TextEncoder(sentence_split="punctuation").tokenize(["Good. Very good!"])
        [[['good', '.'], ['very', 'good', '!']]]
        """
        tokenize_one = self._document_tokenizer()
        return [tokenize_one(doc)[0] for doc in X]

    def _document_tokenizer(self) -> Callable[[str], tuple[list[list[str]], bool]]:
        """``text -> (kept sentences as token lists, whether truncated)``, by the rule above."""
        analyze, split = self.build_analyzer(), self.build_sentence_splitter()

        def tokenize_one(text: str) -> tuple[list[list[str]], bool]:
            sentences = [tokens for s in split(text) if (tokens := analyze(s))]
            truncated = False
            if self.max_sentences is not None and len(sentences) > self.max_sentences:
                sentences, truncated = sentences[: self.max_sentences], True
            if self.max_sentence_length is not None:
                limit = self.max_sentence_length
                truncated |= any(len(s) > limit for s in sentences)
                sentences = [s[:limit] for s in sentences]
            if self.max_length is not None:
                budget, kept = self.max_length, []
                for tokens in sentences:
                    if budget <= 0:
                        truncated = True
                        break
                    truncated |= len(tokens) > budget
                    kept.append(tokens[:budget])
                    budget -= len(tokens)
                sentences = kept
            return sentences, truncated

        return tokenize_one

    def _tokenized(self, X: Sequence[str], name: str):
        """Tokenise validated documents; fail on any that yields no token."""
        tokenize_one = self._document_tokenizer()
        results = [tokenize_one(doc) for doc in X]
        empty = [i for i, (sentences, _) in enumerate(results) if not sentences]
        if empty:
            shown = ", ".join(map(str, empty[:5])) + (", ..." if len(empty) > 5 else "")
            raise ValueError(
                f"{name} has {len(empty)} document(s) that yield no token "
                f"(at index {shown}); every document needs at least one "
                "token of the tokenizer (check token_pattern/tokenizer)."
            )
        return results

    # -- estimator API -----------------------------------------------------
    def fit(self, X: Sequence[str], y=None) -> TextEncoder:
        """Build the vocabulary from documents.

        Parameters
        ----------
        X : sequence of str
            Training documents.
        y : ignored

        Returns
        -------
        self : TextEncoder

        Examples
        --------
        >>> TextEncoder(min_count=2).fit(["a b", "a c"]).vocabulary_
        {'a': 2}
        """
        validate_params(self)
        self._fit_vocabulary(self._tokenized(check_text_input(X), "X"))
        return self

    def _fit_vocabulary(self, results) -> None:
        counts = Counter(chain.from_iterable(chain.from_iterable(s for s, _ in results)))
        kept = sorted(
            (item for item in counts.items() if item[1] >= self.min_count),
            key=lambda item: (-item[1], item[0]),
        )[: self.max_vocab]
        if not kept:
            raise ValueError(
                f"min_count={self.min_count} leaves an empty vocabulary: the most frequent "
                f"token is seen {max(counts.values())} times."
            )
        self.set_vocabulary([token for token, _ in kept], [count for _, count in kept])

    def set_vocabulary(self, tokens: Sequence[str], counts: Sequence[int]) -> TextEncoder:
        """Make ``tokens`` (most frequent first) the fitted vocabulary, ids from 2 on.

        How ``fit`` ends, and how a saved encoder is rebuilt.

        Parameters
        ----------
        tokens : sequence of str
            The kept tokens, without PAD and UNK.
        counts : sequence of int
            How often each was seen in the fit data.

        Returns
        -------
        self : TextEncoder

        Examples
        --------
        >>> TextEncoder().set_vocabulary(["film", "plot"], [3, 1]).vocabulary_
        {'film': 2, 'plot': 3}
        """
        self.id_to_token_ = [PAD_TOKEN, UNK_TOKEN] + list(tokens)
        self.vocabulary_ = {token: i for i, token in enumerate(self.id_to_token_) if i > UNK_ID}
        self.token_counts_ = np.array([0, 0] + list(counts), dtype=np.int64)
        return self

    @property
    def vocab_size_(self) -> int:
        """Number of ids, PAD and UNK included."""
        check_is_fitted(self, "vocabulary_")
        return len(self.id_to_token_)

    def encode(self, X: Sequence[str], *, name: str = "X", return_tokens: bool = False):
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

        Returns
        -------
        EncodedCorpus, or (EncodedCorpus, list of list of list of str)

        Examples
        --------
        >>> enc = TextEncoder().fit(["a b c"])
        >>> enc.encode(["c a", "b"]).token_ids.tolist()
        [4, 2, 3]
        """
        check_is_fitted(self, "vocabulary_")
        return self._encode_documents(check_text_input(X, name=name), name, return_tokens)

    def _encode_documents(self, documents: list[str], name: str = "X", return_tokens=False):
        """:meth:`encode` for documents already validated by the caller."""
        results = self._tokenized(documents, name)
        corpus = self._encode_tokenized(results)
        return (corpus, [sentences for sentences, _ in results]) if return_tokens else corpus

    def fit_encode(self, X: Sequence[str]) -> EncodedCorpus:
        """Fit the vocabulary and encode the same documents (tokenised once).

        Parameters
        ----------
        X : sequence of str
            Documents.

        Returns
        -------
        EncodedCorpus

        Examples
        --------
        >>> len(TextEncoder().fit_encode(["a b", "c"]))
        2
        """
        validate_params(self)
        return self._fit_encode_documents(check_text_input(X))

    def _fit_encode_documents(self, documents: list[str]) -> EncodedCorpus:
        """:meth:`fit_encode` for documents and parameters already validated by the caller."""
        results = self._tokenized(documents, "X")
        self._fit_vocabulary(results)
        return self._encode_tokenized(results)

    def _encode_tokenized(self, results) -> EncodedCorpus:
        lookup = self.vocabulary_.get
        sentences = [s for doc, _ in results for s in doc]
        token_ids = np.fromiter(
            (lookup(t, UNK_ID) for t in chain.from_iterable(sentences)), dtype=np.int64
        )
        sentence_offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in sentences], out=sentence_offsets[1:])
        document_offsets = np.zeros(len(results) + 1, dtype=np.int64)
        np.cumsum([len(doc) for doc, _ in results], out=document_offsets[1:])
        return EncodedCorpus(
            token_ids=token_ids,
            sentence_offsets=sentence_offsets,
            document_offsets=document_offsets,
            n_truncated=sum(truncated for _, truncated in results),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags
