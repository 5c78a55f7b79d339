"""Write a fitted estimator as a portable artefact: ONNX network + JSON text settings.

The graphs below reuse the trained layers but take every length from the
input's shape, never from a tensor's value, so the exported graph keeps
dynamic batch, sentence and word axes (the PyTorch exporter freezes any
length computed with ``int(tensor)`` to the example's). The bidirectional
RNN is the same reversal-in-place as :class:`~skattn.nn.BiRNNEncoder`:
no ``PackedSequence``. This module imports torch; the runtime that reads
the artefact (:mod:`skattn.serving._runtime`) does not.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from skattn.nn._self_attentive import pool_hops
from skattn.serving._artifact import (
    CONFIG,
    NETWORK,
    OUTPUTS,
    check_artifact_name,
    check_config,
)
from skattn.text._subwords import MAX_NGRAMS, NGRAM_RANGE
from skattn.text._unicode import json_text
from skattn.utils._archives import write_archive

__all__ = ["export"]

#: Format name and version written into every artefact's config (see skattn.serving._artifact).
FORMAT, FORMAT_VERSION = "skattn-onnx", 2
#: onnxruntime 1.2x runs opsets up to 21+; 18 is what the exporter targets well.
OPSET = 18
#: One in-process export at a time: the TorchScript exporter keeps process-wide
#: flags, and ``warnings.catch_warnings`` is not safe across threads.
_EXPORT_LOCK = threading.Lock()


def _bidirectional(encoder: nn.Module, inputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """:class:`~skattn.nn.BiRNNEncoder`'s outputs, the width read from ``inputs``."""
    positions = torch.arange(inputs.shape[1]).unsqueeze(0)
    limit = lengths.unsqueeze(1)
    index = torch.where(positions < limit, limit - 1 - positions, positions).unsqueeze(-1)
    forward_states, _ = encoder.forward_rnn(inputs)
    backward_states, _ = encoder.backward_rnn(inputs.gather(1, index.expand_as(inputs)))
    backward_states = backward_states.gather(1, index.expand(-1, -1, backward_states.shape[-1]))
    states = torch.cat([forward_states, backward_states], dim=-1)
    return states * (positions < limit).unsqueeze(-1)


def _embed(net: nn.Module, tokens: torch.Tensor, subwords: torch.Tensor | None) -> torch.Tensor:
    """Word vectors plus, with subwords, the mean of each token's n-gram vectors."""
    vectors = net.embedding(tokens)
    bag = getattr(net, "subword_embedding", None)
    if bag is not None and subwords is not None:
        # EmbeddingBag(mode="mean", padding_idx=0), written out for the exporter.
        real = (subwords > 0).unsqueeze(-1).to(vectors.dtype)
        summed = (bag.bag.weight[subwords] * real).sum(-2)
        vectors = vectors + summed / real.sum(-2).clamp(min=1.0)
    return vectors


