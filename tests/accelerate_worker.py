"""One process of the data-parallel training test (``tests/test_accelerate.py``).

Started on every process by a launcher, for example::

    python -m torch.distributed.run --standalone --nproc_per_node 2 \
        tests/accelerate_worker.py OUT --models self_attentive hierarchical

Each process fits the same small model on the same real subset of
sentence_polarity with ``accelerator=Accelerator(cpu=True)`` and writes
``OUT/<model>-rank<i>.json`` and ``OUT/<model>-rank<i>.npy``: the corpus
positions of the training documents it was given in each epoch, a digest of
the module's parameters after every optimizer step, the training positions
of the split, the history, the test predictions and the flat parameter
vector at the end; and saves the fitted model to ``OUT/<model>-rank<i>.skattn``.
Then it fits a stream with ``random_state=None`` and writes a digest of the
weights to ``OUT/unseeded-rank<i>.json``; last, it fits on documents that
differ between the processes and writes the error it met to
``OUT/mismatch-rank<i>.json``. Nothing runs on import.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np
import torch
from skorch.callbacks import Callback

from skattn.text import DocumentDataset

#: Training documents, test documents and the split seed of the subset.
N_TRAIN, N_TEST, SEED = 2000, 1000, 0
#: Small networks that learn in seconds (GloVe 50d when installed, a high rate).
SETTINGS = {
    "self_attentive": dict(hidden_size=32, attention_dim=16, mlp_hidden=32),
    "hierarchical": dict(hidden_size=16, sentence_hidden_size=16, context_dim=16),
}
COMMON = dict(
    embedding_dim=50,
    subword_buckets=None,
    lr=1e-2,
    max_epochs=4,
    early_stopping=True,
    random_state=0,
)


def subset():
    """The training and test documents and labels (the same in every process)."""
    from skattn.datasets import fetch_sentence_polarity

    X, y = fetch_sentence_polarity(return_X_y=True, download_if_missing=False)
    order = np.random.RandomState(SEED).permutation(len(X))
    train, test = order[:N_TRAIN], order[N_TRAIN : N_TRAIN + N_TEST]
    return [X[i] for i in train], y[train], [X[i] for i in test], y[test]


def make_model(name: str, **params):
    """The estimator of the test, by name, with ``params`` on top of the shared settings."""
    from skattn import HierarchicalAttentionClassifier, SelfAttentiveClassifier

    cls = SelfAttentiveClassifier if name == "self_attentive" else HierarchicalAttentionClassifier
    return cls(**{**COMMON, **SETTINGS[name], **params})


class _Collated:
    """Records, per dataset object, the corpus positions of every batch collated."""

    def __init__(self):
        self.by_dataset: dict[int, list[int]] = {}
        self._collate = DocumentDataset.collate

    def install(self) -> None:
        recorder, collate = self, self._collate

        def recording_collate(dataset, indices):
            positions = dataset.index[np.asarray(indices, dtype=np.int64)]
            recorder.by_dataset.setdefault(id(dataset), []).extend(positions.tolist())
            return collate(dataset, indices)

        DocumentDataset.collate = recording_collate

    def take(self, dataset) -> list[int]:
        return self.by_dataset.pop(id(dataset), [])


class Recorder(Callback):
    """Each epoch's training positions; the parameters' digest after every step."""

    def __init__(self, collated: _Collated):
        self.collated = collated

    def initialize(self):
        self.epochs_, self.digests_, self.train_positions_ = [], [], None
        return self

    def on_batch_end(self, net, training=False, **kwargs):
        if training:
            flat = torch.cat([p.detach().reshape(-1) for p in net.module_.parameters()])
            digest = hashlib.blake2b(flat.float().numpy().tobytes(), digest_size=16)
            self.digests_.append(digest.hexdigest())

    def on_epoch_end(self, net, dataset_train=None, **kwargs):
        self.epochs_.append(sorted(self.collated.take(dataset_train)))
        self.train_positions_ = sorted(dataset_train.index.tolist())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--models", nargs="+", default=["self_attentive"])
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()

    from accelerate import Accelerator

    import skattn

    accelerator = Accelerator(cpu=True)
    rank = accelerator.process_index
    X_train, y_train, X_test, y_test = subset()
    collated = _Collated()
    collated.install()
    for name in args.models:
        recorder = Recorder(collated)
        checkpoints = args.out / f"{name}-checkpoints"
        model = make_model(
            name,
            batch_size=args.batch_size,
            accelerator=accelerator,
            callbacks=[("recorder", recorder)],
            checkpoint_dir=str(checkpoints),
        )
        start = time.perf_counter()
        model.fit(X_train, y_train)
        seconds = time.perf_counter() - start
        proba = model.predict_proba(X_test)
        path = skattn.save(model, args.out / f"{name}-rank{rank}.skattn")
        flat = torch.cat([p.detach().reshape(-1) for p in model.net_.module_.parameters()])
        np.save(args.out / f"{name}-rank{rank}.npy", flat.numpy())
        record = {
            "rank": rank,
            "num_processes": accelerator.num_processes,
            "epochs": recorder.epochs_,
            "train_positions": recorder.train_positions_,
            "digests": recorder.digests_,
            "history": [
                {k: epoch[k] for k in ("epoch", "train_loss", "valid_acc", "valid_loss")}
                for epoch in model.history_
            ],
            "checkpoint_files": sorted(p.name for p in checkpoints.iterdir()),
            "net_class": type(model.net_).__name__,
            "accuracy": float(np.mean(model.classes_[proba.argmax(1)] == y_test)),
            "proba": proba.tolist(),
            "model_file": str(path),
            "fit_seconds": seconds,
        }
        (args.out / f"{name}-rank{rank}.json").write_text(json.dumps(record))

    # random_state=None and a stream: every process takes the main process's
    # seed, so the split and the batches agree and the replicas stay equal.
    unseeded = make_model(
        args.models[0], accelerator=accelerator, random_state=None, max_epochs=1
    ).fit(iter(X_train), y_train)
    flat = torch.cat([p.detach().reshape(-1) for p in unseeded.net_.module_.parameters()])
    (args.out / f"unseeded-rank{rank}.json").write_text(
        json.dumps({"digest": hashlib.blake2b(flat.numpy().tobytes()).hexdigest()})
    )

    # A user error: the processes are given different documents (here the
    # last process lacks one). Every process must fail, and before training.
    mismatched = X_train[:-1] if rank == accelerator.num_processes - 1 else X_train
    labels = y_train[: len(mismatched)]
    try:
        make_model(args.models[0], accelerator=accelerator).fit(mismatched, labels)
        outcome = None
    except RuntimeError as error:
        outcome = str(error)
    (args.out / f"mismatch-rank{rank}.json").write_text(json.dumps({"error": outcome}))


if __name__ == "__main__":
    main()
