"""Safe save/load of fitted estimators: no pickle, no code executed on load.

A model file (format version 3) is a zip archive with three members:

- ``metadata.json``: the format and version, the estimator's class (one of
  a fixed list) and parameters, and its fitted state as plain data (label
  classes or a regressor's target scaling, vocabulary, history, other
  fitted attributes);
- ``weights.safetensors``: the network's tensors in the safetensors format
  (no pickle, no device tags: a model trained on a GPU loads on a CPU);
- ``manifest.json``: the SHA-256 and size of the two others
  (:mod:`skattn.utils._archives`).

:func:`load` checks the manifest before reading anything else (every
member's declared size against the manifest and a cap, before
decompressing; every member's digest after), then validates what the
metadata describes: the vocabulary (distinct tokens, one count each), the
classes (sorted and distinct, as ``fit`` leaves them) and thresholds
(through the estimator's ``decision_rule_``), the parameters (the
estimator's constraints) and the weights (their shapes against the
network the parameters build). An edited or damaged file therefore fails
the digest or validation with a :class:`ModelFileError` naming the file
and the member, never a raw ``KeyError``, ``zlib.error`` or a silently
different model. Files of versions 1 and 2 (no manifest) still load: they
are checked for their members, sizes and CRCs, and validated the same way,
but have no digests.

Parameters are stored as JSON. Three kinds of values are not data:

- an optimizer class from ``torch.optim`` is stored by its name and looked
  up there again (nothing else is ever imported);
- code or objects that the user can pass again: ``tokenizer`` and a
  callable ``sentence_split`` are needed to read text, so :func:`load`
  refuses to continue without them and says what to pass;
  ``callbacks``, pretrained-vector objects (``embeddings``) and a
  ``RandomState`` only matter for training again, so they come back as the
  parameter's default, with a warning naming each (pass them to
  :func:`load` to set them);
- an ``accelerator`` (Hugging Face accelerate's, for distributed or
  mixed-precision training) belongs to the processes that trained, not to
  the model: it is stored as None, and the loaded model needs no
  accelerate (pass ``accelerator=`` to :func:`load` to train it again in
  a launched process);
- any other object (for example an optimizer class outside ``torch.optim``)
  makes :func:`save` fail, naming the parameter, before anything is written.

Files are written to a new temporary name in the target folder and renamed,
so an interrupted save never leaves a half-written model in place of a good
one. :func:`load` refuses keywords that would replace what was fitted (a
text setting, a network size, ``threshold``): it takes those that only
decide how the model runs or trains again (``device``, ``threads``,
``callbacks``...) and the code a file cannot hold. Version-1 files
(weights written by ``torch.save``) still load; their weights are read with
``torch.load(weights_only=True)``, which refuses any pickled code.

This module sits on top of the estimators: it imports them, they never
import it.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from skattn._version import __version__
from skattn.decisions import InvalidDecisionRule
from skattn.estimators._base import FittedState, WeightsMismatchError
from skattn.estimators._classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.estimators._embedder import SelfAttentiveEmbedder
from skattn.estimators._pairs import SelfAttentivePairClassifier, SelfAttentivePairRegressor
from skattn.estimators._regressors import HierarchicalAttentionRegressor, SelfAttentiveRegressor
from skattn.utils._archives import (
    DEFAULT_MAX_BYTES,
    MANIFEST,
    ArchiveError,
    member_names,
    read_archive,
    read_legacy_archive,
    write_archive,
)
from skattn.utils._params import InvalidParameterError, validate_params
from skattn.utils._runtime import resolve_device

__all__ = ["LOAD_MAY_SET", "ModelFileError", "load", "save"]

FORMAT = "skattn-model"
FORMAT_VERSION = 3
METADATA, WEIGHTS, WEIGHTS_V1 = "metadata.json", "weights.safetensors", "weights.pt"
#: The weights member of each version.
WEIGHTS_OF = {1: WEIGHTS_V1, 2: WEIGHTS, 3: WEIGHTS}
#: The classes a model file may name.
ESTIMATORS = {
    cls.__name__: cls
    for cls in (
        SelfAttentiveClassifier,
        HierarchicalAttentionClassifier,
        SelfAttentiveRegressor,
        HierarchicalAttentionRegressor,
        SelfAttentiveEmbedder,
        SelfAttentivePairClassifier,
        SelfAttentivePairRegressor,
    )
}
#: Code parameters without which a loaded model cannot read text.
NEEDED_TO_READ_TEXT = ("tokenizer", "sentence_split")
#: Object parameters that only matter for training again.
TRAINING_ONLY_OBJECTS = ("callbacks", "embeddings", "random_state")
#: Parameters that hold the training processes' runtime: stored as None.
RUNTIME_OBJECTS = ("accelerator",)
#: What :func:`load` may set: how the model runs (device, threads, batches), what
#: only training again reads, and code passed again. Every other parameter shaped
#: the fitted state (vocabulary, network, thresholds) and is refused.
LOAD_MAY_SET = frozenset(
    {
        "device",
        "threads",
        "verbose",
        "batch_size",
        "batch_tokens",
        "chunk_size",
        "output",
        "accelerator",
        "callbacks",
        "embeddings",
        "freeze_embeddings",
        "random_state",
        "warm_start",
        "max_epochs",
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
        "net_params",
        "class_weight",
        "penalty",
        "dropout",
    }
)
_PASS_AGAIN = "$pass_again"
#: How the saved code read PROBE_TEXTS, beside a _PASS_AGAIN marker.
_PROBE = "$probe"
#: Texts the model's reading (its text settings with the code of NEEDED_TO_READ_TEXT) is
#: run on when saved and when the code is passed again: code that reads them otherwise
#: would read documents otherwise than the fitted model. Plain ASCII first, so that code
#: that refuses other characters is still compared on it.
PROBE_TEXTS = (
    "It's 3.5 GREAT, ok!\nA second line; here. Third? Yes:\tok.",
    "Café-au-lait à 東京 — naïve 😀 x2",
)
#: The estimator parameters that decide how a text is read (TextEncoder's).
READING = ("lowercase", "strip_accents", "token_pattern", "tokenizer", "analyzer", "sentence_split")
_TUPLE = "$tuple"
_TORCH_OPTIM = "$torch_optim"
_ESTIMATOR = "$estimator"


class ModelFileError(ArchiveError):
    """A model file that cannot be loaded: unreadable, truncated, altered, invalid or too large.

    A ``ValueError``; ``path`` and ``member`` name the file and the member
    at fault (see :class:`skattn.utils._archives.ArchiveError`).

    Examples
    --------
    >>> str(ModelFileError("m.skattn", "metadata.json", "classes are not sorted"))
    'm.skattn is not a valid skattn model file: metadata.json: classes are not sorted.'
    """

    def __init__(self, path, member: str | None = None, reason: str | None = None):
        super().__init__(path, member, reason)
        if reason is not None:
            where = f"{member}: " if member else ""
            self.args = (f"{self.path} is not a valid skattn model file: {where}{reason}.",)


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json_value(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_value(v) for k, v in value.items())
    return False


def _data_to_json(value: Any) -> Any:
    """Plain data as JSON, tuples marked so that they come back as tuples."""
    if isinstance(value, tuple):
        return {_TUPLE: [_data_to_json(v) for v in value]}
    if isinstance(value, list):
        return [_data_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _data_to_json(v) for k, v in value.items()}
    return value


def _data_from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {_TUPLE}:
        return tuple(_data_from_json(v) for v in value[_TUPLE])
    if isinstance(value, list):
        return [_data_from_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _data_from_json(v) for k, v in value.items()}
    return value


def _encode_param(owner: str, name: str, value: Any) -> Any:
    """A parameter value as JSON, or a marker for the kinds described above."""
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if name in RUNTIME_OBJECTS:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if _is_json_value(value) and not (name == "sentence_split" and callable(value)):
        return _data_to_json(value)
    if isinstance(value, tuple(ESTIMATORS.values())):
        return {_ESTIMATOR: _describe(value)}
    if isinstance(value, type) and getattr(torch.optim, value.__name__, None) is value:
        return {_TORCH_OPTIM: value.__name__}
    if name in NEEDED_TO_READ_TEXT + TRAINING_ONLY_OBJECTS:
        return {_PASS_AGAIN: type(value).__name__}
    raise TypeError(
        f"save: the {name!r} parameter of {owner} is {value!r}, which a model file cannot "
        f"hold safely (only data, torch.optim classes and {list(NEEDED_TO_READ_TEXT)} can be "
        f"stored or passed again). Set {name} to a name or a torch.optim class and refit, or "
        "use pickle/joblib for this model."
    )


def _reading(settings: dict) -> list:
    """How text settings read each of PROBE_TEXTS: its sentences' tokens, or None if code fails.

    The encoder's own reading (lowercasing, the token pattern, the
    tokenizer, the sentence splitter, empty sentences dropped), so code is
    told apart from other code, a built-in name or None by what the model
    would read, not by how it is written.
    """
    from skattn.text._encoder import TextEncoder

    encoder = TextEncoder(**{name: settings[name] for name in READING if name in settings})
    readings = []
    for text in PROBE_TEXTS:
        try:
            readings.append(
                [[str(token) for token in part] for part in encoder.tokenize([text])[0]]
            )
        except Exception:  # the user's code: a failure is part of how it reads
            readings.append(None)
    return readings


def _describe(estimator) -> dict[str, Any]:
    owner = type(estimator).__name__
    params = estimator.get_params(deep=False)
    encoded = {name: _encode_param(owner, name, value) for name, value in params.items()}
    code = [name for name in NEEDED_TO_READ_TEXT if _is_code_marker(encoded.get(name))]
    if code:  # stored beside the code, so that load can check the code passed again
        reading = _reading(params)
        for name in code:
            encoded[name][_PROBE] = reading
    return {"class": owner, "params": encoded}


def _is_code_marker(value: Any) -> bool:
    return isinstance(value, dict) and _PASS_AGAIN in value


def _state_to_json(state: FittedState) -> dict[str, Any]:
    # A regressor has no classes: its targets are among the attributes.
    classes = None if state.classes is None else np.asarray(state.classes)
    return {
        "classes": None if classes is None else classes.tolist(),
        "classes_dtype": None if classes is None else _dtype_name(classes),
        "tokens": list(state.tokens),
        "token_counts": [int(c) for c in state.token_counts],
        "attributes": state.attributes,
    }


def _dtype_name(values: np.ndarray) -> str:
    return values.dtype.str if values.dtype.kind != "O" else "O"


def _json_default(value):
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def save(estimator, path) -> Path:
    """Save a fitted skattn estimator to ``path`` without pickle.

    Parameters
    ----------
    estimator : a fitted skattn estimator
        :class:`~skattn.SelfAttentiveClassifier`,
        :class:`~skattn.HierarchicalAttentionClassifier` or
        :class:`~skattn.SelfAttentiveEmbedder`.
    path : str or path-like
        The file to write (replaced atomically if it exists).

    Returns
    -------
    Path

    Raises
    ------
    TypeError
        Not a skattn estimator, or a parameter holds an object that cannot
        be stored (the message names it).

    Examples
    --------
    >>> import tempfile, skattn
    >>> from skattn import SelfAttentiveClassifier
    >>> clf = SelfAttentiveClassifier(hidden_size=4, max_epochs=1, random_state=0)
    >>> clf = clf.fit(["good", "bad"] * 4, ["pos", "neg"] * 4)
    >>> path = skattn.save(clf, tempfile.mkdtemp() + "/model.skattn")
    >>> skattn.load(path).predict(["good"]).tolist() == clf.predict(["good"]).tolist()
    True
    """
    path = Path(path)
    if type(estimator).__name__ not in ESTIMATORS:
        raise TypeError(f"save() takes a skattn estimator, got {type(estimator).__name__}.")
    state = estimator.get_fitted_state()
    metadata = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "skattn_version": __version__,
        "estimator": _describe(estimator),
        "state": _state_to_json(state),
    }
    weights = save_safetensors({k: v.contiguous() for k, v in state.weights.items()})
    document = json.dumps(metadata, default=_json_default).encode("utf-8")
    # A temporary file in the same folder, renamed once complete (skattn.utils._archives).
    return write_archive(path, {METADATA: document, WEIGHTS: weights})


#: The value of a parameter that a model file written before it existed
#: does not hold: what those versions did (they had no subwords, a
#: multi-label self-attentive model read its labels from an MLP on M, and
#: label attention, once it came, had one hop per label).
ABSENT_MEANS = {"subword_buckets": None, "label_attention": False, "label_hops": 1}


def _invalid(path, reason: str, member: str | None = METADATA) -> ModelFileError:
    return ModelFileError(path, member, reason)


class _CodeNeeded(ValueError):
    """The file was saved with code (a tokenizer) that the caller must pass again."""


def _build(description: dict, overrides: dict, path, warned: list):
    """The estimator a description names, its parameters decoded, not fitted."""
    cls = ESTIMATORS.get(description.get("class"))
    if cls is None:
        raise _invalid(path, f"unknown estimator class {description.get('class')!r}")
    defaults = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()}
    params, missing = {}, []
    for name, value in description["params"].items():
        if name in overrides:
            params[name] = overrides[name]
        elif isinstance(value, dict) and _ESTIMATOR in value:
            params[name] = _build(value[_ESTIMATOR], overrides, path, warned)
        elif isinstance(value, dict) and _TORCH_OPTIM in value:
            optimizer = getattr(torch.optim, str(value[_TORCH_OPTIM]), None)
            if not (isinstance(optimizer, type) and issubclass(optimizer, torch.optim.Optimizer)):
                raise _invalid(path, f"unknown torch.optim class {value[_TORCH_OPTIM]!r}")
            params[name] = optimizer
        elif isinstance(value, dict) and _PASS_AGAIN in value:
            if name in NEEDED_TO_READ_TEXT:
                missing.append(name)
            else:
                params[name] = defaults.get(name)
                warned.append(f"{name} (a {value[_PASS_AGAIN]}; now {defaults.get(name)!r})")
        else:
            params[name] = _data_from_json(value)
    if missing:
        raise _CodeNeeded(
            f"{path} was saved with {missing} set to code, which a model file cannot hold; "
            f"pass the same again: load(path, {missing[0]}=...) (on the command line, "
            f"--{missing[0].replace('_', '-')} MODULE:FUNCTION)."
        )
    # Parameters newer than the file: the caller's value, else what the
    # versions before the parameter did, else the default.
    absent = {name: value for name, value in ABSENT_MEANS.items() if name in defaults}
    params.update({name: value for name, value in absent.items() if name not in params})
    params.update({name: value for name, value in overrides.items() if name in defaults})
    return cls(**params)


def _state_from_json(state: dict, weights: dict) -> FittedState:
    classes = None
    if state["classes"] is not None:
        dtype = object if state["classes_dtype"] == "O" else np.dtype(state["classes_dtype"])
        classes = np.asarray(state["classes"], dtype=dtype)
    return FittedState(
        classes=classes,
        tokens=state["tokens"],
        token_counts=state["token_counts"],
        attributes=state["attributes"],
        weights=weights,
    )


def _from_version_1(metadata: dict) -> tuple[dict, dict]:
    """(description, state) of a version-1 file's metadata."""

    def classifier(record):
        params = dict(record["params"])
        for name in record["unsaved_params"]:
            params[name] = {_PASS_AGAIN: "object"}
        state = {key: record[key] for key in ("classes", "classes_dtype")}
        # Version 1 had two reserved ids (no "<empty>") and stored the words only.
        state["tokens"] = ["<pad>", "<unk>", *record["tokens"]]
        state["token_counts"] = [0, 0, *record["token_counts"]]
        state["attributes"] = {
            "n_truncated": record["n_truncated"],
            "embedding_coverage": record["embedding_coverage"],
        }
        return {"class": record["class"], "params": params}, state

    if metadata["class"] == "SelfAttentiveEmbedder":
        inner, state = classifier(metadata["inner"])
        params = {**metadata["params"], "classifier": {_ESTIMATOR: inner}}
        return {"class": metadata["class"], "params": params}, state
    return classifier(metadata)


