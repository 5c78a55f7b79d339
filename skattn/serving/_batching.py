"""Server-side dynamic batching: concurrent requests gathered into one model call.

As Triton's dynamic batcher and Ray Serve's ``@serve.batch`` do: each
request puts its samples in a queue; one task per served method takes the
first waiting request, gathers the ones behind it (up to ``max_batch_size``
samples, waiting at most ``max_wait`` seconds for more) and runs them as one
call in the model's executor, then hands each request its own rows. With
``max_wait=0`` nothing waits: requests that queued while the previous call
ran are gathered, so batches grow with the load and a lone request is not
delayed. The event loop never runs the model itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Batcher"]


@dataclass
class _Request:
    samples: Sequence
    future: asyncio.Future = field(repr=False)


class Batcher:
    """Run ``function`` on the samples of concurrent calls gathered together.

    Parameters
    ----------
    function : callable
        Takes a list of samples and returns one row per sample (an array
        or a list, sliced along its first axis).
    executor : concurrent.futures.Executor
        Where ``function`` runs (one thread: one model call at a time).
    max_batch_size : int
        Largest number of samples gathered into one call; 1 turns batching
        off (each request is its own call, in arrival order). A request
        with more samples than this runs alone.
    max_wait : float
        Seconds the first request of a batch waits for others (0: none).
    on_batch : callable or None
        Called with each call's number of samples (metrics).

    Examples
    --------
    >>> import asyncio
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> async def demo():
    ...     batcher = Batcher(lambda xs: [x * 2 for x in xs], ThreadPoolExecutor(1), 8, 0.01)
    ...     answers = await asyncio.gather(batcher([1, 2]), batcher([3]))
    ...     await batcher.close()
    ...     return answers
    >>> asyncio.run(demo())
    [[2, 4], [6]]
    """

    def __init__(
        self,
        function: Callable[[list], Any],
        executor: Executor,
        max_batch_size: int,
        max_wait: float = 0.0,
        on_batch: Callable[[int], None] | None = None,
    ):
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be 1 or more, got {max_batch_size}.")
        if max_wait < 0:
            raise ValueError(f"max_wait must be 0 or more seconds, got {max_wait}.")
        self.function = function
        self.executor = executor
        self.max_batch_size = max_batch_size
        self.max_wait = max_wait
        self.on_batch = on_batch
        self._queue: asyncio.Queue[_Request] | None = None
        self._worker: asyncio.Task | None = None
        self._carried: _Request | None = None

    async def __call__(self, samples: Sequence) -> Any:
        """The rows of ``samples``, computed in a batch with whatever else is waiting."""
        if self._worker is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.get_running_loop().create_task(self._serve())
        future = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Request(samples, future))
        return await future

    async def close(self) -> None:
        """Stop the batching task; waiting requests get a ``RuntimeError``."""
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
            self._worker = None
        pending = [self._carried] if self._carried else []
        while self._queue is not None and not self._queue.empty():
            pending.append(self._queue.get_nowait())
        for request in pending:
            if not request.future.done():
                request.future.set_exception(RuntimeError("the service is shutting down"))

    async def _serve(self) -> None:
        while True:
            batch = await self._gather()
            await self._run(batch)

    async def _next(self, timeout: float | None) -> _Request | None:
        """The next waiting request (the one carried over first), or None after ``timeout``."""
        if self._carried is not None:
            request, self._carried = self._carried, None
            return request
        if timeout is None:
            return await self._queue.get()
        if timeout <= 0 or not self._queue.empty():
            return None if self._queue.empty() else self._queue.get_nowait()
        try:
            return await asyncio.wait_for(self._queue.get(), timeout)
        except asyncio.TimeoutError:
            return None

    async def _gather(self) -> list[_Request]:
        """The first waiting request and those behind it that fit in one batch."""
        batch = [await self._next(None)]
        size = len(batch[0].samples)
        deadline = asyncio.get_running_loop().time() + self.max_wait
        while size < self.max_batch_size:
            request = await self._next(deadline - asyncio.get_running_loop().time())
            if request is None:
                break
            if size + len(request.samples) > self.max_batch_size:
                self._carried = request  # first in the next batch: order is kept
                break
            batch.append(request)
            size += len(request.samples)
        return [request for request in batch if not request.future.done()]

    async def _run(self, batch: list[_Request]) -> None:
        if not batch:
            return
        samples = [sample for request in batch for sample in request.samples]
        loop = asyncio.get_running_loop()
        try:
            rows = await loop.run_in_executor(self.executor, self.function, samples)
        except Exception as error:
            if len(batch) == 1:
                _settle(batch[0].future, error=error)
                return
            # One request's samples spoilt the call: each runs alone, so only it fails.
            for request in batch:
                await self._run([request])
            return
        if self.on_batch is not None:
            self.on_batch(len(samples))
        start = 0
        for request in batch:
            stop = start + len(request.samples)
            _settle(request.future, rows[start:stop])
            start = stop


def _settle(future: asyncio.Future, result: Any = None, error: BaseException | None = None):
    """Give a request its answer, unless its client has gone (the future was cancelled)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
