"""One source for the documentation of the parameters the attention estimators share.

A class docstring names a shared parameter by a line holding only
``%(name)s`` (indented like the other entries; ``%(training)s`` and
``%(runtime)s`` stand for the groups in :data:`_GROUPS`); :func:`fill_shared_docs`
replaces it by the entry below, with ``{default}`` (or, in an entry of
several parameters, ``{default:name}``) taken from the class's own
signature, so the documented default is always the real one.
"""

from __future__ import annotations

import inspect
import re
import textwrap

_ENTRIES = {
    "self_attentive_network": """
embedding_dim : int, default={default:embedding_dim}
    Size of the word embeddings (d).
hidden_size : int, default={default:hidden_size}
    LSTM units per direction (u).
attention_dim : int, default={default:attention_dim}
    Width of the attention MLP (d_a).
attention_hops : int, default={default:attention_hops}
    Number of attention rows (r).
penalty : float, default={default:penalty}
    Coefficient of the redundancy penalty; 0 disables it.
pooling : {"flatten", "max", "mean"}, default={default:pooling}
    How M feeds the MLP: flattened (the paper) or pooled over hops.
mlp_hidden : int, default={default:mlp_hidden}
    Units of the ReLU hidden layer.
mlp_connections : {"dense", "pruned"}, default={default:mlp_connections}
    "dense": every hidden unit reads all of M; "pruned": Lin et al.'s
    Appendix A, half of the units split into one group per row of M and
    half into one group per column, each group reading only its row or
    column (at the paper's sizes 1 million weights instead of 54
    million; needs ``pooling="flatten"``).
dropout : float, default={default:dropout}
    The dropout rate.
dropout_placement : {"embeddings", "authors"}, default={default:dropout_placement}
    "embeddings": on the word embeddings, on M and on the MLP's hidden
    layer; "authors": as the authors' code, on H where it enters W_s1 (M =
    A H is built from H itself), on tanh(W_s1 Hᵀ), on M and on the hidden
    layer.
""",
    "max_length": """
max_length : int or None, default={default:max_length}
    Tokens kept per document: the first ``max_length`` (documented
    truncation rule of :mod:`skattn.text._encoder`; ``n_truncated_`` counts the
    training documents it shortened). Batches are padded only to their
    own longest document, so the limit costs nothing on short texts;
    on long reviews a tighter one loses accuracy (see *Results*).
""",
    "hierarchical_network": """
embedding_dim : int, default={default:embedding_dim}
    Word embedding size (the paper: 200).
hidden_size : int, default={default:hidden_size}
    Word-level GRU units per direction (the paper: 50).
sentence_hidden_size : int, default={default:sentence_hidden_size}
    Sentence-level GRU units per direction (the paper: 50).
context_dim : int, default={default:context_dim}
    Size of u_w, u_s and of the attention projections (the paper: 100).
pooling : {"attention", "mean", "max"}, default={default:pooling}
    HN-ATT, HN-AVE or HN-MAX, at both levels, over real positions only.
dropout : float, default={default:dropout}
    Dropout on the embeddings and on the document vector (the paper
    has none).
""",
    "hierarchical_text": """
sentence_split : {"punctuation", "lines"} or callable, default={default:sentence_split}
    "punctuation" ends a sentence after ``.``, ``!`` or ``?`` and at line
    breaks; "lines" takes each line as a sentence (movie_reviews);
    a callable ``str -> list of str``.
max_sentences : int or None, default={default:max_sentences}
    Sentences kept per document: the first ones.
max_sentence_length : int or None, default={default:max_sentence_length}
    Words kept per sentence: the first ones.
chunk_size : int or None, default={default:chunk_size}
    Sentences per word-level GRU call.
""",
    "embeddings": """
embeddings : str, None, path, KeyedVectors or dict, default={default}
    Initial word vectors. "auto": GloVe 6B 50d when ``skattn[glove]`` is
    installed, knows at least 90% of the training tokens and the fit data
    holds fewer than a million tokens, else "ppmi" (``choices_`` says which
    and why). "glove-6b-50d": those vectors
    (falling back to "ppmi" with a warning when they know too little of the
    corpus). "ppmi" learns count-based vectors from the fit data (no
    download, no extra dependency); "word2vec" trains gensim skip-gram on
    the fit data (``skattn[word2vec]``); "random" or None keeps random
    initialisation. Or pretrained vectors: a gensim ``KeyedVectors``, a dict
    of word to vector, or a word2vec/GloVe file, of exactly ``embedding_dim``
    dimensions. Named vectors narrower than ``embedding_dim`` are completed by
    PPMI vectors (see :mod:`skattn.embeddings._vectors`).
""",
    "freeze_embeddings": """
freeze_embeddings : bool, default={default}
    Keep the word vectors fixed during training.
""",
    "text_options": """
lowercase, token_pattern, tokenizer, strip_accents, analyzer
    How documents become tokens: see :class:`skattn.text.TextEncoder`.
    (The linear baselines of :mod:`skattn.baselines._table2` take scikit-learn's
    vectorizer options under scikit-learn's names.)
""",
    "min_count": """
min_count : int, default={default}
    Words seen fewer times in ``fit`` become UNK. (The baselines' closest
    option is scikit-learn's ``min_df``, which counts documents, not
    occurrences.)
""",
    "max_vocab": """
max_vocab : int or None, default={default}
    Keep only the most frequent words (the baselines' ``max_features``).
""",
    "subword_buckets": """
subword_buckets : int or None, default={default}
    Character n-grams (3 to 5 characters, fastText's subword information):
    each token's vector adds the mean vector of its n-grams, hashed into
    this many buckets, so unknown words (misspellings, names) get a vector
    made of pieces seen in training (:mod:`skattn.text._subwords`). None: word
    vectors only (the papers' models). On by default: measured on
    sentence_polarity, nps_chat, TREC and movie_reviews (see *Results*).
""",
    "max_epochs": """
max_epochs : int or "auto", default={default}
    Passes over the training data. "auto": the model's base epochs
    (classifiers: self-attentive 5, HAN 3; regressors: 8 and 5; pair
    models 8, counting both texts' tokens; rounded half up; tuned on
    sentence_polarity's 8,530 training snippets, 187,600 tokens), scaled up
    for training sets of less text by how many fewer tokens they hold (at
    most 2×; :mod:`skattn.training._epochs`). ``choices_["max_epochs"]`` says
    what was chosen and why.
""",
    "batch_size": """
batch_size : int, default={default}
    Documents per training batch (and per inference batch).
""",
    "batch_tokens": """
batch_tokens : int, "auto" or None, default={default}
    Token-budget training batches instead: each holds documents of similar
    length up to this many tokens in total. "auto": at most ``batch_size``
    documents and at most 100 × ``batch_size`` tokens, so that short texts
    come ``batch_size`` at a time and long documents fewer at a time (a
    corpus of a few thousand long reviews still gets enough optimizer
    steps). None: ``batch_size`` documents.
""",
    "lr": """
lr : float, default={default}
    The learning rate. To pick it on a validation split, see
    :func:`skattn.model_selection.learning_rate_search`.
""",
    "optimizer": """
optimizer : {"adam", "adamw", "sgd", "adagrad", "rmsprop"} or optimizer class, default={default}
    Adam and AdamW run fused (one kernel per step) where PyTorch supports
    it on the device; ``net_params={"optimizer__fused": False}`` turns it off.
""",
    "momentum": """
momentum : float, default={default}
    Used by "sgd" and "rmsprop".
""",
    "weight_decay": """
weight_decay : float, default={default}
    The optimizer's L2 weight decay.
""",
    "clip_grad_norm": """
clip_grad_norm : float or None, default={default}
    Clip the global gradient norm of all parameters at this value; None
    does not clip.
""",
    "clip_grad_value": """
clip_grad_value : float or None, default={default}
    Clip every gradient element to [−value, value] (as Lin et al.'s code
    does), after ``clip_grad_norm``; None does not clip.
""",
    "lr_schedule": """
lr_schedule : {"onecycle", "cosine", "constant"}, default={default}
    "onecycle" changes the learning rate after every batch: a linear
    warm-up over the first 10% of the optimizer steps (or over
    ``warmup_epochs`` epochs) up to ``lr``, then a cosine decay towards 0
    at the last step; "cosine" decays it towards 0 over ``max_epochs``,
    once per epoch (after ``warmup_epochs`` epochs of warm-up). Both make
    the last epoch's model the stable one. A skorch ``LRScheduler`` among
    ``callbacks`` replaces this schedule (it never stacks on it).
""",
    "warmup_epochs": """
warmup_epochs : int, default={default}
    Epochs of linear warm-up before the ``lr_schedule``: with "cosine" and
    "constant" per epoch, from ``lr / (warmup_epochs + 1)`` to ``lr``;
    with "onecycle" per batch (0: the first 10% of the steps).
""",
    "early_stopping": """
early_stopping : bool, default={default}
    Stop when the validation accuracy (regressors: the validation loss, the
    squared error plus any attention penalty) has not improved for
    ``n_iter_no_change`` epochs and restore the weights of the best epoch.
    Holds out ``validation_fraction`` (0.1 if None) of the training data. A
    skorch ``EarlyStopping`` among ``callbacks`` holds out the same share.
""",
    "validation_fraction": """
validation_fraction : float or None, default={default}
    Share of ``X`` held out for validation (stratified by class for
    classifiers); the weights of the epoch with the best validation
    accuracy (regressors: the lowest validation loss) are kept.
    None trains on all of ``X``.
""",
    "n_iter_no_change": """
n_iter_no_change : int, default={default}
    Patience of ``early_stopping``, in epochs.
""",
    "checkpoint_dir": """
checkpoint_dir : str, path or None, default={default}
    Where the best validation epoch is saved when a validation split is
    used; None: a fresh temporary directory per fit, removed afterwards
    (never a shared fixed file name, so parallel fits cannot collide).
""",
    "memmap_dir": """
memmap_dir : str, path or None, default={default}
    Where ``fit`` writes the encoded training documents (int32 token ids)
    as memory-mapped ``.npy`` files, in a fresh subfolder removed when
    ``fit`` ends: the operating system then keeps in RAM only the pages a
    batch reads. None keeps them in memory. Either way, ``fit`` encodes a
    chunk of documents at a time (see the *Scaling* page). Pair
    estimators keep their ids in memory.
""",
    "warm_start": """
warm_start : bool, default={default}
    A second ``fit`` continues training the fitted network with its
    vocabulary and classes (a fresh optimizer), e.g. after ``load``. The
    parameters that size the network must keep their values: another
    size, hop count or pooling is refused with a ``ValueError``.
""",
    "callbacks": """
callbacks : list of skorch callbacks or None, default={default}
    Extra callbacks (e.g. ``skorch.callbacks.ProgressBar()``).
""",
    "net_params": """
net_params : dict or None, default={default}
    Further skorch arguments, by skorch's own names with the prefixes
    ``optimizer__``, ``criterion__``, ``iterator_train__`` or
    ``iterator_valid__`` (e.g. ``{"optimizer__betas": (0.9, 0.98)}``;
    ``iterator_valid__*`` also applies to prediction). One explicit dict
    keeps ``clone`` and ``GridSearchCV`` working (searchable as whole dicts).
""",
    "class_weight": """
class_weight : "balanced", dict or None, default={default}
    Weight of each class in the loss, as in scikit-learn: "balanced" weighs
    classes inversely to their frequency in ``y``; a dict maps labels to
    weights (others 1). Multiplies ``sample_weight``. Multi-label ``y``:
    the weight of each label's positive examples (its negatives weigh 1);
    "balanced" gives n_negative / n_positive, a dict maps label indices
    to weights.
""",
    "threshold": """
threshold : "auto", "f1" or float in (0, 1), default={default}
    How probabilities become predictions. "auto": a multi-label ``y``
    gets each label's threshold tuned for F1 on a validation split of the
    fit data (``validation_fraction``, 0.1 if None); a 1-D ``y``, the most
    probable class. "f1": tuned thresholds for multi-label and binary
    ``y`` (binary: on the probability of ``classes_[1]``, for its F1, when
    that class is rare). A number: that threshold for every label (binary:
    predict ``classes_[1]`` when its probability reaches it). Stored in
    ``thresholds_``. ``predict_proba`` and ``decision_function`` do not
    depend on it.
""",
    "device": """
device : str or None, default={default}
    "auto" (CUDA when available, else CPU), "cpu", "cuda", "cuda:N", "mps".
    An unavailable device fails at the start of ``fit`` with the list of
    available ones.
""",
    "accelerator": """
accelerator : accelerate.Accelerator or None, default={default}
    Train with Hugging Face accelerate (the ``distributed`` extra), through
    skorch's ``AccelerateMixin``: data-parallel over the processes
    ``accelerate launch`` (or ``torchrun``) started, each on its own shard
    of every epoch's batches, gradients averaged every step; and mixed
    precision (``Accelerator(mixed_precision="bf16")``). The accelerator
    then places the network (``device`` is not used). Not saved with the
    model. See the *Distributed training* page.
""",
    "threads": """
threads : int or None, default={default}
    PyTorch intra-op threads during fit and inference, and numpy's and
    SciPy's BLAS threads while a fit computes its initial vectors (their
    SVD; one fit of the process at a time), restored afterwards: on one
    machine, the same fit gives the same model in a joblib worker and in
    the main process. PyTorch's setting
    is process-wide: while several skattn calls run at once in threads,
    the process uses the smallest count any of them asked for (none waits
    for another). 1 avoids oversubscribing the cores in parallel searches
    and on loaded machines; None leaves both settings alone.
""",
    "random_state": """
random_state : int, RandomState or None, default={default}
    Seeds initialisation, dropout, batching and the validation split; an
    int makes ``fit`` reproducible on CPU.
""",
    "verbose": """
verbose : int, default={default}
    1 prints skorch's epoch table (coloured on a terminal unless
    ``NO_COLOR`` is set) and, on a terminal, a progress bar per epoch with
    the time left; 2 shows the bar everywhere; 0 prints nothing.
""",
    "classifier_attributes": """
classes_ : ndarray
    The labels seen in ``fit`` (multi-label ``y``: the label indices
    0 … n_labels − 1, the columns of ``y``).
label_names_ : ndarray of str
    Multi-label ``y`` given as a DataFrame with string column names (only
    then): each column's name. ``predict`` still returns the indicator
    matrix; the answers that list labels (an explanation, the command
    line, the web service) give these names in place of the indices.
thresholds_ : ndarray of float or None
    The probability thresholds ``predict`` applies: one per label
    (multi-label), one on ``classes_[1]`` (binary), or None when the most
    probable class is predicted (see ``threshold``).
decision_rule_ : skattn.decisions.DecisionRule
    How ``predict`` turns probabilities into labels (from ``classes_`` and
    ``thresholds_``); an exported artefact, the serving runtime and the
    command line apply the same rule.
net_ : skattn.training.AttentionNet or skattn.training.AttentionMultiLabelNet
    The trained network, a skorch ``NeuralNetClassifier`` (a ``NeuralNet``
    for multi-label ``y``); ``net_.history`` holds the epochs.
""",
    "regressor_attributes": """
n_outputs_ : int
    Outputs per document (columns of ``y``; 1 for a 1-D ``y``).
target_mean_, target_scale_ : ndarray of shape (n_outputs,)
    Each output's mean and standard deviation over the fit data (a
    constant output: scale 1). The network learns (y − mean) / scale;
    ``predict`` undoes it.
decision_rule_ : skattn.decisions.DecisionRule
    That rule (``kind="regression"``), as an exported artefact carries it.
net_ : skattn.training.AttentionRegressionNet
    The trained network, a skorch ``NeuralNetRegressor``
    (``net_.history`` holds the epochs).
""",
    "fitted_attributes": """
task_ : skattn.estimators.Task
    What the model learned from ``y`` (a single-label, multi-label or
    regression task): its classes or target scale, thresholds and decision
    rule; the attributes above come from it.
encoder_ : TextEncoder
    The fitted tokeniser and vocabulary.
n_truncated_ : int
    Training documents shortened by the truncation limits (a warning at fit
    says so when it is 1% of them or more).
n_blank_ : int
    Training documents that were blank or yielded no token, encoded as the
    reserved token ``<empty>`` (a warning at fit from 1% on).
history_ : skorch History
    The training history (loss, accuracy, duration per epoch); kept by
    :func:`skattn.save`.
embedding_coverage_ : float or None
    Share of the vocabulary that got an initial vector from ``embeddings``
    (None for random initialisation).
choices_ : dict
    What ``fit`` decided from the data, and why: parameter name → ``{"value":
    ..., "why": ...}`` (for example which word vectors ``embeddings="auto"``
    took). Saved with the model.
""",
    "text_column_attribute": """
feature_names_in_ : ndarray of str
    The column name of a one-column DataFrame ``X`` at fit (only then): a
    DataFrame given later must hold that column, else a ``ValueError``
    (a Series or a list is read as it is).
""",
}

