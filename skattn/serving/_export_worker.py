"""Export a network to ONNX in a fresh process (see :mod:`skattn.serving._export`).

``python path/to/_export_worker.py FOLDER`` reads ``FOLDER/network.pt`` (the
pickled module) and ``FOLDER/request.json`` (architecture and text
settings), and writes ``FOLDER/model.onnx`` and ``FOLDER/outputs.json``.
Run by its path, it imports nothing of the caller's script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    """Export (the argument as in the module docstring)."""
    import torch

    from skattn.serving._export import _export_here

    folder = Path(argv[0])
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    module = torch.load(folder / "network.pt", weights_only=False)
    onnx_bytes, outputs = _export_here(module, request["architecture"], request["text"])
    (folder / "model.onnx").write_bytes(onnx_bytes)
    (folder / "outputs.json").write_text(json.dumps(outputs), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
