"""Subword information: hashed character n-grams give unknown words a vector of their own."""

import numpy as np
import pytest
import torch

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier, load, save
from skattn.explain import ModelDocuments
from skattn.explain._erasure import erased_corpus
from skattn.text import UNK_ID, DocumentDataset, TextEncoder, char_ngrams
from skattn.text._subwords import (
    KEPT_WORD_MAX_LENGTH,
    MAX_NGRAMS,
    _kept_ngram_id_bytes,
    ngram_ids,
    subword_table,
)

X = ["a good film", "a bad film", "good plot", "bad plot", "a fine cast", "a dull cast"] * 6
Y = [1, 0, 1, 0, 1, 0] * 6


def test_char_ngrams_are_those_of_the_wrapped_word():
    assert char_ngrams("ab", (3, 3)) == ["<ab", "ab>"]
    assert char_ngrams("film", (3, 5)) == [
        "<fi", "fil", "ilm", "lm>", "<fil", "film", "ilm>", "<film", "film>",
    ]  # fmt: skip
    long_word = "x" * 40
    assert len(ngram_ids(long_word, 100)) == MAX_NGRAMS


def test_a_misspelling_shares_most_of_its_ngrams_with_the_word():
    film, films = set(ngram_ids("film", 10**6)), set(ngram_ids("films", 10**6))
    assert len(film & films) >= 5  # <fi fil ilm <fil film <film
    assert not set(ngram_ids("plot", 10**6)) & film


def test_every_token_gets_its_row_known_or_not():
    encoder = TextEncoder(subword_buckets=1000).fit(["good film", "bad film"])
    corpus = encoder.encode(["good filmz filmz", ""])
    assert corpus.token_ids.tolist()[:3] == [encoder.vocabulary_["good"], UNK_ID, UNK_ID]
    types = corpus.token_types.tolist()
    assert types[1] == types[2] != types[0]  # one row per distinct token
    np.testing.assert_array_equal(
        corpus.subword_table[types[1], : len(ngram_ids("filmz", 1000))], ngram_ids("filmz", 1000)
    )
    assert not corpus.subword_table[types[3]].any()  # the blank document: no n-grams
    assert not corpus.subword_table[0].any()  # row 0 pads
    assert subword_table([None], 10).shape == (1, 1)


def test_a_table_built_again_from_kept_rows_is_the_same_and_its_own():
    long_word = "x" * (KEPT_WORD_MAX_LENGTH + 1)
    words = [None, "film", "filmz", None, "a", long_word, "café", "a\udcff"]
    expected = np.zeros((len(words), MAX_NGRAMS), dtype=np.int64)
    for i, word in enumerate(words):
        if word is not None:
            expected[i, : len(ngram_ids(word, 997))] = ngram_ids(word, 997)
    _kept_ngram_id_bytes.cache_clear()
    first = subword_table(words, 997)  # hashes the short words and keeps their rows
    kept = _kept_ngram_id_bytes.cache_info()
    assert (kept.hits, kept.currsize) == (0, 5)  # five short words; the long one is not kept
    again = subword_table(words, 997)  # reads them back
    assert _kept_ngram_id_bytes.cache_info().hits == 5
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(again, expected)
    assert again.dtype == np.int64 and again.flags.writeable
    again[1, 0] = -1  # a caller's table is its own: writing to it changes no later table
    np.testing.assert_array_equal(subword_table(words, 997), expected)
    # The same word in another bucket count is hashed again, not read back.
    assert subword_table(["film"], 13)[0].tolist() == ngram_ids("film", 13)
    assert subword_table([], 13).shape == (0, 1)


@pytest.mark.parametrize("hierarchical", [False, True])
def test_batches_carry_each_tokens_ngrams(hierarchical):
    encoder = TextEncoder(subword_buckets=500, sentence_split="punctuation").fit(X)
    corpus = encoder.encode(["A good film. Bad!", "dull"])
    batch, _ = DocumentDataset(corpus, hierarchical=hierarchical).collate([0, 1])
    tokens, subwords = batch["tokens"], batch["subwords"]
    assert subwords.shape[:-1] == tokens.shape
    assert not subwords[tokens == 0].any()  # padding has no n-grams
    first = tokens.reshape(-1, tokens.shape[-1])[0, 1].item()  # "good"
    row = subwords.reshape(-1, *subwords.shape[-2:])[0, 1]
    assert encoder.id_to_token_[first] == "good"
    assert row[row > 0].tolist() == ngram_ids("good", 500)


