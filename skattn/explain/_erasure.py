"""Documents with tokens erased, and the probabilities a model gives them.

Erasure is the measuring tool of faithful explanations (DeYoung et al.
2020, ERASER): remove some tokens of a document, ask the model again, see
how far the explained class's probability moves. The explained class is an
argument: every kind of documents is made for one output ``column`` (by
default each document's predicted class) and keeps it as ``explained``.
Three kinds support it, with one interface (``tokens``, ``full_proba``,
``explained``, ``probability``):

- :class:`ModelDocuments`, for skattn's classifiers: the documents are
  encoded once and tokens are erased from the token ids, so the model sees
  exactly its own tokens minus the erased ones (no re-tokenisation, the
  fit-time truncation kept). Sentences left without a token disappear; a
  document left without any token is a blank document (``<empty>``).
- :class:`PairDocuments`, for skattn's pair models: the same, over both
  texts of each pair (the first text's tokens, then the second's).
- :class:`TextDocuments`, for any estimator whose ``predict_proba`` takes
  raw strings (a scikit-learn Pipeline, a linear baseline): tokens are the
  spans of a regular expression in the text, and an erased token's span is
  replaced by a space, the rest of the text kept verbatim.

Erasing means deleting, not masking: the document gets shorter, as in
ERASER.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np

from skattn.text._encoder import DEFAULT_TOKEN_PATTERN, EMPTY_TOKEN, EncodedCorpus
from skattn.text._pairs import PairCorpus
from skattn.utils._validation import check_text_input

#: Most token ids one batch of erased variants holds (bounds memory on long documents).
_TOKENS_PER_CALL = 200_000


def _chunks_by_size(sizes: Sequence[int], budget: int) -> list[np.ndarray]:
    """Consecutive positions of ``sizes`` cut into chunks of about ``budget`` in total.

    Examples
    --------
    >>> [c.tolist() for c in _chunks_by_size([3, 3, 3, 10, 1], budget=5)]
    [[0], [1, 2], [3], [4]]
    """
    chunk_of = np.cumsum(np.maximum(np.asarray(sizes, dtype=np.int64), 1)) // budget
    return [np.flatnonzero(chunk_of == chunk) for chunk in np.unique(chunk_of)]


def _offsets(counts) -> np.ndarray:
    """Where each of consecutive runs of ``counts`` items starts, and the end."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def erased_corpus(
    corpus: EncodedCorpus,
    documents: Sequence[int],
    keeps: Sequence[np.ndarray],
    empty_id: int,
) -> EncodedCorpus:
    """One new document per ``(document, keep)`` pair: that document's kept tokens.

    Parameters
    ----------
    corpus : EncodedCorpus
    documents : sequence of int
        Index in ``corpus`` of each variant's document.
    keeps : sequence of ndarray of bool
        For each variant, which of its document's tokens stay (one flag per
        token, in order over the sentences).
    empty_id : int
        The id a document without any token is encoded as.

    Returns
    -------
    EncodedCorpus

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> enc = TextEncoder(sentence_split="punctuation").fit(["a b. c d."])
    >>> corpus = enc.encode(["a b. c d."])
    >>> variant = erased_corpus(corpus, [0], [np.array([1, 1, 1, 0, 0, 0], bool)], 2)
    >>> [[enc.id_to_token_[i] for i in s] for s in variant.sentences(0)]
    [['a', 'b', '.']]
    """
    token_parts, type_parts, sentence_lengths, sentence_counts = [], [], [], []
    types = corpus.token_types
    for document, keep in zip(documents, keeps):
        first, last = corpus.document_offsets[document], corpus.document_offsets[document + 1]
        bounds = corpus.sentence_offsets[first : last + 1]
        keep = np.asarray(keep, dtype=bool)
        kept_ids = corpus.token_ids[bounds[0] : bounds[-1]][keep]
        if len(kept_ids) == 0:
            token_parts.append(np.array([empty_id], dtype=np.int64))
            type_parts.append(np.zeros(1, dtype=np.int64))  # no n-grams, as <empty>
            sentence_lengths.append(np.array([1]))
            sentence_counts.append(1)
            continue
        per_sentence = np.add.reduceat(keep.astype(np.int64), bounds[:-1] - bounds[0])
        per_sentence = per_sentence[per_sentence > 0]
        token_parts.append(kept_ids)
        if types is not None:
            type_parts.append(types[bounds[0] : bounds[-1]][keep])
        sentence_lengths.append(per_sentence)
        sentence_counts.append(len(per_sentence))
    return EncodedCorpus(
        np.concatenate(token_parts),
        _offsets(np.concatenate(sentence_lengths)),
        _offsets(sentence_counts),
        token_types=None if types is None else np.concatenate(type_parts),
        subword_table=corpus.subword_table,
    )


