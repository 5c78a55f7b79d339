"""The seams between layers: load's keywords, one model per fit, threads, inference iterators."""

import json
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest
import torch

from skattn import SelfAttentiveEmbedder, load, save
from skattn.training import NetConfig
from skattn.utils._runtime import torch_threads

from estimators import SMALL_ESTIMATORS, KeepOptimizer, small_self_attentive


def _as_written_by_the_learning_rate_search(path, classifier_of) -> float:
    """Rewrite a model file as the 0.2 search saved it: the tried rates as ``lr``, the
    chosen one as a fitted attribute, in a format-2 file (no manifest of digests, which
    an edited file of today's format would rightly fail). Returns the chosen rate."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members.pop("manifest.json")
    metadata = json.loads(members["metadata.json"])
    metadata["format_version"] = 2
    params = classifier_of(metadata["estimator"])["params"]
    chosen = params["lr"]
    params["lr"] = {"$tuple": [chosen / 10, chosen]}
    metadata["state"]["attributes"]["lr"] = chosen
    members["metadata.json"] = json.dumps(metadata).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return chosen


@pytest.fixture(scope="module")
def fitted(toy):
    X, y = toy
    return small_self_attentive().fit(X, y)


def test_load_refuses_an_unknown_keyword_and_lists_the_accepted_ones(fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    with pytest.raises(TypeError, match=r"\['devic', 'threds'\]") as error:
        load(path, devic="cuda", threds=3)
    assert "'threads'" in str(error.value) and "'device'" in str(error.value)
    assert load(path, threads=2).threads == 2


def test_load_accepts_the_parameters_of_the_classifier_inside_an_embedder(toy, tmp_path):
    X, y = toy
    embedder = SelfAttentiveEmbedder(small_self_attentive(), output="mean").fit(X, y)
    path = save(embedder, tmp_path / "embedder.skattn")
    assert load(path, threads=2).classifier.threads == 2
    with pytest.raises(TypeError, match="hops"):
        load(path, hops=3)


@pytest.mark.parametrize("name", list(SMALL_ESTIMATORS))
def test_fit_takes_one_learning_rate(name, toy):
    X, y = toy
    with pytest.raises(ValueError, match="lr"):
        SMALL_ESTIMATORS[name](lr=(0.01, 0.1)).fit(X, y)


def test_a_second_fit_keeps_no_learning_rate_of_the_first(toy):
    X, y = toy
    kept = KeepOptimizer()
    clf = small_self_attentive(lr=0.02).fit(X, y)
    clf.set_params(lr=0.005, callbacks=[kept]).fit(X, y)
    # The cosine schedule has decayed the rate; its initial value is the parameter.
    assert kept.optimizer_.param_groups[0]["initial_lr"] == 0.005


def test_a_file_written_by_the_learning_rate_search_loads_with_the_chosen_rate(
    fitted, toy, tmp_path
):
    path = save(fitted, tmp_path / "model.skattn")
    chosen = _as_written_by_the_learning_rate_search(path, lambda estimator: estimator)
    restored = load(path)
    assert restored.lr == chosen
    np.testing.assert_array_equal(restored.predict_proba(toy[0]), fitted.predict_proba(toy[0]))


#: Two threads' BLAS blocks, in a fresh interpreter: OpenBLAS ignores a count set from
#: another thread once the main thread has set one, as earlier tests of this process do.
_TWO_BLAS_BLOCKS = """
import json, threading
from skattn.utils._runtime import blas_thread_counts, blas_threads

first_in, release, second_in = (threading.Event() for _ in range(3))
seen = {}
before = blas_thread_counts()
top = max(before, default=1)

def first():
    with blas_threads(1):
        seen["first"] = sorted(set(blas_thread_counts()))
        first_in.set()
        release.wait(10)

def second():
    first_in.wait(10)
    with blas_threads(top):
        second_in.set()
        seen["second"] = sorted(set(blas_thread_counts()))

workers = [threading.Thread(target=first), threading.Thread(target=second)]
for worker in workers:
    worker.start()
first_in.wait(10)
waited = not second_in.wait(0.3)  # the second block cannot open while the first holds
release.set()
for worker in workers:
    worker.join(timeout=20)
after = blas_thread_counts()
try:
    with blas_threads(1):
        raise RuntimeError("a failing block")
except RuntimeError:
    pass
print(json.dumps({"seen": seen, "top": top, "waited": waited, "restored": after == before,
                  "restored_after_failure": blas_thread_counts() == before,
                  "visible": bool(before)}))