def _matrix_embedding(net: nn.Module, tokens, lengths, subwords=None):
    """M (batch, hops, 2u) and A (batch, hops, time) of padded token ids."""
    states = _bidirectional(net.encoder, _embed(net, tokens, subwords), lengths)
    mask = torch.arange(tokens.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
    return net.attention(states, mask)


class SelfAttentiveGraph(nn.Module):
    """tokens (batch, time), lengths (batch,) [, subwords] → logits, attention, embedding M."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, tokens, lengths, subwords=None):
        net = self.net
        embedding, attention = _matrix_embedding(net, tokens, lengths, subwords)
        return net.classifier(pool_hops(embedding, net.pooling)), attention, embedding


def _per_hop(matrix: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """(batch, hops, k) × (hops, k, d) → (batch, hops, d), hop by hop.

    A batched matmul rather than ``einsum``: onnxruntime's Einsum kernel
    fails on some batch-1 shapes.
    """
    return torch.matmul(matrix.transpose(0, 1), weights).transpose(0, 1)


class PairGraph(nn.Module):
    """Both texts' tokens and lengths (``_b``: the second) → logits, both attentions, features."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, tokens, lengths, tokens_b, lengths_b, subwords=None, subwords_b=None):
        net = self.net
        first, attention = _matrix_embedding(net, tokens, lengths, subwords)
        second, attention_b = _matrix_embedding(net, tokens_b, lengths_b, subwords_b)
        features = _per_hop(first, net.gate_first) * _per_hop(second, net.gate_second)
        if getattr(net, "pair_features", "gated") == "matching":
            features = torch.cat([features, (first - second).abs(), first * second], dim=2)
        return net.classifier(features.flatten(1)), attention, attention_b, features


class HierarchicalGraph(nn.Module):
    """tokens (batch, sentences, words), lengths (batch, sentences) [, subwords] →
    logits, sentence attention, word attention, document vector."""

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, tokens, lengths, subwords=None):
        net = self.net
        batch, n_sentences, n_words = tokens.shape[0], tokens.shape[1], tokens.shape[2]
        flat_lengths = lengths.reshape(-1)
        flat_subwords = (
            None if subwords is None else subwords.reshape(batch * n_sentences, n_words, -1)
        )
        vectors = _embed(net, tokens.reshape(-1, n_words), flat_subwords)
        # Padding sentences run with one (padding) word; their results are dropped.
        states = _bidirectional(net.word_encoder, vectors, flat_lengths.clamp(min=1))
        word_mask = torch.arange(n_words).unsqueeze(0) < flat_lengths.unsqueeze(1)
        sentence_vectors, word_weights = net.word_pooling(states, word_mask)
        real = lengths > 0
        flat_real = real.reshape(-1, 1)
        sentence_vectors = torch.where(
            flat_real, sentence_vectors, torch.zeros_like(sentence_vectors)
        )
        word_weights = torch.where(flat_real, word_weights, torch.zeros_like(word_weights))
        sentences = sentence_vectors.reshape(batch, n_sentences, -1)
        sentence_states = _bidirectional(net.sentence_encoder, sentences, real.sum(1))
        document, sentence_weights = net.sentence_pooling(sentence_states, real)
        logits = net.classifier(document)
        return logits, sentence_weights, word_weights.reshape(batch, n_sentences, n_words), document


def _text_config(estimator) -> dict[str, Any]:
    encoder = estimator.encoder_
    for name in ("tokenizer", "sentence_split"):
        value = getattr(encoder, name, None)
        if callable(value):
            raise ValueError(
                f"{name}={value!r} is Python code, which an artefact cannot carry. Export a "
                f"model trained with a built-in {name} ("
                + (
                    '"whitespace", "characters" or None'
                    if name == "tokenizer"
                    else '"punctuation", "lines" or None'
                )
                + ")."
            )
    return {
        "lowercase": bool(encoder.lowercase),
        "token_pattern": encoder.token_pattern,
        "tokenizer": encoder.tokenizer,
        "strip_accents": encoder.strip_accents,
        "analyzer": encoder.analyzer,
        "sentence_split": getattr(encoder, "sentence_split", None),
        "max_length": encoder.max_length,
        "max_sentences": getattr(encoder, "max_sentences", None),
        "max_sentence_length": getattr(encoder, "max_sentence_length", None),
        "subword_buckets": getattr(encoder, "subword_buckets", None),
        "ngram_range": list(NGRAM_RANGE),
        "max_ngrams": MAX_NGRAMS,
        "id_to_token": list(encoder.id_to_token_),
        "empty_id": int(encoder.empty_id_),
    }


def _task_config(estimator) -> dict[str, Any]:
    """The task and the decision rule (:mod:`skattn.decisions`) of a fitted estimator."""
    from skattn.estimators._base import AttentionClassifierBase, AttentionRegressorBase

    if isinstance(estimator, AttentionClassifierBase):
        task = "classifier"
        classes = np.asarray(estimator.classes_)
        values = classes.tolist()
        if classes.dtype.kind == "O" and not all(
            isinstance(v, (str, int, float, bool)) for v in values
        ):
            raise ValueError("only str, int, float and bool classes can be exported.")
    elif isinstance(estimator, AttentionRegressorBase):
        task = "regressor"
    else:
        raise TypeError(f"cannot export {type(estimator).__name__}: not a skattn text estimator.")
    config = {"task": task, "decision": estimator.decision_rule_.to_config()}
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        config["feature_names_in"] = [str(name) for name in names]
    return config


