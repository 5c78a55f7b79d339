"""The public attention classifiers: the papers' networks (``_architectures.py``) with labels."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral

from skattn.estimators._architectures import HierarchicalAttentionModel, SelfAttentiveModel
from skattn.estimators._base import AttentionClassifierBase
from skattn.estimators._constraints import COMMON_CONSTRAINTS
from skattn.estimators._docstrings import fill_shared_docs
from skattn.text._encoder import DEFAULT_TOKEN_PATTERN
from skattn.utils._params import Interval, Options


@fill_shared_docs
class SelfAttentiveClassifier(SelfAttentiveModel, AttentionClassifierBase):
    """Structured self-attentive sentence embedding classifier (Lin et al. 2017).

    Words → embeddings → BiLSTM (states H, n × 2u) → r attention rows
    A = softmax(W_s2 tanh(W_s1 Hᵀ)) over the real tokens → sentence
    embedding M = A H (r × 2u) → pooling → ReLU MLP → softmax. The loss is
    cross-entropy plus ``penalty`` × ‖AAᵀ − I‖²_F (squared Frobenius norm
    summed over the r × r entries, averaged over the batch; the authors'
    code takes the mean over the entries, so their coefficient c is
    ``c / attention_hops**2`` here).

    Parameters
    ----------
    %(self_attentive_network)s
    %(embeddings)s
    %(freeze_embeddings)s
    %(text_options)s
    %(min_count)s
    %(max_vocab)s
    %(subword_buckets)s
    %(max_length)s
    %(training)s
    %(class_weight)s
    %(threshold)s
    label_attention : "auto" or bool, default="auto"
        ``label_hops`` attention hops for each class, each class's logit
        read from its own rows of M (:class:`~skattn.nn.LabelAttentionHead`)
        instead of the MLP: every label attends to its own words.
        ``attention_hops``, ``mlp_hidden`` and ``penalty`` are then unused
        (two labels may share a cue, which the penalty would keep them
        from reading). "auto": on for a multi-label ``y`` (where it was
        chosen, on GoEmotions' validation split) unless ``pooling`` or
        ``mlp_connections`` ask for the MLP; off for single labels.
        ``choices_["label_attention"]`` records the decision.
    label_hops : int, default=2
        Attention hops of each class with label attention (M then has
        ``label_hops`` × classes rows); unused without it. Two hops a
        label let it follow two kinds of cue (chosen on GoEmotions'
        validation split, over one and four).
    %(runtime)s

    Attributes
    ----------
    %(classifier_attributes)s
    %(fitted_attributes)s
    %(text_column_attribute)s

    Examples
    --------
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = SelfAttentiveClassifier(max_epochs=20, lr=0.01, random_state=0).fit(X, y)
    >>> clf.predict(["great", "bad"]).tolist()
    ['pos', 'neg']
    >>> clf.transform(["great"]).shape  # r * 2u
    (1, 800)
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        **SelfAttentiveModel._model_constraints,
        "label_attention": [Options({"auto"}), "boolean"],
        "label_hops": [Interval(Integral, 1, None, "left")],
    }
    #: Epochs at the reference corpus size (see :mod:`skattn.training._epochs`): with the
    #: one-cycle schedule, 5 epochs of batches of 64 (chosen by cross-validation on the
    #: reference training split; the regressors keep 8).
    _base_epochs = 5
    #: Models pickled before the parameters existed have no label attention, and
    #: the label attention of 0.4's first models had one hop per label.
    label_attention = False
    label_hops = 1

    def __init__(
        self,
        *,
        embedding_dim: int = 100,
        hidden_size: int = 100,
        attention_dim: int = 64,
        attention_hops: int = 4,
        penalty: float = 0.1,
        pooling: str = "flatten",
        mlp_hidden: int = 128,
        mlp_connections: str = "dense",
        dropout: float = 0.5,
        dropout_placement: str = "embeddings",
        embeddings: str | None = "auto",
        freeze_embeddings: bool = False,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        strip_accents: str | None = None,
        analyzer: str = "word",
        min_count: int = 2,
        max_vocab: int | None = None,
        subword_buckets: int | None = 50_000,
        max_length: int | None = 1000,
        max_epochs: int | str = "auto",
        batch_size: int = 64,
        batch_tokens: int | str | None = "auto",
        lr: float = 4e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 0.5,
        clip_grad_value: float | None = None,
        lr_schedule: str = "onecycle",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        memmap_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
        class_weight: str | dict | None = None,
        threshold: str | float = "auto",
        label_attention: str | bool = "auto",
        label_hops: int = 2,
        device: str | None = "cpu",
        accelerator=None,
        threads: int | None = 1,
        random_state=None,
        verbose: int = 0,
    ):
        self.embedding_dim = embedding_dim
        self.hidden_size = hidden_size
        self.attention_dim = attention_dim
        self.attention_hops = attention_hops
        self.penalty = penalty
        self.pooling = pooling
        self.mlp_hidden = mlp_hidden
        self.mlp_connections = mlp_connections
        self.dropout = dropout
        self.dropout_placement = dropout_placement
        self.embeddings = embeddings
        self.freeze_embeddings = freeze_embeddings
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.strip_accents = strip_accents
        self.analyzer = analyzer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.subword_buckets = subword_buckets
        self.max_length = max_length
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.lr = lr
        self.optimizer = optimizer
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_grad_norm = clip_grad_norm
        self.clip_grad_value = clip_grad_value
        self.lr_schedule = lr_schedule
        self.warmup_epochs = warmup_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.checkpoint_dir = checkpoint_dir
        self.memmap_dir = memmap_dir
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.net_params = net_params
        self.class_weight = class_weight
        self.threshold = threshold
        self.label_attention = label_attention
        self.label_hops = label_hops
        self.device = device
        self.accelerator = accelerator
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose

    def _check_model_params(self) -> None:
        super()._check_model_params()
        if self.label_attention is True and (
            self.pooling != "flatten" or self.mlp_connections != "dense"
        ):
            raise ValueError(
                "label_attention=True reads each class's logit from its own row of M, without "
                'the MLP: it needs pooling="flatten" and mlp_connections="dense"; got '
                f"pooling={self.pooling!r}, mlp_connections={self.mlp_connections!r}."
            )

    def _label_attention_choice(self, task: str) -> tuple[bool, str]:
        """Whether this fit's network has attention hops of its own for each class, and why."""
        if self.label_attention != "auto":
            return bool(self.label_attention), "set by label_attention"
        if task != "multilabel":
            return False, "one label per document: attention_hops rows read by the MLP"
        if self.pooling != "flatten" or self.mlp_connections != "dense":
            return False, "a multi-label y, but pooling or mlp_connections asks for the MLP"
        return True, (
            f"a multi-label y: {self.label_hops} attention hop(s) per label, each read by its "
            "label alone (no redundancy penalty)"
        )

    def _loss_params(self, task: str) -> dict:
        # Label hops may share words (two labels, one cue): the penalty that keeps
        # hops apart would pull each label away from its own words.
        if self._label_attention_choice(task)[0]:
            return {"penalty": 0.0}
        return super()._loss_params(task)

    def _task_module_params(self, n_outputs: int, task: str) -> dict:
        if self._label_attention_choice(task)[0]:
            return {"label_attention": True, "attention_hops": self.label_hops * n_outputs}
        return {}

    def _architecture_choices(self, task: str) -> dict:
        value, why = self._label_attention_choice(task)
        return {"label_attention": {"value": value, "why": why}}


