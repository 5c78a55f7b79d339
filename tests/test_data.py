import numpy as np
import pytest
import torch

from skattn.text import BucketBatchSampler, DocumentDataset, TextEncoder

DOCS = ["a b c d", "a", "b c", "a b c d e f", "c", "d e f"]


def test_collate_pads_per_batch_only_and_returns_lengths_weights_labels():
    corpus = TextEncoder().fit_encode(DOCS)
    ds = DocumentDataset(corpus, y=np.arange(6) % 2, sample_weight=np.arange(6) + 1.0)
    X, y = ds.collate([1, 2])
    assert X["tokens"].shape == (2, 2)  # padded to this batch's longest, not the corpus'
    assert X["tokens"][0, 1].item() == 0 and X["lengths"].tolist() == [1, 2]
    assert X["sample_weight"].tolist() == [2.0, 3.0] and y.tolist() == [1, 0]


def test_hierarchical_collate_pads_documents_and_sentences_per_batch():
    corpus = TextEncoder(sentence_split="lines").fit_encode(["a b\nc", "d", "e\nf g h\ni"])
    X, _ = DocumentDataset(corpus, hierarchical=True).collate([2, 0])
    assert X["lengths"].tolist() == [[1, 3, 1], [2, 1, 0]]
    assert X["tokens"].shape == (2, 3, 3)
    ids = corpus.token_ids
    assert X["tokens"][1, 0, :2].tolist() == ids[:2].tolist() and (X["tokens"][1, 2] == 0).all()


def test_subset_restricts_and_reorders_documents():
    corpus = TextEncoder().fit_encode(DOCS)
    ds = DocumentDataset(corpus, y=np.arange(6))
    view = ds.subset(np.array([3, 0]))
    X, y = view.collate([0, 1])
    assert len(view) == 2 and y.tolist() == [3, 0] and X["lengths"].tolist() == [6, 4]


def test_training_sampler_covers_every_document_once_in_similar_length_batches():
    lengths = np.random.RandomState(0).randint(1, 100, size=1000)
    torch.manual_seed(0)
    batches = list(BucketBatchSampler(lengths, 20, shuffle=True, pool_batches=10))
    seen = np.concatenate(batches)
    assert sorted(seen.tolist()) == list(range(1000))
    spread = np.mean([np.ptp(lengths[b]) for b in batches])
    random_spread = np.mean([np.ptp(lengths[b]) for b in np.split(np.arange(1000), 50)])
    assert spread < random_spread / 3


def test_training_sampler_is_shuffled_and_reproducible_from_torch_seed():
    lengths = np.arange(200) % 7
    torch.manual_seed(1)
    first = list(BucketBatchSampler(lengths, 10))
    torch.manual_seed(1)
    again = list(BucketBatchSampler(lengths, 10))
    second = list(BucketBatchSampler(lengths, 10))
    assert first == again and first != second


@pytest.mark.parametrize("batch_size", [1, 7, 32, 64, 128, 1000])
@pytest.mark.parametrize("mode", ["bucketed", "unbucketed", "tokens", "inference"])
def test_every_document_appears_once_per_epoch_in_every_batching_mode(batch_size, mode):
    lengths = np.random.RandomState(1).randint(1, 300, size=777)
    torch.manual_seed(0)
    sampler = BucketBatchSampler(
        lengths,
        batch_size,
        shuffle=mode != "inference",
        pool_batches=1 if mode == "unbucketed" else 50,
        sizes=lengths,
        max_tokens=batch_size * 150 if mode == "tokens" else None,
    )
    for _ in range(2):  # two epochs, each a permutation of all documents
        batches = list(sampler)
        assert sorted(np.concatenate(batches).tolist()) == list(range(777))
    if mode == "tokens":  # over budget only when one document alone is
        assert all(lengths[b].sum() <= batch_size * 150 or len(b) == 1 for b in batches)
    elif mode != "inference":
        assert max(len(b) for b in batches) == min(batch_size, 777)


def test_token_budget_batches_hold_more_short_documents_than_long_ones():
    lengths = np.r_[np.full(100, 5), np.full(100, 50)]
    torch.manual_seed(0)
    batches = list(BucketBatchSampler(lengths, 10, sizes=lengths, max_tokens=100))
    sizes = {int(lengths[b][0]): len(b) for b in batches if len(set(lengths[b])) == 1}
    assert sizes[5] == 20 and sizes[50] == 2


@pytest.mark.parametrize("name", ["SelfAttentiveClassifier", "HierarchicalAttentionClassifier"])
def test_predictions_come_back_in_input_order_at_any_batch_size(name, toy):
    from estimators import SMALL_ESTIMATORS

    X, y = toy
    model = SMALL_ESTIMATORS[name](max_epochs=1, batch_tokens=200).fit(X, y)
    reference = model.predict_proba(X)
    permutation = np.random.RandomState(0).permutation(len(X))
    for batch_size in (1, 7, 128):
        model.net_.set_params(batch_size=batch_size)
        shuffled = model.predict_proba([X[i] for i in permutation])
        np.testing.assert_allclose(shuffled, reference[permutation], rtol=1e-5, atol=1e-6)
