"""Serve an exported artefact with numpy and onnxruntime only.

Nothing here imports torch, skorch, scikit-learn or scipy: a served model
needs ``pip install numpy onnxruntime`` and this package's ``serving``
folder (``skattn/__init__.py`` imports nothing heavy either).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skattn.serving._text import TextPipeline

__all__ = [
    "ArtifactError",
    "OnnxTextClassifier",
    "OnnxTextEmbedder",
    "OnnxTextModel",
    "OnnxTextRegressor",
    "read_artifact",
]

FORMAT = "skattn-onnx"
SUPPORTED_VERSIONS = (1,)


class ArtifactError(ValueError):
    """An artefact that cannot be read: not a zip, truncated, altered or of another format.

    Examples
    --------
    >>> issubclass(ArtifactError, ValueError)
    True
    """


def read_artifact(path: str | Path) -> tuple[dict[str, Any], bytes]:
    """The config and the ONNX bytes of an artefact, checked before onnxruntime sees them.

    Raises
    ------
    ArtifactError
        The file is not a skattn artefact, is truncated or corrupted (its
        ONNX bytes do not match the recorded SHA-256), or was written by a
        newer format.

    Examples
    --------
    >>> read_artifact("missing.onnx.zip")
    Traceback (most recent call last):
    ...
    FileNotFoundError: missing.onnx.zip does not exist.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist.")
    try:
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json").decode("utf-8"))
            onnx_bytes = archive.read("model.onnx")
    except (
        zipfile.BadZipFile,
        KeyError,
        EOFError,
        json.JSONDecodeError,
        UnicodeDecodeError,
    ) as error:
        raise ArtifactError(
            f"{path} is not a readable skattn artefact (truncated, corrupted or another "
            f"kind of file): {error}. Export the model again with skattn.serving.export."
        ) from error
    if config.get("format") != FORMAT:
        raise ArtifactError(f"{path} is not a skattn artefact (format {config.get('format')!r}).")
    if config.get("format_version") not in SUPPORTED_VERSIONS:
        raise ArtifactError(
            f"{path} has format version {config.get('format_version')}; this runtime reads "
            f"{SUPPORTED_VERSIONS}. Upgrade skattn."
        )
    if hashlib.sha256(onnx_bytes).hexdigest() != config.get("onnx_sha256"):
        raise ArtifactError(f"{path}: the network's bytes do not match their checksum (corrupted).")
    return config, onnx_bytes


def _check_documents(X: Any) -> list[str]:
    """A list of str from a sequence of documents (bytes must be UTF-8), or a clear error."""
    if isinstance(X, (str, bytes)):
        raise TypeError("X is a single string; pass a list of documents, e.g. [text].")
    if not isinstance(X, Iterable):
        raise TypeError(f"X must be a sequence of documents, not {type(X).__name__}.")
    documents = []
    for i, doc in enumerate(X):
        if isinstance(doc, bytes):
            try:
                doc = doc.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(f"X[{i}] is bytes that are not UTF-8: {error}.") from None
        if not isinstance(doc, str):
            raise TypeError(
                f"X[{i}] is {type(doc).__name__} ({doc!r}); every document must be a str."
            )
        documents.append(doc)
    if not documents:
        raise ValueError("X holds no document.")
    return documents


def _check_pairs(X: Any) -> list[tuple[str, str]]:
    """A list of (str, str) from pairs of texts (tuples, lists or 2-column rows)."""
    if isinstance(X, (str, bytes)) or not isinstance(X, Iterable):
        raise TypeError("X must be a sequence of pairs of texts, e.g. [(first, second)].")
    if hasattr(X, "itertuples"):  # a 2-column DataFrame: its rows, not its column names
        X = X.itertuples(index=False)
    pairs = []
    for i, pair in enumerate(X):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable):
            raise TypeError(f"X[{i}] is {type(pair).__name__}; each sample is a pair of texts.")
        pair = list(pair)
        if len(pair) != 2:
            raise ValueError(f"X[{i}] holds {len(pair)} texts; each sample is a pair of texts.")
        first, second = _check_documents(pair)
        pairs.append((first, second))
    if not pairs:
        raise ValueError("X holds no pair.")
    return pairs


