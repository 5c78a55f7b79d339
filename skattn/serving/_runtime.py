"""Serve an exported artefact with numpy and onnxruntime only.

Nothing here imports torch, skorch, scikit-learn or scipy: a served model
needs ``pip install numpy onnxruntime`` and this package's ``serving``
folder (``skattn/__init__.py`` imports nothing heavy either).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skattn.decisions import DecisionRule
from skattn.serving._artifact import CONFIG, NETWORK, ArtifactError, read_artifact
from skattn.serving._text import TextPipeline
from skattn.text._streaming import check_document_iterable
from skattn.utils._archives import DEFAULT_MAX_BYTES
from skattn.utils._documents import check_pairs, check_text_column, not_a_document

__all__ = [
    "ArtifactError",
    "OnnxTextClassifier",
    "OnnxTextEmbedder",
    "OnnxTextModel",
    "OnnxTextRegressor",
    "read_artifact",
]


def _text(value: Any, where: str) -> str:
    """One text, refused as the estimators refuse it unless it is a str (bytes too)."""
    if not isinstance(value, str):
        raise TypeError(not_a_document(value, where))
    return value


def _check_documents(X: Any, feature_names: list[str] | None = None) -> list[str]:
    """A list of str from an ordered iterable of documents.

    A str, a dict, a set or a DataFrame of several columns is refused
    (:func:`skattn.text._streaming.check_document_iterable`): iterating it would
    read characters, keys, items in no order or column names.
    """
    check_text_column(X, feature_names)
    documents = [_text(doc, f"X[{i}]") for i, doc in enumerate(check_document_iterable(X))]
    if not documents:
        raise ValueError("X is empty; at least one document is needed.")
    return documents


def _check_pairs(X: Any, feature_names: list[str] | None = None) -> list[tuple[str, str]]:
    """A list of (str, str), checked by the estimators' own rule; an iterator is read first."""
    if isinstance(X, Iterator):
        X = list(X)
    return check_pairs(X, feature_names)


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
    max_bytes : int, default=2**30
        The most bytes the artefact's members may declare in all, checked
        before anything is decompressed (:func:`read_artifact`).

    Attributes
    ----------
    config : dict
        The artefact's validated configuration.
    decision_rule_ : skattn.decisions.DecisionRule
        How scores become predictions, as the estimator decided.
    feature_names_in_ : list of str or None
        The columns of the DataFrame the model was fitted on (a pair model's
        two, read by name; a text model's one, which a DataFrame must hold).

    Raises
    ------
    ArtifactError
        The artefact is unreadable, altered or invalid (see
        :func:`read_artifact`), its network does not take the inputs its
        configuration feeds, or gives another number of scores than its
        decision rule reads.

    Examples
    --------
    >>> model = OnnxTextModel("model.onnx.zip")  # doctest: +SKIP
    >>> model.attention(["a good film"])[0]["tokens"]  # doctest: +SKIP
    ['a', 'good', 'film']
    """

    _task: str | None = None

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int | None = None,
        threads: int | None = 1,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ):
        import onnxruntime

        self.path = Path(path)
        self.config, onnx_bytes = read_artifact(self.path, max_bytes=max_bytes)
        if self._task is not None and self.config["task"] != self._task:
            raise ArtifactError(
                self.path,
                None,
                f"it holds a {self.config['estimator']} ({self.config['task']}); "
                f"{type(self).__name__} serves a {self._task}",
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
            raise ArtifactError(
                self.path, NETWORK, f"onnxruntime cannot load it: {error}"
            ) from error
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.text = TextPipeline(self.config["text"])
        self.architecture = self.config["architecture"]
        self.hierarchical = self.architecture == "hierarchical"
        self.reads_pairs = self.architecture == "pair"
        self.feature_names_in_ = self.config.get("feature_names_in")
        self.decision_rule_ = DecisionRule.from_config(self.config["decision"])
        self.batch_size = batch_size or (8 if self.hierarchical else 64)
        self._check_network()

    def _check_network(self) -> None:
        """The network takes the inputs the configuration feeds and gives one score per class.

        One document of one token, the vocabulary's last id (and the last
        subword bucket), is run: a vocabulary larger than the network's
        embedding, or a decision rule for another number of classes, is
        refused here rather than at the first request.
        """
        sides = ("", "_b") if self.reads_pairs else ("",)
        required = {f"{name}{side}" for name in ("tokens", "lengths") for side in sides}
        buckets = self.config["text"]["subword_buckets"]
        optional = {f"subwords{side}" for side in sides} if buckets is not None else set()
        if not required <= self._inputs or self._inputs - required - optional:
            raise ArtifactError(
                self.path,
                NETWORK,
                f"its inputs {sorted(self._inputs)} are not those {CONFIG} feeds "
                f"({sorted(required)}, and {sorted(optional)} with subwords)",
            )
        outputs = [output.name for output in self.session.get_outputs()]
        if outputs != self.config["outputs"]:
            raise ArtifactError(
                self.path,
                NETWORK,
                f"its outputs {outputs} are not {CONFIG}'s {self.config['outputs']}",
            )
        shape = (1, 1, 1) if self.hierarchical else (1, 1)
        feed = {}
        for side in sides:
            feed[f"tokens{side}"] = np.full(
                shape, len(self.config["text"]["id_to_token"]) - 1, dtype=np.int64
            )
            feed[f"lengths{side}"] = np.ones(shape[:-1], dtype=np.int64)
            if f"subwords{side}" in self._inputs:
                feed[f"subwords{side}"] = np.full((*shape, 1), buckets, dtype=np.int64)
        try:
            (logits,) = self.session.run(["logits"], feed)
        except Exception as error:  # onnxruntime raises its own exception types
            raise ArtifactError(
                self.path, NETWORK, f"it does not run on {CONFIG}'s vocabulary: {error}"
            ) from error
        expected = self.decision_rule_.n_scores
        if logits.shape != (1, expected):
            raise ArtifactError(
                self.path,
                CONFIG,
                f"its decision rule reads {expected} scores; {NETWORK} gives {logits.shape[1:]}",
            )

    def _samples(self, X) -> list:
        """Documents, or pairs of documents for a pair model, checked."""
        if self.reads_pairs:
            return _check_pairs(X, self.feature_names_in_)
        return _check_documents(X, self.feature_names_in_)

    def token_bound(self, X) -> int:
        """An upper bound of :meth:`count_tokens` that tokenises nothing.

        A token holds at least one character and a blank text is one token,
        so a text reads at most its length, and at most what the truncation
        rule keeps (``max_length`` tokens; ``max_sentences`` sentences of
        ``max_sentence_length``).

        Examples
        --------
        >>> model = OnnxTextModel("model.onnx.zip")  # doctest: +SKIP
        >>> model.token_bound(["a good film", ""])  # doctest: +SKIP
        12
        """
        config = self.text.config
        limits = [config["max_length"]]
        if config["max_sentences"] is not None and config["max_sentence_length"] is not None:
            limits.append(config["max_sentences"] * config["max_sentence_length"])
        kept = min((limit for limit in limits if limit is not None), default=None)
        lengths = (max(len(text), 1) for text in self._texts(X))
        return sum(lengths if kept is None else (min(n, max(kept, 1)) for n in lengths))

    def count_tokens(self, X, stop_above: int | None = None) -> int:
        """Tokens the network reads for ``X``: each text's tokens as truncated, summed.

        What a request costs: the network runs on these tokens, and
        ``attention`` returns weights for each (a blank text is one token,
        ``<empty>``; a pair counts both texts).

        Parameters
        ----------
        X : documents, or pairs of documents for a pair model
        stop_above : int or None, default=None
            Stop counting once the total passes it (the number returned is
            then above ``stop_above``, not the whole count).

        Examples
        --------
        >>> model = OnnxTextModel("model.onnx.zip")  # doctest: +SKIP
        >>> model.count_tokens(["a good film", ""])  # doctest: +SKIP
        4
        """
        total = 0
        for text in self._texts(X):
            total += sum(map(len, self.text.tokenize(text)))
            if stop_above is not None and total > stop_above:
                break
        return total

    def _texts(self, X) -> list[str]:
        """The texts of ``X``, checked: each document, or both texts of each pair."""
        samples = self._samples(X)
        return [text for pair in samples for text in pair] if self.reads_pairs else samples

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
    batch_size, threads, max_bytes
        See :class:`OnnxTextModel`.

    Attributes
    ----------
    classes_ : ndarray
        The labels, as the estimator had them.
    label_names_ : ndarray of str
        A multi-label model fitted on named columns (only then): each
        label's name, as the estimator had them.

    Examples
    --------
    >>> served = OnnxTextClassifier("review_model.onnx.zip")  # doctest: +SKIP
    >>> served.predict(["a moving, funny film"])  # doctest: +SKIP
    array(['pos'], dtype='<U3')
    """

    _task = "classifier"

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int | None = None,
        threads: int | None = 1,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ):
        super().__init__(path, batch_size=batch_size, threads=threads, max_bytes=max_bytes)
        self.classes_ = self.decision_rule_.classes_array
        if self.decision_rule_.label_names is not None:
            self.label_names_ = np.array(self.decision_rule_.label_names, dtype=object)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, shape (n_documents, n_classes), float64.

        Multi-label: each label's probability, (n_documents, n_labels).
        """
        logits = self._logits(X)
        return _sigmoid(logits) if self.decision_rule_.kind == "multilabel" else _softmax(logits)

    def predict(self, X) -> np.ndarray:
        """Each document's class, or its 0/1 label row (multi-label), as the estimator decides.

        The estimator's decision rule (``decision_rule_``: the most probable
        class, its tuned or fixed binary threshold, or each label's
        threshold) is the artefact's, applied by :mod:`skattn.decisions`.
        """
        return self.decision_rule_.decide(self.predict_proba(X))


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
        return self.decision_rule_.decide(self._logits(X))


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

    def __init__(
        self,
        path: str | Path,
        *,
        batch_size: int | None = None,
        threads: int | None = 1,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ):
        super().__init__(path, batch_size=batch_size, threads=threads, max_bytes=max_bytes)
        if self.architecture != "self_attentive":
            raise ArtifactError(
                self.path,
                None,
                f"it holds a {self.architecture} model; embeddings come from single-text "
                "self-attentive ones",
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
