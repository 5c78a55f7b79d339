"""Initial word vectors for the attention networks.

Sources: ``"auto"`` (the default: GloVe 6B 50d when its package is
installed, knows the corpus's words and the corpus is small, else
``"ppmi"``), ``"ppmi"``
(below), ``"glove-6b-50d"`` (named vectors from an installed package, see
:mod:`skattn.embeddings._pretrained`), ``"word2vec"`` (gensim skip-gram trained on the
fit data, the HAN paper's protocol; optional extra), pretrained vectors as a
gensim ``KeyedVectors``, a dict of word to vector, or a word2vec (``.bin``
binary or text) / GloVe text file.

Named vectors narrower than ``embedding_dim`` are completed by PPMI
vectors of the fit data (scaled to the same spread), so the default
``embedding_dim`` works with every source and words the pretrained vectors
lack still get distributional information.

``"ppmi"`` vectors are count-based word embeddings learned from the fit
data alone (Levy & Goldberg 2014 showed word2vec's skip-gram implicitly
factorises this matrix): co-occurrence counts in a ±``window`` token window
within each document, positive pointwise mutual information with context
smoothing (exponent 0.75, as word2vec's negative sampling), a truncated
SVD, rows ``U √S``. They need no download and no optional dependency, and
they give the networks the distributional similarity that random
initialisation lacks on small corpora.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import randomized_svd

from skattn.embeddings import _pretrained as pretrained
from skattn.embeddings._pretrained import (
    NAMED_VECTORS,
    check_named_vectors,
    load_named_vectors,
    named_vectors_installed,
    token_coverage,
)
from skattn.text._encoder import PAD_ID, RESERVED_TOKENS, EncodedCorpus
from skattn.text._unicode import text_crc32
from skattn.utils._memory import release_mapped_pages

#: Standard deviation of each component of an initial vector, comparable
#: to what the networks train well from.
VECTOR_SCALE = 0.5

GENSIM_HINT = "word2vec vectors need gensim: pip install 'skattn[word2vec]'"


#: Tokens counted at a time by :func:`cooccurrence_matrix` (whole documents):
#: its pair keys then take ``2 * window * 8`` bytes a token of a slice, not of
#: the corpus.
TOKENS_PER_SLICE = 1 << 18


def cooccurrence_matrix(
    corpus: EncodedCorpus,
    vocab_size: int,
    window: int = 5,
    tokens_per_slice: int = TOKENS_PER_SLICE,
) -> sp.csr_matrix:
    """Symmetric counts of ids seen within ``window`` tokens in the same document.

    Counted a slice of whole documents at a time (about ``tokens_per_slice``
    tokens), so the memory it takes grows with the vocabulary, not with the
    corpus (memory-mapped ids are dropped from memory a slice at a time).

    Parameters
    ----------
    corpus : EncodedCorpus
    vocab_size : int
    window : int, default=5
    tokens_per_slice : int, default=TOKENS_PER_SLICE

    Returns
    -------
    csr_matrix of shape (vocab_size, vocab_size)

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> corpus = TextEncoder().fit_encode(["a b", "b c"])  # ids by count: b=3, a=4, c=5
    >>> cooccurrence_matrix(corpus, 6, window=1).toarray()[3:, 3:].tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    offsets = corpus.document_token_offsets
    total = sp.csr_matrix((vocab_size, vocab_size))
    first = 0
    while first < len(corpus):
        # Documents first..last-1: at most tokens_per_slice tokens, or one document.
        last = int(np.searchsorted(offsets, offsets[first] + tokens_per_slice, side="right")) - 1
        last = max(last, first + 1)
        ids = np.asarray(corpus.token_ids[offsets[first] : offsets[last]], dtype=np.int64)
        document = np.repeat(np.arange(last - first), np.diff(offsets[first : last + 1]))
        total = total + _slice_cooccurrences(ids, document, vocab_size, window)
        # Mapped ids (memmap_dir=): the pages this slice read need not stay.
        release_mapped_pages([corpus.token_ids])
        first = last
    return total


