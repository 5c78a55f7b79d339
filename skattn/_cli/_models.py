"""Loading what predict and explain read: a saved model, or an exported artefact.

A model file and an artefact are both zip archives; their members tell them
apart (:func:`file_kind`) without importing torch, scikit-learn or
onnxruntime, so that a command given the wrong kind of file says so at once.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from skattn._cli._extras import require_extra
from skattn._cli._output import import_function, sentence_splitter
from skattn._cli._parser import TOKENIZER_NAMES, UsageError

#: The member of a model file (skattn.persistence.METADATA) and those of an artefact
#: (skattn.serving._artifact.CONFIG and NETWORK), spelled here so as to import neither
#: torch nor onnxruntime; tests check they agree.
MODEL_MEMBER = "metadata.json"
ARTEFACT_MEMBERS = ("config.json", "model.onnx")
#: What each kind of file is, in the messages.
WRITTEN_BY = {
    "model": "a model file written by skattn.save",
    "artefact": "an artefact written by export",
}


def file_kind(path: Path) -> str | None:
    """``"model"`` (skattn.save), ``"artefact"`` (export), ``"other"`` (a zip archive of neither).

    None when ``path`` is not a readable zip archive: the loader then says
    what is wrong with it. Only the archive's directory is read.

    Examples
    --------
    >>> import tempfile
    >>> from skattn.utils._archives import write_archive
    >>> folder = Path(tempfile.mkdtemp())
    >>> file_kind(write_archive(folder / "m.skattn", {"metadata.json": b"{}"}))
    'model'
    >>> file_kind(write_archive(folder / "m.onnx.zip", {"config.json": b"{}"}))
    'artefact'
    >>> file_kind(write_archive(folder / "x.zip", {"x": b""})), file_kind(folder / "no.zip")
    ('other', None)
    """
    from skattn.utils._archives import ArchiveError, member_names

    try:
        names = member_names(path)
    except (ArchiveError, OSError):
        return None
    if MODEL_MEMBER in names:
        return "model"
    return "artefact" if names & set(ARTEFACT_MEMBERS) else "other"


def check_kind(path: Path, command: str, *expected: str) -> str | None:
    """The kind of ``path`` (:func:`file_kind`), refused unless one of ``expected``.

    The message names what the file is and what ``command`` reads. A file
    that is not a zip archive (None) is left to the loader's own message.

    Examples
    --------
    >>> import tempfile
    >>> from skattn.utils._archives import write_archive
    >>> model = write_archive(Path(tempfile.mkdtemp()) / "m.skattn", {"metadata.json": b"{}"})
    >>> check_kind(model, "export", "model")
    'model'
    >>> check_kind(model, "serve", "artefact")
    Traceback (most recent call last):
    ...
    ValueError: ...m.skattn is a model file written by skattn.save; serve reads an artefact ...
    """
    kind = file_kind(path)
    if kind is None or kind in expected:
        return kind
    reads = " or ".join(WRITTEN_BY[name] for name in expected)
    if kind == "other":
        raise ValueError(
            f"{path} is a zip archive, but neither {WRITTEN_BY['model']} (no {MODEL_MEMBER}) "
            f"nor {WRITTEN_BY['artefact']} (no {' or '.join(ARTEFACT_MEMBERS)}); {command} "
            f"reads {reads}."
        )
    if kind == "model":  # an artefact was expected: say how to write one
        exported = path.with_name(path.stem + ".onnx.zip")
        run = shlex.join(["python", "-m", "skattn", "export", str(path), str(exported)])
        raise ValueError(
            f"{path} is {WRITTEN_BY[kind]}; {command} reads {reads}: run `{run}` first, "
            f"then {command} {shlex.quote(str(exported))}."
        )
    also = " (predict reads both)" if command == "explain" else ""
    raise ValueError(
        f"{path} is {WRITTEN_BY[kind]}; {command} reads {reads}, such as the one the artefact "
        f"was exported from{also}."
    )


def load_artefact(path: Path):
    """The served model of an artefact: numpy and onnxruntime, no torch."""
    require_extra("serving", "predicting with an artefact")
    from skattn.serving._artifact import read_artifact
    from skattn.serving._runtime import OnnxTextClassifier, OnnxTextRegressor

    config, _ = read_artifact(path)
    cls = OnnxTextRegressor if config["task"] == "regressor" else OnnxTextClassifier
    return cls(path)


def code_to_pass_again(args) -> dict:
    """``load``'s parameters for code a model file cannot hold: a tokenizer, a sentence splitter."""
    params = {}
    if args.tokenizer is not None:
        params["tokenizer"] = (
            args.tokenizer
            if args.tokenizer in TOKENIZER_NAMES
            else import_function("--tokenizer", args.tokenizer)
        )
    if args.sentence_split is not None:
        params["sentence_split"] = sentence_splitter(args.sentence_split)
    return params


def load_model(args, artefacts: bool = False):
    """The model of ``args.model`` (``--tokenizer`` applied), refusing pair models.

    An artefact only with ``artefacts``; any other kind of file is refused
    by :func:`check_kind`, naming what it is, before torch is imported.
    """
    if not args.model.is_file():
        raise FileNotFoundError(f"model file {args.model}: no such file")
    kinds = ("model", "artefact") if artefacts else ("model",)
    if check_kind(args.model, args.command, *kinds) == "artefact":
        flags = ("tokenizer", "sentence_split")
        given = [flag for flag in flags if getattr(args, flag, None) is not None]
        if given:
            option = "--" + given[0].replace("_", "-")
            raise UsageError(
                f"{option} is for a model file saved with code; {args.model} is an artefact, "
                "which carries its own text settings"
            )
        return load_artefact(args.model)
    from skattn.estimators._pairs import SelfAttentivePairModel
    from skattn.persistence import load

    model = load(args.model, **code_to_pass_again(args))
    if isinstance(model, SelfAttentivePairModel):
        raise ValueError(
            f"{args.model} holds a {type(model).__name__}, which reads pairs of texts; the "
            "command line reads single documents. Use the model from Python."
        )
    return getattr(model, "classifier_", model)
