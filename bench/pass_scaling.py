"""How the AD passes scale: generated DAGs of 1k, 10k and 50k forward ops.

Each program is one function of `n` forward ops on tensor<16xf32> (unary and
binary elementwise ops; every op reads the previous value and, for fan-out,
one of the 16 before it; a `sum` makes the loss) and an `autodiff.grad` of it
w.r.t. its four arguments. The timed pipeline is the issue's

    autodiff-reverse,autodiff-specialize-zero,cse,dce

run in-process on a freshly parsed module (parsing and printing not timed;
best of `--repeat` runs). Times are CPU time of this process
(`time.process_time`), so other load on a shared machine does not count;
the wall-clock total is recorded too, and so is the CPU time to parse the input
and print the result (what `autodiff-opt` adds to the passes): the ratio of the
two is the figure to compare across machines, whose speed varies by 2x here. Reported per size: microseconds per forward op, the
time of each pass, and the size of the backward after cleanup: the ops of the
generated vjp function that are not the primal copy, counted with and without
the `grad_of`/`yield` wrappers (the latter is the code that runs once
`autodiff-lower-grad-of` inlines them). Targets: <= 200 us per forward op,
growth 1k -> 10k <= 12x, backward/forward ops <= 3.

Passes are the ones `autodiff-opt` runs under these names, so `cse` and `dce`
are gradir's (`gradir.autodiff_pass.cse`: xDSL's CSE with chained
scopes; `gradir.autodiff_pass.dce`: xDSL's DCE; both answer effect queries once
per op class and pause the cyclic GC). xDSL 0.74's own `cse` copies its table
of known ops for every nested region, which is quadratic with one `grad_of`
region per forward op; the "xDSL cse" column reruns the pipeline with xDSL's
`cse` and `dce`, to show what the replacements buy.

    python bench/pass_scaling.py                  # writes bench/results/pass_scaling.{json,md}
    python bench/pass_scaling.py --sizes 1000 --repeat 1 --no-write
    python bench/pass_scaling.py --parse-only     # writes bench/results/parse_scaling.{json,md}

`--parse-only` times parsing alone (gradir's `parse_module`, which stamps every op with
its `file:line:col`) on one function of up to 100k ops and on up to 50k small
functions, and reports microseconds per op: flat when parsing is linear. Stamping
locations with xDSL's `Span.get_location` (which counts newlines from the start of the
text for every op) made it quadratic: 100k ops took minutes (issue 18).
"""
from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import time
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination
from gradir.autodiff_pass.reverse import AutodiffReversePass
from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination
from gradir.autodiff_pass.specialize_zero import AutodiffSpecializeZeroPass
from gradir.dialects.autodiff import GradOfOp, YieldOp
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.source import parse_module

RESULTS = Path(__file__).resolve().parent / "results"
PIPELINE = "autodiff-reverse,autodiff-specialize-zero,cse,dce"
TARGET_US_PER_OP = 200.0
TARGET_GROWTH = 12.0
TARGET_RATIO = 3.0

TENSOR = "tensor<16xf32>"
UNARY = ("exp", "sin", "tanh", "neg")
BINARY = ("add", "mul", "sub")


def generate(forward_ops: int, seed: int = 0) -> str:
    """The benchmark program with `forward_ops` forward ops (the final sum included)."""
    rng = random.Random(seed)
    t = TENSOR
    lines = [f"func.func @f(%p0: {t}, %p1: {t}, %p2: {t}, %p3: {t}) -> tensor<f32> {{"]
    values = ["%p0", "%p1", "%p2", "%p3"]
    for index in range(forward_ops - 1):
        previous = values[-1]
        if rng.random() < 0.4:
            op = rng.choice(UNARY)
            lines.append(f"  %v{index} = autodiff.{op} {previous} : {t}")
        else:
            op = rng.choice(BINARY)
            other = values[rng.randrange(max(0, len(values) - 16), len(values))]
            lines.append(f"  %v{index} = autodiff.{op} {previous}, {other} : ({t}, {t}) -> {t}")
        values.append(f"%v{index}")
    lines.append(f"  %loss = autodiff.sum {values[-1]} : {t} -> tensor<f32>")
    lines.append("  return %loss : tensor<f32>\n}")
    lines.append(
        f"func.func @main(%p0: {t}, %p1: {t}, %p2: {t}, %p3: {t}) -> ({t}, {t}, {t}, {t}) {{\n"
        f"  %g0, %g1, %g2, %g3 = autodiff.grad @f(%p0, %p1, %p2, %p3)"
        f" : ({t}, {t}, {t}, {t}) -> ({t}, {t}, {t}, {t})\n"
        f"  return %g0, %g1, %g2, %g3 : {t}, {t}, {t}, {t}\n}}"
    )
    return "\n".join(lines)


def pipeline(xdsl_cse: bool) -> list[ModulePass]:
    if xdsl_cse:
        return [AutodiffReversePass(), AutodiffSpecializeZeroPass(), CommonSubexpressionElimination(),
                DeadCodeElimination()]  # fmt: skip
    return [AutodiffReversePass(), AutodiffSpecializeZeroPass(), ScopedCommonSubexpressionElimination(),
            GradirDeadCodeElimination()]  # fmt: skip


