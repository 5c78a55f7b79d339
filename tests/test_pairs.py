"""The sentence-pair classifier: input, the gated encoder, scikit-learn integration, SICK."""

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import skattn
from skattn import SelfAttentivePairClassifier
from skattn.datasets import fetch_sick
from skattn.modules.pair import SelfAttentivePairNet
from skattn.pair_data import check_pair_input
from skattn.utils.estimator_checks import text_estimator_checks

SMALL = dict(
    embedding_dim=16,
    hidden_size=8,
    attention_dim=8,
    attention_hops=2,
    mlp_hidden=16,
    gated_dim=8,
    max_epochs=3,
    embeddings=None,
    random_state=0,
)


def small(**params):
    return SelfAttentivePairClassifier(**{**SMALL, **params})


@pytest.fixture(scope="module")
def sick_sample():
    train = fetch_sick(subset="train", download_if_missing=False)
    order = np.random.RandomState(0).permutation(len(train.data))[:400]
    return [train.data[i] for i in order], np.asarray(train.target)[order]


def test_the_gated_encoder_is_the_papers_hop_by_hop_product():
    torch.manual_seed(0)
    net = SelfAttentivePairNet(
        vocab_size=12, n_classes=3, hidden_size=3, attention_hops=2, gated_dim=4, dropout=0.0
    ).eval()
    tokens, lengths = torch.tensor([[4, 5, 6]]), torch.tensor([3])
    tokens_b, lengths_b = torch.tensor([[7, 8]]), torch.tensor([2])
    out = net(tokens, lengths, tokens_b, lengths_b)
    # By hand: each side's M, then F_h[i] = M_h[i] W_fh[i], F_p[i] = M_p[i] W_fp[i].
    m_h, a_h = net.encode(tokens, lengths)
    m_p, a_p = net.encode(tokens_b, lengths_b)
    expected = torch.stack(
        [(m_h[0, i] @ net.gate_first[i]) * (m_p[0, i] @ net.gate_second[i]) for i in range(2)]
    )
    torch.testing.assert_close(out.embedding[0], expected)
    torch.testing.assert_close(out.logits, net.classifier(expected.flatten()[None]))
    gram_h, gram_p = a_h[0] @ a_h[0].T, a_p[0] @ a_p[0].T
    penalty = ((gram_h - torch.eye(2)) ** 2).sum() + ((gram_p - torch.eye(2)) ** 2).sum()
    torch.testing.assert_close(out.penalty[0], penalty)


def test_matching_features_follow_the_gated_ones_hop_by_hop():
    torch.manual_seed(0)
    net = SelfAttentivePairNet(
        vocab_size=12,
        n_classes=3,
        hidden_size=3,
        attention_hops=2,
        gated_dim=4,
        dropout=0.0,
        pair_features="matching",
    ).eval()
    tokens, lengths = torch.tensor([[4, 5, 6]]), torch.tensor([3])
    tokens_b, lengths_b = torch.tensor([[7, 8]]), torch.tensor([2])
    out = net(tokens, lengths, tokens_b, lengths_b)
    m_h, _ = net.encode(tokens, lengths)
    m_p, _ = net.encode(tokens_b, lengths_b)
    for i in range(2):
        gated = (m_h[0, i] @ net.gate_first[i]) * (m_p[0, i] @ net.gate_second[i])
        by_hand = [gated, (m_h[0, i] - m_p[0, i]).abs(), m_h[0, i] * m_p[0, i]]
        torch.testing.assert_close(out.embedding[0, i], torch.cat(by_hand))
    torch.testing.assert_close(out.logits, net.classifier(out.embedding.flatten(1)))


def test_pairs_come_as_tuples_arrays_or_data_frames():
    pairs = [("a b", "c"), ("d", "e f")]
    assert check_pair_input(np.array(pairs, dtype=object)) == pairs
    pd = pytest.importorskip("pandas")
    assert check_pair_input(pd.DataFrame(pairs, columns=["premise", "hypothesis"])) == pairs


@pytest.mark.parametrize(
    "X, words",
    [
        (["a b", "c d"], "not a pair"),
        ([("a", "b", "c")], "holds 3 texts"),
        ([("a", None)], "None"),
        ([("a", b"b")], "bytes"),
        (np.array([["a", "b", "c"]]), "shape"),
        ("a b", "is a str"),
        ([], "empty"),
    ],
)
def test_bad_pairs_fail_before_training(X, words):
    model = small()
    with pytest.raises((TypeError, ValueError), match=words):
        model.fit(X, ["x"] * max(len(X), 1) if not isinstance(X, str) else ["x"])
    assert not hasattr(model, "net_")


