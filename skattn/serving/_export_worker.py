"""Export a network to ONNX by the ``torch.export``-based exporter, in a fresh process.

Used where the TorchScript-based exporter is not found (see
:func:`skattn.serving._export._has_torchscript_exporter`).

``python path/to/_export_worker.py FOLDER`` reads ``FOLDER/network.pt`` (the
pickled module) and ``FOLDER/request.json`` (architecture and text
settings), and writes ``FOLDER/model.onnx`` and ``FOLDER/outputs.json``.
Run by its path, it imports nothing of the caller's script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# Run by its path, Python puts this file's folder first on sys.path, where the
# package's private modules would shadow the standard library's and others'
# (a module named like them); skattn itself is found as the caller found it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent.resolve()]


def main(argv: list[str]) -> None:
    """Export (the argument as in the module docstring)."""
    import torch

    from skattn.serving._export import _export_here

    torch.set_num_threads(1)
    folder = Path(argv[0])
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    module = torch.load(folder / "network.pt", weights_only=False)
    onnx_bytes, outputs = _export_here(
        module, request["architecture"], request["text"], dynamo=True
    )
    (folder / "model.onnx").write_bytes(onnx_bytes)
    (folder / "outputs.json").write_text(json.dumps(outputs), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