class _Documents(ABC):
    """What every kind shares: the full documents' scores, the explained column, the calls."""

    tokens: list[list[str]]
    #: Documents without any token (the model saw a blank document).
    blank: np.ndarray
    full_proba: np.ndarray
    #: Per document, the output column explained (erasure moves its probability).
    explained: np.ndarray
    #: Documents sent through the model (erased variants, gradient steps) so far.
    forward_passes: int = 0
    #: Backward passes through the network so far (gradient methods).
    backward_passes: int = 0

    def __len__(self) -> int:
        return len(self.tokens)

    def _explain_column(self, column: int | None, default: np.ndarray) -> None:
        """Set :attr:`explained`: ``column`` for every document, else ``default``."""
        if column is None:
            self.explained = np.asarray(default, dtype=np.int64)
            return
        n_columns = self.full_proba.shape[1]
        if (
            isinstance(column, bool)
            or not isinstance(column, Integral)
            or not (0 <= column < n_columns)
        ):
            raise ValueError(
                f"column={column!r}: the explained output column must be an integer from 0 "
                f"to {n_columns - 1}."
            )
        self.explained = np.full(len(self), int(column), dtype=np.int64)

    @property
    def explained_proba(self) -> np.ndarray:
        """Each whole document's probability of its explained column."""
        return self.full_proba[np.arange(len(self)), self.explained]

    def probability(self, documents: Sequence[int], keeps: Sequence[np.ndarray]) -> np.ndarray:
        """The explained column's probability for each erased variant.

        Parameters
        ----------
        documents : sequence of int
            Each variant's document.
        keeps : sequence of ndarray of bool
            Each variant's kept tokens.

        Returns
        -------
        ndarray of float64, shape (n_variants,)
        """
        documents = np.asarray(documents, dtype=np.int64)
        self.forward_passes += len(documents)
        if len(documents) == 0:
            return np.zeros(0)
        proba = np.concatenate(
            [
                self._proba(documents[chunk], [keeps[i] for i in chunk])
                for chunk in self._chunks(documents)
            ]
        )
        return proba[np.arange(len(documents)), self.explained[documents]]

    def _chunks(self, documents: np.ndarray) -> list[np.ndarray]:
        return _chunks_by_size([len(self.tokens[d]) for d in documents], _TOKENS_PER_CALL)

    @abstractmethod
    def _proba(self, documents: np.ndarray, keeps: list[np.ndarray]) -> np.ndarray:
        """Scores of every column for each erased variant."""


def _flat_tokens(tokenized: list[list[list[str]]]) -> list[list[str]]:
    """Each document's tokens, its sentences concatenated."""
    return [[token for sentence in document for token in sentence] for document in tokenized]


