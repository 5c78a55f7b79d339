"""Would a fused two-direction GRU scan speed HAN up? A probe, not a feature.

HAN's GRUs run PyTorch's own per-step cell loop on the CPU (no oneDNN
kernel serves the GRU). This probe measures the alternative that removes
the most work a Python-level rewrite can remove: both directions in one
batched step (``baddbmm`` over a stacked pair of weight matrices), the
input projections of every step in one product, no autograd graph inside
the loop and a hand-written backward pass whose weight gradient is one
product over all steps. It checks the probe against
:class:`skattn.nn.BiRNNEncoder` (same outputs and gradients, float32
tolerance) and times forward + backward of both at HAN's shapes, then
the matrix products of one step alone, to show what share of a step
they are: the matrix-product FLOPs of PyTorch's forward + backward
(``FlopCounterMode``) and the time they would take at the step product's
rate and at the 2,048² product's (``bench_flops.best_flop_rate``, the best
of 10), against the measured time. (PyTorch's CPU GRU already computes
the input projections in one product; the probe's differences are the
batched directions and the hand-written backward.)

With ``--fit``, the end-to-end effect: a default
``HierarchicalAttentionClassifier`` fitted on the main job's split with
PyTorch's GRU and with the probe in training (``BiRNNEncoder._encode``
patched while gradients are on), in turn, three times each.

Usage: python benchmarks/bench_gru_steps.py [--threads 1]
       SKATTN_DATA=../shared/data python benchmarks/bench_gru_steps.py --fit
"""

from __future__ import annotations

import argparse
import statistics
import time
from unittest import mock

import torch
from bench_flops import best_flop_rate
from torch.utils.flop_counter import FlopCounterMode

from skattn.nn import BiRNNEncoder
from skattn.nn._attention import length_mask
from skattn.nn._encoders import reverse_index

from _common import report


class BiGRUScan(torch.autograd.Function):
    """Both directions' recurrences: gi (T, 2, B, 3H), w_hh (2, 3H, H), b_hh (2, 1, 3H)."""

    @staticmethod
    def forward(ctx, gi, w_hh, b_hh):
        steps, directions, batch, gates = gi.shape
        hidden = gates // 3
        w_t = w_hh.transpose(1, 2)
        states = gi.new_empty(steps + 1, directions, batch, hidden)
        states[0].zero_()
        gh = gi.new_empty(steps, directions, batch, gates)
        rz = gi.new_empty(steps, directions, batch, 2 * hidden)
        n = gi.new_empty(steps, directions, batch, hidden)
        for t in range(steps):
            torch.baddbmm(b_hh, states[t], w_t, out=gh[t])
            torch.add(gi[t, ..., : 2 * hidden], gh[t, ..., : 2 * hidden], out=rz[t]).sigmoid_()
            r = rz[t, ..., :hidden]
            torch.addcmul(gi[t, ..., 2 * hidden :], r, gh[t, ..., 2 * hidden :], out=n[t]).tanh_()
            torch.lerp(n[t], states[t], rz[t, ..., hidden:], out=states[t + 1])
        ctx.save_for_backward(w_hh, states, gh, rz, n)
        return states[1:]

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_states):
        w_hh, states, gh, rz, n = ctx.saved_tensors
        steps, directions, batch, hidden = n.shape
        r, z = rz[..., :hidden], rz[..., hidden:]
        previous = states[:-1]
        to_n = (1 - z) * (1 - n * n)  # d state -> d (n before tanh)
        to_z = (previous - n) * z * (1 - z)  # d state -> d (z before sigmoid)
        to_r = gh[..., 2 * hidden :] * r * (1 - r)  # d (n before tanh) -> d (r before sigmoid)
        grad_gh = torch.empty_like(gh)
        grad_n = torch.empty_like(n)
        carried = torch.zeros_like(n[0])
        for t in range(steps - 1, -1, -1):
            carried = carried + grad_states[t]
            torch.mul(carried, to_n[t], out=grad_n[t])
            torch.mul(carried, to_z[t], out=grad_gh[t, ..., hidden : 2 * hidden])
            torch.mul(grad_n[t], to_r[t], out=grad_gh[t, ..., :hidden])
            torch.mul(grad_n[t], r[t], out=grad_gh[t, ..., 2 * hidden :])
            carried = torch.baddbmm(carried * z[t], grad_gh[t], w_hh)
        grad_gi = torch.cat([grad_gh[..., : 2 * hidden], grad_n], dim=-1)
        flat_gh = grad_gh.permute(1, 0, 2, 3).reshape(directions, steps * batch, 3 * hidden)
        flat_states = previous.permute(1, 0, 2, 3).reshape(directions, steps * batch, hidden)
        grad_w = torch.bmm(flat_gh.transpose(1, 2), flat_states)
        return grad_gi, grad_w, flat_gh.sum(1, keepdim=True)


