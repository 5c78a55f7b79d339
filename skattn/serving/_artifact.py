"""Read an artefact and check everything in it before it is used.

An artefact (format version 2) is a zip archive of three members:
``manifest.json`` (the SHA-256 and size of the two others, see
:mod:`skattn.utils._archives`), ``config.json`` (the text settings, vocabulary,
decision rule and the network's inputs and outputs) and ``model.onnx``.
:func:`read_artifact` checks the manifest (sizes before decompression,
digests after), then validates the configuration field by field, so that
an edit fails either the digest or validation. Version-1 artefacts (no
manifest) are checked for their sizes, the network's SHA-256 recorded in
the configuration, and the same validation; their configuration itself
has no digest. Every failure is an :class:`ArtifactError` naming the file
and the member. This module imports numpy and the standard library only.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skattn.decisions import DecisionRule, InvalidDecisionRule
from skattn.serving._text import _ACCENTS, _SPLITTERS, _TOKENIZERS
from skattn.utils._archives import (
    DEFAULT_MAX_BYTES,
    MANIFEST,
    ArchiveError,
    member_names,
    read_archive,
    read_legacy_archive,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "ArtifactError",
    "check_artifact_name",
    "check_config",
    "read_artifact",
]

FORMAT = "skattn-onnx"
#: The version :func:`skattn.serving.export` writes; :data:`SUPPORTED_VERSIONS` are read.
FORMAT_VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
CONFIG, NETWORK = "config.json", "model.onnx"
#: Each architecture's network outputs, in order.
OUTPUTS = {
    "self_attentive": ["logits", "attention", "sentence_embedding"],
    "hierarchical": ["logits", "sentence_attention", "word_attention", "document_vector"],
    "pair": ["logits", "attention", "attention_b", "pair_features"],
}
EMBEDDER_OUTPUTS = ("flatten", "max", "mean")


class ArtifactError(ArchiveError):
    """An artefact that cannot be served: unreadable, truncated, altered, invalid or too large.

    A ``ValueError``; ``path`` and ``member`` name the file and the member
    at fault (see :class:`skattn.utils._archives.ArchiveError`).

    Examples
    --------
    >>> str(ArtifactError("m.onnx.zip", "config.json", "labels are not sorted"))
    'm.onnx.zip: config.json: labels are not sorted.'
    >>> issubclass(ArtifactError, ValueError)
    True
    """


def read_artifact(
    path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[dict[str, Any], bytes]:
    """The validated config and the ONNX bytes of an artefact, checked before anything uses them.

    Parameters
    ----------
    path : str or Path
    max_bytes : int, default=2**30
        The most bytes the members may declare in all (checked before
        decompressing anything).

    Returns
    -------
    config : dict
        With ``"decision"`` (a :meth:`skattn.decisions.DecisionRule.to_config`)
        whatever the version.
    onnx_bytes : bytes

    Raises
    ------
    FileNotFoundError
    ArtifactError
        Not a zip archive, truncated, a member missing, extra, too large,
        unreadable or altered (digest), of another format or a newer
        version, or a configuration that fails validation: the message
        names the file and the member.

    Examples
    --------
    >>> read_artifact("missing.onnx.zip")
    Traceback (most recent call last):
    ...
    FileNotFoundError: missing.onnx.zip does not exist.
    """
    path = Path(path)
    names = member_names(path, ArtifactError)
    read = read_archive if MANIFEST in names else read_legacy_archive
    members = read(path, [CONFIG, NETWORK], max_bytes=max_bytes, error=ArtifactError)
    config = _parse(members[CONFIG], path)
    version = config.get("format_version")
    if version != 1 and MANIFEST not in names:
        raise ArtifactError(path, MANIFEST, f"missing: a format {version} artefact has one")
    if version == 1:
        if hashlib.sha256(members[NETWORK]).hexdigest() != config.get("onnx_sha256"):
            raise ArtifactError(
                path, NETWORK, "its bytes do not match the configuration's SHA-256 (altered)"
            )
        config = _from_version_1(config, path)
    return check_config(config, path), members[NETWORK]


def _parse(data: bytes, path: Path) -> dict[str, Any]:
    try:
        config = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ArtifactError(path, CONFIG, f"not JSON ({error})") from error
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        what = config.get("format") if isinstance(config, dict) else type(config).__name__
        raise ArtifactError(path, CONFIG, f"not a skattn artefact (format {what!r})")
    if config.get("format_version") not in SUPPORTED_VERSIONS:
        raise ArtifactError(
            path,
            CONFIG,
            f"format version {config.get('format_version')!r}; this runtime reads "
            f"{SUPPORTED_VERSIONS}. Upgrade skattn",
        )
    return config


def _from_version_1(config: dict[str, Any], path: Path) -> dict[str, Any]:
    """A version-1 config in version 2's terms: the decision rule from its target fields."""
    legacy = ("classes", "multilabel", "thresholds", "target_dtype", "onnx_sha256")
    legacy += ("target_mean", "target_scale", "target_ndim")
    current = {key: value for key, value in config.items() if key not in legacy}
    try:
        current["decision"] = _version_1_rule(config).to_config()
    except (KeyError, TypeError, InvalidDecisionRule) as error:
        raise ArtifactError(
            path, CONFIG, f"its classes or targets are invalid ({error})"
        ) from error
    return current


