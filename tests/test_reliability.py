"""No lost work: interrupted fits, checkpoints, warm starts; a fuzzed text encoder."""

import os
import re
import string

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skorch.callbacks import Callback

from skattn import load, save
from skattn.text import DEFAULT_TOKEN_PATTERN, TextEncoder

from estimators import SMALL_ESTIMATORS

by_estimator = pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)


class _InterruptAt(Callback):
    """Records the weights after each epoch; presses Ctrl-C inside epoch ``epoch``."""

    def __init__(self, epoch, batch):
        self.epoch, self.batch = epoch, batch

    def on_train_begin(self, net, **kwargs):
        self.saved, self.batches = {}, 0

    def on_epoch_end(self, net, **kwargs):
        self.saved[len(net.history)] = {k: v.clone() for k, v in net.module_.state_dict().items()}

    def on_batch_end(self, net, **kwargs):
        self.batches += 1
        if len(net.history) == self.epoch and self.batches > self.batch:
            raise KeyboardInterrupt


@by_estimator
def test_interrupt_keeps_the_last_finished_epoch(make, polarity_small):
    X, y = polarity_small
    interrupt = _InterruptAt(epoch=2, batch=25)
    with pytest.warns(UserWarning, match="interrupted.*epoch \\(1\\)"):
        est = make(max_epochs=3, callbacks=[interrupt]).fit(X, y)
    assert est.net_.interrupted_ and list(interrupt.saved) == [1]
    for name, value in est.net_.module_.state_dict().items():
        torch.testing.assert_close(value, interrupt.saved[1][name], rtol=0, atol=0)
    assert set(est.predict(X[:10])) <= set(est.classes_)  # usable


@by_estimator
def test_best_validation_epoch_is_checkpointed_and_restored(make, polarity_small, tmp_path):
    X, y = polarity_small
    est = make(max_epochs=4, validation_fraction=0.2, checkpoint_dir=tmp_path, lr=0.02).fit(X, y)
    history = est.net_.history
    best = int(np.argmax(history[:, "valid_acc"]))
    assert (tmp_path / "params.pt").exists()
    saved = torch.load(tmp_path / "params.pt", weights_only=True)
    for name, value in est.net_.module_.state_dict().items():
        torch.testing.assert_close(value, saved[name])
    assert history[best, "event_cp"] is True


@by_estimator
def test_checkpoints_use_a_fresh_temporary_directory_per_fit(
    make, polarity_small, monkeypatch, tmp_path
):
    X, y = polarity_small
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    seen = []
    original = tempfile.TemporaryDirectory

    def recording(*args, **kwargs):
        directory = original(*args, **kwargs)
        seen.append(directory.name)
        return directory

    monkeypatch.setattr(tempfile, "TemporaryDirectory", recording)
    for _ in range(2):
        make(max_epochs=1, validation_fraction=0.2).fit(X, y)
    assert len(seen) == 2 and seen[0] != seen[1]
    assert not any(os.path.exists(d) for d in seen)  # cleaned after each fit


@by_estimator
def test_warm_start_continues_a_loaded_model_with_its_vocabulary(make, polarity_small, tmp_path):
    X, y = polarity_small
    first = make(max_epochs=1).fit(X[:300], y[:300])
    restored = load(save(first, tmp_path / "m.skattn"), warm_start=True)
    vocabulary = dict(restored.encoder_.vocabulary_)
    before = restored.predict_proba(X[300:])
    restored.fit(X[300:], y[300:])
    assert restored.encoder_.vocabulary_ == vocabulary
    assert not np.array_equal(restored.predict_proba(X[300:]), before)  # it trained further
    with pytest.raises(ValueError, match=r"warm_start: y holds labels never seen in fit: \['meh"):
        restored.fit(X[:4], ["pos", "neg", "meh", "pos"])


def _expected_tokens(doc, max_length):
    """A document's tokens by the documented rule, without TextEncoder.

    The default pattern over the lowercased text (sentence ends fall between
    tokens, so splitting into sentences changes nothing), the first
    ``max_length`` of them; a document without any is ``["<empty>"]``.
    """
    return re.findall(DEFAULT_TOKEN_PATTERN, doc.lower())[:max_length] or ["<empty>"]


@pytest.mark.parametrize(
    "doc, max_length, tokens",
    [
        ("It's GREAT!", None, ["it's", "great", "!"]),
        ("a\x00b\tc\u200bd", None, ["a", "\x00", "b", "c", "\u200b", "d"]),
        ("One. Two!\nThree?", 4, ["one", ".", "two", "!"]),
        ("好看。真的！", None, ["好", "看", "。", "真", "的", "！"]),
        ("x" * 5000, 2, ["x" * 5000]),
        ("... ?!", None, [".", ".", ".", "?", "!"]),
        (" \n\t ", 3, ["<empty>"]),
    ],
)
def test_tokens_of_awkward_text_are_what_the_rule_says(doc, max_length, tokens):
    encoder = TextEncoder(max_length=max_length, sentence_split="punctuation")
    corpus = encoder.fit_encode([doc, "filler"])
    assert [encoder.id_to_token_[j] for j in corpus.document(0)] == tokens
    assert _expected_tokens(doc, max_length) == tokens  # the oracle of the fuzzed test agrees


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(
        st.text(
            alphabet=st.one_of(
                st.characters(),  # any unicode, control characters included
                st.sampled_from(list(string.whitespace + string.punctuation)),
            ),
            min_size=1,
            max_size=200,
        ).filter(str.strip),
        min_size=1,
        max_size=8,
    ),
    long_token=st.integers(1, 5000),
    max_length=st.one_of(st.none(), st.integers(1, 50)),
)
def test_fuzzed_text_encodes_without_loss(docs, long_token, max_length):
    docs = docs + ["x" * long_token]
    encoder = TextEncoder(max_length=max_length, sentence_split="punctuation")
    corpus = encoder.fit_encode(docs)
    assert len(corpus) == len(docs)  # every document encodes
    lengths = corpus.document_lengths
    assert (lengths >= 1).all()
    if max_length is not None:
        assert (lengths <= max_length).all()
    assert corpus.token_ids.min() >= 2 and corpus.token_ids.max() < encoder.vocab_size_
    for i, doc in enumerate(docs):
        decoded = [encoder.id_to_token_[j] for j in corpus.document(i)]
        assert decoded == _expected_tokens(doc, max_length)
