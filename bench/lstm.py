"""ADBench LSTM (l = 2, b = 14; c = 100 and 1024): gradir vs PyTorch eager on the CPU.

    python bench/lstm.py                 # both sequence lengths
    python bench/lstm.py --steps 100     # one

The objective is examples/lstm/lstm.py's `scf.for` program (float64, as
ADBench). For each sequence length one set of inputs is shared: the gradient
of gradir is first checked against torch.autograd, then both tools are timed
on one thread (median of repetitions). Reported: objective and gradient times,
the gradient/objective ratio (ADBench's metric; target <= 4), gradir/PyTorch
for the gradient, compile time apart, and the bytes the reverse loop caches
with and without checkpointing (`checkpoint-every = ceil(sqrt(c))`), read from
the `autodiff.cache` attributes of the generated code.

Results: bench/results/lstm.json and bench/results/lstm.md.
"""
from __future__ import annotations

import argparse
import json
import math
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "lstm"))

import gradir  # noqa: E402
from lstm import lstm_inputs, lstm_objective_torch as torch_lstm, lstm_program  # noqa: E402

RESULTS = ROOT / "bench" / "results"
LAYERS, WIDTH = 2, 14


def median_seconds(function, budget_s: float = 3.0, max_repeats: int = 50) -> float:
    function()  # warm up
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 3 or (len(times) < max_repeats and time.perf_counter() - start < budget_s):
        t0 = time.perf_counter()
        function()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cache_bytes(text: str, checkpoint_every: int) -> int:
    """Bytes the reverse loops of the gradient cache, from the generated code."""
    from gradir.autodiff_pass.rules.loop_cache import cache_bytes as module_cache_bytes
    from gradir.compilation import lower_to_linalg

    return module_cache_bytes(lower_to_linalg(text, checkpoint_every=checkpoint_every))


def run(steps: int) -> dict:
    import torch

    text = lstm_program(LAYERS, steps, WIDTH)
    inputs = lstm_inputs(LAYERS, steps, WIDTH)
    start = time.perf_counter()
    exe = gradir.compile(text, num_threads=1)
    compile_s = time.perf_counter() - start

    tensors = [torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(inputs)]
    loss = torch_lstm(torch, *tensors)
    reference = torch.autograd.grad(loss, tensors[:2])
    objective = exe.lstm_objective(*inputs)
    gradient = exe.lstm_gradient(*inputs)
    np.testing.assert_allclose(objective, loss.item(), rtol=1e-10)
    for ours, theirs in zip(gradient, reference):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-8, atol=1e-12)

    def torch_objective():
        with torch.no_grad():
            return torch_lstm(torch, *tensors)

    def torch_gradient():
        return torch.autograd.grad(torch_lstm(torch, *tensors), tensors[:2])

    row = {
        "l": LAYERS, "c": steps, "b": WIDTH,
        "gradir_objective_ms": median_seconds(lambda: exe.lstm_objective(*inputs)) * 1e3,
        "gradir_gradient_ms": median_seconds(lambda: exe.lstm_gradient(*inputs)) * 1e3,
        "torch_objective_ms": median_seconds(torch_objective) * 1e3,
        "torch_gradient_ms": median_seconds(torch_gradient) * 1e3,
        "gradir_compile_s": compile_s,
        "checkpoint_every": math.ceil(math.sqrt(steps)),
    }  # fmt: skip
    row["gradir_ratio"] = row["gradir_gradient_ms"] / row["gradir_objective_ms"]
    row["torch_ratio"] = row["torch_gradient_ms"] / row["torch_objective_ms"]
    row["gradient_vs_torch"] = row["gradir_gradient_ms"] / row["torch_gradient_ms"]
    checkpointed = gradir.compile(text, checkpoint_every=row["checkpoint_every"], num_threads=1)
    for ours, theirs in zip(checkpointed.lstm_gradient(*inputs), reference):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-8, atol=1e-12)
    row["gradir_gradient_checkpointed_ms"] = (
        median_seconds(lambda: checkpointed.lstm_gradient(*inputs)) * 1e3
    )
    row["cache_bytes"] = cache_bytes(text, 0)
    row["cache_bytes_checkpointed"] = cache_bytes(text, row["checkpoint_every"])
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| c | gradir objective ms | gradir gradient ms | gradir grad/obj | PyTorch objective ms "
        "| PyTorch gradient ms | PyTorch grad/obj | gradir/PyTorch gradient | compile s "
        "| cache bytes | checkpoint every k: cache bytes, gradient ms |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['c']} | {r['gradir_objective_ms']:.2f} | {r['gradir_gradient_ms']:.2f} "
            f"| {r['gradir_ratio']:.2f} | {r['torch_objective_ms']:.2f} | {r['torch_gradient_ms']:.2f} "
            f"| {r['torch_ratio']:.2f} | {r['gradient_vs_torch']:.4f} | {r['gradir_compile_s']:.1f} "
            f"| {r['cache_bytes']:,} | k = {r['checkpoint_every']}: {r['cache_bytes_checkpointed']:,}, "
            f"{r['gradir_gradient_checkpointed_ms']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, action="append", help="sequence length c (repeatable)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    rows = [run(steps) for steps in (args.steps or [100, 1024])]
    text = table(rows)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "lstm.json").write_text(
        json.dumps({"machine": platform.machine(), "python": platform.python_version(), "rows": rows}, indent=2)
        + "\n"
    )
    (RESULTS / "lstm.md").write_text(
        "# ADBench LSTM (l = 2, b = 14), gradient w.r.t. main and extra parameters\n\n"
        "`python bench/lstm.py`; float64, one thread, medians; ratios are what to read "
        "(shared, noisy machine). Target: gradir gradient/objective <= 4. PyTorch eager pays "
        "its per-op dispatch on b = 14 vectors; gradir runs the whole loop as compiled code.\n\n"
        + text + "\n"
    )


if __name__ == "__main__":
    main()
