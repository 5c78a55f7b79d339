"""Pytest settings for every path of the repository (tests/ and the doctests in skattn/)."""

import os

import pytest

#: The most workers ``-n auto`` (setup.cfg's addopts) starts: each holds its
#: own corpora and its files' fitted models, so many cores would cost much
#: memory for the few minutes the longest test file takes anyway.
MAX_WORKERS = 4


@pytest.hookimpl(wrapper=True, optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """pytest-xdist's own count for ``-n auto``, at most MAX_WORKERS.

    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the count exactly.
    """
    workers = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return workers
    return min(workers, MAX_WORKERS)