@pytest.mark.parametrize("check", list(text_estimator_checks()), ids=lambda c: c.__name__)
def test_conformance_checks_on_pairs(check, sick_sample):
    X, y = sick_sample
    if check.__name__ == "check_bad_input_errors":
        pytest.skip("its bad inputs are single texts; pairs have their own test above")
    check(small(), X[:120], y[:120])


def test_predictions_probabilities_and_features(sick_sample):
    X, y = sick_sample
    model = small().fit(X, y)
    proba = model.predict_proba(X[:10])
    assert proba.shape == (10, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-10)
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], model.predict(X[:10]))
    # Per hop (2 hops): d_f = 8 gated features, then |M_h − M_p| and M_h ⊙ M_p (2u = 16 each).
    assert model.transform(X[:4]).shape == (4, 2 * (8 + 16 + 16))
    names = model.get_feature_names_out()
    assert names[[0, 8, 24, 40]].tolist() == [
        "hop0_gate0",
        "hop0_absdiff0",
        "hop0_product0",
        "hop1_gate0",
    ]
    # The matching features are what they say, from each text's own M.
    m_first = model.document_outputs([(a, a) for a, _ in X[:4]], ("embedding",))["embedding"]
    features = model.transform(X[:4]).reshape(4, 2, 40)
    assert np.all(features[:, :, 8:24] >= 0)
    gated_only = small(pair_features="gated").fit(X, y)
    assert gated_only.transform(X[:4]).shape == (4, 2 * 8)
    assert m_first[:, :, 8:24].max() == 0  # a text matched with itself differs nowhere
    # The pair is read in order: swapping the texts changes the features.
    swapped = [(b, a) for a, b in X[:4]]
    assert not np.allclose(model.transform(swapped), model.transform(X[:4]))


def test_save_load_grid_search_and_clone(sick_sample, tmp_path):
    X, y = sick_sample
    model = small().fit(X, y)
    restored = skattn.load(skattn.save(model, tmp_path / "pair.skattn"))
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))
    search = GridSearchCV(small(max_epochs=1), {"gated_dim": [4, 8]}, cv=2).fit(X, y)
    assert search.best_params_["gated_dim"] in (4, 8)
    assert clone(model).get_params() == model.get_params()