@pytest.fixture(scope="module", params=[SelfAttentiveClassifier, HierarchicalAttentionClassifier])
def subword_model(request):
    params = dict(embedding_dim=16, hidden_size=8, max_epochs=6, lr=1e-2, random_state=0)
    return request.param(subword_buckets=2000, embeddings=None, **params).fit(X, Y)


def test_unknown_words_are_read_through_their_ngrams(subword_model):
    learned = subword_model.net_.module_.subword_embedding.bag.weight
    assert learned.abs().sum() > 0  # the n-gram vectors trained (they start at zero)
    # Two unknown words: with word vectors alone both would be <unk>.
    proba = subword_model.predict_proba(["goodish", "baddish"])
    assert not np.allclose(proba[0], proba[1], atol=1e-4)
    assert proba[0, 1] > proba[1, 1]  # "good…" reads as good, "bad…" as bad


def test_saved_and_loaded_models_keep_their_subwords(subword_model, tmp_path):
    path = save(subword_model, tmp_path / "model.skattn")
    restored = load(path)
    documents = ["goodish film", "a baddish plot", ""]
    np.testing.assert_allclose(
        restored.predict_proba(documents), subword_model.predict_proba(documents), atol=1e-6
    )


def test_erasure_keeps_the_ngrams_of_the_kept_tokens(subword_model):
    documents = ModelDocuments(subword_model, ["goodish film", "film goodish"])
    keep_second = np.array([False, True])
    variant = erased_corpus(documents.corpus, [0], [keep_second], subword_model.encoder_.empty_id_)
    # "goodish film" without "goodish" is "film": same probabilities as encoding "film".
    alone = ModelDocuments(subword_model, ["film"])
    np.testing.assert_allclose(
        subword_model._outputs([], ("logits",), corpus=variant)["logits"],
        subword_model._outputs([], ("logits",), corpus=alone.corpus)["logits"],
        atol=1e-5,
    )


def test_gradients_see_the_ngrams(subword_model):
    explanation = subword_model.explain(["goodish film"], method="gradient")[0]
    scores = (
        np.concatenate(explanation["word_scores"])
        if "word_scores" in explanation
        else explanation["scores"]
    )
    # An unknown word's score comes from its n-grams: not zero.
    assert abs(scores[0]) > 1e-6
    module = subword_model.net_.module_
    batch, _ = DocumentDataset(
        ModelDocuments(subword_model, ["goodish film"]).corpus,
        hierarchical=subword_model._hierarchical,
    ).collate([0])
    with torch.no_grad():
        plain = module(batch["tokens"], batch["lengths"])[0]
        full = module(batch["tokens"], batch["lengths"], subwords=batch["subwords"])[0]
    assert not torch.allclose(plain, full)


def test_a_file_written_before_subwords_loads_without_them():
    from pathlib import Path

    # A 0.1 file: no subword_buckets parameter, no n-gram weights.
    model = load(Path(__file__).parent / "data" / "model_v1.skattn")
    assert model.subword_buckets is None
    assert model.net_.module_.subword_embedding is None
    assert model.predict_proba(["a fine film"]).shape == (1, len(model.classes_))


def test_a_model_pickled_before_subwords_still_predicts(subword_model):
    import pickle

    from estimators import SMALL_ESTIMATORS

    name = type(subword_model).__name__
    old = SMALL_ESTIMATORS[name](subword_buckets=None, max_epochs=1).fit(X, Y)
    expected = old.predict_proba(["a goodish film"])
    # Pickles written before the parameter existed hold no such attribute.
    del old.subword_buckets, old.encoder_.subword_buckets, old.net_.module_.subword_embedding
    restored = pickle.loads(pickle.dumps(old))
    assert restored.get_params()["subword_buckets"] is None
    np.testing.assert_allclose(restored.predict_proba(["a goodish film"]), expected, atol=1e-6)
