"""Safe save/load of fitted estimators: no pickled code is ever executed.

A model file is a zip archive with two members:

- ``metadata.json``: format name and version, the estimator class (one of a
  fixed list), its JSON-representable parameters, the label classes, the
  vocabulary, and the few other fitted attributes;
- ``weights.pt``: the network's ``state_dict``, written by ``torch.save``
  and read with ``torch.load(weights_only=True)`` (tensors only).

Parameters that are code or objects (a ``tokenizer`` callable, callbacks,
an optimizer class, pretrained-vector objects, a RandomState) cannot be
stored safely. They are recorded by name; ``load(path, tokenizer=fn)``
supplies them again. Those needed to encode text (``tokenizer``, a callable
``sentence_split``) must be supplied; the training-only ones default to None
with a warning. Files are written to a temporary name and renamed, so an
interrupted save never leaves a half-written model in place of a good one.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sklearn.utils.validation import check_is_fitted

FORMAT = "skattn-model"
FORMAT_VERSION = 1
_INFERENCE_CODE_PARAMS = ("tokenizer", "sentence_split")


def _registry() -> dict[str, type]:
    from skattn.classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
    from skattn.embedders import SelfAttentiveEmbedder

    return {
        cls.__name__: cls
        for cls in (SelfAttentiveClassifier, HierarchicalAttentionClassifier, SelfAttentiveEmbedder)
    }


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json_value(v) for v in value)
    return False


def _classifier_state(clf) -> dict[str, Any]:
    params, unsaved = {}, []
    for name, value in clf.get_params(deep=False).items():
        if _is_json_value(value) and not isinstance(value, tuple):
            params[name] = value
        else:
            unsaved.append(name)
    classes = clf.classes_
    return {
        "class": type(clf).__name__,
        "params": params,
        "unsaved_params": unsaved,
        "classes": classes.tolist(),
        "classes_dtype": classes.dtype.str if classes.dtype.kind != "O" else "O",
        "tokens": clf.encoder_.id_to_token_[2:],
        "token_counts": clf.encoder_.token_counts_[2:].tolist(),
        "n_truncated": int(clf.n_truncated_),
        "embedding_coverage": clf.embedding_coverage_,
    }


def save(estimator, path) -> Path:
    """Save a fitted skattn estimator to ``path`` without pickle.

    Parameters
    ----------
    estimator : SelfAttentiveClassifier, HierarchicalAttentionClassifier or SelfAttentiveEmbedder
        Fitted.
    path : str or path-like

    Returns
    -------
    Path
    """
    path = Path(path)
    name = type(estimator).__name__
    if name not in _registry():
        raise TypeError(f"save() takes a skattn estimator, got {name}.")
    if name == "SelfAttentiveEmbedder":
        check_is_fitted(estimator, "classifier_")
        classifier = estimator.classifier_
        metadata = {
            "class": name,
            "params": {"output": estimator.output},
            "inner": _classifier_state(classifier),
        }
    else:
        check_is_fitted(estimator, "net_")
        classifier = estimator
        metadata = _classifier_state(estimator)
    metadata = {"format": FORMAT, "format_version": FORMAT_VERSION, **metadata}
    weights = io.BytesIO()
    torch.save(classifier.net_.module_.state_dict(), weights)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("metadata.json", json.dumps(metadata))
            archive.writestr("weights.pt", weights.getvalue())
        # mkstemp makes the file private (0600); give it the usual permissions.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return path


def _invalid(path, reason: str) -> ValueError:
    return ValueError(f"{path} is not a valid skattn model file: {reason}.")


def _restore_classifier(state: dict, overrides: dict, weights: dict, path):
    cls = _registry().get(state.get("class"))
    if cls is None or cls.__name__ == "SelfAttentiveEmbedder":
        raise _invalid(path, f"unknown estimator class {state.get('class')!r}")
    params = dict(state["params"])
    missing = []
    for name in state["unsaved_params"]:
        if name in overrides:
            continue
        if name in _INFERENCE_CODE_PARAMS:
            missing.append(name)
        else:
            params[name] = None
    if missing:
        raise ValueError(
            f"{path} was saved with {missing} set to code, which a model file cannot hold; "
            f"pass it again: load(path, {missing[0]}=...)."
        )
    dropped = [n for n in state["unsaved_params"] if n not in overrides]
    if dropped:
        warnings.warn(
            f"training-only parameters {dropped} were not stored and are None now.",
            UserWarning,
            stacklevel=3,
        )
    estimator = cls(**{**params, **overrides})
    dtype = object if state["classes_dtype"] == "O" else np.dtype(state["classes_dtype"])
    estimator.classes_ = np.asarray(state["classes"], dtype=dtype)
    from skattn.text import TextEncoder

    encoder = TextEncoder(**{n: getattr(estimator, n) for n in estimator._text_params})
    encoder._set_vocabulary(state["tokens"], state["token_counts"])
    estimator.encoder_ = encoder
    estimator.n_truncated_ = state["n_truncated"]
    estimator.embedding_coverage_ = state["embedding_coverage"]
    estimator.net_ = estimator._make_net(None).initialize()
    try:
        estimator.net_.module_.load_state_dict(weights)
    except (RuntimeError, KeyError) as error:
        raise _invalid(path, f"its weights do not fit the network ({error})") from error
    return estimator


def load(path, **params):
    """Load an estimator written by :func:`save`, executing no pickled code.

    Parameters
    ----------
    path : str or path-like
    **params
        Parameters that could not be stored (e.g. ``tokenizer``), or others
        to change (e.g. ``threads``).

    Returns
    -------
    The fitted estimator, predicting exactly as the saved one.

    Raises
    ------
    ValueError
        The file is truncated, corrupted, of another format or version.
    """
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            metadata = json.loads(archive.read("metadata.json").decode("utf-8"))
            weights_bytes = archive.read("weights.pt")
    except (
        zipfile.BadZipFile,
        KeyError,
        json.JSONDecodeError,
        UnicodeDecodeError,
        zipfile.LargeZipFile,
        EOFError,
    ) as error:
        raise _invalid(path, f"{type(error).__name__}: {error}") from error
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise _invalid(path, "it is not a skattn model archive")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise _invalid(
            path,
            f"format version {metadata.get('format_version')} is not "
            f"{FORMAT_VERSION}; use the skattn version that wrote it",
        )
    try:
        weights = torch.load(io.BytesIO(weights_bytes), weights_only=True)
    except Exception as error:  # torch raises several types on bad bytes
        raise _invalid(path, f"its weights cannot be read ({type(error).__name__})") from error
    try:
        if metadata["class"] == "SelfAttentiveEmbedder":
            from skattn.embedders import SelfAttentiveEmbedder

            classifier = _restore_classifier(metadata["inner"], params, weights, path)
            embedder = SelfAttentiveEmbedder(classifier, output=metadata["params"]["output"])
            return embedder._use_fitted(classifier)
        return _restore_classifier(metadata, params, weights, path)
    except KeyError as error:
        raise _invalid(path, f"missing field {error}") from error