def _read(path, max_bytes: int) -> tuple[dict, dict, dict[str, torch.Tensor], str]:
    """(description, state, weights, weights member) of a model file of any version, checked."""
    path = Path(path)
    if MANIFEST in member_names(path, ModelFileError):
        members = read_archive(path, [METADATA, WEIGHTS], max_bytes=max_bytes, error=ModelFileError)
        metadata = _metadata(members[METADATA], path)
        if metadata["format_version"] != FORMAT_VERSION:
            raise _invalid(
                path, f"a format {metadata['format_version']} file has no manifest", MANIFEST
            )
    else:
        head = read_legacy_archive(
            path, [METADATA], max_bytes=max_bytes, error=ModelFileError, exact=False
        )
        version = _metadata(head[METADATA], path)["format_version"]
        if version == FORMAT_VERSION:
            raise _invalid(path, f"missing: a format {version} model file has one", MANIFEST)
        names = [METADATA, WEIGHTS_OF[version]]
        members = read_legacy_archive(path, names, max_bytes=max_bytes, error=ModelFileError)
        metadata = _metadata(members[METADATA], path)
    version = metadata["format_version"]
    weights = _weights(members[WEIGHTS_OF[version]], version, path)
    description, state = _description_and_state(metadata, path)
    _keep_the_chosen_learning_rate(description, state)
    return description, state, weights, WEIGHTS_OF[version]