def body_ops(module: ModuleOp, name: str) -> list[Operation]:
    function = next(
        op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name
    )
    return [op for op in function.walk() if op is not function and op.name != "func.return"]


def backward_size(module: ModuleOp) -> tuple[int, int]:
    """(all backward ops, backward ops without grad_of/yield wrappers)."""
    primal = len(body_ops(module, "f"))
    generated = body_ops(module, "f_vjp_0_1_2_3")
    wrappers = sum(isinstance(op, GradOfOp | YieldOp) for op in generated)
    return len(generated) - primal, len(generated) - primal - wrappers


def run_once(text: str, xdsl_cse: bool) -> tuple[dict[str, float], float, float, ModuleOp]:
    """CPU seconds per pass, wall-clock seconds in all, CPU seconds to parse the
    input and print the result (what `autodiff-opt` adds), and the module."""
    ctx = AutodiffOptMain(args=[]).ctx
    start = time.process_time()
    module = parse_module(ctx, text)
    parse_print = time.process_time() - start
    seconds: dict[str, float] = {}
    wall_start = time.perf_counter()
    for module_pass in pipeline(xdsl_cse):
        start = time.process_time()
        module_pass.apply(ctx, module)
        seconds[module_pass.name] = time.process_time() - start
    wall = time.perf_counter() - wall_start
    start = time.process_time()
    str(module)
    parse_print += time.process_time() - start
    return seconds, wall, parse_print, module


def best_of(
    text: str, repeat: int, xdsl_cse: bool
) -> tuple[dict[str, float], float, float, tuple[int, int]]:
    best: dict[str, float] = {}
    best_wall = best_parse_print = float("inf")
    counts = (0, 0)
    for _ in range(repeat):
        seconds, wall, parse_print, module = run_once(text, xdsl_cse)
        if not best or sum(seconds.values()) < sum(best.values()):
            best = seconds
        best_wall = min(best_wall, wall)
        best_parse_print = min(best_parse_print, parse_print)
        counts = backward_size(module)
        del module
        gc.collect()
    return best, best_wall, best_parse_print, counts


def measure(forward_ops: int, repeat: int) -> dict:
    text = generate(forward_ops)
    seconds, wall, parse_print, (backward, compute) = best_of(text, repeat, xdsl_cse=False)
    with_xdsl, _, _, _ = best_of(text, repeat, xdsl_cse=True)
    total, total_xdsl = sum(seconds.values()), sum(with_xdsl.values())
    return {
        "forward_ops": forward_ops,
        "seconds": total,
        "wall_seconds": wall,
        "us_per_forward_op": total / forward_ops * 1e6,
        "parse_print_us_per_forward_op": parse_print / forward_ops * 1e6,
        "passes_over_parse_print": total / parse_print,
        "pass_us_per_forward_op": {k: v / forward_ops * 1e6 for k, v in seconds.items()},
        "xdsl_cse_seconds": total_xdsl,
        "xdsl_cse_us_per_forward_op": total_xdsl / forward_ops * 1e6,
        "backward_ops": backward,
        "backward_compute_ops": compute,
        "backward_per_forward_op": backward / forward_ops,
        "backward_compute_per_forward_op": compute / forward_ops,
    }


