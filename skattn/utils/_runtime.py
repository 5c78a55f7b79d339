"""Where and how PyTorch runs a block: device, intra-op threads and random seed.

- :func:`resolve_device` checks a device name before any work starts;
- :func:`torch_threads` runs a block with a thread count and restores it;
- :func:`blas_threads` does the same for numpy's and SciPy's BLAS;
- :func:`seeded` seeds PyTorch's generators for a block and restores them.

Each leaves the global state as it found it. This module depends on
PyTorch and threadpoolctl (a dependency of scikit-learn) only, so every
layer of the package (and persistence, above the estimators) can use it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import torch
from threadpoolctl import threadpool_info, threadpool_limits

__all__ = [
    "available_devices",
    "blas_thread_counts",
    "blas_threads",
    "resolve_device",
    "seeded",
    "torch_threads",
]


def available_devices() -> list[str]:
    """The devices PyTorch can use here, CPU first.

    Returns
    -------
    list of str

    Examples
    --------
    >>> available_devices()[0]
    'cpu'
    """
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append("mps")
    return devices


def resolve_device(device: str | None) -> str | None:
    """The device a model runs on, checked before any work starts.

    Parameters
    ----------
    device : str or None
        ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"``,
        ``"cuda:N"``, ``"mps"``, or None (skorch's meaning: leave the
        module where PyTorch creates it, the CPU).

    Returns
    -------
    str or None

    Raises
    ------
    ValueError
        The device is not a PyTorch device name, or not available here.

    Examples
    --------
    >>> resolve_device("auto") in available_devices()
    True
    """
    if device is None:
        return None
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(
            f"device={device!r} is not a PyTorch device name; use 'auto', 'cpu', 'cuda', "
            "'cuda:N' or 'mps'."
        ) from error
    available = available_devices()
    missing = (
        (parsed.type == "cuda" and not torch.cuda.is_available())
        or (parsed.type == "cuda" and (parsed.index or 0) >= torch.cuda.device_count())
        or (parsed.type == "mps" and "mps" not in available)
        or parsed.type not in ("cpu", "cuda", "mps")
    )
    if missing:
        why = ""
        if parsed.type == "cuda" and torch.version.cuda is None:
            why = f" (this PyTorch {torch.__version__} is built without CUDA)"
        raise ValueError(
            f"device={device!r} is not available on this machine{why}; available: "
            f"{available}. Use device='auto' to take a GPU when there is one."
        )
    return device


class _ThreadRequests:
    """Thread counts set by the blocks running now, and what to put back.

    Whether PyTorch's intra-op thread count is shared by the threads of a
    process or kept per thread depends on its parallel backend (with OpenMP,
    a thread that has set it keeps its own). Both are handled: each block
    puts back, in its own thread, the count that thread had before it; the
    count found before the first of several overlapping blocks is put back
    when the last one ends. The lock guards only this bookkeeping, so no
    block waits for another to finish.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._before: int | None = None
        self._local = threading.local()

    def enter(self, threads: int) -> None:
        with self._lock:
            if self._active == 0:
                self._before = torch.get_num_threads()
            self._active += 1
        self._stack().append(torch.get_num_threads())
        _set_threads(threads)

    def leave(self) -> None:
        _set_threads(self._stack().pop())
        with self._lock:
            self._active -= 1
            last, before = self._active == 0, self._before
        if last and before is not None:
            _set_threads(before)

    def _stack(self) -> list[int]:
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        return self._local.stack


def _set_threads(threads: int) -> None:
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


_REQUESTS = _ThreadRequests()


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """Run a block with ``threads`` intra-op PyTorch threads, then restore.

    Blocks running at the same time in several threads of one process do
    not wait for each other. Each sets the count when it starts and puts
    back what its thread had when it ends; after the last of them, the
    count found before the first is back. Where PyTorch shares the count
    between threads, a block that overlaps another may run part of its time
    with the other's count. ``threads=None`` leaves PyTorch's setting alone.

    Parameters
    ----------
    threads : int or None

    Examples
    --------
    >>> with torch_threads(1):
    ...     torch.get_num_threads()
    1
    """
    if threads is None:
        yield
        return
    _REQUESTS.enter(threads)
    try:
        yield
    finally:
        _REQUESTS.leave()


#: BLAS keeps one thread count per process: one block at a time may set it.
_BLAS_LOCK = threading.RLock()


def blas_thread_counts() -> tuple[int, ...]:
    """The thread counts of the BLAS libraries loaded in this process, as threadpoolctl sees them.

    Returns
    -------
    tuple of int
        Empty where threadpoolctl sees no BLAS (numpy built on a library
        it does not know).

    Examples
    --------
    >>> all(count >= 1 for count in blas_thread_counts())
    True
    """
    return tuple(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")


@contextlib.contextmanager
def blas_threads(threads: int | None) -> Iterator[None]:
    """Run a block with ``threads`` BLAS threads (numpy's and SciPy's), then restore.

    A fit's initial word vectors come from BLAS products (the SVD of the
    PPMI matrix), whose rounding depends on how many threads share them:
    without a limit, the same fit gives another model in a process whose
    BLAS has another thread count (a joblib worker against the main
    process, ``OMP_NUM_THREADS`` set). BLAS keeps one count per process,
    so blocks in other threads wait while one runs: keep blocks short
    (skattn runs only the initial vectors in one). OpenBLAS ignores a
    count set from another thread once the main thread has set one: there,
    a block outside the main thread runs on the process's count.

    Parameters
    ----------
    threads : int or None
        BLAS threads for the block; None leaves BLAS alone (and takes no
        turn).

    Examples
    --------
    >>> with blas_threads(1):
    ...     set(blas_thread_counts()) <= {1}
    True
    """
    if threads is None:
        yield
        return
    with _BLAS_LOCK, threadpool_limits(limits=threads, user_api="blas"):
        yield


@contextlib.contextmanager
def seeded(seed: int, device: str | None) -> Iterator[None]:
    """Seed PyTorch's generators for a block; put their states back after it.

    Only the CPU generator and, for a CUDA ``device``, that GPU's
    generator are seeded and restored; other GPUs are never touched (a
    plain ``torch.manual_seed`` would reseed every GPU of the process).

    Parameters
    ----------
    seed : int
    device : str or None

    Examples
    --------
    >>> before = torch.random.get_rng_state()
    >>> with seeded(0, "cpu"):
    ...     first = torch.rand(1)
    >>> bool((torch.random.get_rng_state() == before).all())
    True
    """
    cuda = device is not None and torch.device(device).type == "cuda"
    gpus = [torch.device(device).index or 0] if cuda else []
    with torch.random.fork_rng(devices=gpus):
        torch.random.default_generator.manual_seed(seed)
        for gpu in gpus:
            torch.cuda.default_generators[gpu].manual_seed(seed)
        yield
