import numpy as np
import pytest

from skattn.embeddings import initial_vectors, ppmi_vectors
from skattn.embeddings._vectors import cooccurrence_matrix, pretrained_matrix
from skattn.text import PAD_ID, TextEncoder

from estimators import SMALL_ESTIMATORS


def _cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.mark.slow
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
    with pytest.raises(FileNotFoundError, match="neither one of"):
        initial_vectors("glove-please", None, None, 2, 0)
    with pytest.raises(TypeError, match="embeddings must be one of"):
        initial_vectors(42, None, None, 2, 0)


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_frozen_embeddings_keep_the_initial_vectors(make, polarity_small):
    X, y = polarity_small
    est = make(embeddings="ppmi", freeze_embeddings=True).fit(X, y)
    corpus = est.encoder_.encode(X)
    expected = ppmi_vectors(corpus, est.encoder_.vocab_size_, est.embedding_dim, random_state=0)
    # float32 tolerance: the fit made its SVD on the estimator's BLAS threads,
    # this test on the process's; some CPUs round the two differently.
    frozen = est.net_.module_.embedding.weight.detach().numpy()
    np.testing.assert_allclose(frozen, expected, rtol=1e-5, atol=1e-6)
    tuned = make(embeddings="ppmi").fit(X, y).net_.module_.embedding.weight.detach().numpy()
    assert not np.allclose(tuned, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_cosine_schedule_decays_the_learning_rate(make, polarity_small):
    X, y = polarity_small
    est = make(lr_schedule="cosine", max_epochs=4, lr=0.01).fit(X, y)
    lrs = est.net_.history[:, "event_lr"]
    assert lrs[0] == pytest.approx(0.01) and all(a > b for a, b in zip(lrs, lrs[1:]))


@pytest.fixture(scope="module")
def given_vectors():
    rng = np.random.RandomState(0)
    words = ["good", "bad", "film", "movie", "great", "awful", "the", "a", "not"]
    return {w: rng.normal(size=16).astype(np.float32) for w in words}


def _check_rows(est, vectors, frozen):
    weights = est.net_.module_.embedding.weight.detach().numpy()
    vocabulary = est.encoder_.vocabulary_
    known = [w for w in vectors if w in vocabulary]
    assert est.embedding_coverage_ == pytest.approx(len(known) / len(vocabulary))
    same = [np.array_equal(weights[vocabulary[w]], vectors[w]) for w in known]
    assert all(same) if frozen else not any(same)


def _vector_source(form, given_vectors, tmp_path):
    if form == "dict":
        return given_vectors
    if form == "keyedvectors":
        from gensim.models import KeyedVectors

        source = KeyedVectors(16)
        source.add_vectors(list(given_vectors), np.stack(list(given_vectors.values())))
        return source
    source = tmp_path / "vectors.txt"
    header = f"{len(given_vectors)} 16\n" if form == "word2vec_text" else ""
    source.write_text(
        header
        + "".join(
            w + " " + " ".join(repr(float(x)) for x in v) + "\n" for w, v in given_vectors.items()
        )
    )
    return source


@pytest.mark.parametrize("form", ["dict", "glove_file", "word2vec_text", "keyedvectors"])
def test_pretrained_matrix_fills_the_rows_of_known_words(form, given_vectors, tmp_path):
    source = _vector_source(form, given_vectors, tmp_path)
    vocabulary = {"good": 3, "film": 4, "zzz": 5, "not": 6}  # words start at 3 (see below)
    matrix, coverage = pretrained_matrix(source, vocabulary, 7, 16, random_state=0)
    assert coverage == 0.75 and matrix.shape == (7, 16) and not matrix[PAD_ID].any()
    for word in ("good", "film", "not"):
        np.testing.assert_array_equal(matrix[vocabulary[word]], given_vectors[word])
    assert matrix[5].any() and not np.isin(matrix[5], given_vectors["good"]).all()


def test_pretrained_rows_follow_the_ids_the_encoder_gives(given_vectors):
    encoder = TextEncoder().fit(["good film", "not a good movie", ""])
    # 0 padding, 1 unknown, 2 the blank document: the first word is id 3.
    assert encoder.id_to_token_[:3] == ["<pad>", "<unk>", "<empty>"]
    assert sorted(encoder.vocabulary_.values()) == list(range(3, 8))
    matrix, coverage = pretrained_matrix(
        given_vectors, encoder.vocabulary_, encoder.vocab_size_, 16
    )
    assert coverage == 1.0 and not matrix[PAD_ID].any()
    for word, row in encoder.vocabulary_.items():
        np.testing.assert_array_equal(matrix[row], given_vectors[word])
    for reserved in (1, 2):  # unknown and blank rows hold no word's vector
        assert not any(np.array_equal(matrix[reserved], v) for v in given_vectors.values())


def test_estimators_start_from_the_pretrained_rows(given_vectors, toy):
    X, y = toy
    make = SMALL_ESTIMATORS["SelfAttentiveClassifier"]
    vectors = {**given_vectors, "great": given_vectors["good"] * 2, "plot": given_vectors["a"]}
    frozen = make(embeddings=vectors, freeze_embeddings=True).fit(X, y)
    _check_rows(frozen, vectors, frozen=True)
    tuned = make(embeddings=vectors).fit(X, y)
    _check_rows(tuned, vectors, frozen=False)


@pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)
def test_word2vec_trained_on_fit_data_initialises_the_embedding(make, polarity_small, monkeypatch):
    from skattn.embeddings import _vectors as embeddings

    trained = []

    def spy(*args, **kwargs):
        trained.append(real(*args, **kwargs))
        return trained[-1]

    real = embeddings.train_word2vec
    monkeypatch.setattr(embeddings, "train_word2vec", spy)
    X, y = polarity_small
    est = make(embeddings="word2vec", freeze_embeddings=True).fit(X, y)
    weights = est.net_.module_.embedding.weight.detach().numpy()
    (vectors,) = trained
    assert est.embedding_coverage_ == 1.0 and not weights[PAD_ID].any()
    for word, row in est.encoder_.vocabulary_.items():
        np.testing.assert_array_equal(weights[row], vectors[word])


