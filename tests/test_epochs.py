"""max_epochs="auto": more epochs for less text, the base for large or long-document corpora."""

import pytest

import skattn.training._epochs as rule
from skattn.text import TextEncoder
from skattn.training import auto_epochs
from skattn.training._epochs import REFERENCE_DOCUMENTS, REFERENCE_TOKENS

from estimators import small_hierarchical, small_self_attentive


def test_a_corpus_as_large_as_the_reference_keeps_the_base():
    assert auto_epochs(8, REFERENCE_DOCUMENTS, REFERENCE_TOKENS).value == 8
    assert auto_epochs(5, 10 * REFERENCE_DOCUMENTS, 10 * REFERENCE_TOKENS).value == 5


def test_half_the_documents_and_tokens_double_the_epochs():
    choice = auto_epochs(5, REFERENCE_DOCUMENTS // 2, REFERENCE_TOKENS // 2)
    assert choice.value == 10
    assert "× 2.00" in choice.why


def test_few_long_documents_hold_enough_text_to_keep_the_base():
    # movie_reviews: 1,600 training reviews of 765 tokens on average.
    assert auto_epochs(5, 1_600, 1_224_000).value == 5


def test_many_short_documents_get_more_epochs():
    # nps_chat: as many posts as the reference, about a quarter of its tokens (capped at 2×).
    assert auto_epochs(8, REFERENCE_DOCUMENTS, REFERENCE_TOKENS // 4).value == 16
    assert auto_epochs(5, 2 * REFERENCE_DOCUMENTS, REFERENCE_TOKENS * 2 // 3).value == 8


def test_the_text_not_the_document_count_sets_the_factor():
    assert auto_epochs(5, REFERENCE_DOCUMENTS // 4, REFERENCE_TOKENS).value == 5


def test_a_tiny_corpus_is_capped_at_twice_the_base():
    assert auto_epochs(5, 10, 50).value == 10
    assert "× 2.00" in auto_epochs(5, 10, 50).why
    assert auto_epochs(3, 10, 50).value == 6


def test_the_factor_is_rounded_to_the_nearest_epoch():
    # 187,600 / 120,000 = 1.563: 5 × 1.563 = 7.8 → 8; 8 × 1.563 = 12.5 → 13.
    assert auto_epochs(5, 5_452, 120_000).value == 8
    assert auto_epochs(8, 5_452, 120_000).value == 13


# The documented bases (5 self-attentive, 3 HAN) doubled: the toy corpus (about 4,000
# tokens, 46× fewer than the reference) is at the cap.
@pytest.mark.parametrize("make, epochs", [(small_self_attentive, 10), (small_hierarchical, 6)])
def test_fit_trains_the_chosen_epochs_and_says_why(make, epochs, toy):
    X, y = toy
    model = make(max_epochs="auto").fit(X, y)
    chosen = model.choices_["max_epochs"]
    assert chosen["value"] == epochs
    assert len(model.history_) == chosen["value"]
    assert "240 documents" in chosen["why"]


def test_a_number_is_trained_as_given(toy):
    X, y = toy
    model = small_self_attentive(max_epochs=3).fit(X, y)
    assert len(model.history_) == 3
    assert model.choices_["max_epochs"] == {"value": 3, "why": "set by max_epochs"}


def test_the_rule_counts_the_documents_it_trains_on(toy):
    # A validation split is held out before the epochs are chosen.
    X, y = toy
    model = small_self_attentive(max_epochs="auto", validation_fraction=0.25).fit(X, y)
    assert "180 documents" in model.choices_["max_epochs"]["why"]


# Single-label: the bases 5 and 3 doubled (the toy corpus is at the cap); multi-label:
# the documented multi-label base 8, doubled, for both models.
@pytest.mark.parametrize(
    "make, single_epochs", [(small_self_attentive, 10), (small_hierarchical, 6)]
)
def test_a_multilabel_fit_starts_from_the_multilabel_base(make, single_epochs, toy):
    import numpy as np

    X, y = toy
    labels = np.asarray(y)
    Y = np.column_stack([labels == labels[0], labels != labels[0]]).astype(int)
    single = make(max_epochs="auto").fit(X, y).choices_["max_epochs"]
    multi = make(max_epochs="auto").fit(X, Y).choices_["max_epochs"]
    assert (single["value"], multi["value"]) == (single_epochs, 16)
    assert "multi-label" in multi["why"] and "multi-label" not in single["why"]


def _training_tokens(X) -> int:
    from skattn.text import TextEncoder

    return int(TextEncoder().fit(X).encode(X).document_lengths.sum())


def test_chat_posts_get_more_epochs_and_snippets_keep_the_base():
    # Four fifths of each corpus, the comparison's 5-fold training size: nps_chat's
    # posts are as many as sentence_polarity's snippets but hold a quarter of the text.
    from skattn.datasets import fetch_nps_chat, fetch_sentence_polarity

    chat, _ = fetch_nps_chat(return_X_y=True, download_if_missing=False)
    snippets, _ = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    chat, snippets = chat[: len(chat) * 4 // 5], snippets[: len(snippets) * 4 // 5]
    assert abs(len(chat) - len(snippets)) < 0.02 * len(snippets)
    assert auto_epochs(5, len(chat), _training_tokens(chat)).value == 10
    assert auto_epochs(5, len(snippets), _training_tokens(snippets)).value == 5


def test_the_rule_reads_the_training_splits_tokens(toy, monkeypatch):
    X, y = toy
    total = int(TextEncoder().fit(X).encode(X).document_lengths.sum())
    monkeypatch.setattr(rule, "REFERENCE_TOKENS", total)  # the whole toy corpus: factor 1
    model = small_self_attentive(max_epochs="auto", validation_fraction=0.25).fit(X, y)
    chosen = model.choices_["max_epochs"]
    # A quarter of the documents held out: about 4/3 of the base (5), not the
    # base (all the tokens counted) and not the cap (documents counted).
    assert chosen["value"] in (6, 7)
    assert "180 documents" in chosen["why"]


def test_a_tie_is_rounded_half_up():
    # 8 × 187,600 / 120,064 = 12.5 exactly; Python's round() would give 12.
    assert auto_epochs(8, 5_000, 120_064).value == 13