def _metadata(data: bytes, path: Path) -> dict[str, Any]:
    """The parsed metadata, of this format and a version this skattn reads."""
    try:
        metadata = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _invalid(path, f"not JSON ({error})") from error
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        raise _invalid(path, "it is not a skattn model archive")
    version = metadata.get("format_version")
    if version not in WEIGHTS_OF or isinstance(version, bool):
        raise _invalid(
            path,
            f"format version {version!r} is not one this skattn {__version__} reads "
            f"({sorted(WEIGHTS_OF)}); use the skattn version that wrote it",
        )
    return metadata


def _weights(raw: bytes, version: int, path: Path) -> dict[str, torch.Tensor]:
    reader = _torch_weights if version == 1 else load_safetensors
    try:
        weights = reader(raw)
    except _UNREADABLE_WEIGHTS as error:
        raise _invalid(
            path,
            f"its weights cannot be read ({type(error).__name__}: {error})",
            WEIGHTS_OF[version],
        ) from error
    if not isinstance(weights, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()
    ):
        raise _invalid(path, "its weights are not named tensors", WEIGHTS_OF[version])
    return weights


def _description_and_state(metadata: dict, path: Path) -> tuple[dict, dict]:
    """The estimator's description and fitted state, their structure checked."""
    try:
        if metadata["format_version"] == 1:
            description, state = _from_version_1(metadata)
        else:
            description, state = metadata["estimator"], metadata["state"]
        _check_description(description)
        _check_state(state)
    except (KeyError, TypeError, ValueError) as error:
        raise _invalid(path, f"missing or wrong field ({type(error).__name__}: {error})") from error
    return description, state


def _check_description(description: Any) -> None:
    if not isinstance(description, dict) or not isinstance(description.get("params"), dict):
        raise TypeError("the estimator must be {'class': ..., 'params': {...}}")
    for value in description["params"].values():
        if isinstance(value, dict) and _ESTIMATOR in value:
            _check_description(value[_ESTIMATOR])


def _check_state(state: Any) -> None:
    """The vocabulary, its counts, the classes and the attributes have their types and sizes."""
    if not isinstance(state, dict):
        raise TypeError("state must be an object")
    tokens, counts = state["tokens"], state["token_counts"]
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("tokens must be a list of str")
    if len(set(tokens)) != len(tokens):
        raise ValueError("tokens holds a token twice")
    if not isinstance(counts, list) or len(counts) != len(tokens):
        raise ValueError("token_counts must hold one count per token")
    if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
        raise TypeError("token_counts must be counts (ints >= 0)")
    if state["classes"] is not None and not isinstance(state["classes"], list):
        raise TypeError("classes must be a list or null")
    if not isinstance(state["attributes"], dict):
        raise TypeError("attributes must be an object")


def _keep_the_chosen_learning_rate(description: dict, state: dict) -> None:
    """Files written while ``fit`` searched learning rates: ``lr`` becomes the chosen one.

    Those files hold the tried rates as ``lr`` and the chosen one as the
    fitted attribute ``lr``; ``fit`` now takes one rate, the one the saved
    network was trained with.
    """
    chosen = state.get("attributes", {}).get("lr")
    if chosen is None:
        return
    while isinstance(description, dict):
        params = description.get("params", {})
        if isinstance(params.get("lr"), (list, dict)):
            params["lr"] = chosen
        inner = params.get("classifier")  # an embedder holds its classifier
        description = inner.get(_ESTIMATOR) if isinstance(inner, dict) else None