def test_vector_size_must_match_embedding_dim(given_vectors, polarity_small):
    X, y = polarity_small
    est = SMALL_ESTIMATORS["SelfAttentiveClassifier"](embedding_dim=8, embeddings=given_vectors)
    with pytest.raises(ValueError, match="16 dimensions but embedding_dim=8"):
        est.fit(X, y)
    assert not hasattr(est, "net_")


@pytest.mark.parametrize("tokens_per_slice", [1, 50, 1 << 20])
def test_cooccurrences_are_counted_pair_by_pair_whatever_the_slices(
    polarity_small, tokens_per_slice
):
    X, _ = polarity_small
    encoder = TextEncoder(min_count=1)
    corpus = encoder.fit_encode(X[:120])
    # Counted the slow way: every pair of positions within the window of a document.
    expected = np.zeros((encoder.vocab_size_, encoder.vocab_size_))
    for i in range(len(corpus)):
        ids = corpus.document(i).tolist()
        for a in range(len(ids)):
            for b in range(a + 1, min(a + 4, len(ids))):
                expected[ids[a], ids[b]] += 1
                expected[ids[b], ids[a]] += 1
    counts = cooccurrence_matrix(corpus, encoder.vocab_size_, 3, tokens_per_slice=tokens_per_slice)
    np.testing.assert_array_equal(counts.toarray(), expected)
    # Ids that overflow int32 once multiplied by the vocabulary size still count right.
    wide = cooccurrence_matrix(corpus, 3_000_000, 3, tokens_per_slice=tokens_per_slice)
    np.testing.assert_array_equal(wide[: len(expected), : len(expected)].toarray(), expected)