def fused_encode(encoder: BiRNNEncoder, inputs: torch.Tensor, lengths: torch.Tensor):
    """``encoder._encode`` (a GRU encoder) through :class:`BiGRUScan`."""
    width = int(lengths.max())
    inputs = inputs[:, :width]
    backward_index = reverse_index(lengths, width).unsqueeze(-1)
    reversed_inputs = inputs.gather(1, backward_index.expand_as(inputs))
    rnns = (encoder.forward_rnn, encoder.backward_rnn)
    w_ih = torch.stack([rnn.weight_ih_l0 for rnn in rnns])
    b_ih = torch.stack([rnn.bias_ih_l0 for rnn in rnns]).unsqueeze(1)
    w_hh = torch.stack([rnn.weight_hh_l0 for rnn in rnns])
    b_hh = torch.stack([rnn.bias_hh_l0 for rnn in rnns]).unsqueeze(1)
    steps_first = torch.stack([inputs, reversed_inputs]).transpose(1, 2)  # (2, T, B, I)
    gi = torch.baddbmm(b_ih, steps_first.reshape(2, -1, inputs.shape[-1]), w_ih.transpose(1, 2))
    gi = gi.view(2, width, -1, gi.shape[-1]).transpose(0, 1).contiguous()
    states = BiGRUScan.apply(gi, w_hh, b_hh)
    forward_states = states[:, 0].transpose(0, 1)
    backward_states = states[:, 1].transpose(0, 1)
    backward_states = backward_states.gather(1, backward_index.expand_as(backward_states))
    both = torch.cat([forward_states, backward_states], -1)
    return both * length_mask(lengths, width).unsqueeze(-1)


def medians_in_turn(functions: dict, *args, repeats: int = 30) -> dict[str, float]:
    """Median wall time (ms) of each ``function(*args)``, the functions called in turn.

    Taking turns, each after 5 warm-up calls, spreads the machine's drift
    over all of them.
    """
    for function in functions.values():
        for _ in range(5):
            function(*args)
    times = {label: [] for label in functions}
    for _ in range(repeats):
        for label, function in functions.items():
            start = time.perf_counter()
            function(*args)
            times[label].append(time.perf_counter() - start)
    return {label: 1e3 * statistics.median(runs) for label, runs in times.items()}


def fit_in_turn(repeats: int = 3) -> None:
    """Default HAN fits on the main split, PyTorch's GRU and the probe in turn."""
    from bench_training_time import main_split

    from skattn import HierarchicalAttentionClassifier

    X, y, X_test, y_test = main_split()
    native = BiRNNEncoder._encode

    def probe_in_training(encoder, inputs, lengths):
        if isinstance(encoder.forward_rnn, torch.nn.GRU) and torch.is_grad_enabled():
            return fused_encode(encoder, inputs, lengths)
        return native(encoder, inputs, lengths)

    HierarchicalAttentionClassifier(random_state=0, max_epochs=1).fit(X[:500], y[:500])
    times = {"native": [], "fused": []}
    for _ in range(repeats):
        for label in times:
            encode = probe_in_training if label == "fused" else native
            with mock.patch.object(BiRNNEncoder, "_encode", encode):
                start = time.perf_counter()
                model = HierarchicalAttentionClassifier(random_state=0).fit(X, y)
                times[label].append(time.perf_counter() - start)
            report(f"fit.{label}.test_accuracy", 100 * model.score(X_test, y_test), "%")
    for label, runs in times.items():
        report(f"fit.{label}.fit_s", statistics.median(runs), "s")
        report(f"fit.{label}.runs", ", ".join(f"{t:.1f}" for t in runs))