#: What the weight readers raise on bytes that are not their format: safetensors'
#: own error; torch.load's unpickler errors (refused globals among them), its
#: zip reader's RuntimeError and the EOFError of a cut stream.
_UNREADABLE_WEIGHTS = (
    SafetensorError,
    pickle.UnpicklingError,
    RuntimeError,
    EOFError,
    ValueError,
    TypeError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
)


def _torch_weights(raw: bytes) -> dict[str, torch.Tensor]:
    """Version-1 weights: tensors only (no pickled code), mapped to the CPU."""
    return torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)


def load(path, *, max_bytes: int = DEFAULT_MAX_BYTES, check_reading: bool = True, **params):
    """Load an estimator written by :func:`save`, executing no pickled code.

    Parameters
    ----------
    path : str or path-like
    max_bytes : int, default=2**30
        The most bytes the members may declare in all, checked before decompressing.
    check_reading : bool, default=True
        Refuse code passed again that reads :data:`PROBE_TEXTS` otherwise than
        the saved code did; False warns instead (a tokenizer upgraded on purpose).
    **params
        Parameters that could not be stored (``tokenizer``, a callable
        ``sentence_split``, ``callbacks``...), or that decide how the model
        runs or trains again (:data:`LOAD_MAY_SET`: ``device``, by default the
        saved one when available, else the CPU; ``threads``...), of the saved
        estimator (or of an embedder's classifier). Those the fitted state
        depends on (text settings, sizes, ``threshold``) must equal the saved ones.

    Returns
    -------
    estimator
        Fitted, predicting exactly as the saved one.

    Raises
    ------
    TypeError
        A keyword is not a parameter of the saved estimator (the message
        lists the accepted ones), or would replace fitted state.
    ModelFileError
        The file is truncated, altered, too large, of another format or
        version, or invalid (a ``ValueError`` naming the file and member).
    ValueError
        It needs a parameter that was not passed (the message says which).

    Examples
    --------
    >>> import tempfile, skattn
    >>> from skattn import SelfAttentiveClassifier
    >>> clf = SelfAttentiveClassifier(hidden_size=4, max_epochs=1, random_state=0)
    >>> path = skattn.save(clf.fit(["good", "bad"] * 4, [1, 0] * 4), tempfile.mkdtemp() + "/m")
    >>> skattn.load(path, threads=2).threads
    2
    >>> skattn.load(path, threds=2)
    Traceback (most recent call last):
    ...
    TypeError: load() got parameters the saved SelfAttentiveClassifier does not have: ['threds']...
    """
    description, state, weights, weights_member = _read(path, max_bytes)
    _check_overrides(description, params, path, check_reading)
    warned: list[str] = []
    fitted = _fitted(description, state, (weights, weights_member), params, path, warned)
    if warned:
        warnings.warn(
            f"{path}: training-only parameters that a file cannot hold were reset to their "
            f"defaults: {'; '.join(warned)}. Pass them to load() to set them.",
            UserWarning,
            stacklevel=2,
        )
    return fitted


