"""Memory a fit no longer uses goes back to the system: mapped and free pages."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from skorch.callbacks import Callback

from skattn.utils._memory import mapped_file_of, release_free_memory, release_mapped_pages

from estimators import small_self_attentive

linux_only = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads resident sizes from /proc"
)


def _resident_mib(kind: str) -> float:
    """RssFile (mapped files) or RssAnon (the heap) of this process, in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(kind + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {kind} in /proc/self/status")


@linux_only
def test_released_pages_of_a_mapped_file_leave_memory_and_the_data_reads_back(tmp_path):
    path = tmp_path / "ids.npy"
    values = np.arange(16 * 2**20, dtype=np.int32)  # 64 MiB
    np.save(path, values)
    ids = np.load(path, mmap_mode="r")
    total = int(ids.sum(dtype=np.int64))  # every page read, so resident
    before = _resident_mib("RssFile")
    assert release_mapped_pages([ids[10:], None, values]) == 1
    after = _resident_mib("RssFile")
    assert before - after > 48, (before, after)
    assert int(ids.sum(dtype=np.int64)) == total


def test_writable_maps_keep_what_was_written(tmp_path):
    path = tmp_path / "ids.npy"
    np.save(path, np.zeros(4096, dtype=np.int64))
    private = np.load(path, mmap_mode="c")
    private[:] = 7  # copy-on-write: only in this process's pages
    assert release_mapped_pages([private, private[1:]]) == 0
    assert (private == 7).all()
    shared = np.load(path, mmap_mode="r+")
    assert release_mapped_pages([shared]) == 0
    assert mapped_file_of(shared) is not None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
@linux_only
def test_the_allocators_free_pages_go_back_to_the_system():
    # Blocks under the allocator's mmap threshold live in its heap; freeing
    # all but the last leaves their pages resident until trimmed.
    blocks = [np.ones(8 * 1024, dtype=np.float64) for _ in range(2000)]  # 2000 x 64 KiB
    keep = blocks[-1]
    del blocks
    before = _resident_mib("RssAnon")
    if not release_free_memory():
        pytest.skip("not glibc")
    after = _resident_mib("RssAnon")
    assert before - after > 64, (before, after)
    assert keep.sum() == 8 * 1024


class MappedDuringTraining(Callback):
    """What the built-in ReleaseMemory callback found to release while training."""

    def on_epoch_end(self, net, **kwargs):
        self.mapped = list(dict(net.callbacks_)["release_memory"].mapped_)


def test_a_memmap_fit_releases_its_mapped_ids_and_keeps_no_reference(polarity_small, tmp_path):
    X, y = polarity_small
    seen = MappedDuringTraining()
    model = small_self_attentive(max_epochs=1, memmap_dir=tmp_path, callbacks=[seen])
    model.fit(X[:300], y[:300])
    # Token ids, subword rows and both offset arrays, all in files of the fit's folder.
    assert len(seen.mapped) == 4
    assert all(mapped_file_of(a) is not None for a in seen.mapped)
    assert dict(model.net_.callbacks_)["release_memory"].mapped_ == []
    assert list(tmp_path.iterdir()) == []
    in_memory = small_self_attentive(max_epochs=1, callbacks=[seen]).fit(X[:300], y[:300])
    assert seen.mapped == []
    np.testing.assert_allclose(
        model.predict_proba(X[300:340]), in_memory.predict_proba(X[300:340]), atol=1e-5
    )


class _MappedBatches:
    """A dataset whose batches read a mapped file (what ReleaseMemory asks of one)."""

    def __init__(self, ids):
        self.ids = ids

    def mapped_arrays(self):
        return [self.ids]


@linux_only
def test_release_memory_drops_what_each_batch_mapped_and_trims_every_n(tmp_path, monkeypatch):
    from skattn.training import ReleaseMemory, _net

    trims = []
    monkeypatch.setattr(_net, "release_free_memory", lambda: trims.append(1))
    path = tmp_path / "ids.npy"
    np.save(path, np.arange(8 * 2**20, dtype=np.int32))  # 32 MiB
    ids = np.load(path, mmap_mode="r")
    callback = ReleaseMemory(every=3)
    callback.on_train_begin(None, X=_MappedBatches(ids))
    rng = np.random.default_rng(0)
    grown = []
    for _ in range(6):
        before = _resident_mib("RssFile")
        # Shuffled reads, as a training batch's: each maps the pages around it.
        for start in rng.integers(0, len(ids) - 4096, size=200):
            int(ids[start : start + 4096].sum())  # 16 KiB: pages, whatever the fault-around
        grown.append(_resident_mib("RssFile") - before)
        callback.on_batch_end(None, training=True)
    after = _resident_mib("RssFile")
    # Each batch mapped several MiB; after the release none of it stays.
    assert min(grown) > 2, grown
    assert after - before < 1, (before, after)
    callback.on_batch_end(None, training=False)  # validation batches are not counted
    assert len(trims) == 2
