import numpy as np
import torch

from skattn.data import BucketBatchSampler, DocumentDataset
from skattn.text import TextEncoder

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
