import numpy as np
import pytest

from skattn.embeddings import initial_vectors, ppmi_vectors
from skattn.text import PAD_ID, TextEncoder

from estimators import SMALL_ESTIMATORS


def _cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_ppmi_vectors_put_words_of_similar_contexts_together(polarity):
    X, _ = polarity
    encoder = TextEncoder(min_count=3)
    corpus = encoder.fit_encode(X)
    vectors = ppmi_vectors(corpus, encoder.vocab_size_, dim=100)
    v = {w: vectors[encoder.vocabulary_[w]] for w in ["good", "great", "bad", "awful", "the", "("]}
    assert _cosine(v["good"], v["great"]) > _cosine(v["good"], v["("]) + 0.2
    assert _cosine(v["bad"], v["awful"]) > _cosine(v["bad"], v["("]) + 0.2
    assert vectors.shape == (encoder.vocab_size_, 100) and not vectors[PAD_ID].any()
    assert np.allclose(vectors[2:].std(axis=1), 0.5, atol=0.1)


def test_unknown_source_is_refused():
    with pytest.raises(ValueError, match="embeddings must be"):
        initial_vectors("glove-please", None, 5, 2, 0)


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_frozen_embeddings_keep_the_initial_vectors(make, polarity_small):
    X, y = polarity_small
    est = make(embeddings="ppmi", freeze_embeddings=True).fit(X, y)
    corpus = est.encoder_.encode(X)
    expected = ppmi_vectors(corpus, est.encoder_.vocab_size_, est.embedding_dim, random_state=0)
    np.testing.assert_array_equal(est.net_.module_.embedding.weight.detach().numpy(), expected)
    tuned = make(embeddings="ppmi").fit(X, y).net_.module_.embedding.weight.detach().numpy()
    assert not np.allclose(tuned, expected)


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_cosine_schedule_decays_the_learning_rate(make, polarity_small):
    X, y = polarity_small
    est = make(lr_schedule="cosine", max_epochs=4, lr=0.01).fit(X, y)
    lrs = est.net_.history[:, "event_lr"]
    assert lrs[0] == pytest.approx(0.01) and all(a > b for a, b in zip(lrs, lrs[1:]))