#: Placeholders that stand for several entries, in this order.
_GROUPS = {
    "training": (
        "max_epochs",
        "batch_size",
        "batch_tokens",
        "lr",
        "optimizer",
        "momentum",
        "weight_decay",
        "clip_grad_norm",
        "clip_grad_value",
        "lr_schedule",
        "warmup_epochs",
        "early_stopping",
        "validation_fraction",
        "n_iter_no_change",
        "checkpoint_dir",
        "memmap_dir",
        "warm_start",
        "callbacks",
        "net_params",
    ),
    "runtime": ("device", "accelerator", "threads", "random_state", "verbose"),
}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)%\((?P<name>\w+)\)s$", re.MULTILINE)


def _name(block: str) -> str:
    """The parameter a docstring block documents (``name : type, default=...``)."""
    return block.split(" :", 1)[0].strip()


def _shown(default) -> str:
    return f'"{default}"' if isinstance(default, str) else repr(default)


def fill_shared_docs(cls: type) -> type:
    """Class decorator: replace each ``%(name)s`` line of ``cls.__doc__`` by the shared entry.

    Examples
    --------
    >>> @fill_shared_docs
    ... class Model:
    ...     '''A model.
    ...
    ...     Parameters
    ...     ----------
    ...     %(max_epochs)s
    ...     '''
    ...     def __init__(self, max_epochs=3):
    ...         self.max_epochs = max_epochs
    >>> print(Model.__doc__.splitlines()[4])
        max_epochs : int or "auto", default=3
    """
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(cls.__init__).parameters.items()
    }

    def entry(match: re.Match) -> str:
        name = match.group("name")
        members = _GROUPS.get(name, (name,))
        return "\n".join(entry_text(member, match.group("indent")) for member in members)

    def entry_text(name: str, indent: str) -> str:
        text = _ENTRIES[name].strip("\n")
        if "{default}" in text:
            text = text.replace("{default}", _shown(defaults[name]))
        # Entries that document several parameters name each one's default;
        # a parameter the class does not take is left out.
        blocks = re.split(r"\n(?=\S)", text)
        text = "\n".join(
            block for block in blocks if "{default:" not in block or _name(block) in defaults
        )
        text = re.sub(r"\{default:(\w+)\}", lambda m: _shown(defaults[m.group(1)]), text)
        return textwrap.indent(text, indent)

    cls.__doc__ = _PLACEHOLDER.sub(entry, cls.__doc__)
    return cls
