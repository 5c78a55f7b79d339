"""The public attention regressors: the papers' networks (``_architectures.py``) with numbers.

The same networks as the classifiers, with the output layer predicting each
target (standardised, see :class:`~skattn.estimators._base.AttentionRegressorBase`) and
a squared-error loss: ratings, scores, opinion strengths, relatedness.
"""

from __future__ import annotations

from collections.abc import Callable

from skattn.estimators._architectures import HierarchicalAttentionModel, SelfAttentiveModel
from skattn.estimators._base import AttentionRegressorBase
from skattn.estimators._constraints import COMMON_CONSTRAINTS
from skattn.estimators._docstrings import fill_shared_docs
from skattn.text._encoder import DEFAULT_TOKEN_PATTERN

__all__ = ["HierarchicalAttentionRegressor", "SelfAttentiveRegressor"]

#: The training parameters of a regressor: a classifier's, without class
#: weights and decision thresholds.
REGRESSOR_CONSTRAINTS = {
    name: rule
    for name, rule in COMMON_CONSTRAINTS.items()
    if name not in ("class_weight", "threshold")
}


@fill_shared_docs
class SelfAttentiveRegressor(SelfAttentiveModel, AttentionRegressorBase):
    """Structured self-attentive sentence embedding regressor (Lin et al. 2017).

    The network of :class:`~skattn.SelfAttentiveClassifier` (BiLSTM states
    H, r attention rows A, embedding M = A H, ReLU MLP) with one linear
    output per target; the loss is the mean squared error of the
    standardised targets plus ``penalty`` × ‖AAᵀ − I‖²_F. Lin et al. 2017
    use this model for the Age dataset as a classifier; regression is ours.

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
    %(runtime)s

    Attributes
    ----------
    %(regressor_attributes)s
    %(fitted_attributes)s
    %(text_column_attribute)s

    Examples
    --------
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = [4.5, 4.0, 1.5, 1.0] * 8
    >>> reg = SelfAttentiveRegressor(max_epochs=20, lr=0.01, random_state=0).fit(X, y)
    >>> bool(reg.predict(["great"])[0] > reg.predict(["bad"])[0])
    True
    >>> bool(reg.score(X, y) > 0.9)  # R²
    True
    """

    _parameter_constraints: dict = {
        **REGRESSOR_CONSTRAINTS,
        **SelfAttentiveModel._model_constraints,
    }

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
        batch_tokens: int | None = None,
        lr: float = 3e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 0.5,
        clip_grad_value: float | None = None,
        lr_schedule: str = "cosine",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        memmap_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
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
        self.device = device
        self.accelerator = accelerator
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose


@fill_shared_docs
class HierarchicalAttentionRegressor(HierarchicalAttentionModel, AttentionRegressorBase):
    """Hierarchical attention network regressor (Yang et al. 2016).

    The network of :class:`~skattn.HierarchicalAttentionClassifier` (word
    BiGRU and attention → sentence vectors, sentence BiGRU and attention →
    document vector v) with one linear output per target in place of the
    softmax; the loss is the mean squared error of the standardised
    targets. Review ratings, the HAN paper's task, read as numbers.

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
    %(runtime)s

    Attributes
    ----------
    %(regressor_attributes)s
    %(fitted_attributes)s
    %(text_column_attribute)s

    Examples
    --------
    >>> X = ["A great film. Loved it.", "Truly great.", "A bad film. Dull.", "Truly bad."] * 8
    >>> y = [4.5, 4.0, 1.5, 1.0] * 8
    >>> reg = HierarchicalAttentionRegressor(max_epochs=20, lr=0.01, random_state=0).fit(X, y)
    >>> bool(reg.predict(["Great."])[0] > reg.predict(["Bad."])[0])
    True
    """

    _parameter_constraints: dict = {
        **REGRESSOR_CONSTRAINTS,
        **HierarchicalAttentionModel._model_constraints,
    }

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
        batch_size: int = 32,
        batch_tokens: int | None = None,
        lr: float = 3e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 5.0,
        clip_grad_value: float | None = None,
        lr_schedule: str = "cosine",
        warmup_epochs: int = 0,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        checkpoint_dir: str | None = None,
        memmap_dir: str | None = None,
        warm_start: bool = False,
        callbacks: list | None = None,
        net_params: dict | None = None,
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
        self.device = device
        self.accelerator = accelerator
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose
