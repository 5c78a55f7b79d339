"""``export`` and ``serve``: the artefact of a saved model, and its HTTP service."""

from __future__ import annotations

from skattn._cli._extras import require_extra
from skattn._cli._models import check_kind, code_to_pass_again
from skattn._cli._output import check_output


def export(args) -> int:
    """Write ``args.model`` as an ONNX artefact (the ``export`` extra)."""
    if not args.model.is_file():
        raise FileNotFoundError(f"model file {args.model}: no such file")
    check_kind(args.model, "export", "model")  # not an artefact: before torch is imported
    check_output(args.output, args.force, model=args.model)
    from skattn.serving._artifact import check_artifact_name  # imports no torch

    check_artifact_name(args.output)
    # The extra's modules are checked here, in one line, before torch is imported.
    require_extra("export", "export")
    from skattn.persistence import load
    from skattn.serving import export as export_model

    path = export_model(load(args.model, **code_to_pass_again(args)), args.output)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MiB)")
    return 0


def serve(args) -> int:
    """Serve an artefact in a process of its own (the ``server`` extra)."""
    # A model file of skattn.save is refused by its members, naming export, before
    # onnxruntime is imported (a missing file is the server's to say).
    check_kind(args.artifact, "serve", "artefact")
    require_extra("server", "serve")
    from skattn.serving._server import launch

    return launch(args)
