"""How much the thread pool buys: gradir's compiled code at 1 thread and at N threads.

    python bench/threads.py [--threads 2] [--rounds 15] [--no-write]

Two tables, written to bench/results/threads.{json,md}:

1. bench/cpu.py's programs (its elementwise gradient and MLP gradient, plus a large
   MLP gradient whose matmuls are worth splitting, and the three matmuls of a linear
   layer's gradient at 8192 x 2048 x 784), gradir alone in its process (bench/cpu.py
   alternates it with numpy, PyTorch and JAX, whose idle pool threads then compete for
   the cores), each compiled with
   `num_threads=1` and `num_threads=N`: the minimum over `--rounds` rounds of
   alternating calls (1 thread, then N), and the ratio of the two minima measured in
   the same run. The spread column is the median / minimum of the N-thread times:
   how noisy the machine was (it is shared; the minimum is the figure to compare).
2. The fork threshold: one elementwise loop (`sin(x) * y`) of n elements at 1 and N
   threads, for n from 1 024 to 1 048 576, with the threshold lowered to 0 so that
   every size forks: where N threads start to pay is where
   `parallel_loops.PARALLEL_WORK_THRESHOLD` belongs.

Results of one thread count are checked to equal the other's before timing (bit for
bit where the program has no reassociated reduction, else to 1e-5).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

# The regions column reads each executable's LLVM text, which a compilation-cache hit
# does not have: compile here, every run.
os.environ["GRADIR_CACHE"] = "0"

import gradir  # noqa: E402
from gradir.cpu_backend import parallel_loops

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cpu  # noqa: E402  (bench/cpu.py: the programs)

RESULTS = pathlib.Path(__file__).resolve().parent / "results"

SMALL_B, SMALL_I, SMALL_H, SMALL_O = 64, 784, 256, 10
LARGE_B, LARGE_I, LARGE_H, LARGE_O = 1024, 784, 1024, 10
SMALL_MLP = cpu.mlp_source(SMALL_B, SMALL_H, SMALL_I, SMALL_O)
LARGE_MLP = cpu.mlp_source(LARGE_B, LARGE_H, LARGE_I, LARGE_O)

ELEMENTWISE_LOOP = """
func.func @df(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %s = autodiff.sin %x : tensor<{n}xf32>
  %p = autodiff.mul %s, %y : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  return %p : tensor<{n}xf32>
}}
"""


def _mlp_inputs(rng, b, i, h, o):
    inputs = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in [(b, i), (b, o), (i, h), (h,), (h, o), (o,)]]
    inputs[1] = np.eye(o, dtype=np.float32)[rng.integers(0, o, b)]
    return inputs


def _times(serial, parallel, inputs, rounds: int, calls: int) -> tuple[list[float], list[float]]:
    """Per round, the best of `calls` calls of each executable, alternating."""
    serial.df(*inputs), parallel.df(*inputs)  # warm up
    result: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for times, exe in zip(result, (serial, parallel)):
            best = float("inf")
            for _ in range(calls):
                start = time.perf_counter()
                exe.df(*inputs)
                best = min(best, time.perf_counter() - start)
            times.append(best)
    return result


def _check(serial, parallel, inputs, exact: bool) -> None:
    ours, theirs = serial.call("df", *inputs), parallel.call("df", *inputs)
    for a, b in zip(ours, theirs):
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def program_rows(threads: int, rounds: int) -> list[dict]:
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(-1, 1, cpu.N).astype(np.float32) for _ in range(2))
    programs = [
        ("elementwise grad, 2 x 1M f32", cpu.ELEMENTWISE, [x, y], False),
        (f"MLP {SMALL_I}-{SMALL_H}-{SMALL_O} grad, batch {SMALL_B}", SMALL_MLP,
         _mlp_inputs(rng, SMALL_B, SMALL_I, SMALL_H, SMALL_O), False),
        (f"MLP {LARGE_I}-{LARGE_H}-{LARGE_O} grad, batch {LARGE_B}", LARGE_MLP,
         _mlp_inputs(rng, LARGE_B, LARGE_I, LARGE_H, LARGE_O), False),
    ]  # fmt: skip
    for name, (m, k, n, a_transposed, b_transposed) in cpu.MATMULS.items():
        a = rng.standard_normal((k, m) if a_transposed else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if b_transposed else (k, n)).astype(np.float32)
        source = cpu.matmul_source(m, k, n, a_transposed, b_transposed).replace("@f(", "@df(")
        programs.append((f"matmul {name}", source, [a, b], True))  # disjoint blocks of C: same bits
    rows = []
    for name, source, inputs, exact in programs:
        serial = gradir.compile(source, num_threads=1)
        parallel = gradir.compile(source, num_threads=threads)
        _check(serial, parallel, inputs, exact)
        one, many = _times(serial, parallel, inputs, rounds, calls=5)
        rows.append({
            "benchmark": name, "ms_1": min(one) * 1e3, f"ms_{threads}": min(many) * 1e3,
            "speedup": min(one) / min(many), "spread": statistics.median(many) / min(many),
            "regions": parallel.llvm_text.count("omp.parallel"),
        })  # fmt: skip
    return rows


def threshold_rows(threads: int, rounds: int) -> list[dict]:
    rng = np.random.default_rng(1)
    saved = parallel_loops.PARALLEL_WORK_THRESHOLD
    parallel_loops.PARALLEL_WORK_THRESHOLD = 0
    rows = []
    try:
        for power in range(10, 21, 2):
            n = 1 << power
            source = ELEMENTWISE_LOOP.format(n=n)
            inputs = [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2)]
            serial = gradir.compile(source, num_threads=1)
            parallel = gradir.compile(source, num_threads=threads)
            _check(serial, parallel, inputs, exact=True)
            one, many = _times(serial, parallel, inputs, rounds, calls=20)
            rows.append({"elements": n, "us_1": min(one) * 1e6, f"us_{threads}": min(many) * 1e6,
                         "speedup": min(one) / min(many)})  # fmt: skip
    finally:
        parallel_loops.PARALLEL_WORK_THRESHOLD = saved
    return rows


def _table(rows: list[dict], columns: list[tuple[str, str, str]]) -> str:
    lines = ["| " + " | ".join(title for title, _, _ in columns) + " |",
             "| " + " | ".join("---" if fmt == "s" else "---:" for _, _, fmt in columns) + " |"]  # fmt: skip
    for row in rows:
        lines.append("| " + " | ".join(format(row[key], fmt) for _, key, fmt in columns) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    t = args.threads
    load_before = os.getloadavg()[0]
    programs = program_rows(t, args.rounds)
    threshold = threshold_rows(t, args.rounds)
    load = (load_before, os.getloadavg()[0])
    program_table = _table(programs, [
        ("benchmark", "benchmark", "s"), ("1 thread ms", "ms_1", ".3f"), (f"{t} threads ms", f"ms_{t}", ".3f"),
        (f"speedup 1/{t}", "speedup", ".2f"), ("spread (median/min)", "spread", ".2f"),
        ("OpenMP regions", "regions", "d"),
    ])  # fmt: skip
    threshold_table = _table(threshold, [
        ("elements", "elements", "d"), ("1 thread us", "us_1", ".1f"), (f"{t} threads us", f"us_{t}", ".1f"),
        (f"speedup 1/{t}", "speedup", ".2f"),
    ])  # fmt: skip
    print(program_table + "\n\n" + threshold_table)
    print(f"load average {load[0]:.1f} before, {load[1]:.1f} after, on {len(os.sched_getaffinity(0))} cores")
    if args.no_write:
        return
    meta = {"machine": platform.machine(), "python": platform.python_version(), "threads": t,
            "rounds": args.rounds, "threshold": parallel_loops.PARALLEL_WORK_THRESHOLD,
            "cores": len(os.sched_getaffinity(0)), "load_average": [round(x, 1) for x in load]}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "threads.json").write_text(
        json.dumps({"meta": meta, "programs": programs, "threshold": threshold}, indent=2) + "\n"
    )
    (RESULTS / "threads.md").write_text(
        f"# gradir's CPU code at 1 and {t} threads\n\n"
        f"Generated by `python bench/threads.py` ({meta}). Minimum over {args.rounds} rounds of "
        "alternating calls; the spread is the median / minimum of the multi-thread times (the "
        "machine is shared with other work).\n\n"
        + program_table
        + "\n\nOne elementwise loop (`sin(x) * y`), forked at every size (threshold 0):\n\n"
        + threshold_table + "\n"
    )


if __name__ == "__main__":
    main()