def _unwrap(estimator):
    """The estimator whose network is exported, and the embedder's output (if any)."""
    from skattn.estimators._embedder import SelfAttentiveEmbedder

    if isinstance(estimator, SelfAttentiveEmbedder):
        if not hasattr(estimator, "classifier_"):
            raise ValueError("the SelfAttentiveEmbedder is not fitted; call fit first.")
        return estimator.classifier_, estimator.output
    return estimator, None


def export(estimator, path: str | Path) -> Path:
    """Write a fitted skattn estimator as a portable artefact (one zip file).

    The artefact holds the network as ONNX (dynamic batch and length axes;
    outputs: logits, attention weights and the embedding or document
    vector) and, as JSON, everything the text needs: tokenizer settings,
    sentence splitting, truncation limits, the vocabulary with its
    unknown-word and blank-document ids, subword hashing, and the
    estimator's decision rule (``decision_rule_``: its classes and
    thresholds, or the regression targets' scale). A manifest records the
    SHA-256 and size of both members (:mod:`skattn.serving._artifact`). The
    file is written under a temporary name in the same folder and renamed,
    so an existing file is replaced only by a complete one.
    :class:`skattn.serving.OnnxTextClassifier` and its siblings serve it
    with numpy and onnxruntime only.

    Parameters
    ----------
    estimator : fitted skattn estimator
        Either classifier or regressor, the pair classifier or regressor,
        or a :class:`~skattn.SelfAttentiveEmbedder`.
    path : str or Path
        Where to write (``*.onnx.zip``; ``*.onnx`` is refused: it is a zip).

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        The estimator is not fitted, or its tokenizer or sentence splitter
        is Python code (the parameter is named), or ``path`` ends in ``.onnx``.
    TypeError
        Not a skattn text estimator.

    Examples
    --------
    >>> from skattn import SelfAttentiveClassifier
    >>> from skattn.serving import OnnxTextClassifier, export
    >>> X, y = ["a good film", "a bad film"] * 8, ["pos", "neg"] * 8
    >>> clf = SelfAttentiveClassifier(hidden_size=4, attention_hops=2, max_epochs=2,
    ...                               random_state=0).fit(X, y)
    >>> served = OnnxTextClassifier(export(clf, tmp_path / "clf.onnx.zip"))  # doctest: +SKIP
    >>> served.predict(["a good film"]).tolist()  # doctest: +SKIP
    ['pos']
    """
    check_artifact_name(path)
    model, config = _artifact_config(estimator)
    config = check_config(config, path)  # what the runtime checks, before the slow export
    onnx_bytes, outputs = _export_network(
        model.net_.module_, config["architecture"], config["text"]
    )
    if outputs != config["outputs"]:
        raise RuntimeError(
            f"the exported network's outputs are {outputs}, not {config['outputs']}."
        )
    # json_text escapes what UTF-8 cannot hold (a vocabulary may hold lone surrogates).
    members = {CONFIG: json_text(config).encode("utf-8"), NETWORK: onnx_bytes}
    return write_archive(path, members)


def _architecture(module: nn.Module) -> str:
    """Which graph exports the trained network: by its class (:mod:`skattn.nn`)."""
    from skattn.nn import HierarchicalAttentionNet, SelfAttentivePairNet

    if isinstance(module, SelfAttentivePairNet):
        return "pair"
    return "hierarchical" if isinstance(module, HierarchicalAttentionNet) else "self_attentive"


def _artifact_config(estimator) -> tuple[Any, dict[str, Any]]:
    """The estimator whose network is exported, and the artefact's configuration."""
    model, embedder_output = _unwrap(estimator)
    if not hasattr(model, "net_"):
        raise ValueError(f"the {type(model).__name__} is not fitted; call fit first.")
    architecture = _architecture(model.net_.module_)
    config = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "estimator": type(estimator).__name__,
        "architecture": architecture,
        "text": _text_config(model),
        **_task_config(model),
        "outputs": OUTPUTS[architecture],
    }
    if embedder_output is not None:
        config["embedder_output"] = embedder_output
    return model, config


