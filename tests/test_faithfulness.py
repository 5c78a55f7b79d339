"""Attribution methods and the erasure test: planted rationales, hand computations, renderers."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import torch
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.pipeline import make_pipeline

from skattn.explain import (
    DEFAULT_METHOD,
    METHODS,
    ModelDocuments,
    TextDocuments,
    erasure_curves,
    faithfulness_report,
    leave_one_out,
    linear_token_scores,
    token_scores,
)
from skattn.explain._erasure import erased_corpus
from skattn.explain._explanations import token_scores_of
from skattn.explain._faithfulness import top_k_count
from skattn.text import TextEncoder

from estimators import SMALL_ESTIMATORS

POSITIVE_MARKERS = ("zorblat", "quindle")
NEGATIVE_MARKERS = ("vexmor", "plonkish")


def planted_corpus(n_documents: int, seed: int):
    """Filler words at random, plus one or two marker words that decide the label."""
    rng = np.random.default_rng(seed)
    letters = list("abcdefghijklmnopqrstuvwxyz")
    words = np.random.default_rng(0)  # the same filler words for every seed
    filler = ["".join(words.choice(letters, size=words.integers(3, 9))) for _ in range(150)]
    X, y, planted = [], [], []
    for i in range(n_documents):
        label = i % 2
        markers = POSITIVE_MARKERS if label else NEGATIVE_MARKERS
        words = list(rng.choice(filler, size=rng.integers(18, 30)))
        positions = sorted(rng.choice(len(words), size=rng.integers(1, 3), replace=False))
        for position in positions:
            words[position] = str(rng.choice(markers))
        X.append(" ".join(words))
        y.append(label)
        planted.append(np.array([w in POSITIVE_MARKERS + NEGATIVE_MARKERS for w in words]))
    return X, np.array(y), planted


@pytest.fixture(scope="module", params=list(SMALL_ESTIMATORS))
def planted_model(request):
    X, y, _ = planted_corpus(600, seed=0)
    # The classifiers' default dropout (the small HAN turns it off): without
    # it the HAN saturates, and no method, occlusion included, singles out
    # the markers (average precision 0.55 to 0.75).
    model = SMALL_ESTIMATORS[request.param](
        max_epochs=8,
        lr=1e-2,
        embeddings=None,
        min_count=1,
        dropout=0.3 if "Hier" in request.param else 0.5,
    )
    return model.fit(X, y)


def test_default_method_ranks_planted_tokens_first(planted_model):
    X, y, planted = planted_corpus(80, seed=1)
    assert planted_model.score(X, y) > 0.95  # the model did learn the markers
    explanations = planted_model.explain(X)
    precisions = []
    for record, truth in zip(explanations, planted):
        assert record["method"] == DEFAULT_METHOD
        scores = (
            np.concatenate(record["word_scores"]) if "word_scores" in record else record["scores"]
        )
        precisions.append(average_precision_score(truth, scores))
    assert np.mean(precisions) >= 0.9


def test_planted_tokens_are_comprehensive(planted_model):
    X, _, planted = planted_corpus(80, seed=2)
    report = faithfulness_report(
        planted_model, X, [lambda docs: [p.astype(float) for p in planted]], reference=False
    )
    planted_row, random_row = report.rows
    assert planted_row["comprehensiveness"] >= 5 * random_row["comprehensiveness"]
    assert planted_row["sufficiency"] < random_row["sufficiency"]


class GoodMinusBad(ClassifierMixin, BaseEstimator):
    """p(positive) = σ(#good − #bad): probabilities known by hand."""

    classes_ = np.array([0, 1])

    def predict_proba(self, X):
        z = np.array([t.split().count("good") - t.split().count("bad") for t in X], float)
        return np.column_stack([1 - expit(z), expit(z)])


def test_report_matches_a_hand_computation():
    documents = TextDocuments(GoodMinusBad(), ["good good film bad"])
    ranking = [np.array([3.0, 2.0, 1.0, 0.0])]  # good, good, film, bad
    comprehensiveness, sufficiency = erasure_curves(documents, ranking, bins=(0.25, 0.5))
    full = expit(1.0)  # two "good", one "bad": the positive class at σ(1)
    # 25%: one token. Without the first "good": σ(0); only it: σ(1).
    # 50%: two tokens. Without both "good": σ(-1); only them: σ(2).
    np.testing.assert_allclose(comprehensiveness[0], [full - expit(0), full - expit(-1)])
    np.testing.assert_allclose(sufficiency[0], [full - expit(1), full - expit(2)])
    report = faithfulness_report(
        GoodMinusBad(), ["good good film bad"], [lambda X: ranking], bins=(0.25, 0.5)
    )
    row = report.rows[0]
    assert row["comprehensiveness"] == pytest.approx((2 * full - expit(0) - expit(-1)) / 2)
    assert row["sufficiency"] == pytest.approx((2 * full - expit(1) - expit(2)) / 2)


def test_leave_one_out_matches_a_hand_computation():
    scores = leave_one_out(TextDocuments(GoodMinusBad(), ["good good film bad"]))[0]
    full = expit(1.0)
    np.testing.assert_allclose(scores, [full - expit(0), full - expit(0), 0.0, full - expit(2)])


def test_top_k_counts_and_erased_text():
    assert [top_k_count(20, k) for k in (0.01, 0.05, 0.1, 0.2, 0.5)] == [1, 1, 2, 4, 10]
    documents = TextDocuments(GoodMinusBad(), ["Good, bad!"])
    assert documents.tokens == [["Good", ",", "bad", "!"]]
    assert documents.erased_text(0, np.array([True, False, True, True])) == "Good  bad!"


def test_erased_corpus_drops_emptied_sentences_and_blanks_emptied_documents():
    encoder = TextEncoder(sentence_split="punctuation").fit(["a b. c d. e."])
    corpus = encoder.encode(["a b. c d. e."])  # a b . | c d . | e .
    keep = np.array([0, 0, 0, 1, 0, 1, 1, 0], dtype=bool)
    variants = erased_corpus(corpus, [0, 0], [keep, np.zeros(8, bool)], empty_id=2)
    words = [[encoder.id_to_token_[i] for i in s] for s in variants.sentences(0)]
    assert words == [["c", "."], ["e"]]
    assert variants.document(1).tolist() == [2]


def test_linear_scores_are_coefficient_times_value():
    X, y = ["good film", "bad film", "good plot", "bad plot"] * 5, [1, 0, 1, 0] * 5
    model = make_pipeline(TfidfVectorizer(), LogisticRegression()).fit(X, y)
    scores = linear_token_scores(model, ["Good film good"])[0]
    vectorizer, classifier = model[0], model[-1]
    values = vectorizer.transform(["Good film good"]).toarray()[0]
    coef = classifier.coef_[0]
    good, film = vectorizer.vocabulary_["good"], vectorizer.vocabulary_["film"]
    # "good" occurs twice: each occurrence holds half its contribution.
    np.testing.assert_allclose(
        scores,
        [coef[good] * values[good] / 2, coef[film] * values[film], coef[good] * values[good] / 2],
    )
    bigrams = make_pipeline(CountVectorizer(ngram_range=(1, 2)), LogisticRegression()).fit(X, y)
    pair = linear_token_scores(bigrams, ["good film"])[0]
    counts = bigrams[0].transform(["good film"]).toarray()[0]
    contribution = bigrams[-1].coef_[0] * counts
    # The two tokens share the bigram's contribution; together they hold all of it.
    assert pair.sum() == pytest.approx(contribution.sum())


def test_report_refuses_a_method_without_scores_per_token():
    with pytest.raises(ValueError, match="lengths differ"):
        faithfulness_report(GoodMinusBad(), ["good film"], [lambda X: [np.ones(5)]])
    with pytest.raises(ValueError, match="needs a skattn classifier"):
        faithfulness_report(GoodMinusBad(), ["good film"], ["gradient"])


@pytest.fixture(scope="module", params=list(SMALL_ESTIMATORS))
def fitted(request, polarity_small):
    X, y = polarity_small
    return SMALL_ESTIMATORS[request.param]().fit(X, y)


DOCUMENTS = ["A fine, moving film. I loved it!", "Dull.", "Too long. Far too slow? I left early."]


def _methods(model):
    return [m for m in METHODS if model._hierarchical or m != "sentence_occlusion"]


def test_every_method_renders_through_frame_html_and_figure(fitted, tmp_path):
    for method in _methods(fitted):
        explanations = fitted.explain(DOCUMENTS, method=method)
        n_tokens = []
        for record in explanations:
            assert record["method"] == method
            if fitted._hierarchical:
                assert [len(s) for s in record["word_scores"]] == [
                    len(s) for s in record["sentences"]
                ]
                assert len(record["sentence_scores"]) == len(record["sentences"])
                n_tokens.append(sum(len(s) for s in record["sentences"]))
            else:
                assert len(record["scores"]) == len(record["tokens"])
                n_tokens.append(len(record["tokens"]))
        frame = explanations.to_frame()
        assert len(frame) == sum(n_tokens)
        assert (frame["method"] == method).all()
        page = explanations.to_html()
        ET.fromstring(page.split("\n", 1)[1])  # well-formed
        assert f"method: {method}" in page
        figure = explanations.plot(2)
        figure.savefig(tmp_path / f"{method}.png")
        assert (tmp_path / f"{method}.png").stat().st_size > 1000


def test_occlusion_scores_are_the_drop_without_the_token(fitted):
    record = fitted.explain(["Too long. Far too slow?"], method="occlusion")[0]
    tokens = (
        [t for s in record["sentences"] for t in s] if fitted._hierarchical else record["tokens"]
    )
    scores = np.concatenate(record["word_scores"]) if fitted._hierarchical else record["scores"]
    c = np.argmax(record["proba"])
    # Erasing "slow" (position 5) by hand: the text without it.
    without = fitted.predict_proba(["Too long. Far too ?"])[0, c]
    assert tokens[5] == "slow"
    assert scores[5] == pytest.approx(record["proba"][c] - without, abs=1e-5)


def test_sentence_occlusion_scores_are_the_drop_without_the_sentence(fitted):
    if not fitted._hierarchical:
        pytest.skip("sentences are a hierarchical model's unit")
    record = fitted.explain(["Too long. Far too slow?"], method="sentence_occlusion")[0]
    c = np.argmax(record["proba"])
    without_first = fitted.predict_proba(["Far too slow?"])[0, c]
    assert record["sentence_scores"][0] == pytest.approx(
        record["proba"][c] - without_first, abs=1e-5
    )


@pytest.mark.parametrize("explained", ["predicted", "other"])
def test_gradient_matches_finite_differences(fitted, explained):
    document = ["A fine, moving film. I loved it!"]
    predicted = int(np.argmax(fitted.predict_proba(document)[0]))
    column = None if explained == "predicted" else 1 - predicted  # the column is an argument
    documents, scores, _ = token_scores(fitted, document, "gradient", column=column)
    module = fitted.net_.module_
    from skattn.text import DocumentDataset

    X, _ = DocumentDataset(documents.corpus, hierarchical=fitted._hierarchical).collate([0])
    c = predicted if column is None else column
    assert documents.explained.tolist() == [c]
    real = X["tokens"] != 0

    def log_p(scale):
        with torch.no_grad():
            logits = module(
                X["tokens"], X["lengths"], subwords=X.get("subwords"), token_scale=scale
            )[0].double()
        return torch.log_softmax(logits, 1)[0, c].item()

    ones = torch.ones(X["tokens"].shape)
    eps = 1e-2
    differences = []
    for index in zip(*torch.nonzero(real, as_tuple=True)):
        up, down = ones.clone(), ones.clone()
        up[index] += eps
        down[index] -= eps
        differences.append((log_p(up) - log_p(down)) / (2 * eps))
    np.testing.assert_allclose(scores[0], differences, rtol=0.05, atol=1e-3)


def test_integrated_gradients_add_up_to_the_change_in_log_probability(fitted):
    document = ["A fine, moving film. I loved it!"]
    documents, scores, _ = token_scores(fitted, document, "integrated_gradients", n_steps=64)
    from skattn.text import DocumentDataset

    X, _ = DocumentDataset(documents.corpus, hierarchical=fitted._hierarchical).collate([0])
    c = int(documents.explained[0])
    with torch.no_grad():
        zero = fitted.net_.module_(
            X["tokens"],
            X["lengths"],
            subwords=X.get("subwords"),
            token_scale=torch.zeros(X["tokens"].shape),
        )[0]
    change = np.log(documents.full_proba[0, c]) - torch.log_softmax(zero.double(), 1)[0, c].item()
    assert scores[0].sum() == pytest.approx(change, rel=0.05, abs=1e-3)


def test_explain_refuses_an_unknown_method_and_measures_on_request(fitted):
    with pytest.raises(ValueError, match="method="):
        fitted.explain(DOCUMENTS, method="lime")
    explanations = fitted.explain(DOCUMENTS, method="occlusion", faithfulness=True)
    report = explanations.faithfulness
    assert [row["method"] for row in report.rows] == ["occlusion", "random"]
    assert "Faithfulness of occlusion on these 3 documents" in explanations.to_html()
    assert fitted.explain(DOCUMENTS).faithfulness is None


def test_model_documents_use_the_models_own_tokens_and_probabilities(fitted):
    documents = ModelDocuments(fitted, DOCUMENTS)
    np.testing.assert_allclose(documents.full_proba, fitted.predict_proba(DOCUMENTS), atol=1e-5)
    keep_all = [np.ones(len(t), bool) for t in documents.tokens]
    np.testing.assert_allclose(
        documents.probability([0, 1, 2], keep_all),
        documents.full_proba.max(axis=1),
        atol=1e-5,
    )


def test_token_scale_reaches_the_right_token(fitted):
    """A zero scale on one token equals that token's id (and n-grams) replaced by padding."""
    from skattn.text import DocumentDataset

    documents = ModelDocuments(fitted, DOCUMENTS)
    X, _ = DocumentDataset(documents.corpus, hierarchical=fitted._hierarchical).collate([0, 1, 2])
    module = fitted.net_.module_.eval()
    real = torch.nonzero(X["tokens"] != 0)
    for index in (real[3], real[len(real) // 2], real[-1]):
        index = tuple(index.tolist())
        scale = torch.ones(X["tokens"].shape)
        scale[index] = 0.0
        padded = X["tokens"].clone()
        padded[index] = 0
        subwords = X.get("subwords")
        padded_subwords = None if subwords is None else subwords.clone()
        if subwords is not None:
            padded_subwords[index] = 0
        with torch.no_grad():
            scaled = module(X["tokens"], X["lengths"], subwords=subwords, token_scale=scale)[0]
            erased = module(padded, X["lengths"], subwords=padded_subwords)[0]
        np.testing.assert_allclose(scaled.numpy(), erased.numpy(), rtol=1e-5, atol=1e-6)


def test_linear_scores_follow_the_predicted_class_and_the_vectorizers_tokens():
    X = ["a good film !", "a bad film .", "good plot", "bad plot", "dull plot", "a dull film"] * 5
    y = ["pos", "neg", "pos", "neg", "meh", "meh"] * 5
    for labels in (y, [label if label != "meh" else "neg" for label in y]):
        model = make_pipeline(CountVectorizer(ngram_range=(1, 2)), LogisticRegression())
        model.fit(X, labels)
        for document in ["watch a good film !", "a bad, bad film", "dull plot"]:
            scores = linear_token_scores(model, [document])[0]
            predicted = list(model.classes_).index(model.predict([document])[0])
            decision = np.atleast_2d(model.decision_function([document]))[0]
            if len(model.classes_) == 2:  # one decision value, for classes_[1]
                decision = np.array([-decision[0], decision[0]])
            intercept = np.atleast_1d(model[-1].intercept_)
            intercept = (
                np.array([-intercept[0], intercept[0]]) if len(intercept) == 1 else intercept
            )
            # The tokens hold the whole decision value for the predicted class.
            assert scores.sum() == pytest.approx(decision[predicted] - intercept[predicted])
            tokens = TextDocuments(model, [document]).tokens[0]
            for token, score in zip(tokens, scores):
                if token in {"a", "!", ",", "."}:  # not among the vectorizer's tokens
                    assert score == 0


def test_sentence_level_erases_whole_sentences():
    pytest.importorskip("torch")
    from estimators import small_hierarchical

    X, y = ["Good film. Fine cast.", "Bad film. Dull cast."] * 10, [1, 0] * 10
    model = small_hierarchical(embeddings=None, min_count=1).fit(X, y)
    document = "Good film. Dull cast. Fine."
    report = faithfulness_report(
        model, [document], ["attention", "sentence_occlusion"], bins=(0.33, 1.0), level="sentence"
    )
    probabilities = model.predict_proba([document])[0]
    c = np.argmax(probabilities)
    blank = model.predict_proba([""])[0, c]
    for row in report.rows:
        comprehensiveness = report.per_document[row["method"]]["comprehensiveness"][0]
        # 100%: every sentence erased, a blank document.
        assert comprehensiveness[1] == pytest.approx(probabilities[c] - blank, abs=1e-5)
    # 33% of three sentences: the best-ranked one (sentence occlusion's own ranking).
    drops = [
        probabilities[c] - model.predict_proba([without])[0, c]
        for without in ["Dull cast. Fine.", "Good film. Fine.", "Good film. Dull cast."]
    ]
    occlusion = report.per_document["sentence_occlusion"]["comprehensiveness"][0]
    assert occlusion[0] == pytest.approx(max(drops), abs=1e-5)


def test_blank_documents_count_as_nothing_to_erase(fitted):
    report = faithfulness_report(
        fitted, ["", "A fine, moving film."], ["gradient"], reference=False
    )
    for measures in report.per_document.values():
        assert np.isnan(measures["comprehensiveness"][0]).all()
        assert not np.isnan(measures["comprehensiveness"][1]).any()
    text_report = faithfulness_report(GoodMinusBad(), ["", "good film"], reference=False)
    assert np.isnan(text_report.per_document["occlusion"]["sufficiency"][0]).all()


def test_bad_arguments_are_refused_before_any_work(fitted):
    for kwargs, message in [
        ({"n_steps": 0}, "n_steps must be a positive integer"),
        ({"bins": ()}, "bins must be shares"),
        ({"bins": (0.0, 0.5)}, "bins must be shares"),
        ({"methods": ["coefficients"]}, "for linear Pipelines"),
        ({"methods": ["lime"]}, "method='lime'"),
        ({"methods": [lambda X: X, lambda X: X]}, "distinct names"),
    ]:
        with pytest.raises(ValueError, match=message):
            faithfulness_report(fitted, DOCUMENTS, **kwargs)
    with pytest.raises(ValueError, match="n_steps"):
        fitted.explain(DOCUMENTS, method="integrated_gradients", n_steps=-1)
    with pytest.raises(ValueError, match="coefficients"):
        faithfulness_report(GoodMinusBad(), DOCUMENTS, ["coefficients"])


def test_report_against_a_named_label_matches_a_hand_computation():
    # σ(#good − #bad) for "pos"; the report erases against "neg" = 1 − σ(·) when told.
    document, ranking = "good good film bad", [np.array([3.0, 2.0, 1.0, 0.0])]
    report = faithfulness_report(
        GoodMinusBad(), [document], [lambda X: ranking], label=0, bins=(0.25, 0.5)
    )
    neg = 1 - expit(1.0)  # the whole document's p(neg)
    curves = report.per_document["<lambda>"]
    # 25%: without the first "good" σ(0) for pos, 1 − σ(0) for neg; only it: 1 − σ(1).
    # 50%: without both "good": 1 − σ(−1); only them: 1 − σ(2).
    np.testing.assert_allclose(
        curves["comprehensiveness"][0], [neg - (1 - expit(0)), neg - (1 - expit(-1))]
    )
    np.testing.assert_allclose(
        curves["sufficiency"][0], [neg - (1 - expit(1)), neg - (1 - expit(2))]
    )
    # Occlusion (the reference) ran against "neg" too: the drop of p(neg).
    occlusion = leave_one_out(TextDocuments(GoodMinusBad(), [document], column=0))[0]
    np.testing.assert_allclose(occlusion, [neg - (1 - expit(0))] * 2 + [0.0, neg - (1 - expit(2))])
    with pytest.raises(ValueError, match=r"label='meh' is not one of the classifier's classes_"):
        faithfulness_report(GoodMinusBad(), [document], label="meh")


DOCUMENT = "too long far too slow"
#: A fixed ranking of DOCUMENT's tokens: long, slow, far, then the two "too".
RANKING = np.array([0.0, 3.0, 1.0, 0.5, 2.0])
#: For each bin (1, 2, 3 of the 5 tokens), the text without them and the text of only them.
ERASED = [("too far too slow", "long"), ("too far too", "long slow"), ("too too", "long far slow")]


def erased_by_hand(model, tokens, scores, bins, column):
    """ERASER's curves of one text against ``column``, from predict_proba of the erased texts."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    full = model.predict_proba([" ".join(tokens)])[0, column]
    comprehensiveness, sufficiency = [], []
    for share in bins:
        top = set(order[: max(1, int(np.ceil(share * len(tokens) - 1e-9)))].tolist())
        without = " ".join(t for i, t in enumerate(tokens) if i not in top)
        only = " ".join(t for i, t in enumerate(tokens) if i in top)
        erased = model.predict_proba([without, only])[:, column]
        comprehensiveness.append(full - erased[0])
        sufficiency.append(full - erased[1])
    return np.array(comprehensiveness), np.array(sufficiency)


def test_report_against_a_named_label_equals_erasing_the_texts_by_hand(fitted):
    probabilities = fitted.predict_proba([DOCUMENT])[0]
    other = 1 - int(np.argmax(probabilities))
    bins = (0.2, 0.4, 0.6)
    report = faithfulness_report(
        fitted, [DOCUMENT], [lambda X: [RANKING]], label=fitted.classes_[other], bins=bins
    )
    without = fitted.predict_proba([w for w, _ in ERASED])[:, other]
    only = fitted.predict_proba([o for _, o in ERASED])[:, other]
    curves = report.per_document["<lambda>"]
    np.testing.assert_allclose(
        curves["comprehensiveness"][0], probabilities[other] - without, atol=1e-5
    )
    np.testing.assert_allclose(curves["sufficiency"][0], probabilities[other] - only, atol=1e-5)
    # Two classes: erasing against the other class mirrors erasing against the predicted one.
    default = faithfulness_report(fitted, [DOCUMENT], [lambda X: [RANKING]], bins=bins)
    mirrored = default.per_document["<lambda>"]["comprehensiveness"][0]
    assert np.abs(mirrored).max() > 1e-4  # the erasures do move the probability
    np.testing.assert_allclose(curves["comprehensiveness"][0], -mirrored, atol=1e-6)
    # The reference (leave-one-out) ranked against the named class too: its top token
    # is the one whose erasure lowers p(other) most, so its first bin is that drop.
    tokens = DOCUMENT.split()
    alone = [" ".join(tokens[:i] + tokens[i + 1 :]) for i in range(len(tokens))]
    drops = probabilities[other] - fitted.predict_proba(alone)[:, other]
    occlusion = report.per_document["occlusion"]["comprehensiveness"][0]
    assert occlusion[0] == pytest.approx(drops.max(), abs=1e-5)


def test_a_named_label_changes_the_gradient_scores_as_the_softmax_says(fitted):
    # Two classes c and o: ∇ log p_o = −(p_c / p_o) ∇ log p_c, token by token.
    record = fitted.explain([DOCUMENT], method="gradient")[0]
    c = int(np.argmax(record["proba"]))
    other = fitted.explain([DOCUMENT], method="gradient", label=fitted.classes_[1 - c])[0]
    assert other["explained_label"] == fitted.classes_[1 - c]
    assert other["explained_proba"] == pytest.approx(record["proba"][1 - c])
    scores, other_scores = token_scores_of(record), token_scores_of(other)
    assert np.abs(scores).max() > 1e-6
    ratio = record["proba"][c] / record["proba"][1 - c]
    np.testing.assert_allclose(other_scores, -ratio * scores, rtol=1e-3, atol=1e-7)


def test_explain_measures_faithfulness_against_the_label_it_explains(fitted):
    c = int(np.argmax(fitted.predict_proba([DOCUMENT])[0]))
    explanations = fitted.explain(
        [DOCUMENT], method="occlusion", label=fitted.classes_[1 - c], faithfulness=True
    )
    report = explanations.faithfulness
    assert [row["method"] for row in report.rows] == ["occlusion", "random"]
    comprehensiveness, sufficiency = erased_by_hand(
        fitted, DOCUMENT.split(), token_scores_of(explanations[0]), report.bins, 1 - c
    )
    measured = report.per_document["occlusion"]
    np.testing.assert_allclose(measured["comprehensiveness"][0], comprehensiveness, atol=1e-5)
    np.testing.assert_allclose(measured["sufficiency"][0], sufficiency, atol=1e-5)


def test_documents_refuse_a_column_the_model_does_not_have(fitted):
    with pytest.raises(ValueError, match=r"column=5: the explained output column must be"):
        ModelDocuments(fitted, DOCUMENTS, column=5)
    with pytest.raises(ValueError, match="label holds labels never seen in fit"):
        faithfulness_report(fitted, DOCUMENTS, ["occlusion"], label="meh")
