"""The seams between layers: load's keywords, one model per fit, threads, inference iterators."""

import json
import threading
import zipfile

import numpy as np
import pytest
import torch

from skattn import SelfAttentiveEmbedder, load, save
from skattn.net import NetConfig
from skattn.utils.runtime import torch_threads

from estimators import SMALL_ESTIMATORS, small_self_attentive


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
    clf = small_self_attentive(lr=0.02).fit(X, y)
    clf.set_params(lr=0.005).fit(X, y)
    assert not hasattr(clf, "lr_")
    # The cosine schedule has decayed the rate; its initial value is the parameter.
    assert clf.net_.optimizer_.param_groups[0]["initial_lr"] == 0.005


def test_a_file_written_by_the_learning_rate_search_loads_with_the_chosen_rate(
    fitted, toy, tmp_path
):
    path = save(fitted, tmp_path / "model.skattn")
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    metadata = json.loads(members["metadata.json"])
    chosen = metadata["estimator"]["params"]["lr"]
    metadata["estimator"]["params"]["lr"] = {"$tuple": [chosen / 10, chosen]}
    metadata["state"]["attributes"]["lr"] = chosen
    members["metadata.json"] = json.dumps(metadata).encode()
    with zipfile.ZipFile(tmp_path / "searched.skattn", "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    restored = load(tmp_path / "searched.skattn")
    assert restored.lr == chosen
    np.testing.assert_array_equal(restored.predict_proba(toy[0]), fitted.predict_proba(toy[0]))


def test_thread_blocks_in_two_threads_run_at_the_same_time_and_restore_the_setting():
    before = torch.get_num_threads()
    inside = threading.Barrier(2, timeout=10)
    seen = {}

    def block(name, threads):
        with torch_threads(threads):
            inside.wait()  # both blocks are open at once: neither waited for the other
            seen[name] = torch.get_num_threads()
            inside.wait()

    workers = [
        threading.Thread(target=block, args=("one", 1)),
        threading.Thread(target=block, args=("two", 2)),
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=20)
    assert seen == {"one": 1, "two": 1}  # the smaller request holds while both run
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
    clf = SMALL_ESTIMATORS[name]().fit(X, y)
    documents = [X[3], X[0] + " " + X[1], X[2]]  # lengths out of order
    outputs = clf.document_outputs(documents, ("logits",))
    one_by_one = np.vstack([clf.document_outputs([d])["logits"] for d in documents])
    np.testing.assert_allclose(outputs["logits"], one_by_one, rtol=1e-5, atol=1e-6)
