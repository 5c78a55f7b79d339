"""HierarchicalAttentionClassifier: exact masking, the paper's pooling variants, learning."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.model_selection import train_test_split

from skattn import HierarchicalAttentionClassifier
from skattn.datasets import fetch_movie_reviews
from skattn.nn import HierarchicalAttentionNet, SequencePooling, length_mask
from skattn.text import DocumentDataset, TextEncoder

DOCS = [
    "One sentence only here.",
    "Word",
    "First one. Then a second, longer sentence! And a third?",
    "Short. Two.",
]


def _batch(docs, **encoder_params):
    corpus = TextEncoder(sentence_split="punctuation", **encoder_params).fit_encode(docs)
    return DocumentDataset(corpus, hierarchical=True)


@pytest.fixture
def net():
    torch.manual_seed(0)
    return HierarchicalAttentionNet(
        60, 3, embedding_dim=8, word_hidden=5, sentence_hidden=4, context_dim=6, chunk_size=2
    ).eval()


def test_weights_sum_to_one_over_real_positions_and_are_zero_on_padding(net):
    X, _ = _batch(DOCS).collate(range(len(DOCS)))
    out = net(**X)
    real_sentences = X["lengths"] > 0
    words = out.word_attention
    word_mask = torch.arange(words.shape[-1])[None, None, :] < X["lengths"][..., None]
    assert (words[~word_mask] == 0).all() and (out.sentence_attention[~real_sentences] == 0).all()
    torch.testing.assert_close(words.sum(-1)[real_sentences], torch.ones(int(real_sentences.sum())))
    torch.testing.assert_close(out.sentence_attention.sum(-1), torch.ones(len(DOCS)))


def test_document_alone_equals_document_in_padded_batch(net):
    dataset = _batch(DOCS)
    X, _ = dataset.collate(range(len(DOCS)))
    together = net(**X)
    for i in range(len(DOCS)):
        Xi, _ = dataset.collate([i])
        alone = net(**Xi)
        torch.testing.assert_close(together.logits[i], alone.logits[0], rtol=1e-5, atol=1e-6)
        n = int((Xi["lengths"] > 0).sum())
        torch.testing.assert_close(
            together.sentence_attention[i, :n], alone.sentence_attention[0], rtol=1e-5, atol=1e-6
        )


def test_mean_pooling_equals_attention_with_uniform_weights():
    torch.manual_seed(0)
    states = torch.randn(3, 5, 4)
    mask = length_mask(torch.tensor([5, 2, 1]), 5)
    mean, weights = SequencePooling(4, 3, "mean")(states, mask)
    uniform = mask / mask.sum(1, keepdim=True)
    torch.testing.assert_close(weights, uniform.float())
    torch.testing.assert_close(mean, (uniform.unsqueeze(-1) * states).sum(1))
    attention = SequencePooling(4, 3, "attention")
    with torch.no_grad():
        attention.attention.context.zero_()  # scores all 0 -> uniform softmax
    attended, _ = attention(states, mask)
    torch.testing.assert_close(attended, mean)


def test_max_pooling_weights_count_the_dimensions_each_position_wins():
    states = torch.tensor([[[1.0, 5.0, 0.0], [2.0, 1.0, 9.0], [99.0, 99.0, 99.0]]])
    pooled, weights = SequencePooling(3, 2, "max")(states, torch.tensor([[True, True, False]]))
    assert pooled.tolist() == [[2.0, 5.0, 9.0]]
    torch.testing.assert_close(weights, torch.tensor([[1 / 3, 2 / 3, 0.0]]))


@pytest.fixture(scope="module")
def small_han():
    X = ["A great film. I loved it.", "Truly great!", "A bad film. I hated it.", "Truly bad!"]
    y = ["pos", "pos", "neg", "neg"]
    clf = HierarchicalAttentionClassifier(
        embedding_dim=8,
        hidden_size=6,
        sentence_hidden_size=5,
        context_dim=4,
        max_sentences=2,
        max_epochs=2,
        random_state=0,
    )
    return clf.fit(X * 4, y * 4)


def _benchmark_module(name):
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_network_equals_a_packed_bidirectional_gru_han():
    """The speed benchmark's plain reproduction is the same function as our network.

    ``benchmarks/plain_han.py`` writes HAN as reproductions do (one
    bidirectional ``nn.GRU`` per level over packed sequences); loaded with
    our fitted weights it must give our logits on ragged documents, and its
    padded shortcut (GRUs over the pads) must not.
    """
    plain_han = _benchmark_module("plain_han")
    X = ["A great film. I loved it a lot.", "Great!", "A bad film. Hated it. Bad.", "Bad!"]
    clf = HierarchicalAttentionClassifier(
        sentence_split="punctuation",
        embedding_dim=8,
        hidden_size=6,
        sentence_hidden_size=5,
        context_dim=4,
        subword_buckets=None,
        max_epochs=2,
        random_state=0,
    ).fit(X * 4, ["pos", "pos", "neg", "neg"] * 4)
    batch, _ = clf.to_dataset(X).collate(range(len(X)))
    clf.net_.module_.chunk_size = 2  # our word level in several length-sorted chunks
    with torch.no_grad():
        ours = clf.net_.module_.eval()(batch["tokens"], batch["lengths"]).logits
        packed = plain_han.plain_network_from(clf, packed=True).eval()
        padded = plain_han.plain_network_from(clf, packed=False).eval()
        torch.testing.assert_close(packed(batch["tokens"], batch["lengths"]), ours)
        assert not torch.allclose(padded(batch["tokens"], batch["lengths"]), ours, atol=1e-4)


@pytest.mark.parametrize(
    "setting",
    [
        {},  # the defaults: subwords, dropout, a one-cycle rate
        {"freeze_embeddings": True},
        {"class_weight": "balanced"},
        {"lr_schedule": "onecycle"},
        {"pooling": "mean"},
    ],
)
def test_the_plain_reproduction_refuses_settings_it_does_not_have(setting):
    plain_han = _benchmark_module("plain_han")
    papers = {"subword_buckets": None, "dropout": 0.0, "lr_schedule": "constant"}
    plain_han.check_papers_settings(HierarchicalAttentionClassifier(**papers))
    clf = HierarchicalAttentionClassifier(**({**papers, **setting} if setting else {}))
    with pytest.raises(ValueError, match="the plain reproduction has no"):
        plain_han.check_papers_settings(clf)


def test_one_sentence_one_word_and_too_many_sentences(small_han):
    docs = ["Great", "Great film.", "One. Two. Three. Four. Five."]
    explained = small_han.explain(docs, method="attention")
    assert explained[0]["sentences"] == [["great"]]
    np.testing.assert_allclose(explained[0]["word_attention"][0], [1.0])
    np.testing.assert_allclose(explained[0]["sentence_attention"], [1.0])
    # max_sentences=2: the first two sentences are kept, the rest dropped (documented rule)
    assert explained[2]["sentences"] == [["one", "."], ["two", "."]]
    assert len(explained[2]["sentence_attention"]) == 2
    for e in explained:
        np.testing.assert_allclose(e["sentence_attention"].sum(), 1.0, rtol=1e-5)
        for tokens, weights in zip(e["sentences"], e["word_attention"]):
            assert len(tokens) == len(weights)
            np.testing.assert_allclose(weights.sum(), 1.0, rtol=1e-5)
    assert small_han.transform(docs).shape == (3, 10)


def test_explain_matches_the_forward_pass(small_han):
    docs = ["A great film. I loved it.", "Bad."]
    explained = small_han.explain(docs, method="attention")
    dataset = DocumentDataset(small_han.encoder_.encode(docs), hierarchical=True)
    X, _ = dataset.collate([0, 1])
    module = small_han.net_.module_.eval()
    with torch.no_grad():
        out = module(**X)
    for i, e in enumerate(explained):
        n = len(e["sentences"])
        np.testing.assert_allclose(
            e["sentence_attention"], out.sentence_attention[i, :n], rtol=1e-5
        )
        for j, weights in enumerate(e["word_attention"]):
            np.testing.assert_allclose(weights, out.word_attention[i, j, : len(weights)], rtol=1e-5)


@pytest.mark.slow
def test_learns_movie_reviews():
    X, y = fetch_movie_reviews(return_X_y=True, download_if_missing=False)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=0
    )
    clf = HierarchicalAttentionClassifier(
        sentence_split="lines",
        max_sentences=25,
        max_sentence_length=30,
        embedding_dim=50,
        hidden_size=25,
        sentence_hidden_size=25,
        context_dim=50,
        max_epochs=3,
        random_state=0,
    ).fit(X_train, y_train)
    accuracy = clf.score(X_test, y_test)
    print(f"movie_reviews held-out accuracy: {accuracy:.4f}")
    assert accuracy >= 0.70
