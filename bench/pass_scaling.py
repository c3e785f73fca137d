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

`--end-to-end` (also part of the default run) times the whole command line,
`autodiff-opt FILE --pipeline grad -o OUT`, in a child process per run (interpreter
start, imports, parse, verification of the input and the result, the passes, printing,
writing the file), on 1k, 10k and 100k forward ops, against JAX on the same DAG in
the same run: `jax.make_jaxpr(jax.grad(f, argnums=(0, 1, 2, 3)))` traced and printed
as text (`str(jaxpr)`), also in a child process, its import not counted (gradir's is).
Times are the children's CPU seconds (minimum of `--repeat`), their wall seconds
beside; and each stage's CPU time, run in the bench's own process with the driver's
methods. Targets: gradir within 2x of JAX at 10k ops, and linear (in-process us per
op at 100k within 1.3x of that at 1k).

    python bench/pass_scaling.py --end-to-end --e2e-sizes 1000,10000 --no-write

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
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
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


# ---- end to end: the autodiff-opt command line against JAX -----------------------------------

E2E_SIZES = (1_000, 10_000, 100_000)
TARGET_JAX_RATIO = 2.0
TARGET_LINEAR = 1.3
AUTODIFF_OPT = Path(sys.executable).with_name("autodiff-opt")


def jax_program(forward_ops: int, seed: int = 0) -> list[tuple[str, int | None]]:
    """`generate`'s DAG as (op, index of the second operand or None) per op, drawn from the
    same random sequence, so that JAX traces the very program autodiff-opt reads."""
    rng = random.Random(seed)
    program: list[tuple[str, int | None]] = []
    count = 4
    for _ in range(forward_ops - 1):
        if rng.random() < 0.4:
            program.append((rng.choice(UNARY), None))
        else:
            op = rng.choice(BINARY)
            program.append((op, rng.randrange(max(0, count - 16), count)))
        count += 1
    return program


def jax_child(forward_ops: int) -> None:
    """In a child process: import JAX, then trace `grad` of the DAG and print its jaxpr;
    prints a JSON line with the CPU seconds of each step."""
    start = time.process_time()
    import jax
    import jax.numpy as jnp

    imported = time.process_time()
    functions = {"exp": jnp.exp, "sin": jnp.sin, "tanh": jnp.tanh, "neg": jnp.negative,
                 "add": jnp.add, "mul": jnp.multiply, "sub": jnp.subtract}  # fmt: skip
    program = jax_program(forward_ops)

    def f(p0, p1, p2, p3):
        values = [p0, p1, p2, p3]
        for op, other in program:
            values.append(functions[op](values[-1]) if other is None else functions[op](values[-1], values[other]))
        return jnp.sum(values[-1])

    x = jnp.ones(16, jnp.float32)
    traced_start = time.process_time()
    jaxpr = jax.make_jaxpr(jax.grad(f, argnums=(0, 1, 2, 3)))(x, x, x, x)
    traced = time.process_time()
    text = str(jaxpr)
    printed = time.process_time()
    print(json.dumps({"import": imported - start, "trace": traced - traced_start,
                      "print": printed - traced, "equations": len(jaxpr.eqns),
                      "characters": len(text)}))  # fmt: skip


def child_run(command: list[str]) -> tuple[float, float, str, str]:
    """Run `command`; its CPU seconds (user + system), wall seconds, stdout and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout, done.stderr


def stage_seconds(source: Path) -> dict[str, float]:
    """CPU seconds of each stage of `autodiff-opt SOURCE --pipeline grad`, run in this
    process with the driver's own methods (its `--timing` report is wall time, which a
    loaded machine inflates): parse, verify the input, the passes, verify the result,
    print."""
    from gradir.autodiff_pass.ir_building import paused_garbage_collection
    from gradir.pipelines import get_pipeline, run_xdsl_passes
    from gradir.verify import verify_module, verify_result

    main_ = AutodiffOptMain(args=[str(source), "--pipeline", "grad"])
    gc.collect()
    seconds: dict[str, float] = {}
    start = time.process_time()
    with open(source, "rb") as stream:
        module = main_.parse_chunk(stream, "mlir")
    seconds["parse"] = time.process_time() - start
    start = time.process_time()
    with paused_garbage_collection():
        verify_module(module)
    seconds["verify input"] = time.process_time() - start
    start = time.process_time()
    run_xdsl_passes(main_.ctx, module, get_pipeline("grad").xdsl_passes, main_.available_passes)
    seconds["passes"] = time.process_time() - start
    start = time.process_time()
    with paused_garbage_collection():
        verify_result(module, "--verify-each")
    seconds["verify result"] = time.process_time() - start
    start = time.process_time()
    main_.output_resulting_program(module)
    seconds["print"] = time.process_time() - start
    return seconds


def end_to_end(forward_ops: int, repeat: int) -> dict:
    """The autodiff-opt command line and JAX on one DAG, best of `repeat` each, alternating."""
    with tempfile.TemporaryDirectory() as folder:
        source, output = Path(folder) / "dag.mlir", Path(folder) / "out.mlir"
        source.write_text(generate(forward_ops))
        gradir_runs, jax_runs = [], []
        for _ in range(repeat):
            cpu, wall, _, _ = child_run(
                [str(AUTODIFF_OPT), str(source), "--pipeline", "grad", "-o", str(output)]
            )
            gradir_runs.append((cpu, wall))
            cpu, wall, stdout, _ = child_run([sys.executable, __file__, "--jax-child", str(forward_ops)])
            jax_runs.append((cpu, wall, json.loads(stdout)))
        output_ops = sum(1 for line in output.read_text().splitlines() if line.strip())
        stages = stage_seconds(source)
    gradir_cpu, gradir_wall = min(gradir_runs, key=lambda run: run[0])
    jax_best = min(jax_runs, key=lambda run: run[2]["trace"] + run[2]["print"])
    jax_seconds = jax_best[2]["trace"] + jax_best[2]["print"]
    return {
        "forward_ops": forward_ops,
        "gradir_cpu_seconds": gradir_cpu,
        "gradir_wall_seconds": gradir_wall,
        "gradir_us_per_op": gradir_cpu / forward_ops * 1e6,
        "gradir_stages": stages,
        "in_process_us_per_op": sum(stages.values()) / forward_ops * 1e6,
        "gradir_output_lines": output_ops,
        "jax_seconds": jax_seconds,
        "jax_import_seconds": jax_best[2]["import"],
        "jax_child_cpu_seconds": jax_best[0],
        "jax_us_per_op": jax_seconds / forward_ops * 1e6,
        "jax_equations": jax_best[2]["equations"],
        "ratio": gradir_cpu / jax_seconds,
        "ratio_with_jax_import": gradir_cpu / (jax_seconds + jax_best[2]["import"]),
    }


def end_to_end_table(rows: list[dict]) -> str:
    lines = [
        "| forward ops | autodiff-opt CPU s (wall s) | us/op | in-process us/op: parse | verify input | passes "
        "| verify result | print | all | JAX grad jaxpr + text s | JAX us/op | gradir / JAX "
        "| gradir / (JAX + its import) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        per_op = {name: seconds / r["forward_ops"] * 1e6 for name, seconds in r["gradir_stages"].items()}
        lines.append(
            f"| {r['forward_ops']:,} | {r['gradir_cpu_seconds']:.2f} ({r['gradir_wall_seconds']:.2f}) "
            f"| {r['gradir_us_per_op']:.0f} | {per_op['parse']:.0f} | {per_op['verify input']:.0f} "
            f"| {per_op['passes']:.0f} | {per_op['verify result']:.0f} | {per_op['print']:.0f} "
            f"| {r['in_process_us_per_op']:.0f} | {r['jax_seconds']:.2f} "
            f"| {r['jax_us_per_op']:.0f} | {r['ratio']:.2f}x | {r['ratio_with_jax_import']:.2f}x |"
        )
    return "\n".join(lines) + "\n"


def end_to_end_summary(rows: list[dict]) -> dict:
    by_size = {r["forward_ops"]: r for r in rows}
    at_10k = by_size.get(10_000)
    smallest, largest = rows[0], rows[-1]
    growth = largest["in_process_us_per_op"] / smallest["in_process_us_per_op"]
    return {
        "ratio_at_10k": at_10k["ratio"] if at_10k else None,
        "us_per_op_growth": growth,
        "targets": {"ratio_at_10k": TARGET_JAX_RATIO, "us_per_op_growth": TARGET_LINEAR},
        "met": {
            "ratio_at_10k": at_10k is not None and at_10k["ratio"] <= TARGET_JAX_RATIO,
            "linear": growth <= TARGET_LINEAR,
        },
    }


def end_to_end_scaling(sizes: list[int], repeat: int) -> tuple[list[dict], dict, str]:
    with tempfile.TemporaryDirectory() as folder:  # warm-up: the lazily loaded rules and passes
        (Path(folder) / "warm.mlir").write_text(generate(50))
        stage_seconds(Path(folder) / "warm.mlir")
    rows = []
    for size in sizes:
        rows.append(end_to_end(size, repeat if size < 100_000 else 1))
        r = rows[-1]
        print(f"{size:>7,} forward ops end to end: autodiff-opt {r['gradir_cpu_seconds']:.2f} s, "
              f"JAX {r['jax_seconds']:.2f} s: {r['ratio']:.2f}x", flush=True)  # fmt: skip
    summary_ = end_to_end_summary(rows)
    text = end_to_end_table(rows)
    ratio = summary_["ratio_at_10k"]
    text += (
        f"\nAt 10k ops autodiff-opt takes {ratio:.2f}x JAX's time (target <= {TARGET_JAX_RATIO:.0f}x); "
        if ratio is not None else "\n"
    ) + (
        f"in-process us per op (no interpreter start or imports) {summary_['us_per_op_growth']:.2f}x "
        f"from {rows[0]['forward_ops']:,} to {rows[-1]['forward_ops']:,} ops (target <= {TARGET_LINEAR}x); "
        f"met: {summary_['met']}.\n"
    )
    return rows, summary_, text


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
            "`file:line:col` from a line table built once; common tokens lexed with one regular expression, repeated types read from a table) on one generated function of n ops "
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
    parser.add_argument("--end-to-end", action="store_true", help="time only the autodiff-opt command line against JAX")
    parser.add_argument("--e2e-sizes", default=",".join(str(size) for size in E2E_SIZES))
    parser.add_argument("--jax-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jax_child is not None:
        jax_child(args.jax_child)
        return
    if args.parse_only:
        parse_scaling(not args.no_write)
        return
    e2e_sizes = [int(size) for size in args.e2e_sizes.split(",")]
    if args.end_to_end:
        rows, e2e_summary, text = end_to_end_scaling(e2e_sizes, args.repeat)
        print(text)
        if not args.no_write:
            write_results(None, None, (rows, e2e_summary, text))
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
    e2e = end_to_end_scaling(e2e_sizes, args.repeat)
    print(e2e[2])
    if not args.no_write:
        write_results(report, text, e2e)


def write_results(report: dict | None, text: str | None, e2e: tuple[list[dict], dict, str]) -> None:
    """bench/results/pass_scaling.{json,md}; with `report` None (`--end-to-end`), the
    passes' section of the files written before is kept."""
    RESULTS.mkdir(exist_ok=True)
    rows, e2e_summary, e2e_text = e2e
    machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    json_path, md_path = RESULTS / "pass_scaling.json", RESULTS / "pass_scaling.md"
    if report is None:
        report = json.loads(json_path.read_text()) if json_path.exists() else {}
        report.pop("end_to_end", None)
        old = md_path.read_text() if md_path.exists() else "# AD pass scaling\n"
        passes_section = old.split("\n## End to end")[0].rstrip() + "\n"
    else:
        passes_section = (
            f"# AD pass scaling\n\nPipeline `{PIPELINE}` on generated DAGs "
            f"(`python bench/pass_scaling.py`; {machine}). Microseconds per "
            "forward op, total and per pass (`cse` is gradir's linear CSE, as in `autodiff-opt`); "
            "\"xDSL cse+dce\" is the same pipeline with xDSL 0.74's own `cse` and `dce`; backward ops per "
            "forward op after cleanup.\n\n" + (text or "")
        )
    report["end_to_end"] = {"machine": machine, "results": rows, **e2e_summary}
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    md_path.write_text(
        passes_section
        + "\n## End to end: `autodiff-opt --pipeline grad` against JAX\n\n"
        "The whole command line `autodiff-opt FILE --pipeline grad -o OUT` (a child process: "
        "interpreter start, imports, parse, verification of input and result, the passes, "
        "printing) against `jax.make_jaxpr(jax.grad(f))` traced and printed as text on the same "
        "DAG (a child process; its import not counted, shown in the last column), alternating in "
        f"one run (`python bench/pass_scaling.py --end-to-end`; {machine}). CPU seconds of the "
        "children, best of several runs (one at 100k); the stage columns are CPU microseconds per "
        "forward op of each stage run in the bench's process with the driver's own methods (no "
        "interpreter start or imports).\n\n" + e2e_text
    )


if __name__ == "__main__":
    main()
