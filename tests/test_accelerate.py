"""Data-parallel training and mixed precision through accelerate (the ``accelerator`` parameter).

The two-process tests launch ``tests/accelerate_worker.py`` on two CPU
processes with torch's launcher (``python -m torch.distributed.run``, the
``torchrun`` that ``accelerate launch --multi_gpu`` also runs; gloo over
the loopback, a free port); each process trains a small self-attentive and
a small hierarchical model on the same 2,000 sentence_polarity snippets
with ``accelerator=Accelerator(cpu=True)`` and 32 documents a batch (64 a
step over both). The one-process references train the same settings with
64 documents a batch.

Accuracy bounds: two accuracies measured on the same n = 1,000 test
documents are compared within three binomial standard deviations of their
difference, 3·sqrt(2·p(1−p)/n) with p their mean (about 0.06 at p = 0.7);
that is generous for the test-sampling noise (the two share their test
set) and leaves room for the training noise of another batch order.
"""

from __future__ import annotations

import gc
import json
import math
import os
import pickle
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from skorch.callbacks import Callback

import skattn
from skattn.training import (
    AcceleratedAttentionNet,
    AttentionNet,
    bf16_recurrent_kernels,
    check_accelerator,
)
from skattn.training import _accelerated as accelerated

accelerate = pytest.importorskip(
    "accelerate",
    reason="the accelerator parameter needs Hugging Face accelerate: "
    'pip install "skattn[distributed]"',
)
from accelerate import Accelerator, DataLoaderConfiguration  # noqa: E402
from accelerate.state import AcceleratorState, GradientState  # noqa: E402
from accelerate_worker import N_TEST, make_model, subset  # noqa: E402

from estimators import KeepOptimizer  # noqa: E402

WORKER = Path(__file__).with_name("accelerate_worker.py")
MODELS = ("self_attentive", "hierarchical")
#: The largest rounding error of one bfloat16 value (8 significant bits).
BF16_EPS = 2.0**-8


def accuracy_bound(a: float, b: float, n: int = N_TEST) -> float:
    """Three binomial standard deviations of the difference of two accuracies on n documents."""
    p = (a + b) / 2
    return 3 * math.sqrt(2 * p * (1 - p) / n)


#: Accuracy that is well above chance on the balanced test set (3 SD above 0.5).
ABOVE_CHANCE = 0.5 + 3 * math.sqrt(0.25 / N_TEST)


@pytest.fixture(autouse=True)
def fresh_accelerate_state():
    """accelerate keeps one state per process (mixed precision and all): fresh for each test."""
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
    yield
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()


@pytest.fixture(scope="module")
def data():
    """(X_train, y_train, X_test, y_test): the worker's real subset."""
    return subset()


