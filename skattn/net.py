"""skorch glue: the training loop of every attention estimator.

:class:`AttentionNet` is a :class:`skorch.NeuralNetClassifier` that
overrides only what it must:

- ``get_loss``: cross-entropy weighted by ``sample_weight``, plus
  ``penalty`` × the module's per-example penalty (when it returns one);
- ``infer``: ``sample_weight`` travels in the batch but is not a module input;
- ``get_iterator``: training batches come from a shuffled, length-bucketed
  sampler (so skorch's ``batch_size`` injection never meets a batch sampler);
  other passes go in dataset order;
- :meth:`AttentionNet.predict_outputs` runs inference on length-sorted
  batches and returns every module output in the caller's order, with
  per-document attention maps trimmed to each document's length (skorch's
  own ``forward`` would try to concatenate differently padded maps).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence

import numpy as np
import torch
from skorch import NeuralNetClassifier
from skorch.callbacks import Callback
from torch.utils.data import DataLoader

from skattn.data import BucketBatchSampler, DocumentDataset


class AttentionNet(NeuralNetClassifier):
    """NeuralNetClassifier for modules that return (logits, attention..., penalty).

    Parameters
    ----------
    penalty : float, default=0.0
        Coefficient of the module's ``penalty`` output in the loss.
    bucket_pool : int, default=50
        Training batches are drawn from shuffled pools of this many batches
        sorted by length; 1 gives plain random batches (no bucketing).
    **kwargs
        Passed to :class:`skorch.NeuralNetClassifier`.
    """

    def __init__(self, *args, penalty: float = 0.0, bucket_pool: int = 50, **kwargs):
        super().__init__(*args, **kwargs)
        self.penalty = penalty
        self.bucket_pool = bucket_pool

    def infer(self, x, **fit_params):
        x = {key: value for key, value in x.items() if key != "sample_weight"}
        return super().infer(x, **fit_params)

    def get_loss(self, y_pred, y_true, X=None, training=False):
        logits = y_pred[0]
        losses = self.criterion_(logits, y_true.to(logits.device))
        weights = None if X is None else X.get("sample_weight")
        if weights is None:
            loss = losses.mean()
        else:
            weights = weights.to(losses.device)
            loss = (losses * weights).sum() / weights.sum().clamp(min=1e-12)
        penalty = getattr(y_pred, "penalty", None)
        if self.penalty and penalty is not None:
            loss = loss + self.penalty * penalty.mean()
        return loss

    def get_iterator(self, dataset, training=False):
        if not isinstance(dataset, DocumentDataset):
            return super().get_iterator(dataset, training=training)
        if training:
            sampler = BucketBatchSampler(
                dataset.sort_keys, self.batch_size, shuffle=True, pool_batches=self.bucket_pool
            )
            return DataLoader(dataset, batch_sampler=sampler, collate_fn=dataset.collate)
        return DataLoader(
            dataset, batch_size=self.batch_size, shuffle=False, collate_fn=dataset.collate
        )

    def load_embeddings(self, vectors: np.ndarray | None, freeze: bool = False) -> None:
        """Copy initial word vectors into the module's ``embedding``; optionally freeze it."""
        embedding = self.module_.embedding
        if vectors is not None:
            with torch.no_grad():
                embedding.weight.copy_(torch.as_tensor(vectors, dtype=embedding.weight.dtype))
        embedding.weight.requires_grad_(not freeze)

    def iter_sorted_outputs(
        self, dataset: DocumentDataset
    ) -> Iterator[tuple[np.ndarray, dict, tuple]]:
        """Yield ``(document_indices, batch, module_output)`` over length-sorted batches."""
        order = np.argsort(dataset.sort_keys, kind="stable")
        self.module_.eval()
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                X, _ = dataset.collate(rows)
                yield rows, X, self.infer(X)

    def predict_outputs(
        self, dataset: DocumentDataset, fields: Sequence[str] = ("logits",)
    ) -> dict[str, object]:
        """Module outputs for every document, in dataset order.

        Parameters
        ----------
        dataset : DocumentDataset
        fields : sequence of str
            Names of the module output's fields to collect. Fields with a
            fixed per-document shape come back as one array; the others
            (attention maps) as a list of per-document arrays, trimmed to
            the document's real size by the output's ``per_document``.

        Returns
        -------
        dict of str to ndarray or list of ndarray
        """
        collected: dict[str, list] = {field: [None] * len(dataset) for field in fields}
        for rows, X, output in self.iter_sorted_outputs(dataset):
            trimmed = output.per_document(X)
            for field in fields:
                values = trimmed.get(field)
                if values is None:
                    values = list(getattr(output, field).cpu().numpy())
                for row, value in zip(rows, values):
                    collected[field][row] = value
        return {
            field: np.stack(values) if _same_shape(values) else values
            for field, values in collected.items()
        }


class RestoreLastEpoch(Callback):
    """After an interrupted fit (Ctrl-C), put back the weights of the last finished epoch.

    skorch stops training on ``KeyboardInterrupt`` and keeps the module as
    it was mid-epoch; this callback keeps a copy of the weights at the end
    of each epoch and restores it when training ends inside an epoch. The
    net's ``interrupted_`` then says so.
    """

    def on_train_begin(self, net, **kwargs):
        self._snapshot(net)
        net.interrupted_ = False

    def on_epoch_begin(self, net, **kwargs):
        self.in_epoch_ = True

    def on_epoch_end(self, net, **kwargs):
        self._snapshot(net)

    def on_train_end(self, net, **kwargs):
        if self.in_epoch_:
            net.module_.load_state_dict(self.state_)
            net.interrupted_ = True
            warnings.warn(
                f"fit was interrupted; the weights of the last finished epoch "
                f"({len(net.history) - 1}) were restored.",
                UserWarning,
                stacklevel=2,
            )

    def _snapshot(self, net):
        self.state_ = {k: v.detach().clone() for k, v in net.module_.state_dict().items()}
        self.in_epoch_ = False


def _same_shape(values: list) -> bool:
    """Whether per-document values are arrays of one shape (so they stack)."""
    if not all(isinstance(v, np.ndarray) for v in values):
        return False
    return all(v.shape == values[0].shape for v in values)


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run a block with ``threads`` intra-op PyTorch threads, then restore.

    Parameters
    ----------
    threads : int or None
        None leaves PyTorch's setting alone.

    Examples
    --------
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    """
    if threads is None:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
