"""Train fastText's supervised classifier in a fresh process (see ``_fasttext.py``).

``python path/to/_fasttext_worker.py TRAIN_FILE MODEL_FILE OPTIONS_JSON``
trains on ``TRAIN_FILE`` with ``fasttext.train_supervised(**OPTIONS)`` and
saves the model to ``MODEL_FILE``. A fresh process has a fresh heap: the
part of the input matrix fastText 0.9 leaves uninitialised with one thread
is then new, zeroed memory, never memory an earlier computation of the
calling process freed.
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
    """Train and save (arguments as in the module docstring)."""
    import fasttext

    train_file, model_file, options = argv[0], argv[1], json.loads(argv[2])
    fasttext.train_supervised(train_file, **options).save_model(model_file)


if __name__ == "__main__":
    main(sys.argv[1:])