def _fitted(description: dict, state: dict, weights: tuple, params: dict, path, warned: list):
    """The fitted estimator the file describes, every failure of the file's a ModelFileError.

    ``weights`` is the tensors and the member they were read from.
    """
    weights, weights_member = weights
    try:
        estimator = _build(description, params, path, warned)
        if "device" not in params:
            _fall_back_to_an_available_device(estimator)
        fitted = estimator.set_fitted_state(_state_from_json(state, weights))
        # Validates the classes and thresholds (sorted, distinct, in range).
        getattr(fitted, "classifier_", fitted).decision_rule_  # noqa: B018
    except (_CodeNeeded, ModelFileError):
        raise
    except WeightsMismatchError as error:
        raise _invalid(path, f"{error}, as {METADATA} describes it", weights_member) from error
    except InvalidDecisionRule as error:
        raise _invalid(path, str(error)) from error
    except InvalidParameterError as error:
        raise _invalid(path, f"a saved parameter is invalid ({error})") from error
    except (KeyError, TypeError, ValueError) as error:
        raise _invalid(path, f"missing or wrong field ({type(error).__name__}: {error})") from error
    return fitted


def _parameter_names(description: dict) -> set[str]:
    """The parameters of the class a description names, and of the estimators inside it.

    Taken from the class (a file written by an older version may lack newer
    parameters, which :func:`load` still accepts).
    """
    if not isinstance(description, dict) or description.get("class") not in ESTIMATORS:
        return set()
    cls = ESTIMATORS[description["class"]]
    names = set(inspect.signature(cls.__init__).parameters) - {"self"}
    params = description.get("params")
    for value in (params if isinstance(params, dict) else {}).values():
        if isinstance(value, dict) and _ESTIMATOR in value:
            names |= _parameter_names(value[_ESTIMATOR])
    return names


