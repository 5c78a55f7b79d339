"""Shared fixtures: the real corpora (read from $SKATTN_DATA) and their splits."""

import os
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from skattn.datasets import fetch_sentence_polarity

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