@pytest.fixture(scope="module")
def one_process(data):
    """The one-process references: each model fitted without an accelerator, and its accuracy."""
    X_train, y_train, X_test, y_test = data
    fitted = {}
    for name in MODELS:
        model = make_model(name, batch_size=64).fit(X_train, y_train)
        fitted[name] = (model, model.score(X_test, y_test))
    return fitted


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory):
    """The records the two processes wrote: {model: [rank 0's, rank 1's]}, plus the folder."""
    out = tmp_path_factory.mktemp("accelerate")
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",  # rendezvous on the loopback, on a free port
        "--nnodes=1",
        "--nproc_per_node=2",
        str(WORKER),
        str(out),
        "--models",
        *MODELS,
        "--batch-size=32",
    ]
    root = str(Path(skattn.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
    }
    if Path("/sys/class/net/lo").exists():
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")  # gloo's traffic on the loopback too
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    records = {
        name: [json.loads((out / f"{name}-rank{rank}.json").read_text()) for rank in (0, 1)]
        for name in (*MODELS, "unseeded", "mismatch")
    }
    return records, out


pytestmark = pytest.mark.timeout(300)


# -- two processes -----------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_each_process_trains_on_its_own_share_of_every_epoch(two_processes, name):
    first, second = two_processes[0][name]
    assert (first["rank"], second["rank"], first["num_processes"]) == (0, 1, 2)
    assert first["train_positions"] == second["train_positions"]
    training = set(first["train_positions"])
    assert len(training) == 1800  # 2,000 less the 10% validation split
    assert len(first["epochs"]) == len(second["epochs"]) == len(first["history"])
    for mine, theirs in zip(first["epochs"], second["epochs"]):
        assert len(mine) == len(set(mine)) and len(theirs) == len(set(theirs))
        assert not set(mine) & set(theirs)
        assert set(mine) | set(theirs) == training


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_replicas_hold_the_same_weights_after_every_step(two_processes, name):
    records, out = two_processes
    first, second = records[name]
    assert len(first["digests"]) == len(second["digests"]) > 10
    assert first["digests"] == second["digests"]
    # The weights do move at every step (the digests would match trivially otherwise).
    steps = first["digests"]
    assert all(a != b for a, b in zip(steps, steps[1:]))
    assert np.array_equal(np.load(out / f"{name}-rank0.npy"), np.load(out / f"{name}-rank1.npy"))


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_every_process_decides_alike_and_writes_its_own_checkpoint(two_processes, name):
    first, second = two_processes[0][name]
    # The same validation scores, the same (process-averaged) training loss.
    assert first["history"] == second["history"]
    assert all(0 <= epoch["valid_acc"] <= 1 for epoch in first["history"])
    # One shared checkpoint folder, one file per process: no collision.
    assert first["checkpoint_files"] == ["params.pt", "rank1_params.pt"]
    assert first["net_class"] == "AcceleratedAttentionNet"
    np.testing.assert_allclose(first["proba"], second["proba"], rtol=1e-6, atol=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_two_processes_are_as_accurate_as_one(two_processes, one_process, name):
    distributed = two_processes[0][name][0]["accuracy"]
    single = one_process[name][1]
    assert distributed >= ABOVE_CHANCE and single >= ABOVE_CHANCE
    assert abs(distributed - single) <= accuracy_bound(distributed, single)


@pytest.mark.slow
def test_a_model_saved_by_a_process_loads_without_accelerate(two_processes, data, monkeypatch):
    records, out = two_processes
    monkeypatch.setitem(sys.modules, "accelerate", None)  # importing it now fails
    for name in MODELS:
        # The worker's recording callback is not saved; the accelerator is saved as None.
        with pytest.warns(UserWarning, match="callbacks"):
            model = skattn.load(out / f"{name}-rank1.skattn")
        assert model.accelerator is None
        assert type(model.net_) is AttentionNet
        np.testing.assert_allclose(
            model.predict_proba(data[2]), records[name][1]["proba"], rtol=1e-6, atol=1e-7
        )


@pytest.mark.slow
@pytest.mark.slow
def test_an_unseeded_streamed_fit_keeps_the_replicas_equal(two_processes):
    # Without the main process's seed each process would draw its own split
    # and the worker would stop with an error before this fit (the fixture fails).
    first, second = (record["digest"] for record in two_processes[0]["unseeded"])
    assert first == second


def test_processes_given_different_documents_all_fail_before_training(two_processes):
    errors = [record["error"] for record in two_processes[0]["mismatch"]]
    assert all(error is not None and "different training" in error for error in errors)


# -- one process -------------------------------------------------------------


def small_model(**params):
    return skattn.SelfAttentiveClassifier(
        embedding_dim=8,
        hidden_size=8,
        attention_dim=8,
        mlp_hidden=8,
        embeddings=None,
        subword_buckets=None,
        max_epochs=2,
        random_state=0,
        **params,
    )


def test_one_process_with_an_accelerator_trains_the_same_model(polarity_small):
    X, y = polarity_small
    params = dict(early_stopping=True, clip_grad_norm=0.5, clip_grad_value=1.0)
    plain = small_model(**params).fit(X, y)
    accelerated = small_model(accelerator=Accelerator(cpu=True), **params).fit(X, y)
    assert type(accelerated.net_) is AcceleratedAttentionNet and accelerated.net_.device is None
    expected = plain.net_.module_.state_dict()
    weights = accelerated.net_.module_.state_dict()
    assert weights.keys() == expected.keys()  # no wrapper left around the module
    assert all(torch.equal(weights[key], expected[key]) for key in expected)
    assert accelerated.history_[:, "train_loss"] == plain.history_[:, "train_loss"]


def test_gradient_accumulation_steps_once_per_accumulated_batches(polarity_small):
    X, y = polarity_small
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
    kept = KeepOptimizer()
    model = small_model(accelerator=accelerator, callbacks=[kept]).fit(X, y)
    # A step every 2 batches, and one at the end of an epoch for an odd batch out.
    expected = sum(math.ceil(len(epoch["batches"]) / 2) for epoch in model.history_)
    steps = {int(state["step"]) for state in kept.optimizer_.state.values()}
    assert steps == {expected}
    assert expected < sum(len(epoch["batches"]) for epoch in model.history_)


def test_clone_keeps_the_accelerator_and_grid_search_runs(polarity_small):
    X, y = polarity_small
    accelerator = Accelerator(cpu=True)
    model = small_model(accelerator=accelerator)
    # accelerate's Accelerator.__deepcopy__ returns itself: no workaround needed.
    assert clone(model).accelerator is accelerator
    search = GridSearchCV(model, {"lr": [3e-3, 1e-2]}, cv=2).fit(X, y)
    assert search.best_estimator_.accelerator is accelerator
    assert type(search.best_estimator_.net_) is AcceleratedAttentionNet
    assert search.predict(X[:5]).shape == (5,)
    # The accelerator, still alive, keeps no fitted network alive.
    module = weakref.ref(search.best_estimator_.net_.module_)
    del search
    gc.collect()
    assert module() is None


def test_an_accelerated_model_saves_and_pickles(polarity_small, tmp_path, monkeypatch):
    X, y = polarity_small
    model = small_model(accelerator=Accelerator(cpu=True)).fit(X, y)
    expected = model.predict_proba(X[:50])
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_allclose(again.predict_proba(X[:50]), expected, rtol=1e-6, atol=1e-7)
    path = skattn.save(model, tmp_path / "model.skattn")
    monkeypatch.setitem(sys.modules, "accelerate", None)
    loaded = skattn.load(path)
    assert loaded.accelerator is None and type(loaded.net_) is AttentionNet
    np.testing.assert_allclose(loaded.predict_proba(X[:50]), expected, rtol=1e-6, atol=1e-7)


def test_an_accelerator_that_cannot_train_fails_with_a_clear_error(toy, monkeypatch):
    X, y = toy
    with pytest.raises(TypeError, match="accelerator must be an accelerate.Accelerator"):
        small_model(accelerator="cuda").fit(X, y)
    splitting = Accelerator(cpu=True, dataloader_config=DataLoaderConfiguration(split_batches=True))
    with pytest.raises(ValueError, match="split_batches=True is not supported"):
        small_model(accelerator=splitting).fit(X, y)
    monkeypatch.setitem(sys.modules, "accelerate", None)
    with pytest.raises(ImportError, match=r"skattn\[distributed\]"):
        small_model(accelerator=splitting).fit(X, y)


def test_a_lone_accelerator_in_a_launched_process_is_warned_about(monkeypatch):
    accelerator = Accelerator(cpu=True)
    check_accelerator(accelerator)  # not launched: nothing to say
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.warns(UserWarning, match="trains on all the data by itself"):
        check_accelerator(accelerator)


# -- mixed precision -------------------------------------------------------------


# The bf16 tests run where this CPU's kernels can train the recurrent layers
# in bfloat16 (the probe the estimators themselves use); elsewhere the
# refusal below is what a user meets.
needs_bf16 = pytest.mark.skipif(
    bf16_recurrent_kernels() is not None,
    reason=f"no bf16 training here: {bf16_recurrent_kernels()}",
)


@pytest.fixture
def cpu_without_bf16_lstm(monkeypatch):
    """This process's probe behaves as on a CPU whose oneDNN has no bfloat16 LSTM kernel."""
    real_lstm = torch.nn.LSTM

    class NoBf16LSTM(real_lstm):
        def forward(self, *args, **kwargs):
            if torch.is_autocast_enabled("cpu"):
                raise RuntimeError(
                    "could not create a primitive descriptor for the LSTM forward "
                    "propagation primitive"
                )
            return super().forward(*args, **kwargs)

    bf16_recurrent_kernels.cache_clear()
    monkeypatch.setitem(accelerated._RECURRENT_LAYERS, "LSTM", NoBf16LSTM)
    yield
    monkeypatch.undo()
    bf16_recurrent_kernels.cache_clear()


def test_the_probe_reports_a_cpu_without_bf16_recurrent_kernels(cpu_without_bf16_lstm):
    reason = bf16_recurrent_kernels()
    assert reason.startswith("LSTM in bfloat16: could not create a primitive descriptor")


class TrainingStarted(Callback):
    started_ = False

    def on_train_begin(self, net, **kwargs):
        self.started_ = True


def bf16_model(name, data, started):
    return make_model(
        name,
        max_epochs=1,
        accelerator=Accelerator(cpu=True, mixed_precision="bf16"),
        callbacks=[started],
    )


def test_bf16_is_refused_before_training_where_the_cpu_cannot_run_the_lstm(
    cpu_without_bf16_lstm, data
):
    started = TrainingStarted()
    model = bf16_model("self_attentive", data, started)
    with pytest.raises(ValueError, match=r"mixed_precision='bf16' cannot train on this CPU.*LSTM"):
        model.fit(data[0][:64], data[1][:64])
    assert not started.started_
    assert not hasattr(model, "net_")


def test_a_gru_network_still_trains_in_bf16_where_only_the_lstm_kernel_is_missing(
    cpu_without_bf16_lstm, data
):
    started = TrainingStarted()
    model = bf16_model("hierarchical", data, started).fit(data[0][:64], data[1][:64])
    assert started.started_
    assert model.predict(data[2][:5]).shape == (5,)


class RecurrentDtypes(Callback):
    """The dtypes the LSTM/GRU layers' outputs had during training steps."""

    def initialize(self):
        self.dtypes_ = set()
        return self

    def on_train_begin(self, net, **kwargs):
        def record(module, inputs, output):
            if torch.is_grad_enabled():
                self.dtypes_.add((type(module).__name__, output[0].dtype))

        for module in net.module_.modules():
            if isinstance(module, (torch.nn.LSTM, torch.nn.GRU)):
                module.register_forward_hook(record)


@pytest.mark.slow
@needs_bf16
@pytest.mark.parametrize("name", MODELS)
def test_bf16_forward_agrees_with_fp32(one_process, data, name):
    model = one_process[name][0]
    X_test = data[2]
    fp32 = model.predict_proba(X_test)
    with Accelerator(cpu=True, mixed_precision="bf16").autocast():
        bf16 = model.predict_proba(X_test)
    # A few bfloat16 rounding errors on probabilities in [0, 1].
    tolerance = 5 * BF16_EPS
    np.testing.assert_allclose(bf16, fp32, rtol=0, atol=tolerance)
    assert not np.array_equal(bf16, fp32)  # the forward did run in bfloat16
    clear = np.abs(fp32[:, 1] - 0.5) > tolerance
    assert np.array_equal(bf16[clear].argmax(1), fp32[clear].argmax(1))


@pytest.mark.slow
@needs_bf16
@pytest.mark.parametrize("name", MODELS)
def test_bf16_training_learns_as_well_as_fp32(one_process, data, name):
    X_train, y_train, X_test, y_test = data
    dtypes = RecurrentDtypes()
    accelerator = Accelerator(cpu=True, mixed_precision="bf16")
    model = make_model(name, batch_size=64, accelerator=accelerator, callbacks=[dtypes])
    model.fit(X_train, y_train)
    if name == "self_attentive":
        # CPU autocast runs the LSTM in bfloat16 (the GRU stays in float32).
        assert ("LSTM", torch.bfloat16) in dtypes.dtypes_
    assert next(model.net_.module_.parameters()).dtype == torch.float32
    accuracy = model.score(X_test, y_test)
    single = one_process[name][1]
    assert accuracy >= ABOVE_CHANCE
    assert abs(accuracy - single) <= accuracy_bound(accuracy, single)
