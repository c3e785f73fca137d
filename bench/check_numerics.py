"""What `check_numerics=True` costs: bench/cpu.py's two gradients (the MLP 784-256-10 at
batch 64, and the 1M-element elementwise one), compiled with and without the checks, timed
in the same process taking turns, one thread.

    python bench/check_numerics.py [--repeats N]

Prints a table of the minimum times and their ratio (checked / unchecked) and writes
bench/results/check_numerics.md. The gradients are compared first, to f32's precision: a
check reads its value a second time, which can change how ops are fused (a product read
twice is no longer contracted into an FMA), so the last bits may differ.
"""
from __future__ import annotations

import argparse
import pathlib
import platform
import sys
import time

import numpy as np

import gradir

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cpu import ELEMENTWISE, MLP, B, H, I, N, O  # noqa: E402 -- the programs bench/cpu.py times

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def inputs(name: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    if name == "elementwise":
        return [rng.standard_normal(N).astype(np.float32) for _ in range(2)]
    labels = np.eye(O, dtype=np.float32)[rng.integers(0, O, size=B)]
    shapes = [(B, I), None, (I, H), (H,), (H, O), (O,)]
    return [labels if shape is None else (rng.standard_normal(shape) * 0.05).astype(np.float32) for shape in shapes]


def minimum_seconds(function, repeats: int) -> float:
    function()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    rows = []
    for name, program in (("MLP 784-256-10, batch 64", MLP), ("elementwise, 1M", ELEMENTWISE)):
        plain = gradir.compile(program, num_threads=1)
        checked = gradir.compile(program, check_numerics=True, num_threads=1)
        arrays = inputs("elementwise" if "elementwise" in name else "mlp")
        for mine, theirs in zip(checked.call("df", *arrays), plain.call("df", *arrays), strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
        times = {"plain": float("inf"), "checked": float("inf")}
        for _ in range(5):  # taking turns, so that both see the same machine
            for label, exe in (("plain", plain), ("checked", checked)):
                times[label] = min(times[label], minimum_seconds(lambda: exe.call("df", *arrays), args.repeats // 5))
        rows.append((name, times["plain"], times["checked"], times["checked"] / times["plain"]))
    header = "| gradient | unchecked (ms) | check_numerics (ms) | ratio |\n| --- | --- | --- | --- |"
    lines = [f"| {name} | {plain * 1e3:.3f} | {checked * 1e3:.3f} | {ratio:.2f} |" for name, plain, checked, ratio in rows]
    table = "\n".join([header, *lines])
    print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "check_numerics.md").write_text(
        "# Cost of check_numerics\n\n`python bench/check_numerics.py` on "
        f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}: minimum of "
        f"{args.repeats} calls each, taking turns in one process.\n\n{table}\n"
    )


if __name__ == "__main__":
    main()