def _check_overrides(description: dict, params: dict, path, check_reading: bool = True) -> None:
    """Refuse keywords of :func:`load` that no saved estimator has, or that replace fitted state.

    The caller's values are then checked against the estimators'
    constraints, so that a bad one is reported as the caller's.
    """
    accepted = _parameter_names(description)
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise TypeError(
            f"load() got parameters the saved {description.get('class', 'estimator')} does not "
            f"have: "
            f"{unknown}; it accepts {sorted(accepted)} ({path})."
        )
    saved = _saved_values(description)
    replaced = sorted(
        name
        for name, value in params.items()
        if name not in LOAD_MAY_SET and not _same_or_code(name, saved.get(name), value)
    )
    _check_code_passed_again(description, params, path, check_reading)
    if replaced:
        shown = ", ".join(
            f"{name}={params[name]!r} (saved: {_saved_text(name, saved)})" for name in replaced
        )
        raise TypeError(
            f"load() got {shown}: the fitted model depends on these (its vocabulary, network "
            "or decisions were learned with the saved values); refit to change them. load() "
            "sets only how the model runs or trains again (skattn.persistence.LOAD_MAY_SET) "
            f"and code a file cannot hold ({path})."
        )
    for cls in _classes(description):
        constraints = cls._parameter_constraints
        validate_params(cls(), {k: v for k, v in params.items() if k in constraints})
    if params.get("device") is not None:
        resolve_device(params["device"])


def _saved_text(name: str, saved: dict[str, list]) -> str:
    """How the refusal shows a parameter's saved value (an old file may not hold it)."""
    if name in saved:
        shown = [_shown(value) for value in saved[name]]
        return shown[0] if len(set(shown)) == 1 else " and ".join(shown)
    if name in ABSENT_MEANS:
        return f"absent, which a file of its age means as {ABSENT_MEANS[name]!r}"
    return "absent"


def _saved_values(description: dict) -> dict[str, list]:
    """Each parameter's saved (JSON) values, at every level of the description."""
    values: dict[str, list] = {}
    for name, value in description["params"].items():
        if isinstance(value, dict) and _ESTIMATOR in value:
            for inner, found in _saved_values(value[_ESTIMATOR]).items():
                values.setdefault(inner, []).extend(found)
        else:
            values.setdefault(name, []).append(value)
    return values