class OnnxTextModel:
    """What every served model shares: the artefact, the session, batched inference.

    Parameters
    ----------
    path : str or Path
        An artefact written by :func:`skattn.serving.export`.
    batch_size : int or None, default=None
        Samples per onnxruntime call; None: 64, or 8 for a hierarchical
        model (its batches pad every sentence to the batch's longest, so
        smaller groups of similar length run faster: see *Results*).
    threads : int or None, default=1
        onnxruntime's intra-op threads (None: its default, all cores).

    Examples
    --------
    >>> model = OnnxTextModel("model.onnx.zip")  # doctest: +SKIP
    >>> model.attention(["a good film"])[0]["tokens"]  # doctest: +SKIP
    ['a', 'good', 'film']
    """

    _task: str | None = None

    def __init__(self, path: str | Path, *, batch_size: int | None = None, threads: int | None = 1):
        import onnxruntime

        self.path = Path(path)
        self.config, onnx_bytes = read_artifact(self.path)
        if self._task is not None and self.config["task"] != self._task:
            raise ArtifactError(
                f"{self.path} holds a {self.config['estimator']} ({self.config['task']}); "
                f"{type(self).__name__} serves a {self._task}."
            )
        options = onnxruntime.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(
                onnx_bytes, options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own exception types
            raise ArtifactError(f"onnxruntime cannot load {self.path}: {error}") from error
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.text = TextPipeline(self.config["text"])
        self.architecture = self.config["architecture"]
        self.hierarchical = self.architecture == "hierarchical"
        self.reads_pairs = self.architecture == "pair"
        self.batch_size = batch_size or (8 if self.hierarchical else 64)

    def _samples(self, X) -> list:
        """Documents, or pairs of documents for a pair model, checked."""
        return _check_pairs(X) if self.reads_pairs else _check_documents(X)

    def _batch(self, chunk: list) -> tuple[dict[str, np.ndarray], list]:
        if self.hierarchical:
            return self.text.nested_batch(chunk)
        if not self.reads_pairs:
            return self.text.flat_batch(chunk)
        first, tokens = self.text.flat_batch([a for a, _ in chunk])
        second, tokens_b = self.text.flat_batch([b for _, b in chunk])
        arrays = {**first, **{f"{name}_b": value for name, value in second.items()}}
        return arrays, list(zip(tokens, tokens_b))

    def _run(self, samples: Sequence, outputs: Sequence[str]):
        """The named outputs for every sample, batch by batch, with each batch's tokens."""
        for start in range(0, len(samples), self.batch_size):
            arrays, tokens = self._batch(samples[start : start + self.batch_size])
            feed = {name: value for name, value in arrays.items() if name in self._inputs}
            yield dict(zip(outputs, self.session.run(list(outputs), feed))), tokens

    def _per_sample(self, samples: Sequence, name: str) -> np.ndarray:
        """One output row per sample, in the samples' order.

        Batches group samples of similar length (by characters), so that
        little of each batch is padding; the rows are put back in order.
        """
        lengths = [len(s) if isinstance(s, str) else len(s[0]) + len(s[1]) for s in samples]
        order = np.argsort(lengths, kind="stable")
        rows = np.concatenate(
            [out[name] for out, _ in self._run([samples[i] for i in order], [name])]
        )
        result = np.empty_like(rows)
        result[order] = rows
        return result

    def _logits(self, X) -> np.ndarray:
        return self._per_sample(self._samples(X), "logits")

    def attention(self, X) -> list[dict[str, Any]]:
        """Each document's kept tokens and attention weights, as the network computed them.

        Returns
        -------
        list of dict
            Self-attentive: ``tokens`` (list of str) and ``attention``
            (hops × tokens). Hierarchical: ``sentences`` (lists of tokens),
            ``sentence_attention`` and ``word_attention`` (one list per
            sentence). Pairs: the first text's ``tokens`` and ``attention``,
            the second's under ``"second"``.
        """
        documents = self._samples(X)
        records = []
        if self.reads_pairs:
            for out, pairs in self._run(documents, ["attention", "attention_b"]):
                for i, (tokens, tokens_b) in enumerate(pairs):
                    records.append(
                        {
                            "tokens": tokens,
                            "attention": out["attention"][i, :, : len(tokens)],
                            "second": {
                                "tokens": tokens_b,
                                "attention": out["attention_b"][i, :, : len(tokens_b)],
                            },
                        }
                    )
        elif self.hierarchical:
            names = ["sentence_attention", "word_attention"]
            for out, docs in self._run(documents, names):
                for i, sentences in enumerate(docs):
                    records.append(
                        {
                            "sentences": sentences,
                            "sentence_attention": out["sentence_attention"][i, : len(sentences)],
                            "word_attention": [
                                out["word_attention"][i, j, : len(s)]
                                for j, s in enumerate(sentences)
                            ],
                        }
                    )
        else:
            for out, docs in self._run(documents, ["attention"]):
                for i, tokens in enumerate(docs):
                    records.append(
                        {"tokens": tokens, "attention": out["attention"][i, :, : len(tokens)]}
                    )
        return records


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    logits = logits.astype(np.float64)
    # Both branches finite for any logit (no overflow in exp).
    positive = 1.0 / (1.0 + np.exp(-np.abs(logits)))
    return np.where(logits >= 0, positive, 1.0 - positive)


class OnnxTextClassifier(OnnxTextModel):
    """A served attention classifier: ``predict``, ``predict_proba``, ``attention``.

    Parameters
    ----------
    path : str or Path
        An artefact of a fitted classifier (:func:`skattn.serving.export`).
    batch_size : int or None, default=None
        See :class:`OnnxTextModel`.
    threads : int or None, default=1

    Attributes
    ----------
    classes_ : ndarray
        The labels, as the estimator had them.

    Examples
    --------
    >>> served = OnnxTextClassifier("review_model.onnx.zip")  # doctest: +SKIP
    >>> served.predict(["a moving, funny film"])  # doctest: +SKIP
    array(['pos'], dtype='<U3')
    """

    _task = "classifier"

    def __init__(self, path: str | Path, *, batch_size: int | None = None, threads: int | None = 1):
        super().__init__(path, batch_size=batch_size, threads=threads)
        classes = self.config["classes"]
        dtype = object if classes["dtype"] == "object" else np.dtype(classes["dtype"])
        self.classes_ = np.array(classes["values"], dtype=dtype)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_documents, n_classes), float64.

        Multi-label: each label's probability, (n_documents, n_labels).
        """
        logits = self._logits(X)
        return _sigmoid(logits) if self.config.get("multilabel") else _softmax(logits)

    def predict(self, X) -> np.ndarray:
        """Each document's class, or its 0/1 label row (multi-label), as the estimator decides.

        The estimator's ``thresholds_`` apply (multi-label and binary);
        without them, the most probable class.
        """
        proba = self.predict_proba(X)
        thresholds = self.config.get("thresholds")
        if self.config.get("multilabel"):
            cut = 0.5 if thresholds is None else np.asarray(thresholds)
            return (proba >= cut).astype(self.config.get("target_dtype") or np.int64)
        if thresholds is None:
            return self.classes_[np.argmax(proba, axis=1)]
        return self.classes_[(proba[:, 1] >= thresholds[0]).astype(np.int64)]


class OnnxTextRegressor(OnnxTextModel):
    """A served attention regressor: ``predict`` and ``attention``.

    Examples
    --------
    >>> served = OnnxTextRegressor("relatedness.onnx.zip")  # doctest: +SKIP
    >>> served.predict(["a moving, funny film"]).shape  # doctest: +SKIP
    (1,)
    """

    _task = "regressor"

    def predict(self, X) -> np.ndarray:
        """Predicted values: shape (n,) for a 1-D training target, else (n, n_outputs)."""
        config = self.config
        values = self._logits(X).astype(np.float64) * np.asarray(
            config["target_scale"]
        ) + np.asarray(config["target_mean"])
        return values.ravel() if config["target_ndim"] == 1 else values


class OnnxTextEmbedder(OnnxTextModel):
    """A served self-attentive embedding (M, flattened or pooled over the hops).

    ``output`` is the exported embedder's (or "flatten" for a classifier's
    artefact).

    Examples
    --------
    >>> served = OnnxTextEmbedder("embedder.onnx.zip")  # doctest: +SKIP
    >>> served.transform(["a film"]).shape  # doctest: +SKIP
    (1, 800)
    """

    def __init__(self, path: str | Path, *, batch_size: int | None = None, threads: int | None = 1):
        super().__init__(path, batch_size=batch_size, threads=threads)
        if self.architecture != "self_attentive":
            raise ArtifactError(
                f"{self.path} holds a {self.architecture} model; embeddings come from "
                "single-text self-attentive ones."
            )
        self.output = self.config.get("embedder_output", "flatten")

    def transform(self, X) -> np.ndarray:
        """Each document's embedding M: (n, r · 2u) flattened, or (n, 2u) pooled over hops."""
        documents = _check_documents(X)
        embedding = self._per_sample(documents, "sentence_embedding")
        if self.output == "max":
            return embedding.max(axis=1)
        if self.output == "mean":
            return embedding.mean(axis=1)
        return embedding.reshape(len(embedding), -1)
