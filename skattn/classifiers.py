"""The public attention classifiers."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, Callable, Sequence

import numpy as np
from scipy.special import softmax
from sklearn.utils._param_validation import Interval, StrOptions

from skattn.base import COMMON_CONSTRAINTS, AttentionClassifierBase
from skattn.modules.self_attentive import SelfAttentiveNet
from skattn.text import DEFAULT_TOKEN_PATTERN


class SelfAttentiveClassifier(AttentionClassifierBase):
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
    embedding_dim : int, default=100
        Size of the word embeddings (d).
    hidden_size : int, default=100
        LSTM units per direction (u).
    attention_dim : int, default=64
        Width of the attention MLP (d_a).
    attention_hops : int, default=4
        Number of attention rows (r).
    penalty : float, default=0.1
        Coefficient of the redundancy penalty; 0 disables it.
    pooling : {"flatten", "max", "mean"}, default="flatten"
        How M feeds the MLP: flattened (the paper) or pooled over hops.
    mlp_hidden : int, default=128
        Units of the ReLU hidden layer.
    dropout : float, default=0.5
        Dropout on embeddings and in the MLP.
    lowercase, token_pattern, tokenizer : see :class:`skattn.text.TextEncoder`
    min_count : int, default=1
        Words seen fewer times in ``fit`` become UNK.
    max_vocab : int or None, default=None
        Keep only the most frequent words.
    max_length : int or None, default=400
        Tokens kept per document: the first ``max_length`` (documented
        truncation rule of :mod:`skattn.text`; ``n_truncated_`` counts the
        training documents it shortened).
    max_epochs : int, default=5
    batch_size : int, default=32
    lr : float, default=2e-3
    optimizer : {"adam", "adamw", "sgd", "adagrad", "rmsprop"} or torch optimizer class, default="adam"
    momentum : float, default=0.9
        Used by "sgd" and "rmsprop".
    weight_decay : float, default=0.0
    clip_grad_norm : float or None, default=0.5
        Gradient norm clipping (the authors clip at 0.5).
    early_stopping : bool, default=False
        Stop when the validation accuracy has not improved for
        ``n_iter_no_change`` epochs and restore the weights of the best
        epoch. Holds out
        ``validation_fraction`` (0.1 if None) of the training data.
    validation_fraction : float or None, default=None
        Stratified share of ``X`` held out for validation; None trains on
        all of ``X``.
    n_iter_no_change : int, default=3
    callbacks : list of skorch callbacks or None, default=None
        Extra callbacks (e.g. ``skorch.callbacks.ProgressBar()``).
    device : str, default="cpu"
    threads : int or None, default=1
        PyTorch intra-op threads during fit and inference (restored after);
        1 is fastest for small models on a shared CPU. None leaves
        PyTorch's setting alone.
    random_state : int, RandomState or None, default=None
        Seeds initialisation, dropout, batching and the validation split;
        an int makes ``fit`` reproducible on CPU.
    verbose : int, default=0
        1 prints skorch's epoch table.

    Attributes
    ----------
    classes_ : ndarray
        The labels seen in ``fit``.
    encoder_ : TextEncoder
        The fitted tokeniser and vocabulary.
    net_ : skorch NeuralNetClassifier
        The trained network (``net_.history`` holds the epochs).
    n_truncated_ : int
        Training documents shortened by ``max_length``.

    Examples
    --------
    >>> X = ["a great film", "truly great", "a bad film", "truly bad"] * 8
    >>> y = ["pos", "pos", "neg", "neg"] * 8
    >>> clf = SelfAttentiveClassifier(max_epochs=10, random_state=0).fit(X, y)
    >>> clf.predict(["great", "bad"]).tolist()
    ['pos', 'neg']
    >>> clf.transform(["great"]).shape  # r * 2u
    (1, 800)
    """

    _module_class = SelfAttentiveNet
    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "attention_dim": [Interval(Integral, 1, None, closed="left")],
        "attention_hops": [Interval(Integral, 1, None, closed="left")],
        "penalty": [Interval(Real, 0, None, closed="left")],
        "pooling": [StrOptions({"flatten", "max", "mean"})],
        "mlp_hidden": [Interval(Integral, 1, None, closed="left")],
        "max_length": [Interval(Integral, 1, None, closed="left"), None],
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
        dropout: float = 0.5,
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        tokenizer: Callable[[str], list[str]] | None = None,
        min_count: int = 1,
        max_vocab: int | None = None,
        max_length: int | None = 400,
        max_epochs: int = 5,
        batch_size: int = 32,
        lr: float = 2e-3,
        optimizer: str | type = "adam",
        momentum: float = 0.9,
        weight_decay: float = 0.0,
        clip_grad_norm: float | None = 0.5,
        early_stopping: bool = False,
        validation_fraction: float | None = None,
        n_iter_no_change: int = 3,
        callbacks: list | None = None,
        device: str = "cpu",
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
        self.dropout = dropout
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.tokenizer = tokenizer
        self.min_count = min_count
        self.max_vocab = max_vocab
        self.max_length = max_length
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.optimizer = optimizer
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_grad_norm = clip_grad_norm
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.callbacks = callbacks
        self.device = device
        self.threads = threads
        self.random_state = random_state
        self.verbose = verbose

    def _module_params(self) -> dict[str, Any]:
        return {
            "embedding_dim": self.embedding_dim,
            "hidden_size": self.hidden_size,
            "attention_dim": self.attention_dim,
            "attention_hops": self.attention_hops,
            "mlp_hidden": self.mlp_hidden,
            "pooling": self.pooling,
            "dropout": self.dropout,
        }

    def transform(self, X: Sequence[str]) -> np.ndarray:
        """Sentence embeddings M, flattened: shape (n_documents, r * 2u).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of float32
        """
        embedding = self._outputs(X, ("embedding",))["embedding"]
        return embedding.reshape(len(embedding), -1)

    def explain(self, X: Sequence[str]) -> list[dict[str, Any]]:
        """Tokens and attention matrix A of each document.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        list of dict
            Per document: ``tokens`` (list of str, as kept after
            truncation; unknown words keep their text), ``attention``
            (ndarray (r, n_tokens), each row sums to 1), ``prediction``
            (a value of ``classes_``) and ``proba`` (ndarray (n_classes,)).
        """
        outputs = self._outputs(X, ("logits", "attention"))
        tokenized = self.encoder_.tokenize(X)
        probas = softmax(outputs["logits"].astype(np.float64), axis=1)
        return [
            {
                "tokens": [token for sentence in sentences for token in sentence],
                "attention": attention,
                "prediction": self.classes_[np.argmax(proba)],
                "proba": proba,
            }
            for sentences, attention, proba in zip(tokenized, outputs["attention"], probas)
        ]
