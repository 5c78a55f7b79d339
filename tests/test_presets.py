"""The papers' presets, checked against the papers' own text.

Every expected value below is typed from a paper (or from the authors'
released command line where the preset says it follows that instead),
with the place it comes from; none is copied from ``PAPER_SETTINGS``.

- Lin et al. 2017, "A Structured Self-Attentive Sentence Embedding", ICLR
  2017, arXiv 1703.03130 (the Yelp model: §4.1 gives the settings, §4.2
  says what changes for Yelp).
- The authors' Yelp command line, README of github.com/hantek/
  SelfAttentiveSentEmbed: ``python semlp_rate_l2_dpout.py 300 350 3000 30
  0.001 0.3 0.0001 1. glove 300 50 0.5 100 0.1 1 yelp``, whose arguments
  are, in order (semlp_rate_l2_dpout.py): LSTMHID ATTHID OUTHID NROW LR
  DPOUT L2REG ATTPNLT WE WEDIM BSIZE GCLIP NEPOCH STD UPDATEWE DSET.
- Yang et al. 2016, "Hierarchical Attention Networks for Document
  Classification", NAACL 2016, §3.3 "Model configuration and training".
"""

import numpy as np
import pytest

from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier

#: (parameter, value, where the paper says so) for SelfAttentiveClassifier.from_paper().
LIN_2017_TEXT = [
    # §4.1: "a bidirectional LSTM with 300 dimensions in each direction"; "For
    # our model, we use the same settings as what we did in biLSTM."
    ("hidden_size", 300, "Lin et al. 2017 §4.1: BiLSTM of 300 per direction"),
    # §4.1: "our self-attention MLP has a hidden layer with 350 units (the d_a)"
    ("attention_dim", 350, "Lin et al. 2017 §4.1: d_a = 350"),
    # §4.1: "we choose the matrix embedding to have 30 rows (the r)"
    ("attention_hops", 30, "Lin et al. 2017 §4.1: r = 30"),
    # §4.2 (Yelp): "we choose the hidden unit numbers in the output MLP to be 3000"
    ("mlp_hidden", 3000, "Lin et al. 2017 §4.2: output MLP of 3000 units on Yelp"),
    # §4.2: "We use 100 dimensional word2vec as initialization for word embeddings,
    # and tune the embedding during training"
    ("embedding_dim", 100, "Lin et al. 2017 §4.2: 100-dimensional word2vec"),
    ("embeddings", "word2vec", "Lin et al. 2017 §4.2: word2vec initialisation"),
    ("freeze_embeddings", False, "Lin et al. 2017 §4.2: embeddings tuned in training"),
    # §4.1: "we also clip the norm of gradients to be between -0.5 and 0.5"
    # (the command line's GCLIP is 0.5 too)
    ("clip_grad_norm", 0.5, "Lin et al. 2017 §4.1: gradients clipped at 0.5"),
]

#: Where the preset follows the authors' Yelp command line rather than the
#: text (the text's §4.1 has dropout 0.5 on the MLP and minibatches of 16).
LIN_2017_COMMAND_LINE = [
    ("dropout", 0.3, "command line: DPOUT = 0.3"),
    ("batch_size", 50, "command line: BSIZE = 50"),
    # semlp_rate_l2_dpout.py: a DropoutLayer after H (l_concat), after
    # tanh(W_s1 Hᵀ) (l_ws1), after M (l_sentence_embedding) and after the
    # hidden layer (l_outhid).
    ("dropout_placement", "authors", "semlp_rate_l2_dpout.py: dropout on H, W_s1, M, hidden"),
    # semlp_rate_l2_dpout.py: a DenseLayer on M of shape (2u, r) flattens it.
    ("pooling", "flatten", "semlp_rate_l2_dpout.py: the MLP reads M flattened"),
]

#: (parameter, value, where the paper says so) for HierarchicalAttentionClassifier.from_paper().
YANG_2016_TEXT = [
    # §3.3: "we set the word embedding dimension to be 200"
    ("embedding_dim", 200, "Yang et al. 2016 §3.3: word embeddings of 200"),
    # §3.3: "We obtain the word embedding by training an unsupervised word2vec
    # model on the training and validation splits and then use the word
    # embedding to initialize W_e."
    ("embeddings", "word2vec", "Yang et al. 2016 §3.3: word2vec initialises W_e"),
    ("freeze_embeddings", False, "Yang et al. 2016 §3.3: word2vec only initialises W_e"),
    # §3.3: "We only retain words appearing more than 5 times in building the
    # vocabulary and replace the words that appear 5 times with a special UNK
    # token": kept from 6 occurrences on.
    ("min_count", 6, "Yang et al. 2016 §3.3: words seen <= 5 times become UNK"),
    # §3.3: "the GRU dimension to be 50. In this case a combination of forward
    # and backward GRU gives us 100 dimensions for word/sentence annotation."
    ("hidden_size", 50, "Yang et al. 2016 §3.3: word GRU of 50 per direction"),
    ("sentence_hidden_size", 50, "Yang et al. 2016 §3.3: sentence GRU of 50 per direction"),
    # §3.3: "The word/sentence context vectors also have a dimension of 100"
    ("context_dim", 100, "Yang et al. 2016 §3.3: context vectors of 100"),
    # §3.3: "For training, we use a mini-batch size of 64"
    ("batch_size", 64, "Yang et al. 2016 §3.3: minibatches of 64"),
    # §3.3: "We use stochastic gradient descent to train all models with momentum of 0.9."
    ("optimizer", "sgd", "Yang et al. 2016 §3.3: SGD"),
    ("momentum", 0.9, "Yang et al. 2016 §3.3: momentum 0.9"),
    # §3.4, Table 2: the proposed model is HN-ATT (attention at both levels).
    ("pooling", "attention", "Yang et al. 2016 §3.4: HN-ATT"),
]


def _check(model, name, expected, source):
    value = model.get_params()[name]
    if isinstance(expected, float):
        assert value == pytest.approx(expected, rel=1e-12), f"{name}={value!r}; {source}"
    else:
        assert value == expected, f"{name}={value!r}; {source}"


@pytest.mark.parametrize(
    "name, expected, source",
    LIN_2017_TEXT + LIN_2017_COMMAND_LINE,
    ids=[row[0] for row in LIN_2017_TEXT + LIN_2017_COMMAND_LINE],
)
def test_self_attentive_preset_has_the_papers_settings(name, expected, source):
    _check(SelfAttentiveClassifier.from_paper(), name, expected, source)


@pytest.mark.parametrize(
    "name, expected, source", YANG_2016_TEXT, ids=[row[0] for row in YANG_2016_TEXT]
)
def test_hierarchical_preset_has_the_papers_settings(name, expected, source):
    _check(HierarchicalAttentionClassifier.from_paper(), name, expected, source)


def test_self_attentive_preset_departs_where_its_docstring_says():
    preset = SelfAttentiveClassifier.from_paper()
    # Penalty: §4.1 sets "a coefficient of 1 for the penalization term"
    # with r = 30. The authors' code (semlp_rate_l2_dpout.py) takes
    # T.mean((AAᵀ − I)², axis=(0, 1, 2)), the mean over the r × r entries;
    # ours sums them (§2.2, eq. 8), so the docstring's conversion is
    # coefficient / r².
    paper_coefficient, paper_r = 1.0, 30
    assert preset.penalty == pytest.approx(paper_coefficient / paper_r**2, rel=1e-12)
    # "Adam at 1e-3 with a constant rate is our choice" (the paper's §4.1:
    # SGD at 0.06; the command line: Lasagne's plain SGD at LR = 0.001).
    assert (preset.optimizer, preset.lr, preset.lr_schedule) == ("adam", 1e-3, "constant")
    # "as is the default number of epochs" (the command line: NEPOCH = 100).
    assert preset.max_epochs == SelfAttentiveClassifier().max_epochs
    # "every word kept, no truncation".
    assert (preset.min_count, preset.max_length) == (1, None)


def test_hierarchical_preset_departs_where_its_docstring_says():
    preset = HierarchicalAttentionClassifier.from_paper()
    # "no dropout, no clipping, a constant learning rate": §3.3 names none.
    assert (preset.dropout, preset.clip_grad_norm, preset.lr_schedule) == (0.0, None, "constant")
    # "Ours, as the paper does not say: max_epochs=10".
    assert preset.max_epochs == 10


def test_overrides_win_and_the_hierarchical_preset_reaches_the_network(toy):
    X, y = toy
    # "zeta" is seen 5 times in all, "omega" 6 times.
    X = [*X, *["Zeta omega."] * 5, "Omega."]
    y = np.concatenate([y, ["pos"] * 3 + ["neg"] * 3])
    # Random vectors (no gensim needed); every other setting is the paper's.
    model = HierarchicalAttentionClassifier.from_paper(
        embeddings="random", max_epochs=1, random_state=0
    ).fit(X, y)
    assert model.embeddings == "random" and model.embedding_coverage_ is None
    module = model.net_.module_
    assert module.embedding.embedding_dim == 200  # §3.3
    assert module.word_encoder.hidden_size == module.sentence_encoder.hidden_size == 50
    for pooling in (module.word_pooling, module.sentence_pooling):
        assert pooling.attention.context.shape == (100,)  # u_w, u_s of 100
    optimizer = model.net_.optimizer_
    assert type(optimizer).__name__ == "SGD" and optimizer.param_groups[0]["momentum"] == 0.9
    assert model.net_.batch_size == 64
    # Words seen at most 5 times are UNK; from 6 times on they are kept.
    assert "zeta" not in model.encoder_.vocabulary_ and "omega" in model.encoder_.vocabulary_
    assert model.encoder_.token_counts_[3:].min() >= 6


def test_warm_up_rises_linearly_then_follows_the_schedule(toy):
    from estimators import small_self_attentive

    X, y = toy
    model = small_self_attentive(lr=0.01, warmup_epochs=2, max_epochs=5).fit(X, y)
    lrs = model.history_[:, "event_lr"]
    np.testing.assert_allclose(lrs[:2], [0.01 / 3, 0.02 / 3])
    assert lrs[2] == pytest.approx(0.01) and lrs[2] > lrs[3] > lrs[4]  # then cosine decay
    constant = small_self_attentive(lr=0.01, warmup_epochs=2, max_epochs=4, lr_schedule="constant")
    np.testing.assert_allclose(
        constant.fit(X, y).history_[:, "event_lr"], [0.01 / 3, 0.02 / 3, 0.01, 0.01]
    )