"""


def test_blas_blocks_take_turns_each_with_its_own_count_and_put_the_count_back():
    """A block on 1 thread holds BLAS; a block on the process's count in another thread waits."""
    done = subprocess.run(
        [sys.executable, "-c", _TWO_BLAS_BLOCKS], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["visible"]:
        pytest.skip("no BLAS library that threadpoolctl can see")
    assert result["waited"]
    assert result["seen"] == {"first": [1], "second": [result["top"]]}
    assert result["restored"] and result["restored_after_failure"]


@pytest.mark.parametrize("first", ["one", "two"])
def test_thread_blocks_in_two_threads_run_at_once_and_leave_no_count_behind(first):
    before = torch.get_num_threads()
    inside = threading.Barrier(2, timeout=10)
    entered, after = {}, {}
    requests = {"one": 1, "two": 2}

    def block(name):
        own = torch.get_num_threads()
        with torch_threads(requests[name]):
            entered[name] = torch.get_num_threads()
            inside.wait()  # both blocks are open at once: neither waited for the other
            inside.wait()
            if name == first:
                return
        after[name] = torch.get_num_threads() == own or torch.get_num_threads() == before

    workers = {name: threading.Thread(target=block, args=(name,)) for name in requests}
    for name in (first, *(n for n in requests if n != first)):
        workers[name].start()
    for worker in workers.values():
        worker.join(timeout=20)
    assert entered == requests  # each block ran with its own count
    assert all(after.values())
    assert torch.get_num_threads() == before


def test_overlapping_blocks_leave_the_count_found_before_the_first():
    """First opens, second opens, second closes, first closes: the count is back after both."""
    before = torch.get_num_threads()
    opened, second_closed, first_closed = (threading.Event() for _ in range(3))
    counts = {}

    def first():
        with torch_threads(1):
            opened.set()
            second_closed.wait(10)
        first_closed.set()
        counts["first"] = torch.get_num_threads()

    def second():
        opened.wait(10)
        with torch_threads(1):
            pass
        second_closed.set()
        first_closed.wait(10)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert counts["first"] == before
    assert torch.get_num_threads() == before


def test_prediction_goes_through_the_users_validation_iterator_settings(toy, tmp_path):
    X, y = toy
    marker = tmp_path / "worker-started"

    def mark(_worker_id):
        marker.touch()

    clf = small_self_attentive(
        net_params={"iterator_valid__num_workers": 1, "iterator_valid__worker_init_fn": mark}
    ).fit(X, y)
    assert not marker.exists()  # no validation split: no validation iterator in fit
    proba = clf.predict_proba(X[:20])
    assert marker.exists()
    plain = small_self_attentive().fit(X, y)
    np.testing.assert_array_equal(proba, plain.predict_proba(X[:20]))


def test_net_config_takes_the_training_settings_and_ignores_the_rest():
    config = NetConfig.from_params({"lr": 0.5, "optimizer": "sgd", "attention_hops": 3})
    assert (config.lr, config.optimizer_class) == (0.5, torch.optim.SGD)
    assert not hasattr(config, "attention_hops")
    with pytest.raises(AttributeError):
        config.lr = 1.0  # frozen


@pytest.mark.parametrize("name", list(SMALL_ESTIMATORS))
def test_document_outputs_are_per_document_in_input_order(name, toy):
    X, y = toy
    clf = SMALL_ESTIMATORS[name](batch_size=2).fit(X[:40], y[:40])
    # Lengths out of order, over several inference batches of two.
    documents = [X[3], X[0] + " " + X[1], X[2], "", X[5] * 3, X[4], X[6]]
    outputs = clf.document_outputs(documents, ("logits",))
    one_by_one = np.vstack([clf.document_outputs([d])["logits"] for d in documents])
    np.testing.assert_allclose(outputs["logits"], one_by_one, rtol=1e-5, atol=1e-6)


def test_skorchs_own_predict_keeps_the_dataset_order(toy):
    X, y = toy
    clf = small_self_attentive(batch_size=4).fit(X, y)
    documents = [X[3], X[0] + " " + X[1], X[2], X[5] * 3, X[4]]
    from_skorch = clf.net_.predict_proba(clf.to_dataset(documents))
    np.testing.assert_allclose(from_skorch, clf.predict_proba(documents), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("key", ["iterator_valid__in_order", "iterator_valid__drop_last"])
def test_settings_that_would_reorder_or_drop_prediction_batches_are_refused(key, toy):
    X, y = toy
    with pytest.raises(ValueError, match="batching is set by batch_size"):
        small_self_attentive(net_params={key: False}).fit(X, y)


def test_load_reports_a_bad_keyword_value_as_the_callers_error(fitted, tmp_path):
    path = save(fitted, tmp_path / "model.skattn")
    with pytest.raises(ValueError, match="threads") as error:
        load(path, threads=0)
    assert "not a valid skattn model file" not in str(error.value)


def test_a_version_1_file_accepts_parameters_added_since():
    from pathlib import Path

    model = load(Path(__file__).parent / "data" / "model_v1.skattn", class_weight="balanced")
    assert model.class_weight == "balanced"


def test_an_embedder_file_written_by_the_learning_rate_search_loads(toy, tmp_path):
    X, y = toy
    embedder = SelfAttentiveEmbedder(small_self_attentive(), output="mean").fit(X, y)
    path = save(embedder, tmp_path / "embedder.skattn")
    chosen = _as_written_by_the_learning_rate_search(
        path, lambda estimator: estimator["params"]["classifier"]["$estimator"]
    )
    restored = load(path)
    assert restored.classifier.lr == chosen
    np.testing.assert_array_equal(restored.transform(X[:5]), embedder.transform(X[:5]))