def _slice_cooccurrences(ids, document, vocab_size: int, window: int) -> sp.csr_matrix:
    # Each pair (row, column) as one int64 key, counted by sorting the keys
    # in place and counting runs (instead of letting scipy sum duplicate COO
    # entries); one array of keys, no copies of it.
    keys = np.empty(2 * window * len(ids), dtype=np.int64)
    filled = 0
    for offset in range(1, window + 1):
        same_document = document[offset:] == document[:-offset]
        left, right = ids[:-offset][same_document], ids[offset:][same_document]
        for first, second in ((left, right), (right, left)):
            part = keys[filled : filled + len(first)]
            np.multiply(first, vocab_size, out=part)
            part += second
            filled += len(first)
    keys = keys[:filled]
    keys.sort()
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if filled else keys
    counts = np.diff(np.r_[starts, filled]).astype(np.float64)
    pairs = keys[starts]
    return sp.csr_matrix(
        (counts, (pairs // vocab_size, pairs % vocab_size)), shape=(vocab_size, vocab_size)
    )


def ppmi_matrix(counts: sp.spmatrix, context_smoothing: float = 0.75) -> sp.csr_matrix:
    """Positive pointwise mutual information of a co-occurrence count matrix.

    PPMI(w, c) = max(0, log(n(w, c) · Σ_c' n(c')^α / (n(w) · n(c)^α))), where
    n(w) is the row sum of w, n(c) the column sum of c, and α the context
    smoothing (0.75 as word2vec's negative sampling; 1 gives plain PMI).

    Parameters
    ----------
    counts : sparse matrix of shape (vocab_size, vocab_size)
    context_smoothing : float, default=0.75

    Returns
    -------
    csr_matrix of the same shape

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> ppmi_matrix(sp.csr_matrix([[0.0, 2.0], [2.0, 1.0]]), 1.0).toarray().round(3).tolist()
    [[0.0, 0.511], [0.511, 0.0]]
    """
    counts = sp.csr_matrix(counts)
    counts.sum_duplicates()
    word_totals = np.asarray(counts.sum(axis=1)).ravel()
    context_totals = np.asarray(counts.sum(axis=0)).ravel() ** context_smoothing
    grand_total = context_totals.sum()
    rows = np.repeat(np.arange(counts.shape[0], dtype=counts.indices.dtype), np.diff(counts.indptr))
    # A slice of the entries at a time, so that the temporaries stay small
    # next to the matrix (a large corpus has tens of millions of pairs).
    pmi = np.empty(counts.nnz)
    for start in range(0, counts.nnz, _PMI_SLICE):
        part = slice(start, start + _PMI_SLICE)
        pmi[part] = np.log(
            counts.data[part]
            * grand_total
            / (word_totals[rows[part]] * context_totals[counts.indices[part]])
        )
    positive = pmi > 0
    indptr = np.zeros(counts.shape[0] + 1, dtype=counts.indptr.dtype)
    np.cumsum(np.bincount(rows[positive], minlength=counts.shape[0]), out=indptr[1:])
    return sp.csr_matrix((pmi[positive], counts.indices[positive], indptr), shape=counts.shape)


#: Entries of the co-occurrence matrix turned into PMI at a time.
_PMI_SLICE = 1 << 20


def ppmi_vectors(
    corpus: EncodedCorpus,
    vocab_size: int,
    dim: int,
    *,
    window: int = 5,
    context_smoothing: float = 0.75,
    random_state: int = 0,
) -> np.ndarray:
    """Word vectors from a truncated SVD of the positive PMI matrix of ``corpus``.

    Parameters
    ----------
    corpus : EncodedCorpus
        The training documents, encoded.
    vocab_size : int
        Rows of the result (ids 0..vocab_size-1).
    dim : int
        Size of each vector.
    window : int, default=5
    context_smoothing : float, default=0.75
    random_state : int, default=0

    Returns
    -------
    ndarray of float32, shape (vocab_size, dim)
        Each row with component standard deviation ``VECTOR_SCALE``; the
        PAD row is zero, ids never seen with a neighbour get small random
        vectors.

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> enc = TextEncoder()
    >>> corpus = enc.fit_encode(["good film", "good movie", "bad film", "bad movie"] * 5)
    >>> ppmi_vectors(corpus, enc.vocab_size_, dim=2).shape
    (7, 2)
    """
    ppmi = ppmi_matrix(cooccurrence_matrix(corpus, vocab_size, window), context_smoothing)
    rng = np.random.RandomState(random_state)
    k = min(dim, max(1, min(ppmi.shape) - 1))
    # float32 and 4 power iterations (scikit-learn's default is 7) trade a
    # little precision of the singular vectors for speed; they are initial
    # vectors, trained further.
    ppmi = sp.csr_matrix((ppmi.data.astype(np.float32), ppmi.indices, ppmi.indptr), ppmi.shape)
    U, S, _ = randomized_svd(ppmi, k, n_iter=4, random_state=rng)
    vectors = np.zeros((vocab_size, dim))
    vectors[:, :k] = U * np.sqrt(S)
    norms = np.linalg.norm(vectors, axis=1)
    seen = norms > 1e-8
    vectors[seen] *= (VECTOR_SCALE * np.sqrt(dim)) / norms[seen, None]
    vectors[~seen] = rng.normal(0.0, VECTOR_SCALE, size=((~seen).sum(), dim))
    vectors[PAD_ID] = 0.0
    return vectors.astype(np.float32)


TRAINED_SOURCES = ("random", "ppmi", "word2vec")
#: The names ``embeddings`` takes besides paths and objects.
NAMED_SOURCES = ("auto", *TRAINED_SOURCES, *NAMED_VECTORS)
#: The named vectors ``"auto"`` tries first.
AUTO_PRETRAINED = "glove-6b-50d"


def choice_inputs(source) -> tuple | None:
    """What :func:`initial_vectors` reads besides its arguments to choose, or None if unknown.

    A cache of initial vectors keys on this as well; None (a path or an
    object, which can change under the same name) is not to be cached.

    Examples
    --------
    >>> choice_inputs("ppmi")
    ()
    >>> choice_inputs({"film": [0.1, 0.2]}) is None
    True
    """
    if source is None or (isinstance(source, str) and source in TRAINED_SOURCES):
        return ()
    if isinstance(source, str) and source in NAMED_SOURCES:
        named = AUTO_PRETRAINED if source == "auto" else source
        installed = named_vectors_installed(named)
        return (installed, pretrained.AUTO_MAX_TOKENS, pretrained.MIN_TOKEN_COVERAGE)
    return None


def check_embeddings_source(source, dim: int | None = None) -> None:
    """Fail early (before any encoding or training) on an unusable ``embeddings`` value.

    Examples
    --------
    >>> check_embeddings_source("ppmi")
    """
    if isinstance(source, str) and source in NAMED_VECTORS and dim is not None:
        check_named_vectors(source, dim)
    if source is None or (isinstance(source, str) and source in NAMED_SOURCES):
        return
    if isinstance(source, (str, os.PathLike)):
        if not Path(source).is_file():
            raise FileNotFoundError(
                f"embeddings={str(source)!r} is neither one of {NAMED_SOURCES} nor an "
                "existing word2vec/GloVe file."
            )
        return
    if isinstance(source, Mapping) or hasattr(source, "key_to_index"):
        return
    raise TypeError(
        f"embeddings must be one of {NAMED_SOURCES}, a path to a word2vec/GloVe file, a "
        f"gensim KeyedVectors or a dict of word to vector; got {type(source).__name__}."
    )


def read_text_vectors(path, vocabulary: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Vectors of the words of ``vocabulary`` from a word2vec-text or GloVe file.

    Streams the file and keeps only the words asked for, so a 400,000-word
    file costs the memory of the vocabulary. A first line of two integers
    (word2vec's header) is skipped.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("film 0.5 1.0\\nplot 2.0 3.0\\n")
    >>> read_text_vectors(f.name, {"film": 3})["film"].tolist()
    [0.5, 1.0]
    """
    found = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle):
            parts = line.rstrip().split(" ")
            if number == 0 and len(parts) == 2 and all(p.isdigit() for p in parts):
                continue
            if parts[0] in vocabulary:
                found[parts[0]] = np.asarray(parts[1:], dtype=np.float32)
    return found


def _lookup(source, vocabulary: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Word → vector for the vocabulary words a pretrained source knows."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix == ".bin":
            try:
                from gensim.models import KeyedVectors
            except ImportError as error:  # pragma: no cover
                raise ImportError(
                    "binary word2vec files need gensim: pip install 'skattn[word2vec]'"
                ) from error
            source = KeyedVectors.load_word2vec_format(str(path), binary=True)
        else:
            return read_text_vectors(path, vocabulary)
    if hasattr(source, "key_to_index"):  # gensim KeyedVectors
        return {
            w: source.vectors[source.key_to_index[w]]
            for w in vocabulary
            if w in source.key_to_index
        }
    return {w: np.asarray(source[w], dtype=np.float32) for w in vocabulary if w in source}


def pretrained_matrix(
    source, vocabulary: Mapping[str, int], vocab_size: int, dim: int, random_state: int = 0
) -> tuple[np.ndarray, float]:
    """Embedding matrix from pretrained vectors, and the vocabulary coverage.

    Rows of known words are the given vectors unchanged; the others are
    random with the known rows' standard deviation; PAD is zero.

    Parameters
    ----------
    source : path, gensim KeyedVectors or dict of str to array
    vocabulary : dict of str to int
        Token → id. Words start at id 3, as :class:`~skattn.text.TextEncoder`
        builds them (0 padding, 1 unknown, 2 blank document).
    vocab_size, dim : int
    random_state : int, default=0

    Returns
    -------
    matrix : ndarray (vocab_size, dim)
    coverage : float
        Share of the vocabulary found in ``source``.

    Examples
    --------
    >>> m, coverage = pretrained_matrix({"film": [1.0, 2.0]}, {"film": 3, "plot": 4}, 5, 2)
    >>> m[3].tolist(), coverage
    ([1.0, 2.0], 0.5)
    """
    found = _lookup(source, vocabulary)
    if not found:
        raise ValueError("embeddings: none of the vocabulary's words has a pretrained vector.")
    found_dim = len(next(iter(found.values())))
    if found_dim != dim:
        raise ValueError(
            f"embeddings have {found_dim} dimensions but embedding_dim={dim}; "
            f"set embedding_dim={found_dim}."
        )
    rows = np.fromiter((vocabulary[w] for w in found), dtype=np.int64, count=len(found))
    known = np.stack(list(found.values())).astype(np.float32)
    rng = np.random.RandomState(random_state)
    matrix = rng.normal(0.0, known.std(), size=(vocab_size, dim)).astype(np.float32)
    matrix[rows] = known
    matrix[PAD_ID] = 0.0
    return matrix, len(found) / max(1, len(vocabulary))


class InitialVectors(NamedTuple):
    """What :func:`initial_vectors` chose and why.

    Attributes
    ----------
    matrix : ndarray of shape (vocab_size, dim), or None
        None keeps PyTorch's random initialisation.
    coverage : float or None
        Share of the vocabulary that got a vector from the source (None for
        random initialisation; 1.0 for vectors learned from the fit data).
    source : str
        The source used: ``"random"``, ``"ppmi"``, ``"word2vec"``, a named
        source, or ``"pretrained"`` for a path or object.
    reason : str
        Why, in a sentence (how ``"auto"`` decided; a fall-back's cause).

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> encoder = TextEncoder()
    >>> corpus = encoder.fit_encode(["good film", "bad film"] * 3)
    >>> chosen = initial_vectors("ppmi", encoder, corpus, 2, 0)
    >>> chosen.source, chosen.matrix.shape
    ('ppmi', (6, 2))
    """

    matrix: np.ndarray | None
    coverage: float | None
    source: str
    reason: str


def initial_vectors(
    source, encoder, corpus: EncodedCorpus, dim: int, random_state: int, sentences=None
) -> InitialVectors:
    """Resolve an estimator's ``embeddings`` parameter to initial vectors.

    Parameters
    ----------
    source : str, None, path, KeyedVectors or dict
        None and "random" keep PyTorch's random initialisation; "ppmi" and
        "word2vec" learn vectors from the fit data; "glove-6b-50d" reads
        named vectors (falling back to "ppmi", with a warning, when they
        know less than :data:`~skattn.embeddings._pretrained.MIN_TOKEN_COVERAGE` of the
        training tokens); "auto" is "glove-6b-50d" when its package is
        installed and it knows enough of the tokens, else "ppmi" (no
        warning: the choice is reported). Anything else is a pretrained
        source of exactly ``dim`` dimensions. "auto" also keeps "ppmi" for fit
        data of :data:`~skattn.embeddings._pretrained.AUTO_MAX_TOKENS` tokens or more.
    encoder : fitted TextEncoder
    corpus : EncodedCorpus
        The encoded training documents.
    dim, random_state : int
    sentences : callable or None
        Returns the training documents' token lists (for "word2vec").

    Returns
    -------
    InitialVectors

    Examples
    --------
    >>> initial_vectors("random", None, None, 2, 0)
    InitialVectors(matrix=None, coverage=None, source='random', reason='asked for')
    """
    check_embeddings_source(source)
    if source in (None, "random"):
        return InitialVectors(None, None, "random", "asked for")
    vocab_size = encoder.vocab_size_
    if source == "ppmi":
        matrix = ppmi_vectors(corpus, vocab_size, dim, random_state=random_state)
        return InitialVectors(matrix, 1.0, "ppmi", "asked for")
    if source == "word2vec":
        trained = train_word2vec(sentences(), vector_size=dim, random_state=random_state)
        matrix, coverage = pretrained_matrix(
            trained, encoder.vocabulary_, vocab_size, dim, random_state
        )
        return InitialVectors(matrix, coverage, "word2vec", "asked for")
    if isinstance(source, str) and source in NAMED_SOURCES:
        return _named_or_fit_data(source, encoder, corpus, dim, random_state)
    matrix, coverage = pretrained_matrix(source, encoder.vocabulary_, vocab_size, dim, random_state)
    return InitialVectors(matrix, coverage, "pretrained", "asked for")


def _named_or_fit_data(name: str, encoder, corpus, dim: int, random_state: int) -> InitialVectors:
    """Named vectors completed by PPMI, or PPMI alone when they are missing or know too little."""
    named = AUTO_PRETRAINED if name == "auto" else name

    def ppmi(width: int = dim) -> np.ndarray:
        return ppmi_vectors(corpus, encoder.vocab_size_, width, random_state=random_state)

    if name == "auto" and not named_vectors_installed(named):
        why = f"{named} is not installed ({NAMED_VECTORS[named][1]})"
        # Said, not only recorded: the same call gives another model where
        # the extra is installed.
        warnings.warn(
            f"embeddings='auto': {why}, so the network starts from PPMI vectors of the fit "
            "data instead; install it for the pretrained start (see choices_).",
            UserWarning,
            stacklevel=4,
        )
        return InitialVectors(ppmi(), 1.0, "ppmi", why)
    n_tokens = len(corpus.token_ids)
    if name == "auto" and n_tokens >= pretrained.AUTO_MAX_TOKENS:
        why = (
            f"the fit data has {n_tokens:,} tokens (at least {pretrained.AUTO_MAX_TOKENS:,}): "
            "vectors learned from it"
        )
        return InitialVectors(ppmi(), 1.0, "ppmi", why)
    vectors = load_named_vectors(named)
    if dim < vectors.vector_size and name == "auto":
        why = f"embedding_dim={dim} is narrower than the {vectors.vector_size} of {named}"
        return InitialVectors(ppmi(), 1.0, "ppmi", why)
    if dim < vectors.vector_size:
        raise ValueError(
            f"embeddings={name!r}: {named} vectors have {vectors.vector_size} dimensions, "
            f"more than embedding_dim={dim}; set embedding_dim >= {vectors.vector_size}."
        )
    share = token_coverage(vectors, encoder.id_to_token_, corpus)
    if share < pretrained.MIN_TOKEN_COVERAGE:
        why = (
            f"{named} knows {share:.0%} of the training tokens (below "
            f"{pretrained.MIN_TOKEN_COVERAGE:.0%}); vectors learned from the fit data are used"
        )
        if name != "auto":
            warnings.warn(f"embeddings={name!r}: {why}.", UserWarning, stacklevel=4)
        return InitialVectors(ppmi(), 1.0, "ppmi", why)
    width = vectors.vector_size
    matrix, coverage = pretrained_matrix(
        vectors, encoder.vocabulary_, encoder.vocab_size_, width, random_state
    )
    if dim > width:
        rest = ppmi(dim - width)
        rest = rest * (matrix[PAD_ID + 1 :].std() / max(float(rest.std()), 1e-8))
        matrix = np.hstack([matrix, rest]).astype(np.float32)
        matrix[PAD_ID] = 0.0
    why = f"{named} knows {share:.0%} of the training tokens"
    if dim > width:
        why += f"; dimensions {width + 1}-{dim} are PPMI vectors of the fit data"
    return InitialVectors(matrix, coverage, named, why)


def stable_hash(text: str) -> int:
    """A hash that is the same in every process (Python's ``hash`` of str is not).

    gensim seeds each word's initial vector with it, so word2vec training is
    reproducible across processes.

    Examples
    --------
    >>> stable_hash("film") == stable_hash("film")
    True
    """
    return text_crc32(text)


def corpus_sentences(
    corpus: EncodedCorpus, id_to_token: Sequence[str], documents: Sequence[int]
) -> list[list[str]]:
    """The sentences of ``documents`` of an encoded corpus as the words the vocabulary kept.

    What word2vec learns from (:func:`train_word2vec`): built from the ids,
    so a corpus that was streamed needs no second read of its text. Tokens
    outside the vocabulary and the reserved tokens are left out, as
    gensim leaves out words below its own ``min_count``.

    Parameters
    ----------
    corpus : EncodedCorpus
    id_to_token : sequence of str
        The encoder's ``id_to_token_``.
    documents : sequence of int
        Positions of the documents, in the order wanted.

    Returns
    -------
    list of list of str

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> enc = TextEncoder(min_count=2, sentence_split="punctuation")
    >>> corpus = enc.fit_encode(["a b. c", "a b"])
    >>> corpus_sentences(corpus, enc.id_to_token_, [1, 0])
    [['a', 'b'], ['a', 'b'], []]
    """
    first_word = len(RESERVED_TOKENS)
    ids, offsets = corpus.token_ids, corpus.sentence_offsets
    sentences = []
    for document in np.asarray(documents).tolist():
        for j in range(corpus.document_offsets[document], corpus.document_offsets[document + 1]):
            kept = ids[offsets[j] : offsets[j + 1]]
            sentences.append([id_to_token[i] for i in kept[kept >= first_word].tolist()])
    return sentences


def train_word2vec(
    sentences: Sequence[Sequence[str]],
    *,
    vector_size: int = 100,
    window: int = 5,
    min_count: int = 1,
    epochs: int = 10,
    random_state: int = 0,
):
    """Train gensim skip-gram word2vec on tokenised sentences, reproducibly.

    One worker thread and a process-independent hash make the vectors the
    same for the same input and ``random_state``.

    Parameters
    ----------
    sentences : sequence of sequence of str
    vector_size, window, min_count, epochs : int
        As in :class:`gensim.models.Word2Vec`.
    random_state : int, default=0

    Returns
    -------
    gensim.models.KeyedVectors

    Examples
    --------
    >>> wv = train_word2vec([["a", "good", "film"]] * 20, vector_size=4)
    >>> wv["film"].shape
    (4,)
    """
    try:
        from gensim.models import Word2Vec
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(GENSIM_HINT) from error
    model = Word2Vec(
        sentences=[list(s) for s in sentences],
        vector_size=vector_size,
        window=window,
        min_count=min_count,
        epochs=epochs,
        sg=1,
        workers=1,
        seed=random_state,
        hashfxn=stable_hash,
    )
    return model.wv