class _EncodedDocuments(_Documents):
    """Documents a fitted skattn model encodes itself: scored by its own network."""

    estimator: Any

    def _scores(self, corpus) -> np.ndarray:
        logits = self.estimator._outputs([], ("logits",), corpus=corpus)["logits"]
        return self.estimator.task_.scores(logits)

    def _encode(self, texts: list[str]) -> tuple[EncodedCorpus, list, np.ndarray]:
        """The encoded texts, their tokens per sentence, and which are blank."""
        corpus, tokenized = self.estimator.encoder_.encode(
            texts, return_tokens=True, validated=True
        )
        blank = np.array([document == [[EMPTY_TOKEN]] for document in tokenized], dtype=bool)
        return corpus, tokenized, blank

    def _erased(self, corpus: EncodedCorpus, documents, keeps) -> EncodedCorpus:
        return erased_corpus(corpus, documents, keeps, self.estimator.encoder_.empty_id_)


class ModelDocuments(_EncodedDocuments):
    """Documents as a fitted skattn classifier encodes them, erasable token by token.

    Parameters
    ----------
    estimator : fitted skattn classifier or regressor
    X : sequence of str
    column : int, optional
        The output column (class) every document is explained for; by
        default each document's own: the predicted class (multi-label: the
        most probable predicted label; a regressor: output 0).

    Attributes
    ----------
    tokens : list of list of str
        Each document's kept tokens, sentences concatenated (a blank
        document: ``["<empty>"]``).
    blank : ndarray of bool
        Documents without any token.
    sentence_of_token : list of ndarray of int
        Each token's sentence within its document.
    full_proba : ndarray (n_documents, n_classes)
        The model's probabilities for the whole documents (a regressor:
        its predictions, shape (n_documents, n_outputs), and the
        "probability" of an erased variant is its predicted value).
    explained : ndarray of int (n_documents,)
        The column each document is explained for.
    forward_passes : int
        Erased documents sent through the network so far.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = SelfAttentiveClassifier(max_epochs=1, embeddings=None).fit(X, y)
    >>> docs = ModelDocuments(model, ["good film"])
    >>> docs.tokens
    [['good', 'film']]
    >>> docs.probability([0], [np.array([True, True])]).round(4) == docs.full_proba.max().round(4)
    array([ True])
    >>> ModelDocuments(model, ["good film"], column=0).explained.tolist()
    [0]
    """

    def __init__(self, estimator, X: Sequence[str], column: int | None = None):
        self.estimator = estimator
        self.corpus, tokenized, self.blank = self._encode(estimator._check_input(X))
        self.tokens = _flat_tokens(tokenized)
        self.sentence_of_token = [
            np.repeat(np.arange(len(document)), [len(sentence) for sentence in document])
            for document in tokenized
        ]
        self.full_proba = self._scores(self.corpus)
        self._explain_column(column, estimator.task_.explained_columns(self.full_proba))

    def _proba(self, documents: np.ndarray, keeps: list[np.ndarray]) -> np.ndarray:
        return self._scores(self._erased(self.corpus, documents, keeps))