def native_step(encoder, inputs, lengths) -> None:
    encoder._encode(inputs, lengths).square().sum().backward()


def fused_step(encoder, inputs, lengths) -> None:
    fused_encode(encoder, inputs, lengths).square().sum().backward()


#: (rows, steps, input size, hidden): HAN's word level at the defaults (a
#: batch of 64 snippets, embeddings 100) and at the papers' sizes (a chunk of
#: 256 sentences, embeddings 200), and its sentence level.
SHAPES = {
    "word_defaults": (64, 25, 100, 50),
    "word_paper": (256, 30, 200, 50),
    "sentence_paper": (64, 30, 100, 50),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fit", action="store_true", help="time default HAN fits instead")
    args = parser.parse_args()
    if args.fit:
        fit_in_turn()
        return
    torch.set_num_threads(args.threads)
    report("threads", args.threads)
    generator = torch.Generator().manual_seed(0)
    # One step's hidden-state product alone (64 rows: HAN's defaults), and a
    # square product, the rate the BLAS reaches at a shape that suits it.
    step_rate = best_flop_rate(torch.randn(64, 50), torch.randn(50, 150), repeats=2000)
    report("step_product_64x50x150_gflops", step_rate / 1e9, "GFLOP/s")
    square = torch.randn(2048, 2048, generator=generator)
    peak = best_flop_rate(square, square.T.contiguous())
    report("mm_2048_gflops", peak / 1e9, "GFLOP/s")
    for name, (rows, steps, size, hidden) in SHAPES.items():
        torch.manual_seed(0)
        encoder = BiRNNEncoder(size, hidden, "gru")
        inputs = torch.randn(rows, steps, size, generator=generator, requires_grad=True)
        lengths = torch.randint(1, steps + 1, (rows,), generator=generator)
        lengths[0] = steps
        weights = [inputs, *encoder.parameters()]
        native = encoder._encode(inputs, lengths)
        fused = fused_encode(encoder, inputs, lengths)
        native_grads = torch.autograd.grad(native.square().sum(), weights)
        fused_grads = torch.autograd.grad(fused.square().sum(), weights)
        same = torch.allclose(native, fused, rtol=1e-4, atol=1e-5) and all(
            torch.allclose(a, b, rtol=1e-3, atol=1e-4) for a, b in zip(native_grads, fused_grads)
        )
        report(f"{name}.same_outputs_and_gradients", same)
        if not same:
            raise SystemExit(f"{name}: the probe disagrees with BiRNNEncoder; no timing")
        steps_timed = {"native": native_step, "fused": fused_step}
        timings = medians_in_turn(steps_timed, encoder, inputs, lengths)
        for label, ms in timings.items():
            report(f"{name}.{label}_forward_backward_ms", ms, "ms")
        with FlopCounterMode(display=False) as counter:
            native_step(encoder, inputs, lengths)
        flops = counter.get_total_flops()
        report(f"{name}.matrix_mflop", flops / 1e6, "MFLOP")
        for rate_name, rate in (("step_product", step_rate), ("mm_2048", peak)):
            share = 1e3 * flops / rate / timings["native"]
            report(f"{name}.matrix_share_of_native_at_{rate_name}_rate", share, "")


if __name__ == "__main__":
    main()