def table(results: list[dict]) -> str:
    lines = [
        "| forward ops | CPU s (wall s) | us/op | reverse | specialize-zero | cse | dce "
        "| us/op, xDSL cse+dce | parse+print us/op | passes / parse+print "
        "| backward ops per op (without wrappers) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        per_pass = r["pass_us_per_forward_op"]
        lines.append(
            f"| {r['forward_ops']:,} | {r['seconds']:.1f} ({r['wall_seconds']:.1f}) "
            f"| {r['us_per_forward_op']:.0f} "
            f"| {per_pass['autodiff-reverse']:.0f} | {per_pass['autodiff-specialize-zero']:.0f} "
            f"| {per_pass['cse']:.0f} | {per_pass['dce']:.0f} "
            f"| {r['xdsl_cse_us_per_forward_op']:.0f} "
            f"| {r['parse_print_us_per_forward_op']:.0f} | {r['passes_over_parse_print']:.2f} "
            f"| {r['backward_per_forward_op']:.2f} ({r['backward_compute_per_forward_op']:.2f}) |"
        )
    return "\n".join(lines) + "\n"


def summary(results: list[dict]) -> dict:
    by_size = {r["forward_ops"]: r for r in results}
    growth = xdsl_growth = None
    if 1_000 in by_size and 10_000 in by_size:
        small, large = by_size[1_000], by_size[10_000]
        growth = large["seconds"] / small["seconds"]
        xdsl_growth = large["xdsl_cse_seconds"] / small["xdsl_cse_seconds"]
    worst_us = max(r["us_per_forward_op"] for r in results)
    worst_ratio = max(r["backward_compute_per_forward_op"] for r in results)
    return {
        "growth_1k_to_10k": growth,
        "growth_1k_to_10k_xdsl_cse": xdsl_growth,
        "worst_us_per_forward_op": worst_us,
        "worst_backward_compute_per_forward_op": worst_ratio,
        "targets": {
            "us_per_forward_op": TARGET_US_PER_OP,
            "growth_1k_to_10k": TARGET_GROWTH,
            "backward_compute_per_forward_op": TARGET_RATIO,
        },
        "met": {
            "us_per_forward_op": worst_us <= TARGET_US_PER_OP,
            "growth_1k_to_10k": growth is not None and growth <= TARGET_GROWTH,
            "backward_compute_per_forward_op": worst_ratio <= TARGET_RATIO,
        },
    }


PARSE_OPS = (10_000, 25_000, 50_000, 100_000)
PARSE_FUNCTIONS = (5_000, 12_500, 25_000, 50_000)


def many_functions(count: int) -> str:
    """`count` small functions (four ops each), as a big generated library would be."""
    t = TENSOR
    return "\n".join(
        f"func.func @f{i}(%a: {t}, %b: {t}) -> {t} {{\n"
        f"  %0 = autodiff.mul %a, %b : ({t}, {t}) -> {t}\n"
        f"  %1 = autodiff.exp %0 : {t}\n"
        f"  %2 = autodiff.add %1, %a : ({t}, {t}) -> {t}\n"
        f"  return %2 : {t}\n}}"
        for i in range(count)
    )


def parse_seconds(text: str) -> tuple[float, int]:
    """CPU seconds to parse `text`, and its op count."""
    ctx = AutodiffOptMain(args=[]).ctx
    gc.collect()
    start = time.process_time()
    module = parse_module(ctx, text)
    seconds = time.process_time() - start
    return seconds, sum(1 for _ in module.walk()) - 1


def parse_scaling(write: bool) -> None:
    rows = []
    for kind, sizes, make in (
        ("ops in one function", PARSE_OPS, generate),
        ("small functions", PARSE_FUNCTIONS, many_functions),
    ):
        for size in sizes:
            seconds, ops = parse_seconds(make(size))
            rows.append({"kind": kind, "size": size, "ops": ops, "seconds": seconds,
                         "us_per_op": seconds / ops * 1e6})  # fmt: skip
            print(f"{size:>7,} {kind}: {ops:,} ops, {seconds:.1f} s, {rows[-1]['us_per_op']:.0f} us/op", flush=True)
    lines = ["| program | ops | CPU s | us/op | us/op vs the smallest |", "| --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        smallest = next(r for r in rows if r["kind"] == row["kind"])
        lines.append(
            f"| {row['size']:,} {row['kind']} | {row['ops']:,} | {row['seconds']:.1f} "
            f"| {row['us_per_op']:.0f} | {row['us_per_op'] / smallest['us_per_op']:.2f}x |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "parse_scaling.json").write_text(json.dumps(rows, indent=2) + "\n")
        (RESULTS / "parse_scaling.md").write_text(
            "# Parse scaling\n\n`gradir.source.parse_module` (every op stamped with its "
            "`file:line:col` from a line table built once) on one generated function of n ops "
            "and on n small functions (`python bench/pass_scaling.py --parse-only`; "
            f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}). "
            "Flat microseconds per op mean linear time.\n\n" + text
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size below 50k (best kept)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--parse-only", action="store_true", help="time parsing alone, up to 100k ops")
    args = parser.parse_args()
    if args.parse_only:
        parse_scaling(not args.no_write)
        return
    measure(50, 1)  # warm-up: loads the derivative rules and imports lazily loaded code
    results = []
    for size in (int(size) for size in args.sizes.split(",")):
        results.append(measure(size, args.repeat if size < 50_000 else 1))
        print(f"{size:>7,} forward ops: {results[-1]['us_per_forward_op']:.0f} us/op", flush=True)
    report = {
        "pipeline": PIPELINE,
        "machine": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "results": results,
        **summary(results),
    }
    growth, xdsl_growth = report["growth_1k_to_10k"], report["growth_1k_to_10k_xdsl_cse"]
    text = table(results)
    if growth is not None:
        text += f"\nGrowth 1k -> 10k: {growth:.1f}x (with xDSL's cse: {xdsl_growth:.1f}x).\n"
    text += (
        f"Targets: <= {TARGET_US_PER_OP:.0f} us per forward op, growth <= {TARGET_GROWTH:.0f}x, "
        f"<= {TARGET_RATIO:.0f} backward ops (without wrappers) per forward op; "
        f"met: {report['met']}.\n"
    )
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "pass_scaling.json").write_text(json.dumps(report, indent=2) + "\n")
        (RESULTS / "pass_scaling.md").write_text(
            f"# AD pass scaling\n\nPipeline `{PIPELINE}` on generated DAGs "
            f"(`python bench/pass_scaling.py`; {report['machine']}). Microseconds per "
            "forward op, total and per pass (`cse` is gradir's linear CSE, as in `autodiff-opt`); "
            "\"xDSL cse+dce\" is the same pipeline with xDSL 0.74's own `cse` and `dce`; backward ops per "
            "forward op after cleanup.\n\n" + text
        )


if __name__ == "__main__":
    main()
