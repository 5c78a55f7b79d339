"""Shared fixtures: the real corpora (read from $SKATTN_DATA) and their splits."""

import os
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from skattn.datasets import fetch_sentence_polarity, fetch_sick

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def pytest_configure(config):
    # Tests read the corpora from the shared folder unless told otherwise.
    if "SKATTN_DATA" not in os.environ and SHARED_DATA.exists():
        os.environ["SKATTN_DATA"] = str(SHARED_DATA)


@pytest.fixture(scope="session")
def polarity():
    """sentence_polarity as (X, y) lists."""
    X, y = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    return X, y


@pytest.fixture(scope="session")
def polarity_split(polarity):
    """Stratified 80/20 split of sentence_polarity, seed 0."""
    X, y = polarity
    return train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)


@pytest.fixture(scope="session")
def polarity_small(polarity):
    """A stratified 600-document sample of sentence_polarity for API tests."""
    X, y = polarity
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(X))[:600]
    return [X[i] for i in idx], y[idx]


def make_toy_corpus(n_documents=240, seed=0):
    """Synthetic two-class documents of 1-4 sentences; the class is carried by cue words.

    Each sentence mixes filler words with, in half of the sentences, one cue
    word of the document's class; every document holds at least one cue.
    Small and fast, for API and convention tests that need no real corpus.
    """
    rng = np.random.RandomState(seed)
    fillers = "the a film plot actor scene story it was is and of with this".split()
    cues = {"pos": "great superb moving brilliant".split(), "neg": "awful dull boring weak".split()}
    X, y = [], []
    for i in range(n_documents):
        label = ("pos", "neg")[i % 2]
        sentences = []
        n_sentences = rng.randint(1, 5)
        for j in range(n_sentences):
            words = list(rng.choice(fillers, size=rng.randint(3, 8)))
            if j == 0 or rng.rand() < 0.5:
                words.insert(rng.randint(len(words) + 1), rng.choice(cues[label]))
            sentences.append(" ".join(words).capitalize() + ".")
        X.append(" ".join(sentences))
        y.append(label)
    return X, np.asarray(y)


@pytest.fixture(scope="session")
def toy():
    """A small synthetic corpus (see make_toy_corpus) as (X, y)."""
    return make_toy_corpus()


@pytest.fixture(scope="session")
def sick_small():
    """400 SICK training pairs (seed 0) with their entailment labels and relatedness scores."""
    entailment = fetch_sick(subset="train", download_if_missing=False)
    relatedness = fetch_sick(subset="train", target="relatedness", download_if_missing=False)
    order = np.random.RandomState(0).permutation(len(entailment.data))[:400]
    pairs = [entailment.data[i] for i in order]
    return pairs, np.asarray(entailment.target)[order], np.asarray(relatedness.target)[order]
