"""Safe save/load of fitted estimators: no pickle, no code executed on load.

A model file (format version 2) is a zip archive with two members:

- ``metadata.json``: the format and version, the estimator's class (one of
  a fixed list) and parameters, and its fitted state as plain data (label
  classes or a regressor's target scaling, vocabulary, history, other
  fitted attributes);
- ``weights.safetensors``: the network's tensors in the safetensors format
  (no pickle, no device tags: a model trained on a GPU loads on a CPU).

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
one. Version-1 files (weights written by ``torch.save``) still load; their
weights are read with ``torch.load(weights_only=True)``, which refuses any
pickled code.

This module sits on top of the estimators: it imports them, they never
import it.
"""

from __future__ import annotations

import inspect
import io
import json
import os
import pickle
import uuid
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors

from skattn._version import __version__
from skattn.estimators._base import FittedState, WeightsMismatchError
from skattn.estimators._classifiers import HierarchicalAttentionClassifier, SelfAttentiveClassifier
from skattn.estimators._embedder import SelfAttentiveEmbedder
from skattn.estimators._pairs import SelfAttentivePairClassifier, SelfAttentivePairRegressor
from skattn.estimators._regressors import HierarchicalAttentionRegressor, SelfAttentiveRegressor
from skattn.utils._params import InvalidParameterError
from skattn.utils._runtime import resolve_device

FORMAT = "skattn-model"
FORMAT_VERSION = 2
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
_PASS_AGAIN = "$pass_again"
_TUPLE = "$tuple"
_TORCH_OPTIM = "$torch_optim"
_ESTIMATOR = "$estimator"


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


def _describe(estimator) -> dict[str, Any]:
    owner = type(estimator).__name__
    params = estimator.get_params(deep=False)
    return {
        "class": owner,
        "params": {name: _encode_param(owner, name, value) for name, value in params.items()},
    }


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
    path.parent.mkdir(parents=True, exist_ok=True)
    # open(..., "xb") creates the file with the process's usual permissions.
    temporary = path.parent / f".{path.name}.{uuid.uuid4().hex}.part"
    try:
        with open(temporary, "xb") as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.writestr("metadata.json", json.dumps(metadata, default=_json_default))
                archive.writestr("weights.safetensors", weights)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
    return path


#: The value of a parameter that a model file written before it existed
#: does not hold: what those versions did (they had no subwords).
ABSENT_MEANS = {"subword_buckets": None}


def _invalid(path, reason: str) -> ValueError:
    return ValueError(f"{path} is not a valid skattn model file: {reason}.")


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
        raise ValueError(
            f"{path} was saved with {missing} set to code, which a model file cannot hold; "
            f"pass the same again: load(path, {missing[0]}=...)."
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


def _read(path) -> tuple[dict, dict, dict[str, torch.Tensor]]:
    """(description, state, weights) of a model file of any supported version."""
    try:
        with zipfile.ZipFile(path) as archive:
            metadata = json.loads(archive.read("metadata.json").decode("utf-8"))
            if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
                raise _invalid(path, "it is not a skattn model archive")
            version = metadata.get("format_version")
            if version == 1:
                raw, reader = archive.read("weights.pt"), _torch_weights
            elif version == FORMAT_VERSION:
                raw, reader = archive.read("weights.safetensors"), load_safetensors
            else:
                raise _invalid(
                    path,
                    f"format version {version} is not one this skattn {__version__} reads "
                    f"(1 or {FORMAT_VERSION}); use the skattn version that wrote it",
                )
    except (
        zipfile.BadZipFile,
        KeyError,
        json.JSONDecodeError,
        UnicodeDecodeError,
        zipfile.LargeZipFile,
        EOFError,
    ) as error:
        raise _invalid(path, f"{type(error).__name__}: {error}") from error
    try:
        weights = reader(raw)
    except _UNREADABLE_WEIGHTS as error:
        raise _invalid(
            path, f"its weights cannot be read ({type(error).__name__}: {error})"
        ) from error
    try:
        if version == 1:
            description, state = _from_version_1(metadata)
        else:
            description, state = metadata["estimator"], metadata["state"]
    except (KeyError, TypeError) as error:
        raise _invalid(path, f"missing field {error}") from error
    _keep_the_chosen_learning_rate(description, state)
    return description, state, weights


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


def load(path, **params):
    """Load an estimator written by :func:`save`, executing no pickled code.

    Parameters
    ----------
    path : str or path-like
    **params
        Parameters that could not be stored (``tokenizer``, a callable
        ``sentence_split``, ``callbacks``...), or others to change, such as
        ``device`` (default: the device it was saved with when it is
        available here, else the CPU) or ``threads``. Each must be a
        parameter of the saved estimator (or of the classifier inside an
        embedder).

    Returns
    -------
    estimator
        Fitted, predicting exactly as the saved one.

    Raises
    ------
    TypeError
        A keyword is not a parameter of the saved estimator (the message
        lists the accepted ones).
    ValueError
        The file is truncated, corrupted, of another format or version,
        or needs a parameter that was not passed (the message says which).

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
    description, state, weights = _read(path)
    _check_overrides(description, params, path)
    warned: list[str] = []
    try:
        estimator = _build(description, params, path, warned)
        if "device" not in params:
            _fall_back_to_an_available_device(estimator)
        fitted = estimator.set_fitted_state(_state_from_json(state, weights))
    except InvalidParameterError:
        raise  # a keyword of the caller's, named by the message
    except (KeyError, TypeError) as error:
        raise _invalid(path, f"missing or wrong field {error}") from error
    except WeightsMismatchError as error:
        raise _invalid(path, str(error)) from error
    if warned:
        warnings.warn(
            f"{path}: training-only parameters that a file cannot hold were reset to their "
            f"defaults: {'; '.join(warned)}. Pass them to load() to set them.",
            UserWarning,
            stacklevel=2,
        )
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


def _check_overrides(description: dict, params: dict, path) -> None:
    """Refuse keywords of :func:`load` that no saved estimator has."""
    accepted = _parameter_names(description)
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise TypeError(
            f"load() got parameters the saved {description.get('class', 'estimator')} does not "
            f"have: "
            f"{unknown}; it accepts {sorted(accepted)} ({path})."
        )


def _fall_back_to_an_available_device(estimator) -> None:
    """A model saved on a device this machine lacks is loaded on the CPU."""
    for owner in (estimator, getattr(estimator, "classifier", None)):
        if owner is None or not hasattr(owner, "device"):
            continue
        try:
            resolve_device(owner.device)
        except ValueError:
            owner.set_params(device="cpu")