@fill_shared_docs
class HierarchicalAttentionClassifier(HierarchicalAttentionModel, AttentionClassifierBase):
    """Hierarchical attention network for documents (Yang et al. 2016).

    Each sentence's words → embeddings → BiGRU → word pooling (attention
    with a learned context vector u_w in HN-ATT) → sentence vector; the
    document's sentence vectors → BiGRU → sentence pooling (u_s) →
    document vector v → linear → softmax; loss = negative log-likelihood.
    All sentences of a batch share one word-level pass (sorted by length,
    in chunks); documents are batched by sentence count.

    Parameters
    ----------
    %(hierarchical_network)s
    %(embeddings)s
    %(freeze_embeddings)s
    %(text_options)s
    %(min_count)s
    %(max_vocab)s
    %(subword_buckets)s
    %(hierarchical_text)s
    %(training)s
    %(class_weight)s
    %(threshold)s
    %(runtime)s

    Attributes
    ----------
    %(classifier_attributes)s
    %(fitted_attributes)s
    %(text_column_attribute)s

    Examples
    --------
    >>> X = ["A great film. I loved it.", "Truly great!", "A bad film. I hated it.",
    ...      "Truly bad!"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = HierarchicalAttentionClassifier(max_epochs=8, random_state=0).fit(X, y)
    >>> clf.predict(["Great. Loved it.", "Bad. Hated it."]).tolist()
    ['pos', 'neg']
    >>> clf.transform(["Great."]).shape  # 2 * sentence_hidden_size
    (1, 100)
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        **HierarchicalAttentionModel._model_constraints,
    }
    #: Epochs at the reference corpus size (see :mod:`skattn.training._epochs`): with the
    #: one-cycle schedule, 3 epochs of batches of 64 (chosen by cross-validation on the
    #: reference training split; the regressors keep 5).
    _base_epochs = 3

    def __init__(
        self,
        *,
        embedding_dim: int = 100,
        hidden_size: int = 50,
        sentence_hidden_size: int = 50,
        context_dim: int = 100,
        pooling: str = "attention",
        dropout: float = 0.3,
        embeddings: str | None = "auto",
        freeze_embeddings: bool = False,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        strip_accents: str | None = None,
        analyzer: str = "word",
        min_count: int = 2,
        max_vocab: int | None = None,
        subword_buckets: int | None = 50_000,
        sentence_split: str | Callable[[str], list[str]] = "punctuation",
        max_sentences: int | None = 60,
        max_sentence_length: int | None = 60,
        chunk_size: int | None = 256,
        max_epochs: int | str = "auto",
        batch_size: int = 64,
        batch_tokens: int | str | None = "auto",
        lr: float = 4e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 5.0,
        clip_grad_value: float | None = None,
        lr_schedule: str = "onecycle",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        memmap_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
        class_weight: str | dict | None = None,
        threshold: str | float = "auto",
        device: str | None = "cpu",
        accelerator=None,
        threads: int | None = 1,
        random_state=None,
        verbose: int = 0,
    ):
        self.embedding_dim = embedding_dim
        self.hidden_size = hidden_size
        self.sentence_hidden_size = sentence_hidden_size
        self.context_dim = context_dim
        self.pooling = pooling
        self.dropout = dropout
        self.embeddings = embeddings
        self.freeze_embeddings = freeze_embeddings
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.strip_accents = strip_accents
        self.analyzer = analyzer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.subword_buckets = subword_buckets
        self.sentence_split = sentence_split
        self.max_sentences = max_sentences
        self.max_sentence_length = max_sentence_length
        self.chunk_size = chunk_size
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.lr = lr
        self.optimizer = optimizer
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_grad_norm = clip_grad_norm
        self.clip_grad_value = clip_grad_value
        self.lr_schedule = lr_schedule
        self.warmup_epochs = warmup_epochs
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.checkpoint_dir = checkpoint_dir
        self.memmap_dir = memmap_dir
        self.warm_start = warm_start
        self.callbacks = callbacks
        self.net_params = net_params
        self.class_weight = class_weight
        self.threshold = threshold
        self.device = device
        self.accelerator = accelerator
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