def _version_1_rule(config: dict[str, Any]) -> DecisionRule:
    if config.get("task") == "regressor":
        return DecisionRule.regression(
            config["target_mean"], config["target_scale"], config["target_ndim"]
        )
    classes, thresholds = config["classes"], config.get("thresholds")
    if config.get("multilabel"):
        n_labels = len(classes["values"])
        return DecisionRule.multilabel(n_labels, thresholds, config.get("target_dtype"))
    if thresholds is None:
        return DecisionRule.from_config({"kind": "argmax", "classes": classes})
    return DecisionRule.from_config(
        {"kind": "threshold", "classes": classes, "thresholds": thresholds}
    )


# -- validation -----------------------------------------------------------------
#: The top-level fields of a configuration: required, then optional.
_REQUIRED = {
    "format",
    "format_version",
    "estimator",
    "architecture",
    "task",
    "text",
    "outputs",
    "decision",
}
_OPTIONAL = {"embedder_output", "feature_names_in"}


def check_artifact_name(path: str | Path) -> None:
    """Refuse a name ending in ``.onnx``: an artefact is a zip that ``onnx.load`` cannot read.

    Examples
    --------
    >>> check_artifact_name("reviews.onnx.zip")
    >>> check_artifact_name("reviews.onnx")
    Traceback (most recent call last):
    ...
    ValueError: reviews.onnx: an artefact is a zip archive (model.onnx and its text ...
    """
    if Path(path).suffix.lower() == ".onnx":
        raise ValueError(
            f"{path}: an artefact is a zip archive (model.onnx and its text configuration "
            "inside), not an ONNX file; name it NAME.onnx.zip."
        )


def check_config(config: Mapping[str, Any], path: str | Path) -> dict[str, Any]:
    """``config`` if every field is valid and consistent, else :class:`ArtifactError`.

    Checks the fields present (none unknown, none missing), the architecture,
    task and outputs, the text settings (:func:`check_text_config`), the
    decision rule (:meth:`~skattn.decisions.DecisionRule.from_config`, and
    that it suits the task) and the pair column names.

    Examples
    --------
    >>> check_config({"format": "skattn-onnx"}, "m.onnx.zip")
    Traceback (most recent call last):
    ...
    skattn.serving._artifact.ArtifactError: m.onnx.zip: config.json: missing fields [...].
    """
    fields = set(config)
    missing, unknown = sorted(_REQUIRED - fields), sorted(fields - _REQUIRED - _OPTIONAL)
    if missing or unknown:
        raise ArtifactError(path, CONFIG, f"missing fields {missing}, unknown fields {unknown}")
    _check_model(config, path)
    check_text_config(config["text"], path)
    try:
        rule = DecisionRule.from_config(config["decision"])
    except InvalidDecisionRule as error:
        raise ArtifactError(path, CONFIG, str(error)) from error
    if (rule.kind == "regression") != (config["task"] == "regressor"):
        raise ArtifactError(
            path, CONFIG, f"a {rule.kind} decision rule cannot serve a {config['task']}"
        )
    return dict(config)