def _check_code_passed_again(
    description: dict, params: dict, path, check_reading: bool = True
) -> None:
    """Refuse code passed again that reads PROBE_TEXTS otherwise than the saved code did.

    At each level of the description whose tokenizer or sentence splitter
    was code, once all of that code is passed again (``check_reading``
    False: warn instead). A file written before the readings were stored
    cannot be checked: a name or None passed in place of its code is warned
    about.
    """
    saved = description["params"]
    code = [name for name in NEEDED_TO_READ_TEXT if _is_code_marker(saved.get(name))]
    if code and all(name in params for name in code):
        expected = saved[code[0]].get(_PROBE)
        settings = {name: _data_from_json(saved[name]) for name in READING if name in saved}
        settings.update({name: params[name] for name in code})
        if expected is None:
            if not all(callable(params[name]) for name in code):
                warnings.warn(
                    f"{path} was written before skattn stored how its code reads text, so "
                    f"{code} passed as a name or None cannot be checked against it.",
                    UserWarning,
                    stacklevel=4,
                )
        else:
            got = _reading(settings)
            _refuse_another_reading(expected, got, code, params, path, check_reading)
    for value in saved.values():
        if isinstance(value, dict) and _ESTIMATOR in value:
            _check_code_passed_again(value[_ESTIMATOR], params, path, check_reading)


def _refuse_another_reading(
    expected: list, got: list, code: list, params: dict, path, refuse: bool = True
) -> None:
    differs = [i for i, (a, b) in enumerate(zip(expected, got)) if a != b]
    if not differs:
        return
    i = differs[0]
    given = ", ".join(f"{name}={params[name]!r}" for name in code)
    said = (
        f"load() got {given}, which reads {PROBE_TEXTS[i]!r} as {_read_as(got[i])}; the model "
        f"was fitted with code that read it as {_read_as(expected[i])}"
    )
    if not refuse:
        warnings.warn(
            f"{said}; loaded anyway (check_reading=False): documents are read otherwise than "
            f"the model learned them ({path}).",
            UserWarning,
            stacklevel=5,
        )
        return
    raise TypeError(
        f"{said}. Pass the code the model was fitted with: any other reads documents "
        f"otherwise than it learned them; load(..., check_reading=False) accepts it "
        f"knowingly ({path})."
    )


def _read_as(reading: list | None) -> str:
    return "an error" if reading is None else repr(reading)


def _shown(stored: Any) -> str:
    """A saved value as the refusal shows it."""
    if _is_code_marker(stored):
        return f"a {stored[_PASS_AGAIN]}"
    return repr(_data_from_json(stored))


def _same_or_code(name: str, saved: list | None, value: Any) -> bool:
    """Whether passing ``value`` changes nothing fitted: code passed again, or the saved value.

    A parameter newer than the file is compared with what the versions
    before it did (:data:`ABSENT_MEANS`).
    """
    if saved is None:
        saved = [ABSENT_MEANS[name]] if name in ABSENT_MEANS else []
    if not saved:
        return False
    for stored in saved:
        if isinstance(stored, dict) and _PASS_AGAIN in stored:
            continue  # code passed again: checked by _check_code_passed_again
        try:
            if not bool(_data_from_json(stored) == value):
                return False
        except (TypeError, ValueError):  # values that do not compare as data
            return False
    return True


def _classes(description: dict) -> list[type]:
    """The estimator classes a description names, the outer one first."""
    classes = [ESTIMATORS[description["class"]]]
    for value in description["params"].values():
        if isinstance(value, dict) and _ESTIMATOR in value:
            classes += _classes(value[_ESTIMATOR])
    return classes


def _fall_back_to_an_available_device(estimator) -> None:
    """A model saved on a device this machine lacks is loaded on the CPU."""
    for owner in (estimator, getattr(estimator, "classifier", None)):
        if owner is None or not hasattr(owner, "device"):
            continue
        try:
            resolve_device(owner.device)
        except ValueError:
            owner.set_params(device="cpu")