class PairDocuments(_EncodedDocuments):
    """Sentence pairs as a fitted skattn pair model encodes them, erasable token by token.

    A pair's tokens are its first text's, then its second's: rankings and
    erasure run across both texts.

    Parameters
    ----------
    estimator : fitted SelfAttentivePairClassifier or SelfAttentivePairRegressor
    X : pairs of str
    column : int, optional
        As :class:`ModelDocuments`'s.

    Attributes
    ----------
    tokens : list of list of str
        Each pair's kept tokens, the first text's then the second's (a
        blank text: ``["<empty>"]``).
    n_first : ndarray of int
        How many of each pair's tokens are the first text's.
    blank : ndarray of bool
        Pairs of two blank texts.
    full_proba, explained, forward_passes
        As :class:`ModelDocuments`'s.

    Examples
    --------
    >>> from skattn import SelfAttentivePairClassifier
    >>> X = [("a man sings", "a man sings"), ("a man sings", "no man sings")] * 5
    >>> model = SelfAttentivePairClassifier(max_epochs=1, embeddings=None).fit(X, [1, 0] * 5)
    >>> docs = PairDocuments(model, [("a man sings", "no man")])
    >>> docs.tokens, docs.n_first.tolist()
    ([['a', 'man', 'sings', 'no', 'man']], [3])
    """

    def __init__(self, estimator, X: Sequence, column: int | None = None):
        self.estimator = estimator
        pairs = estimator._check_input(X)
        first, first_tokens, first_blank = self._encode([a for a, _ in pairs])
        second, second_tokens, second_blank = self._encode([b for _, b in pairs])
        self.corpus = PairCorpus(first, second)
        first_tokens, second_tokens = _flat_tokens(first_tokens), _flat_tokens(second_tokens)
        self.tokens = [a + b for a, b in zip(first_tokens, second_tokens)]
        self.n_first = np.array([len(a) for a in first_tokens], dtype=np.int64)
        self.blank = first_blank & second_blank
        self.full_proba = self._scores(self.corpus)
        self._explain_column(column, estimator.task_.explained_columns(self.full_proba))

    def _proba(self, documents: np.ndarray, keeps: list[np.ndarray]) -> np.ndarray:
        n_first = self.n_first[documents]
        first = [keep[:n] for keep, n in zip(keeps, n_first)]
        second = [keep[n:] for keep, n in zip(keeps, n_first)]
        return self._scores(
            PairCorpus(
                self._erased(self.corpus.first, documents, first),
                self._erased(self.corpus.second, documents, second),
            )
        )


class TextDocuments(_Documents):
    """Raw documents for any estimator with ``predict_proba`` over strings.

    Parameters
    ----------
    estimator : fitted estimator
        Its ``predict_proba`` takes a list of str.
    X : sequence of str
    token_pattern : str, default=skattn.text.DEFAULT_TOKEN_PATTERN
        A token is a match of this regular expression (words, and each
        punctuation mark on its own).
    column : int, optional
        The column of ``predict_proba`` every document is explained for
        (see :func:`label_column`); by default each document's most
        probable.

    Attributes
    ----------
    tokens : list of list of str
    blank : ndarray of bool
        Documents without any token.
    spans : list of list of (int, int)
        Each token's start and end in its document.
    full_proba : ndarray (n_documents, n_classes)
    explained : ndarray of int (n_documents,)
        The column each document is explained for.
    forward_passes : int
        Erased documents sent to ``predict_proba`` so far.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(X, y)
    >>> docs = TextDocuments(model, ["good film!"])
    >>> docs.tokens, docs.erased_text(0, np.array([False, True, True]))
    ([['good', 'film', '!']], '  film!')
    >>> docs.explained.tolist(), TextDocuments(model, ["good film!"], column=0).explained.tolist()
    ([1], [0])
    """

    def __init__(
        self,
        estimator,
        X: Sequence[str],
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        column: int | None = None,
    ):
        self.estimator = estimator
        self.texts = check_text_input(X)
        pattern = re.compile(token_pattern)
        matches = [list(pattern.finditer(text)) for text in self.texts]
        self.tokens = [[m.group() for m in found] for found in matches]
        self.blank = np.array([not found for found in matches], dtype=bool)
        self.spans = [[m.span() for m in found] for found in matches]
        self.full_proba = np.asarray(estimator.predict_proba(self.texts), dtype=np.float64)
        self._explain_column(column, np.argmax(self.full_proba, axis=1))

    def erased_text(self, document: int, keep: np.ndarray) -> str:
        """Document ``document`` with each token whose ``keep`` is False replaced by a space."""
        text, pieces, position = self.texts[document], [], 0
        for (start, end), kept in zip(self.spans[document], keep):
            if not kept:
                pieces.append(text[position:start] + " ")
                position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def _proba(self, documents: np.ndarray, keeps: list[np.ndarray]) -> np.ndarray:
        texts = [self.erased_text(d, keep) for d, keep in zip(documents, keeps)]
        return np.asarray(self.estimator.predict_proba(texts), dtype=np.float64)