def _export_network(module: nn.Module, architecture: str, text: dict) -> tuple[bytes, list[str]]:
    """ONNX bytes of the module's inference graph, and the names of its outputs.

    PyTorch's TorchScript-based exporter writes these graphs in about a
    second, in this process (one export at a time). It is deprecated since
    torch 2.9; where it is not found (see :func:`_has_torchscript_exporter`),
    the ``torch.export``-based exporter runs instead, in a fresh process: it
    takes ten seconds or more per network, and in torch 2.13 its second
    export of one network in a process wrote a graph that failed at batch 1
    (out-of-range gather).
    """
    if _has_torchscript_exporter():
        with _EXPORT_LOCK:
            return _export_here(module, architecture, text, dynamo=False)
    return _export_in_fresh_process(module, architecture, text)


def _has_torchscript_exporter() -> bool:
    """Whether torch has the TorchScript-based ONNX exporter where torch 2.9 and later keep it."""
    return importlib.util.find_spec("torch.onnx._internal.torchscript_exporter") is not None


def _export_in_fresh_process(module: nn.Module, architecture: str, text: dict):
    """:func:`_export_here` with the ``torch.export``-based exporter, in a fresh process."""
    # Run by its path from skattn/: beside serving/http.py it would shadow the stdlib's http.
    worker = Path(__file__).parent / "_export_worker.py"
    with tempfile.TemporaryDirectory(prefix="skattn-export-") as folder:
        torch.save(module, Path(folder) / "network.pt")
        request = {"architecture": architecture, "text": text}
        (Path(folder) / "request.json").write_text(json.dumps(request), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(worker), folder], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"the ONNX export failed (exit code {done.returncode}): "
                f"{done.stderr.strip()[-2000:] or 'no message'}"
            )
        outputs = json.loads((Path(folder) / "outputs.json").read_text(encoding="utf-8"))
        return (Path(folder) / "model.onnx").read_bytes(), outputs


def _pair_signature(module: nn.Module, subwords: bool):
    """The pair graph, example inputs, their dynamic axes and the output names."""
    batch, time = torch.export.Dim("batch", min=1), torch.export.Dim("time", min=1)
    time_b = torch.export.Dim("time_b", min=1)
    # Example sizes unlike any model size, so that no axis is mistaken for another.
    example = {
        "tokens": torch.ones(3, 11, dtype=torch.long),
        "lengths": torch.tensor([11, 2, 5]),
        "tokens_b": torch.ones(3, 13, dtype=torch.long),
        "lengths_b": torch.tensor([1, 13, 4]),
    }
    shapes = {
        "tokens": {0: batch, 1: time},
        "lengths": {0: batch},
        "tokens_b": {0: batch, 1: time_b},
        "lengths_b": {0: batch},
    }
    if subwords:
        example["subwords"] = torch.ones(3, 11, 17, dtype=torch.long)
        example["subwords_b"] = torch.ones(3, 13, 19, dtype=torch.long)
        shapes["subwords"] = {0: batch, 1: time, 2: torch.export.Dim("ngrams", min=1)}
        shapes["subwords_b"] = {0: batch, 1: time_b, 2: torch.export.Dim("ngrams_b", min=1)}
    outputs = ["logits", "attention", "attention_b", "pair_features"]
    return PairGraph(module), example, shapes, outputs


def _hierarchical_signature(module: nn.Module, subwords: bool):
    """The hierarchical graph, example inputs, their dynamic axes and the output names."""
    batch, time = torch.export.Dim("batch", min=1), torch.export.Dim("time", min=1)
    sentences = torch.export.Dim("sentences", min=1)
    example = {
        "tokens": torch.ones(2, 3, 4, dtype=torch.long),
        "lengths": torch.tensor([[4, 2, 1], [3, 0, 0]]),
    }
    shapes = {"tokens": {0: batch, 1: sentences, 2: time}, "lengths": {0: batch, 1: sentences}}
    if subwords:
        example["subwords"] = torch.ones(2, 3, 4, 2, dtype=torch.long)
        ngrams = torch.export.Dim("ngrams", min=1)
        shapes["subwords"] = {0: batch, 1: sentences, 2: time, 3: ngrams}
    outputs = ["logits", "sentence_attention", "word_attention", "document_vector"]
    return HierarchicalGraph(module), example, shapes, outputs


