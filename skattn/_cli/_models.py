"""Loading what predict and explain read: a saved model, or an exported artefact."""

from __future__ import annotations

from pathlib import Path

from skattn._cli._extras import require_extra
from skattn._cli._output import import_function
from skattn._cli._parser import TOKENIZER_NAMES


def is_artefact(path: Path) -> bool:
    """Whether ``path`` is an artefact of ``export`` (it holds an ONNX network)."""
    from skattn.serving._artifact import NETWORK
    from skattn.utils._archives import ArchiveError, member_names

    try:
        return NETWORK in member_names(path)
    except (ArchiveError, OSError):
        return False


def load_artefact(path: Path):
    """The served model of an artefact: numpy and onnxruntime, no torch."""
    require_extra("serving", "predicting with an artefact")
    from skattn.serving._artifact import read_artifact
    from skattn.serving._runtime import OnnxTextClassifier, OnnxTextRegressor

    config, _ = read_artifact(path)
    cls = OnnxTextRegressor if config["task"] == "regressor" else OnnxTextClassifier
    return cls(path)


def load_model(args, artefacts: bool = False):
    """The model of ``args.model`` (``--tokenizer`` applied), refusing pair models."""
    if not args.model.is_file():
        raise FileNotFoundError(f"model file {args.model}: no such file")
    if is_artefact(args.model):
        if not artefacts:
            raise ValueError(
                f"{args.model} is an exported artefact; {args.command} reads a file written "
                "by skattn.save (predict reads both)."
            )
        return load_artefact(args.model)
    from skattn.estimators._pairs import SelfAttentivePairModel
    from skattn.persistence import load

    params = {}
    if args.tokenizer:
        params["tokenizer"] = (
            args.tokenizer
            if args.tokenizer in TOKENIZER_NAMES
            else import_function("--tokenizer", args.tokenizer)
        )
    model = load(args.model, **params)
    if isinstance(model, SelfAttentivePairModel):
        raise ValueError(
            f"{args.model} holds a {type(model).__name__}, which reads pairs of texts; the "
            "command line reads single documents. Use the model from Python."
        )
    return getattr(model, "classifier_", model)