def _check_model(config: Mapping[str, Any], path) -> None:
    """The architecture, task, outputs, embedder output and pair column names."""
    architecture = config["architecture"]
    if architecture not in OUTPUTS:
        raise ArtifactError(
            path, CONFIG, f"architecture {architecture!r}; expected one of {list(OUTPUTS)}"
        )
    if config["task"] not in ("classifier", "regressor"):
        raise ArtifactError(path, CONFIG, f"task {config['task']!r}; classifier or regressor")
    if not isinstance(config["estimator"], str):
        raise ArtifactError(path, CONFIG, "estimator must be a class name")
    if config["outputs"] != OUTPUTS[architecture]:
        raise ArtifactError(
            path,
            CONFIG,
            f"outputs {config['outputs']!r}; a {architecture} network has {OUTPUTS[architecture]}",
        )
    output = config.get("embedder_output", "flatten")
    if output not in EMBEDDER_OUTPUTS or (
        "embedder_output" in config and architecture != "self_attentive"
    ):
        raise ArtifactError(
            path, CONFIG, f"embedder_output {output!r} is not one of {EMBEDDER_OUTPUTS}"
        )
    names = config.get("feature_names_in")
    count = 2 if architecture == "pair" else 1
    if names is not None and (
        not isinstance(names, list)
        or len(names) != count
        or len(set(names)) != count
        or not all(isinstance(name, str) for name in names)
    ):
        what = "two distinct column names" if count == 2 else "one column name"
        raise ArtifactError(path, CONFIG, f"feature_names_in {names!r}: {what}")


def _positive_or_none(value) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0)


#: Each text setting, and whether a value is valid for it.
TEXT_SETTINGS = {
    "lowercase": lambda v: isinstance(v, bool),
    "token_pattern": lambda v: isinstance(v, str),
    "tokenizer": lambda v: v is None or (isinstance(v, str) and v in _TOKENIZERS),
    "strip_accents": lambda v: (v is None or isinstance(v, str)) and v in _ACCENTS,
    "analyzer": lambda v: v in ("word", "char"),
    "sentence_split": lambda v: (v is None or isinstance(v, str)) and v in _SPLITTERS,
    "max_length": _positive_or_none,
    "max_sentences": _positive_or_none,
    "max_sentence_length": _positive_or_none,
    "subword_buckets": _positive_or_none,
    "ngram_range": lambda v: (
        isinstance(v, list)
        and len(v) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in v)
        and 1 <= v[0] <= v[1]
    ),
    "max_ngrams": lambda v: _positive_or_none(v) and v is not None,
    "id_to_token": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
    "empty_id": lambda v: isinstance(v, int) and not isinstance(v, bool),
}


def check_text_config(text: Any, path: str | Path) -> None:
    """Raise :class:`ArtifactError` unless ``text`` holds valid, consistent text settings.

    Examples
    --------
    >>> check_text_config({"lowercase": "yes"}, "m.onnx.zip")
    Traceback (most recent call last):
    ...
    skattn.serving._artifact.ArtifactError: m.onnx.zip: config.json: text: missing settings [...].
    """
    if not isinstance(text, dict):
        raise ArtifactError(path, CONFIG, "text must be an object of settings")
    missing, unknown = (
        sorted(set(TEXT_SETTINGS) - set(text)),
        sorted(set(text) - set(TEXT_SETTINGS)),
    )
    if missing or unknown:
        raise ArtifactError(
            path, CONFIG, f"text: missing settings {missing}, unknown settings {unknown}"
        )
    for name, valid in TEXT_SETTINGS.items():
        if not valid(text[name]):
            raise ArtifactError(path, CONFIG, f"text: {name} is {text[name]!r}, not a valid value")
    try:
        re.compile(text["token_pattern"])
    except re.error as error:
        raise ArtifactError(
            path, CONFIG, f"text: token_pattern does not compile ({error})"
        ) from None
    _check_vocabulary(text["id_to_token"], text["empty_id"], path)


def _check_vocabulary(id_to_token: list[str], empty_id: int, path) -> None:
    if id_to_token[:2] != ["<pad>", "<unk>"]:
        raise ArtifactError(path, CONFIG, "text: id_to_token must start with '<pad>', '<unk>'")
    if len(set(id_to_token)) != len(id_to_token):
        raise ArtifactError(path, CONFIG, "text: id_to_token holds a token twice")
    if not (empty_id == 1 or (empty_id == 2 and id_to_token[2:3] == ["<empty>"])):
        raise ArtifactError(
            path, CONFIG, f"text: empty_id {empty_id} is neither <unk> (1) nor <empty> (2)"
        )
