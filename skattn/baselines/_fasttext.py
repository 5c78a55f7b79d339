"""fastText's supervised classifier as a scikit-learn estimator: the baseline users try first.

:class:`FastTextClassifier` wraps the ``fasttext`` package (installed by the
``fasttext`` extra: ``pip install 'skattn[fasttext]'``, which pulls
``fasttext-numpy2-wheel``, a build of Facebook's fastText 0.9 for NumPy 2).
fastText reads its training data from a file, so ``fit`` writes the
documents in fastText's format (``__label__<class index> <text>``, one
document a line) to a temporary directory of its own, trains, and removes
the directory; nothing is written anywhere else.

Defaults: word bigrams (``word_ngrams=2``), 5 epochs (more on small
corpora, ``epoch="auto"``), one thread, learning
rate 0.5, and the normalisation of fastText's own tutorial (lowercase, a
space around ``. ! ? , ' / ( )``). fastText's default learning rate for
supervised training (0.1) underfits in 5 epochs on small corpora (RESULTS.md
has the measurements).

``bucket × dim`` must be at least 2**23 float32 cells and ``word_ngrams``
at least 2: with one thread, fastText 0.9 initialises only part of a
smaller input matrix (fits then differ from run to run); see RESULTS.md.
For the same reason training runs in a fresh Python process
(:mod:`skattn.baselines._fasttext_worker`), whose memory is new, and the model comes
back through fastText's own file format.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from skattn.decisions import DecisionRule
from skattn.utils._params import POSITIVE_INT, Interval, Options, validate_params
from skattn.utils._validation import check_labels, check_text_input, seed_from, text_input_tags

#: The label prefix of the training file (fastText's option ``label``).
_LABEL = "__label__"
#: The punctuation fastText's tutorial separates from words.
_PUNCTUATION = re.compile(r"([.!?,'/()])")
#: Fewest float32 cells of the hash buckets: 32 MiB, always fresh memory (see the module notes).
MIN_BUCKET_CELLS = 2**23
#: ``epoch="auto"`` trains at least this many updates (documents × passes):
#: five passes over 1,600 long reviews stay at chance (RESULTS.md).
MIN_UPDATES = 40_000


def fasttext_available() -> bool:
    """Whether the ``fasttext`` package imports (the ``fasttext`` extra is installed).

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(fasttext_available(), bool)
    True
    """
    try:
        import fasttext  # noqa: F401
    except ImportError:
        return False
    return True


def _import_fasttext():
    try:
        import fasttext
    except ImportError as error:
        raise ImportError(
            "FastTextClassifier needs the fasttext package, which is not installed. "
            "Install the fasttext extra: pip install 'skattn[fasttext]' "
            "(or pip install fasttext-numpy2-wheel)."
        ) from error
    return fasttext


def _train_in_a_fresh_process(train_path: str, model_path: str, options: dict) -> None:
    """Run fastText's training in a new Python process (``_fasttext_worker.py`` beside it).

    With one thread fastText 0.9 initialises a tenth of its input matrix
    and leaves the rest as the allocator hands it over: fresh (zeroed)
    memory in a new process, but possibly memory this long-running
    process freed earlier, which made fits differ from run to run.
    """
    # The worker runs by its path: it imports only json, sys and fasttext.
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_fasttext_worker.py")
    plain = {k: v.item() if hasattr(v, "item") else v for k, v in options.items()}
    command = [sys.executable, worker, train_path, model_path, json.dumps(plain)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"fastText training failed (exit code {done.returncode}): "
            f"{done.stderr.strip()[-2000:] or 'no message'}"
        )


class FastTextClassifier(ClassifierMixin, BaseEstimator):
    """fastText's supervised text classifier (Joulin et al. 2017) with a scikit-learn API.

    Raw strings in, labels of any type out; works with ``clone``,
    ``Pipeline``, ``GridSearchCV`` and ``pickle``.

    Parameters
    ----------
    word_ngrams : int, default=2
        Longest word n-gram used as a feature (fastText's ``wordNgrams``);
        at least 2 (see the module notes).
    epoch : int or "auto", default="auto"
        Passes over the training documents. "auto": 5, or as many as make
        :data:`MIN_UPDATES` updates (one per document and pass) on small
        corpora; the number used is ``epoch_``.
    lr : float, default=0.5
        Learning rate (fastText's default, 0.1, underfits in 5 epochs; see
        the module's measurements).
    dim : int, default=100
        Size of the word vectors.
    min_count : int, default=1
        Words seen fewer times are ignored.
    bucket : int, default=2_000_000
        Hash buckets for the n-grams (fastText's default). The input matrix
        holds ``(vocabulary + bucket) × dim`` floats: about 800 MB at the
        defaults; a smaller value saves memory and time for a few collisions,
        down to ``bucket × dim ≥ 2**23`` (see the module notes).
    lowercase : bool, default=True
        Lowercase the documents.
    split_punctuation : bool, default=True
        Put a space around ``. ! ? , ' / ( )``, as fastText's tutorial does
        (fastText splits words on whitespace only).
    thread : int, default=1
        Training threads. With one thread a fit is reproducible.
    random_state : int, RandomState or None, default=None
        fastText's ``seed``: an int is used as it is, otherwise one is drawn.
        (fastText's generator treats seeds 0 and 1 alike.)

    Attributes
    ----------
    classes_ : ndarray
        The labels seen in ``fit``, sorted; the columns of ``predict_proba``.
    model_ : fasttext.FastText._FastText
        The trained fastText model.
    epoch_ : int
        The number of passes trained.
    label_columns_ : ndarray of int
        The column of ``classes_`` of each of ``model_.labels``.

    Examples
    --------
    >>> clf = FastTextClassifier(epoch=20, bucket=100_000, random_state=0)
    >>> X = ["a good film", "a great film", "a bad film", "an awful film"] * 10
    >>> y = ["pos", "pos", "neg", "neg"] * 10
    >>> clf = clf.fit(X, y)
    >>> clf.classes_.tolist(), clf.predict_proba(["good film"]).shape
    (['neg', 'pos'], (1, 2))
    >>> clf.get_params()["word_ngrams"]
    2
    """

    _parameter_constraints: dict = {
        "word_ngrams": [Interval(Integral, 2, None, "left")],
        "epoch": [POSITIVE_INT, Options({"auto"})],
        "lr": [Interval(Real, 0, None, "neither")],
        "dim": [POSITIVE_INT],
        "min_count": [POSITIVE_INT],
        "bucket": [POSITIVE_INT],
        "lowercase": ["boolean"],
        "split_punctuation": ["boolean"],
        "thread": [POSITIVE_INT],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        word_ngrams: int = 2,
        epoch: int | str = "auto",
        lr: float = 0.5,
        dim: int = 100,
        min_count: int = 1,
        bucket: int = 2_000_000,
        lowercase: bool = True,
        split_punctuation: bool = True,
        thread: int = 1,
        random_state=None,
    ):
        self.word_ngrams = word_ngrams
        self.epoch = epoch
        self.lr = lr
        self.dim = dim
        self.min_count = min_count
        self.bucket = bucket
        self.lowercase = lowercase
        self.split_punctuation = split_punctuation
        self.thread = thread
        self.random_state = random_state

    def _lines(self, X) -> list[str]:
        """Documents as fastText reads them: one line each, normalised."""
        lines = []
        for doc in check_text_input(X):
            if self.lowercase:
                doc = doc.lower()
            if self.split_punctuation:
                doc = _PUNCTUATION.sub(r" \1 ", doc)
            # One line per document (a line break ends an example), no NUL,
            # and never a token fastText would read as a label.
            words = doc.replace("\0", " ").split()
            lines.append(" ".join(w for w in words if not w.startswith(_LABEL)))
        return lines

    def fit(self, X: Sequence[str], y) -> FastTextClassifier:
        """Train fastText on documents ``X`` with labels ``y``.

        Parameters
        ----------
        X : sequence of str
            Training documents.
        y : array-like of shape (n_documents,)
            Labels of any type.

        Returns
        -------
        self : FastTextClassifier
        """
        validate_params(self)
        if self.bucket * self.dim < MIN_BUCKET_CELLS:
            raise ValueError(
                f"bucket * dim must be at least 2**23 = {MIN_BUCKET_CELLS}, got "
                f"{self.bucket} * {self.dim}: fastText leaves most of a smaller input matrix "
                "uninitialised (irreproducible fits, 'Encountered NaN'). Use bucket >= "
                f"{-(-MIN_BUCKET_CELLS // self.dim)} for dim={self.dim}."
            )
        fasttext = _import_fasttext()
        lines = self._lines(X)
        y = check_labels(y, len(lines))
        self.classes_, encoded = np.unique(y, return_inverse=True)
        seed = seed_from(self.random_state)
        self.epoch_ = (
            max(5, -(-MIN_UPDATES // max(1, len(lines)))) if self.epoch == "auto" else self.epoch
        )
        with tempfile.TemporaryDirectory(prefix="skattn-fasttext-") as folder:
            path = os.path.join(folder, "train.txt")
            # fastText reads its file in order and decays its learning rate
            # along it: documents grouped by class (as the fetchers and
            # K-fold indices give them) would leave it at the last class.
            order = np.random.RandomState(seed).permutation(len(lines))
            with open(path, "w", encoding="utf-8") as handle:
                for row in order:
                    handle.write(f"{_LABEL}{encoded[row]} {lines[row]}\n")
            options = {
                "label": _LABEL,
                "wordNgrams": self.word_ngrams,
                "epoch": self.epoch_,
                "lr": self.lr,
                "dim": self.dim,
                "minCount": self.min_count,
                "bucket": self.bucket,
                "thread": self.thread,
                "seed": seed,
                "verbose": 0,
            }
            model_path = os.path.join(folder, "model.bin")
            _train_in_a_fresh_process(path, model_path, options)
            self.model_ = fasttext.load_model(model_path)
        # The column of predict_proba for each of fastText's labels.
        self.label_columns_ = np.array([int(label[len(_LABEL) :]) for label in self.model_.labels])
        return self

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, columns in ``classes_`` order; each row sums to 1.

        fastText adds 1e-5 to each probability it reports (it works with
        log(p + 1e-5)); rows are normalised again.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents, n_classes)
        """
        check_is_fitted(self, "model_")
        labels, probabilities = self.model_.predict(self._lines(X), k=-1)
        proba = np.zeros((len(labels), len(self.classes_)))
        index = {label: column for label, column in zip(self.model_.labels, self.label_columns_)}
        for row, (names, values) in enumerate(zip(labels, probabilities)):
            proba[row, [index[name] for name in names]] = values
        return proba / proba.sum(axis=1, keepdims=True)

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """The most probable class of each document (a value of ``classes_``).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        ndarray of shape (n_documents,)
        """
        proba = self.predict_proba(X)  # checks that the model is fitted
        return DecisionRule.argmax(self.classes_).decide(proba)

    def score(self, X: Sequence[str], y, sample_weight=None) -> float:
        """Accuracy of ``predict`` on documents ``X`` with true labels ``y``.

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n_documents,)
        sample_weight : array-like of shape (n_documents,), optional

        Returns
        -------
        float
        """
        return super().score(X, y, sample_weight=sample_weight)

    def __getstate__(self) -> dict:
        # A fastText model is a C++ object: pickle the bytes of its file.
        state = dict(self.__dict__)
        if "model_" in state:
            with tempfile.TemporaryDirectory(prefix="skattn-fasttext-") as folder:
                path = os.path.join(folder, "model.bin")
                state["model_"].save_model(path)
                with open(path, "rb") as handle:
                    state["model_"] = handle.read()
        return state

    def __setstate__(self, state: dict) -> None:
        if isinstance(state.get("model_"), bytes):
            fasttext = _import_fasttext()
            with tempfile.TemporaryDirectory(prefix="skattn-fasttext-") as folder:
                path = os.path.join(folder, "model.bin")
                with open(path, "wb") as handle:
                    handle.write(state["model_"])
                state["model_"] = fasttext.load_model(path)
        self.__dict__.update(state)

    def __sklearn_tags__(self):
        tags = text_input_tags(super().__sklearn_tags__())
        tags.non_deterministic = self.random_state is None or self.thread > 1
        return tags
