"""Real text and real habits: blank documents, other scripts, devices, skorch handles."""

import csv
import warnings

import numpy as np
import pytest
import torch
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import recall_score
from sklearn.pipeline import make_pipeline
from skorch.callbacks import EarlyStopping, LRScheduler

from skattn import (
    HierarchicalAttentionClassifier,
    SelfAttentiveClassifier,
    SelfAttentiveEmbedder,
    load,
    save,
)
from skattn.__main__ import main
from skattn.text import TextEncoder

from estimators import SMALL_ESTIMATORS, KeepOptimizer, small_hierarchical, small_self_attentive

by_estimator = pytest.mark.parametrize("make", SMALL_ESTIMATORS.values(), ids=SMALL_ESTIMATORS)


def with_blank_documents(X, y, share=0.05, seed=0):
    """X, y with ``share`` blank documents ("", spaces, line breaks) mixed in, labels random."""
    rng = np.random.RandomState(seed)
    n_blank = int(share * len(X))
    blanks = rng.choice(["", " ", "\n\n", " \t "], size=n_blank).tolist()
    labels = rng.choice(np.unique(y), size=n_blank)
    order = rng.permutation(len(X) + n_blank)
    documents = np.asarray(list(X) + blanks, dtype=object)[order].tolist()
    return documents, np.concatenate([np.asarray(y), labels])[order]


DEFAULTS = {
    "SelfAttentiveClassifier": lambda **p: SelfAttentiveClassifier(random_state=0, **p),
    "HierarchicalAttentionClassifier": lambda **p: HierarchicalAttentionClassifier(
        random_state=0, **p
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", DEFAULTS.values(), ids=DEFAULTS)
def test_blank_documents_are_data(make, polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    X, y = with_blank_documents(X_train[:1500], y_train[:1500])
    with pytest.warns(UserWarning, match=r"75 of 1575 training documents \(4.8%\) are blank"):
        model = make(max_epochs=4).fit(X, y)
    assert model.n_blank_ == 75 and model.encoder_.empty_id_ == 2
    mixed = ["", "   ", *X_test[:200], "\n"]
    predicted = model.predict(mixed)
    assert len(predicted) == 203 and set(predicted) <= set(model.classes_)
    assert np.allclose(model.predict_proba(mixed).sum(1), 1.0)
    assert model.transform([""]).shape[0] == 1
    assert model.explain([""])[0]["prediction"] in model.classes_
    # Still learns from the real documents around the blank ones.
    assert np.mean(predicted[2:-1] == np.asarray(y_test[:200])) > 0.6


def chinese_task(n_documents, seed):
    """Documents of three random clauses; the class is whether 好 or 坏 hides in one of them."""
    rng = np.random.RandomState(seed)
    pool = list(
        "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞"
    )
    cues = {"pos": "好", "neg": "坏"}
    X, y = [], []
    for i in range(n_documents):
        label = ("pos", "neg")[i % 2]
        clauses = ["".join(rng.choice(pool, size=rng.randint(4, 8))) for _ in range(3)]
        which = rng.randint(3)
        chars = list(clauses[which])
        chars.insert(rng.randint(len(chars) + 1), cues[label])
        clauses[which] = "".join(chars)
        X.append("，".join(clauses) + "。")
        y.append(label)
    return X, np.asarray(y)


@by_estimator
def test_a_chinese_cue_character_is_learned_with_the_default_tokenizer(make):
    X_train, y_train = chinese_task(600, seed=0)
    X_test, y_test = chinese_task(200, seed=1)
    model = make(max_epochs=10, min_count=1).fit(X_train, y_train)
    assert model.score(X_test, y_test) >= 0.9
    # A tokenizer that keeps whole clauses sees only unseen clauses at test time.
    clauses = make_pipeline(TfidfVectorizer(token_pattern=r"[^，。]+"), LogisticRegression()).fit(
        X_train, y_train
    )
    assert clauses.score(X_test, y_test) < 0.65


def test_chinese_sentences_and_characters_are_found():
    encoder = TextEncoder(sentence_split="punctuation")
    assert encoder.tokenize(["第一句。第二句！第三句？"]) == [
        [["第", "一", "句", "。"], ["第", "二", "句", "！"], ["第", "三", "句", "？"]]
    ]
    assert TextEncoder().build_analyzer()("東京は大きい city!") == [
        "東",
        "京",
        "は",
        "大",
        "き",
        "い",
        "city",
        "!",
    ]
    assert TextEncoder().build_analyzer()("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert HierarchicalAttentionClassifier().build_encoder().tokenize(["一。二！三？"])[0] == [
        ["一", "。"],
        ["二", "！"],
        ["三", "？"],
    ]


def test_named_tokenizers_are_stored_in_model_files(toy, tmp_path):
    X, y = toy
    model = small_self_attentive(tokenizer="whitespace", max_epochs=1).fit(X, y)
    assert "actor." in model.encoder_.vocabulary_  # punctuation stays attached
    restored = load(save(model, tmp_path / "m.skattn"))  # nothing to pass again
    assert restored.tokenizer == "whitespace"
    np.testing.assert_array_equal(restored.predict_proba(X), model.predict_proba(X))


def test_device_auto_takes_the_gpu_if_any_and_a_missing_device_fails_before_training(
    toy, monkeypatch
):
    X, y = toy
    model = small_self_attentive(device="auto", max_epochs=1).fit(X, y)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert next(model.net_.module_.parameters()).device.type == expected
    # A GPU index this machine does not have, whatever it has.
    missing = f"cuda:{torch.cuda.device_count()}"
    untrained = small_self_attentive(device=missing)
    with pytest.raises(ValueError, match=rf"device='{missing}' is not available.*\['cpu'"):
        untrained.fit(X, y)
    assert not hasattr(untrained, "net_")
    # "cuda" on a machine without CUDA, also on hosts that have a GPU.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    untrained = small_self_attentive(device="cuda")
    with pytest.raises(ValueError, match=r"device='cuda' is not available.*\['cpu'"):
        untrained.fit(X, y)
    assert not hasattr(untrained, "net_")


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_model_trained_on_a_gpu_predicts_and_loads_on_the_cpu(toy, tmp_path):
    X, y = toy
    model = small_self_attentive(device="cuda", max_epochs=1).fit(X, y)
    on_cpu = load(save(model, tmp_path / "gpu.skattn"), device="cpu")
    np.testing.assert_allclose(on_cpu.predict_proba(X), model.predict_proba(X), atol=1e-5)
    assert model.explain(X[:1], method="attention")[0]["attention"].shape[0] == 2


@by_estimator
def test_a_user_scheduler_replaces_the_built_in_one(make, toy):
    X, y = toy
    user = LRScheduler(torch.optim.lr_scheduler.StepLR, step_size=1, gamma=0.5)
    model = make(max_epochs=3, lr=0.01, callbacks=[user]).fit(X, y)
    assert model.history_[:, "event_lr"] == pytest.approx([0.01, 0.005, 0.0025])
    assert "lr_schedule" not in dict(model.net_.callbacks_)


@by_estimator
def test_a_user_early_stopping_gets_a_validation_split(make, toy):
    X, y = toy
    model = make(max_epochs=3, callbacks=[EarlyStopping(patience=5)]).fit(X, y)
    assert "valid_loss" in model.history_[-1]
    assert model.history_[-1, "valid_batch_count"] >= 1


def test_optimizer_arguments_pass_through_net_params(toy):
    X, y = toy
    kept = KeepOptimizer()
    small_self_attentive(
        net_params={"optimizer__betas": (0.5, 0.9), "iterator_train__num_workers": 0},
        max_epochs=1,
        callbacks=[kept],
    ).fit(X, y)
    assert kept.optimizer_.param_groups[0]["betas"] == (0.5, 0.9)


def test_history_survives_save_and_load(toy, tmp_path):
    X, y = toy
    model = small_hierarchical(max_epochs=2).fit(X, y)
    restored = load(save(model, tmp_path / "m.skattn"))
    assert len(restored.history_) == 2
    assert restored.history_[:, "train_loss"] == model.history_[:, "train_loss"]


@pytest.mark.slow
@by_estimator
def test_balanced_class_weight_raises_the_recall_of_the_small_class(make, polarity_split):
    X_train, X_test, y_train, y_test = polarity_split
    rng = np.random.RandomState(0)
    positive, negative = np.flatnonzero(y_train == "pos"), np.flatnonzero(y_train == "neg")
    rows = np.concatenate([rng.choice(positive, 150, replace=False), negative[:1350]])
    X, y = [X_train[i] for i in rows], y_train[rows]
    # Word vectors only: on 1,500 snippets, a few epochs of these 16-wide
    # networks leave the 50,000 subword vectors too noisy for the recall to
    # move reliably. Five epochs: with the default one-cycle schedule three
    # leave the self-attentive model short of learning the small class at all.
    plain = make(max_epochs=5, subword_buckets=None).fit(X, y)
    balanced = make(max_epochs=5, subword_buckets=None, class_weight="balanced").fit(X, y)
    recall = [
        recall_score(y_test[:1000], m.predict(X_test[:1000]), pos_label="pos")
        for m in (plain, balanced)
    ]
    assert recall[1] > recall[0] + 0.1


def test_whole_number_float_targets_warn_and_continuous_ones_fail(toy):
    X, y = toy
    numbers = np.where(y == "pos", 1.0, 0.0)
    with pytest.warns(UserWarning, match="floats; its 2 distinct values are used as class"):
        small_self_attentive(max_epochs=1).fit(X, numbers)
    with pytest.raises(ValueError, match="continuous|Unknown label"):
        small_self_attentive(max_epochs=1).fit(X, numbers + 0.5 * np.arange(len(numbers)) / 1000)


def test_the_embedder_refuses_a_classifier_without_hops_before_training(toy):
    X, y = toy
    han = small_hierarchical()
    embedder = SelfAttentiveEmbedder(han)
    with pytest.raises(ValueError, match="'classifier' parameter of SelfAttentiveEmbedder"):
        embedder.fit(X, y)
    assert not hasattr(han, "net_") and not hasattr(embedder, "classifier_")


def test_han_document_vectors_have_names_and_pandas_output(toy):
    pd = pytest.importorskip("pandas")
    X, y = toy
    model = small_hierarchical(max_epochs=1).fit(X, y)
    names = model.get_feature_names_out()
    assert names.tolist() == [f"doc_dim{j}" for j in range(16)]
    frame = model.set_output(transform="pandas").transform(X[:3])
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == names.tolist()


def test_command_line_version_predict_and_one_line_errors(toy, tmp_path, capsys):
    X, y = toy
    model = save(small_self_attentive(max_epochs=1).fit(X, y), tmp_path / "m.skattn")
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out.startswith("skattn 0.")
    (tmp_path / "docs.txt").write_text(X[0] + "\n\n" + X[1] + "\n", encoding="utf-8")
    with open(tmp_path / "docs.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["id", "body"], [1, X[0]], [2, X[1]], [3, ""]])
    expected = load(model).predict_proba([X[0], "", X[1]])
    for source, column in [("docs.txt", "text"), ("docs.csv", "body")]:
        output = tmp_path / f"{source}.predictions.csv"
        argv = ["predict", str(model), "--file", str(tmp_path / source)]
        assert main([*argv, "--text-column", column, "--output", str(output)]) == 0
        rows = list(csv.DictReader(open(output, encoding="utf-8")))
        assert len(rows) == 3 and set(rows[0]) == {"text", "label", "proba_neg", "proba_pos"}
        probabilities = np.array([[float(r["proba_neg"]), float(r["proba_pos"])] for r in rows])
        order = [0, 1, 2] if source == "docs.txt" else [0, 2, 1]
        np.testing.assert_allclose(probabilities, expected[order], atol=1e-6)
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "missing.skattn"), "--text", "hi"]) == 1
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "missing.skattn: no such file" in error
    with warnings.catch_warnings(), pytest.raises(FileNotFoundError):
        main(["--debug", "predict", str(tmp_path / "missing.skattn"), "--text", "hi"])


def test_command_line_reads_models_saved_with_a_custom_tokenizer(toy, tmp_path, capsys):
    from skattn.text import whitespace_tokens

    X, y = toy
    model = small_self_attentive(tokenizer=whitespace_tokens, max_epochs=1).fit(X, y)
    path = save(model, tmp_path / "custom.skattn")
    assert main(["explain", str(path), "--text", X[0], "--output", str(tmp_path / "a.html")]) == 1
    assert "load(path, tokenizer=...)" in capsys.readouterr().err
    argv = ["explain", str(path), "--text", X[0], "--tokenizer", "skattn.text:whitespace_tokens"]
    assert main([*argv, "--output", str(tmp_path / "a.html")]) == 0
    assert (tmp_path / "a.html").read_text(encoding="utf-8").count('class="doc"') == 1


def _fused_adam_steps_on_the_cpu() -> bool:
    """Ask PyTorch itself, without skattn: does Adam(fused=True) take a step on the CPU?"""
    weight = torch.zeros(3, requires_grad=True)
    weight.grad = torch.ones(3)
    try:
        torch.optim.Adam([weight], lr=0.1, fused=True).step()
    except (RuntimeError, TypeError, ValueError):
        return False
    return bool(torch.all(weight < 0))  # it really stepped against the gradient


def test_adam_is_fused_where_pytorch_can_and_the_user_can_say_no(toy):
    X, y = toy
    expected = _fused_adam_steps_on_the_cpu()
    if tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 4):
        assert expected  # PyTorch 2.4 added fused Adam on the CPU: the fused path is tested
    kept, kept_plain = KeepOptimizer(), KeepOptimizer()
    fused = small_self_attentive(max_epochs=1, callbacks=[kept]).fit(X, y)
    assert kept.optimizer_.defaults.get("fused") is expected
    plain = small_self_attentive(
        max_epochs=1, net_params={"optimizer__fused": False}, callbacks=[kept_plain]
    ).fit(X, y)
    assert kept_plain.optimizer_.defaults.get("fused") is False
    np.testing.assert_allclose(plain.predict_proba(X), fused.predict_proba(X), atol=1e-4)
