"""Initial word vectors for the attention networks.

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

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import randomized_svd

from skattn.text import PAD_ID, EncodedCorpus

#: Standard deviation of each component of an initial vector, comparable
#: to what the networks train well from.
VECTOR_SCALE = 0.5


def cooccurrence_matrix(corpus: EncodedCorpus, vocab_size: int, window: int = 5) -> sp.csr_matrix:
    """Symmetric counts of ids seen within ``window`` tokens in the same document.

    Parameters
    ----------
    corpus : EncodedCorpus
    vocab_size : int
    window : int, default=5

    Returns
    -------
    csr_matrix of shape (vocab_size, vocab_size)

    Examples
    --------
    >>> from skattn.text import TextEncoder
    >>> corpus = TextEncoder().fit_encode(["a b", "b c"])  # ids by count: b=2, a=3, c=4
    >>> cooccurrence_matrix(corpus, 5, window=1).toarray()[2:, 2:].tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    ids = corpus.token_ids
    document = np.repeat(np.arange(len(corpus)), corpus.document_lengths)
    rows, cols = [], []
    for offset in range(1, window + 1):
        same_document = document[offset:] == document[:-offset]
        left, right = ids[:-offset][same_document], ids[offset:][same_document]
        rows += [left, right]
        cols += [right, left]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    counts = sp.coo_matrix(
        (np.ones(len(rows)), (rows, cols)), shape=(vocab_size, vocab_size)
    ).tocsr()
    counts.sum_duplicates()
    return counts


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
    >>> from skattn.text import TextEncoder
    >>> enc = TextEncoder()
    >>> corpus = enc.fit_encode(["good film", "good movie", "bad film", "bad movie"] * 5)
    >>> ppmi_vectors(corpus, enc.vocab_size_, dim=2).shape
    (6, 2)
    """
    counts = cooccurrence_matrix(corpus, vocab_size, window).tocoo()
    word_totals = np.asarray(counts.sum(axis=1)).ravel()
    context_totals = np.asarray(counts.sum(axis=0)).ravel() ** context_smoothing
    pmi = np.log(
        counts.data * context_totals.sum() / (word_totals[counts.row] * context_totals[counts.col])
    )
    positive = pmi > 0
    ppmi = sp.csr_matrix(
        (pmi[positive], (counts.row[positive], counts.col[positive])), shape=counts.shape
    )
    rng = np.random.RandomState(random_state)
    k = min(dim, max(1, min(ppmi.shape) - 1))
    U, S, _ = randomized_svd(ppmi, k, random_state=rng)
    vectors = np.zeros((vocab_size, dim))
    vectors[:, :k] = U * np.sqrt(S)
    norms = np.linalg.norm(vectors, axis=1)
    seen = norms > 1e-8
    vectors[seen] *= (VECTOR_SCALE * np.sqrt(dim)) / norms[seen, None]
    vectors[~seen] = rng.normal(0.0, VECTOR_SCALE, size=((~seen).sum(), dim))
    vectors[PAD_ID] = 0.0
    return vectors.astype(np.float32)


def initial_vectors(source, corpus: EncodedCorpus, vocab_size: int, dim: int, random_state: int):
    """Resolve an estimator's ``embeddings`` parameter to a matrix, or None.

    Parameters
    ----------
    source : {"random", "ppmi"} or None
        None and "random" keep PyTorch's random initialisation.
    corpus, vocab_size, dim, random_state
        The training corpus and the embedding's shape.

    Returns
    -------
    ndarray of shape (vocab_size, dim) or None

    Examples
    --------
    >>> initial_vectors("random", None, 5, 2, 0) is None
    True
    """
    if source in (None, "random"):
        return None
    if source == "ppmi":
        return ppmi_vectors(corpus, vocab_size, dim, random_state=random_state)
    raise ValueError(f"embeddings must be 'random', 'ppmi' or None, got {source!r}.")
