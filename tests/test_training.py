"""The training path's schedule: one-cycle learning rates, stepped per batch."""

import math

import numpy as np
import pytest

from skattn.net import one_cycle

from estimators import small_hierarchical, small_self_attentive


def test_one_cycle_rises_linearly_then_decays_by_a_cosine():
    total, warmup = 20, 4
    factors = [one_cycle(step, total, warmup) for step in range(total)]
    np.testing.assert_allclose(factors[:warmup], [0.25, 0.5, 0.75, 1.0])
    decay = factors[warmup:]
    assert all(a > b > 0 for a, b in zip(decay, decay[1:]))
    # Halfway through the decay (17 slots after the warm-up), half the rate.
    assert one_cycle(warmup - 1 + 17 // 2, total, warmup) == pytest.approx(
        0.5 * (1 + math.cos(math.pi * 8 / 17))
    )


@pytest.mark.parametrize("make", [small_self_attentive, small_hierarchical])
def test_a_one_cycle_fit_steps_the_rate_after_every_batch(make, toy):
    X, y = toy
    model = make(lr_schedule="onecycle", lr=0.01, max_epochs=3, batch_size=32).fit(X, y)
    rates = [batch["event_lr"] for epoch in model.history_ for batch in epoch["batches"]]
    steps_per_epoch = math.ceil(len(X) / 32)
    assert len(rates) == 3 * steps_per_epoch
    peak = int(np.argmax(rates))
    assert rates[peak] == pytest.approx(0.01)
    # 10% of the steps warm up, each a step higher; the rest decay, to near 0.
    assert peak == round(0.1 * len(rates)) - 1
    assert np.all(np.diff(rates[: peak + 1]) > 0) and np.all(np.diff(rates[peak:]) < 0)
    assert rates[-1] < 0.01 * 0.02


def test_warmup_epochs_set_a_one_cycle_warm_up(toy):
    X, y = toy
    model = small_self_attentive(lr_schedule="onecycle", warmup_epochs=1, max_epochs=3).fit(X, y)
    rates = [batch["event_lr"] for epoch in model.history_ for batch in epoch["batches"]]
    first_epoch = len(model.history_[0]["batches"])
    assert int(np.argmax(rates)) == first_epoch - 1  # the peak ends the first epoch
