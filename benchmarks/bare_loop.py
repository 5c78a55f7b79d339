"""A bare PyTorch training loop of the package's own networks, for reference.

No estimator, no skorch: the same modules (``skattn.nn``), the same
batches (``DocumentDataset`` + ``BucketBatchSampler``), the same loss and
optimiser, written as the plain loop a PyTorch user would write. Run in
the same process as the estimator, the ratio estimator ÷ bare loop is the
cost of every layer above the modules.
"""

from __future__ import annotations

import time

import torch

from skattn.text import BucketBatchSampler, DocumentDataset
from skattn.training import OPTIMIZERS
from skattn.utils._runtime import torch_threads


def bare_epoch_seconds(
    module: torch.nn.Module,
    dataset: DocumentDataset,
    *,
    batch_size: int,
    optimizer: str,
    lr: float,
    momentum: float = 0.9,
    penalty: float = 0.0,
    clip: float | None = None,
    epochs: int = 1,
    bucketed: bool = True,
    max_tokens: int | None = None,
    cap_documents: bool = False,
) -> list[float]:
    """Train ``module`` for ``epochs`` epochs; return each epoch's wall time in seconds.

    ``max_tokens`` and ``cap_documents``: token-budget batches, as
    :class:`~skattn.text.BucketBatchSampler` takes them.
    """
    kwargs = {"momentum": momentum} if optimizer in ("sgd", "rmsprop") else {}
    trainable = [p for p in module.parameters() if p.requires_grad]
    opt = OPTIMIZERS[optimizer](trainable, lr=lr, **kwargs)
    loss_fn = torch.nn.CrossEntropyLoss()
    sampler = BucketBatchSampler(
        dataset.sort_keys,
        batch_size,
        shuffle=True,
        pool_batches=50 if bucketed else 1,
        sizes=dataset.lengths,
        max_tokens=max_tokens,
        cap_documents=cap_documents,
    )
    module.train()
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        for rows in sampler:
            X, y = dataset.collate(rows)
            # The same inputs the estimator's net gets (subwords included).
            output = module(**{k: v for k, v in X.items() if k != "sample_weight"})
            loss = loss_fn(output.logits, y)
            if penalty and "penalty" in output.fields:
                loss = loss + penalty * output.penalty.mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(trainable, clip)
            opt.step()
        times.append(time.perf_counter() - start)
    return times


def bare_reference(estimator, X, y, *, epochs: int = 1, bucketed: bool = True) -> list[float]:
    """Epoch times of a bare loop over a fresh copy of ``estimator``'s network and batches.

    ``estimator`` must be fitted (its encoder gives the same ids, its
    parameters the same sizes, optimiser, learning rate and clipping).
    """
    dataset = estimator.to_dataset(X, y)
    net = estimator.build_network(len(estimator.classes_), estimator.encoder_.vocab_size_)
    module = net.initialize().module_
    module.load_state_dict(estimator.net_.module_.state_dict())
    # The estimator's own batches: a token budget where its batch_tokens sets one.
    batches = estimator.net_._bucket_sampler(dataset)
    with torch_threads(estimator.threads):  # the estimator's thread setting
        return bare_epoch_seconds(
            module,
            dataset,
            batch_size=estimator.batch_size,
            optimizer=estimator.optimizer,
            lr=estimator.lr,
            momentum=estimator.momentum,
            penalty=getattr(estimator, "penalty", 0.0),
            clip=estimator.clip_grad_norm,
            epochs=epochs,
            bucketed=bucketed,
            max_tokens=batches.max_tokens,
            cap_documents=batches.cap_documents,
        )