def is_skattn_classifier(estimator) -> bool:
    """Whether ``estimator`` is a fitted-or-not skattn attention classifier (not any text model).

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> is_skattn_classifier(SelfAttentiveClassifier()), is_skattn_classifier(object())
    (True, False)
    """
    return hasattr(estimator, "_hierarchical") and hasattr(estimator, "_outputs")


def label_column(estimator, label: Any) -> int | None:
    """The output column of class ``label`` of ``estimator`` (None stays None).

    skattn models find it as ``explain(label=...)`` does (a multi-label
    classifier: a label index or one of its ``label_names_``); any other classifier
    in its ``classes_``.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> dummy = DummyClassifier().fit([[0], [1], [2]], ["neg", "neu", "pos"])
    >>> label_column(dummy, "pos"), label_column(dummy, None)
    (2, None)
    >>> label_column(dummy, "great")
    Traceback (most recent call last):
    ...
    ValueError: label='great' is not one of the classifier's classes_ ['neg', 'neu', 'pos'].
    """
    if label is None:
        return None
    if is_skattn_classifier(estimator):
        return estimator.task_.label_column(label)
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError(f"label={label!r}: the estimator has no classes_ to find it in.")
    known = np.asarray(classes).tolist()
    if label not in known:
        raise ValueError(f"label={label!r} is not one of the classifier's classes_ {known}.")
    return known.index(label)


def documents_for(
    estimator, X: Sequence, column: int | None = None
) -> ModelDocuments | PairDocuments | TextDocuments:
    """The erasable documents of ``X`` for ``estimator``, explained for ``column``.

    A fitted skattn model's own (:class:`ModelDocuments`, or
    :class:`PairDocuments` for a pair model), else :class:`TextDocuments`.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> dummy = DummyClassifier().fit([[0], [1]], [0, 1])
    >>> type(documents_for(dummy, ["a b"])).__name__
    'TextDocuments'
    """
    if is_skattn_classifier(estimator):
        return estimator._explained_documents(X, column)
    return TextDocuments(estimator, X, column=column)


def leave_one_out(
    documents: _Documents, groups: Sequence[np.ndarray] | None = None
) -> list[np.ndarray]:
    """Occlusion: how far the explained class's probability falls when one unit is erased.

    The explained class is the documents' own (:attr:`ModelDocuments.explained`:
    the predicted class unless they were made for another column).

    Parameters
    ----------
    documents : ModelDocuments, PairDocuments or TextDocuments
    groups : sequence of ndarray of int, optional
        Per document, each token's unit (for example its sentence); the
        default makes each token a unit of its own.

    Returns
    -------
    list of ndarray
        Per document, one score per token: p(full) − p(without the token's
        unit). Tokens of one unit share its score.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import CountVectorizer
    >>> from sklearn.linear_model import LogisticRegression
    >>> X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    >>> model = make_pipeline(CountVectorizer(), LogisticRegression()).fit(X, y)
    >>> scores = leave_one_out(TextDocuments(model, ["good film"]))[0]
    >>> bool(scores[0] > scores[1])  # erasing "good" costs more than erasing "film"
    True
    """
    if groups is None:
        groups = [np.arange(len(tokens)) for tokens in documents.tokens]
    full = documents.explained_proba
    scores = [np.zeros(len(group)) for group in groups]
    # Masks are built a few documents at a time: a document of n tokens has
    # n² of them, which for long reviews adds up.
    mask_sizes = [len(np.unique(group)) * len(group) for group in groups]
    for chunk in _chunks_by_size(mask_sizes, _TOKENS_PER_CALL):
        variant_documents, keeps, owners = [], [], []
        for document in chunk:
            group = groups[document]
            for unit in np.unique(group):
                variant_documents.append(document)
                keeps.append(group != unit)
                owners.append((document, unit))
        dropped = documents.probability(variant_documents, keeps)
        for (document, unit), probability in zip(owners, dropped):
            scores[document][groups[document] == unit] = full[document] - probability
    return scores