def _self_attentive_signature(module: nn.Module, subwords: bool):
    """The self-attentive graph, example inputs, their dynamic axes and the output names."""
    batch, time = torch.export.Dim("batch", min=1), torch.export.Dim("time", min=1)
    example = {"tokens": torch.ones(2, 5, dtype=torch.long), "lengths": torch.tensor([5, 2])}
    shapes = {"tokens": {0: batch, 1: time}, "lengths": {0: batch}}
    if subwords:
        example["subwords"] = torch.ones(2, 5, 3, dtype=torch.long)
        shapes["subwords"] = {0: batch, 1: time, 2: torch.export.Dim("ngrams", min=1)}
    outputs = ["logits", "attention", "sentence_embedding"]
    return SelfAttentiveGraph(module), example, shapes, outputs


#: Architecture -> what its graph takes and gives (see _export_here).
_SIGNATURES = {
    "pair": _pair_signature,
    "hierarchical": _hierarchical_signature,
    "self_attentive": _self_attentive_signature,
}


def _export_here(
    module: nn.Module, architecture: str, text: dict, dynamo: bool
) -> tuple[bytes, list[str]]:
    """:func:`_export_network`'s work in the calling process, by either exporter."""
    # A frozen copy: the estimator's own network keeps training mode and gradients.
    module = copy.deepcopy(module).cpu().eval().requires_grad_(False)
    subwords = text["subword_buckets"] is not None and (
        getattr(module, "subword_embedding", None) is not None
    )
    graph, example, shapes, outputs = _SIGNATURES[architecture](module, subwords)
    names = {"input_names": list(example), "output_names": outputs, "opset_version": OPSET}
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings(), torch.no_grad():
        # Both exporters warn about their internals (the TorchScript one that it is deprecated).
        warnings.simplefilter("ignore")
        target = Path(folder) / "model.onnx"
        if dynamo:
            program = torch.onnx.export(
                graph, (), kwargs=example, dynamo=True, dynamic_shapes=shapes,
                external_data=False, **names,
            )  # fmt: skip
            program.save(str(target))
        else:
            axes = {name: {i: d.__name__ for i, d in dims.items()} for name, dims in shapes.items()}
            torch.onnx.export(
                graph, tuple(example.values()), str(target), dynamo=False, dynamic_axes=axes,
                **names,
            )  # fmt: skip
        return _relax_shapes(target.read_bytes(), shapes), outputs


def _relax_shapes(onnx_bytes: bytes, shapes: dict) -> bytes:
    """Declare every dynamic axis as dynamic, and drop the intermediate shape notes.

    PyTorch's shape propagation through ``nn.LSTM``/``nn.GRU`` writes the
    example's sequence length into the shapes it records (the computation
    itself reads the length at run time). Left in the graph, those notes
    can freeze an input axis or mislead onnxruntime's buffer planning; the
    declared inputs and outputs are rewritten with named axes and the notes
    are removed, so onnxruntime infers every shape from the real inputs.
    The parity tests and :func:`export`'s own check compare the result with
    PyTorch at lengths other than the example's.
    """
    import onnx

    model = onnx.load_from_string(onnx_bytes)
    for graph_input in model.graph.input:
        for axis, dim in shapes.get(graph_input.name, {}).items():
            entry = graph_input.type.tensor_type.shape.dim[axis]
            entry.ClearField("dim_value")
            entry.dim_param = dim.__name__
    for graph_output in model.graph.output:
        for axis, entry in enumerate(graph_output.type.tensor_type.shape.dim):
            entry.ClearField("dim_value")
            entry.dim_param = f"{graph_output.name}_{axis}"
    del model.graph.value_info[:]
    return model.SerializeToString()
