"""SelfAttentiveClassifier learns on real data; its attention behaves as the paper says."""

import numpy as np
import pytest

from skattn import SelfAttentiveClassifier

pytestmark = pytest.mark.slow


def test_learns_sentence_polarity(polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    clf = SelfAttentiveClassifier(max_epochs=4, random_state=0).fit(X_train, y_train)
    accuracy = clf.score(X_test, y_test)
    print(f"sentence_polarity held-out accuracy: {accuracy:.4f}")
    assert accuracy >= 0.72


def _penalty_and_entropy(explanations):
    """Mean ‖AAᵀ − I‖²_F and mean entropy of a hop's weights, over documents."""
    penalties, entropies = [], []
    for e in explanations:
        attention = e["attention"]
        gram = attention @ attention.T
        penalties.append(((gram - np.eye(len(gram))) ** 2).sum())
        entropies.append(-(attention * np.log(attention + 1e-12)).sum(axis=1).mean())
    return float(np.mean(penalties)), float(np.mean(entropies))


def test_penalty_brings_aat_towards_the_identity(polarity_split):
    """The paper's claim (§2.2): the penalty makes each hop focus on few words
    and the hops differ, i.e. AAᵀ nears I. Near-uniform hops over n tokens give
    ‖AAᵀ − I‖² ≈ r − r/n whatever the penalty, so uniform hops cannot pass."""
    X_train, X_test, y_train, _ = polarity_split
    params = dict(
        embedding_dim=32,
        hidden_size=32,
        attention_dim=16,
        attention_hops=4,
        mlp_hidden=32,
        max_epochs=4,
        batch_size=64,
        lr=5e-3,
        lr_schedule="constant",
        min_count=1,
        random_state=0,
    )
    measured = {}
    for penalty in (0.0, 1.0):
        clf = SelfAttentiveClassifier(penalty=penalty, **params)
        clf.fit(X_train[:4000], y_train[:4000])
        measured[penalty] = _penalty_and_entropy(clf.explain(X_test[:300], method="attention"))
    print(f"(‖AAᵀ − I‖², hop entropy) by penalty: {measured}")
    assert measured[1.0][0] < 0.5 * measured[0.0][0]
    assert measured[1.0][1] < 0.5 * measured[0.0][1]  # focused hops, not spread ones


def test_explain_and_transform_match_the_network(polarity_small):
    X, y = polarity_small
    clf = SelfAttentiveClassifier(
        embedding_dim=16, hidden_size=8, attention_hops=3, max_epochs=1, random_state=0
    ).fit(X, y)
    # Different lengths, padded together; the tokens as the default pattern
    # cuts them, by hand (lowercased; punctuation marks are tokens; a word
    # keeps an inner apostrophe; unknown words keep their text).
    docs = ["A gripping, well-acted thriller!", "The plot drags; still, it's watchable."]
    expected_tokens = [
        ["a", "gripping", ",", "well", "-", "acted", "thriller", "!"],
        ["the", "plot", "drags", ";", "still", ",", "it's", "watchable", "."],
    ]
    explained = clf.explain(docs, method="attention")
    assert clf.transform(docs).shape == (2, 3 * 2 * 8)
    for doc, e, tokens in zip(docs, explained, expected_tokens):
        assert e["tokens"] == tokens
        assert e["attention"].shape == (3, len(e["tokens"]))
        np.testing.assert_allclose(e["attention"].sum(axis=1), 1.0, rtol=1e-5)
        alone = clf.explain([doc], method="attention")[0]["attention"]
        np.testing.assert_allclose(e["attention"], alone, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal([e["prediction"] for e in explained], clf.predict(docs))


def test_explain_equals_the_module_forward_pass(polarity_small):
    import torch

    from skattn.text import DocumentDataset

    X, y = polarity_small
    clf = SelfAttentiveClassifier(
        embedding_dim=16, hidden_size=8, attention_hops=3, max_epochs=1, random_state=0
    ).fit(X, y)
    docs = X[:6]
    X_batch, _ = DocumentDataset(clf.encoder_.encode(docs)).collate(range(6))
    module = clf.net_.module_.eval()
    with torch.no_grad():
        out = module(**X_batch)
    for i, record in enumerate(clf.explain(docs, method="attention")):
        n = len(record["tokens"])
        np.testing.assert_allclose(record["attention"], out.attention[i, :, :n], rtol=1e-5)
        np.testing.assert_allclose(record["proba"], torch.softmax(out.logits[i], 0), rtol=1e-5)