def test_explain_shows_both_texts_attention(sick_sample):
    X, y = sick_sample
    model = small().fit(X, y)
    pair = ("A man is playing a guitar", "A person plays an instrument")
    record = model.explain([pair], y=["ENTAILMENT"])[0]
    assert record["tokens"] == ["a", "man", "is", "playing", "a", "guitar"]
    assert record["second"]["tokens"] == ["a", "person", "plays", "an", "instrument"]
    assert record["attention"].shape == (2, 6) and record["second"]["attention"].shape == (2, 5)
    np.testing.assert_allclose(record["attention"].sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(record["scores"].sum(), 1.0, rtol=1e-5)
    page = model.explain([pair]).to_html()
    assert page.count('<table class="sa"') == 2 and "instrument" in page
    with pytest.raises(ValueError, match="attention"):
        model.explain([pair], method="gradient")


def test_learns_sick_entailment():
    # The whole training split (4,500 pairs), 4 epochs of the default
    # network, the 4,927 test pairs. Measured: 77.39% (42 s); always NEUTRAL
    # scores 56.69%; the gated features alone (the paper's) 61.11%.
    train = fetch_sick(subset="train", download_if_missing=False)
    test = fetch_sick(subset="test", download_if_missing=False)
    model = SelfAttentivePairClassifier(max_epochs=4, random_state=0).fit(train.data, train.target)
    majority = np.mean(np.asarray(test.target) == "NEUTRAL")
    assert model.score(test.data, test.target) > majority + 0.15


def test_pair_features_are_both_vectors_their_product_and_difference():
    from skattn.pair_baselines import PairFeatures

    pairs = [("a man sings", "a man dances"), ("dogs run", "a dog runs")]
    features = PairFeatures().fit(pairs)
    a = features.vectorizer_.transform([p[0] for p in pairs]).toarray()
    b = features.vectorizer_.transform([p[1] for p in pairs]).toarray()
    expected = np.hstack([a, b, a * b, np.abs(a - b)])
    np.testing.assert_allclose(features.transform(pairs).toarray(), expected)
    # One vocabulary, fitted on both sides.
    assert (
        "dances" in features.vectorizer_.vocabulary_ and "dogs" in features.vectorizer_.vocabulary_
    )


def test_pair_baselines_on_sick():
    # Measured on the test split: 79.66% (logistic regression) and Pearson r
    # 0.711 (ridge), the corpus README's figures for these features.
    from scipy.stats import pearsonr

    from skattn.pair_baselines import pair_baselines

    train = fetch_sick(subset="train", download_if_missing=False)
    test = fetch_sick(subset="test", download_if_missing=False)
    models = pair_baselines()
    logreg = models["tfidf_pair_logreg"].fit(train.data, train.target)
    assert logreg.score(test.data, test.target) > 0.77
    ridge = models["tfidf_pair_ridge"].fit(train.data, train.relatedness)
    assert pearsonr(ridge.predict(test.data), test.relatedness)[0] > 0.68


def test_pair_regressor_predicts_relatedness(tmp_path):
    # The whole training split, 4 epochs of the default network; test split.
    # Measured: Pearson r 0.807 (the TF-IDF ridge baseline: 0.711; the gated
    # features alone: 0.439).
    from scipy.stats import pearsonr

    from skattn import SelfAttentivePairRegressor

    train = fetch_sick(subset="train", target="relatedness", download_if_missing=False)
    test = fetch_sick(subset="test", target="relatedness", download_if_missing=False)
    model = SelfAttentivePairRegressor(max_epochs=4, random_state=0).fit(train.data, train.target)
    predicted = model.predict(test.data)
    assert predicted.shape == (len(test.data),) and predicted.dtype == np.float64
    assert pearsonr(predicted, test.target)[0] > 0.74
    assert model.target_mean_[0] == pytest.approx(np.mean(train.target))
    restored = skattn.load(skattn.save(model, tmp_path / "pair_regressor.skattn"))
    np.testing.assert_array_equal(restored.predict(test.data[:50]), model.predict(test.data[:50]))
    record = model.explain(test.data[:1])[0]
    assert "proba" not in record
    assert record["prediction"] == pytest.approx(predicted[0], rel=1e-5)


def test_the_command_line_refuses_a_pair_model(sick_sample, tmp_path, capsys):
    from skattn.__main__ import main

    X, y = sick_sample
    path = skattn.save(small(max_epochs=1).fit(X, y), tmp_path / "pair.skattn")
    assert main(["predict", str(path), "--text", "a man sings"]) != 0
    assert "reads pairs of texts" in capsys.readouterr().err


def test_blank_texts_are_counted_among_texts(sick_sample):
    X, y = sick_sample
    blanked = [(a, "") if i % 2 else (a, b) for i, (a, b) in enumerate(X)]
    with pytest.warns(UserWarning, match=r"200 of 800 training documents \(25\.0%\)"):
        model = small(max_epochs=1).fit(blanked, y)
    assert model.n_blank_ == 200


def test_a_frame_is_read_by_the_column_names_seen_at_fit(sick_sample, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = sick_sample
    frame = pd.DataFrame(X, columns=["premise", "hypothesis"])
    model = small(max_epochs=1).fit(frame, y)
    assert model.feature_names_in_.tolist() == ["premise", "hypothesis"]
    expected = model.predict_proba(X[:30])  # a list of pairs: read in order
    reordered = frame[["hypothesis", "premise"]].iloc[:30]
    np.testing.assert_array_equal(model.predict_proba(reordered), expected)
    np.testing.assert_array_equal(list(model.predict_iter(reordered)), [model.predict(X[:30])])
    with pytest.raises(ValueError, match=r"unexpected: \['first'\]"):
        model.predict(frame.rename(columns={"premise": "first"}).iloc[:3])
    restored = skattn.load(skattn.save(model, tmp_path / "pair.skattn"))
    assert restored.feature_names_in_.tolist() == ["premise", "hypothesis"]
    np.testing.assert_array_equal(restored.predict_proba(reordered), expected)
    # Fitted on a list, a model has no column names and reads a frame's two columns in order.
    assert not hasattr(small(max_epochs=1).fit(X, y), "feature_names_in_")
