"""Static GPU figures for one training step of a 784-256-10 ReLU MLP, batch 64 (no GPU needed).

The step is the hand-written linalg gradient `MLP_GRADIENT` of tests/mlir_bridge/linalg_programs.py
(loss and the four weight/bias gradients). For sm_90 and sm_80 it records: kernels per step and
their strategies, registers and spills per kernel (`ptxas -v`), bytes each kernel reads and writes
(static footprint) against the minimum a step must move (every input read once, every output
written once), and compile time. For comparison it also runs the plain MLIR route of DESIGN.md
section 7 (`convert-linalg-to-parallel-loops` + `gpu-map-parallel-loops`) to the outlining stage
and counts its kernels and the loops it leaves on the host.

It also counts the kernels PyTorch eager launches for the same step (with the
`oracle` extra): the step runs under `torch.profiler` on the CPU, and every
innermost ATen compute op (one with no ATen compute op inside it; views, dtype
and layout ops excluded) counts as one kernel, as it would on CUDA (cuBLAS may
use more than one kernel for a matmul, so this is a lower bound).

It records the same figures for the ADBench GMM gradient (examples/gmm/gmm.py
generates the program for (d, K, n); float64): the kernels of `@gmm_gradient`
and the functions it calls, i.e. everything but the primal `@gmm_objective`'s
own kernels; and for the LeNet-5 gradient of examples/cnn/lenet.py (batch 64,
float32), with PyTorch eager's kernel count for that step.

    python bench/gpu_static.py        # writes bench/results/gpu_static.{json,md}
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "mlir_bridge"))

from linalg_programs import MLP_GRADIENT, mlp_inputs  # noqa: E402

sys.path.insert(0, str(ROOT / "examples" / "gmm"))
from gmm import gmm_program  # noqa: E402

sys.path.insert(0, str(ROOT / "examples" / "cnn"))
from lenet import PARAMETER_SHAPES, lenet, lenet_gradient, torch_loss  # noqa: E402

import gradir  # noqa: E402

from gradir.gpu_backend.cuda_program import CudaProgram  # noqa: E402
from gradir.gpu_backend.gpu_pipeline import bufferize_for_gpu  # noqa: E402
from gradir.gpu_backend.gpu_report import format_reports, kernel_reports  # noqa: E402
from gradir.mlir_bridge import run_pipeline, to_mlir_module, walk_ops  # noqa: E402

CHIPS = ("sm_90", "sm_80")

PLAIN_MLIR_ROUTE = (
    "convert-linalg-to-parallel-loops,"
    "func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=256 no-min-max-bounds},"
    "gpu-map-parallel-loops{mapping-policy=innermost-first}, convert-parallel-loops-to-gpu),"
    "canonicalize, cse, gpu-launch-sink-index-computations, gpu-kernel-outlining"
)


def elementwise_and_reduction_bytes(reports) -> dict:
    """Bytes the elementwise and reduction kernels move against what their ops must move.

    Each op's minimum is its inputs read once and its outputs written once; a split reduction is
    one op over two kernels, so its partials buffer (written, then read back) is the excess.
    Matmul kernels (register or shared tiles) are left out: a contraction's inputs are re-read
    by design, and the step-level ratio above covers them.
    """
    moved = minimum = 0
    split_input = 0
    for r in reports:
        strategy = r.name.split("_", 3)[3] if r.name.count("_") >= 3 else r.name
        if "shared" in strategy or "tile" in strategy:
            continue
        moved += r.bytes_read + r.bytes_written
        if "split_reduce" in strategy:
            split_input = r.bytes_read
        elif "split_combine" in strategy:
            minimum += split_input + r.bytes_written
        else:
            minimum += r.bytes_read + r.bytes_written
    return {"moved": moved, "minimum": minimum, "ratio": round(moved / minimum, 2)}


def minimum_bytes() -> int:
    """Every input read once and every output written once."""
    inputs = mlp_inputs()
    outputs = [(), (784, 256), (256,), (256, 10), (10,)]
    return sum(a.nbytes for a in inputs) + sum(4 * int(np.prod(s)) for s in outputs)


def ours(chip: str) -> dict:
    start = time.perf_counter()
    program = CudaProgram(MLP_GRADIENT, chip=chip, features="+ptx80")
    compile_seconds = time.perf_counter() - start
    reports = kernel_reports(program)
    moved = sum(r.bytes_read + r.bytes_written for r in reports)
    strategies: dict[str, int] = {}
    for r in reports:
        strategy = r.name.split("_", 3)[3].rstrip("0123456789x")
        strategies[strategy] = strategies.get(strategy, 0) + 1
    return {
        "kernels_per_step": len(reports),
        "strategies": strategies,
        "max_registers": max(r.registers for r in reports),
        "total_spill_bytes": sum(r.spill_bytes for r in reports),
        "bytes_moved": moved,
        "bytes_minimum": minimum_bytes(),
        "bytes_moved_over_minimum": round(moved / minimum_bytes(), 2),
        "elementwise_and_reduction": elementwise_and_reduction_bytes(reports),
        "compile_seconds": round(compile_seconds, 2),
        "kernels": [
            {
                "name": r.name,
                "grid": r.grid,
                "block": r.block,
                "registers": r.registers,
                "spill_bytes": r.spill_bytes,
                "bytes_read": r.bytes_read,
                "bytes_written": r.bytes_written,
                "shared_bytes": r.shared_bytes,
            }
            for r in reports
        ],
        "table": format_reports(reports),
    }


GMM_SIZES = (10, 5, 1000)
"""(d, K, n): ADBench's smallest GMM data set size class."""


def gmm(chip: str, d: int, k: int, n: int) -> dict:
    """Static figures of the GMM gradient (float64): the kernels a call of it launches."""
    start = time.perf_counter()
    program = gradir.compile(gmm_program(d, k, n), target="cuda", chip=chip)
    compile_seconds = time.perf_counter() - start
    launched = program.kernels_of("gmm_gradient")  # its callees' too, each kernel once
    reports = [r for r in kernel_reports(program) if r.name in launched]
    moved = sum(r.bytes_read + r.bytes_written for r in reports)
    parameters = k + k * d + k * d * (d + 1) // 2
    minimum = 8 * (parameters + n * d + parameters)  # inputs read once, gradients written once
    return {
        "sizes": {"d": d, "K": k, "n": n},
        "kernels_per_step": len(reports),
        "max_registers": max(r.registers for r in reports),
        "total_spill_bytes": sum(r.spill_bytes for r in reports),
        "bytes_moved": moved,
        "bytes_minimum": minimum,
        "bytes_moved_over_minimum": round(moved / minimum, 2),
        "elementwise_and_reduction": elementwise_and_reduction_bytes(reports),
        "compile_seconds": round(compile_seconds, 2),
    }


CNN_BATCH = 64


def cnn(chip: str, batch: int = CNN_BATCH) -> dict:
    """Static figures of the LeNet-5 gradient (examples/cnn/lenet.py, float32): the kernels a
    call of `@lenet_grad` launches."""
    start = time.perf_counter()
    program = gradir.compile(lenet(batch) + lenet_gradient(batch), target="cuda", chip=chip)
    compile_seconds = time.perf_counter() - start
    launched = program.kernels_of("lenet_grad")  # its callees' too, each kernel once
    reports = [r for r in kernel_reports(program) if r.name in launched]
    moved = sum(r.bytes_read + r.bytes_written for r in reports)
    parameters = sum(int(np.prod(shape)) for shape in PARAMETER_SHAPES.values())
    minimum = 4 * batch * 28 * 28 + 8 * batch + 4 * parameters * 2  # inputs once, gradients once
    strategies: dict[str, int] = {}
    for r in reports:
        strategy = r.name[len(r.function) + 1 :].split("_", 1)[1].rstrip("0123456789x")
        strategies[strategy] = strategies.get(strategy, 0) + 1
    return {
        "batch": batch,
        "kernels_per_step": len(reports),
        "strategies": strategies,
        "max_registers": max(r.registers for r in reports),
        "total_spill_bytes": sum(r.spill_bytes for r in reports),
        "bytes_moved": moved,
        "bytes_minimum": minimum,
        "bytes_moved_over_minimum": round(moved / minimum, 2),
        "elementwise_and_reduction": elementwise_and_reduction_bytes(reports),
        "compile_seconds": round(compile_seconds, 2),
        "largest_kernels": [
            {"name": r.name, "bytes": r.bytes_read + r.bytes_written, "registers": r.registers}
            for r in sorted(reports, key=lambda r: -(r.bytes_read + r.bytes_written))[:8]
        ],
    }


def plain_mlir_route() -> dict:
    module = bufferize_for_gpu(to_mlir_module(MLP_GRADIENT))
    run_pipeline(module, PLAIN_MLIR_ROUTE, "plain-mlir-route")
    host_ops = []
    for function in walk_ops(module, {"func.func"}):
        for op in function.regions[0].blocks[0].operations:
            host_ops.append(op.operation.name)
    kernels = walk_ops(module, {"gpu.func"})
    blocks = []
    for kernel in kernels:
        known = kernel.attributes["known_block_size"] if "known_block_size" in kernel.attributes else None
        blocks.append(str(known))
    return {
        "kernels_per_step": len(kernels),
        "loops_left_on_host": sum(name in ("scf.for", "scf.parallel") for name in host_ops),
        "stores_left_on_host": sum(name == "memref.store" for name in host_ops),
        "block_sizes": sorted(set(blocks)),
    }


NO_KERNEL_OPS = {
    "aten::view", "aten::t", "aten::transpose", "aten::expand", "aten::as_strided", "aten::empty",
    "aten::empty_like", "aten::empty_strided", "aten::resize_", "aten::detach", "aten::reshape",
    "aten::_reshape_alias", "aten::unsqueeze", "aten::squeeze", "aten::permute", "aten::select",
    "aten::slice", "aten::alias", "aten::_unsafe_view", "aten::lift_fresh", "aten::result_type",
    "aten::to", "aten::_to_copy", "aten::contiguous", "aten::resolve_conj", "aten::resolve_neg",
    "aten::clone", "aten::numpy_T",
}  # fmt: skip
"""ATen ops that only make views or metadata (no device kernel of their own)."""


def torch_eager_kernels(model: str = "mlp") -> dict | None:
    """Kernels PyTorch eager launches for the same step, counted on the CPU (see the docstring)."""
    try:
        import torch
    except ImportError:
        return None
    import collections

    torch.set_num_threads(1)
    if model == "mlp":
        x, w1, b1, w2, b2, onehot = (torch.tensor(a) for a in mlp_inputs(0))
        for weight in (w1, b1, w2, b2):
            weight.requires_grad_(True)

        def step():
            hidden = torch.relu(x @ w1 + b1)
            log_probabilities = torch.log_softmax(hidden @ w2 + b2, dim=1)
            loss = -(onehot * log_probabilities).sum() / x.shape[0]
            return torch.autograd.grad(loss, [w1, b1, w2, b2])
    else:
        images = torch.randn(CNN_BATCH, 1, 28, 28)
        labels = torch.randint(0, 10, (CNN_BATCH,))
        parameters = [(0.1 * torch.randn(shape)).requires_grad_() for shape in PARAMETER_SHAPES.values()]

        def step():
            return torch.autograd.grad(torch_loss(torch, images, labels, *parameters), parameters)

    step()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        step()

    def computes(event) -> bool:
        return event.name.startswith("aten::") and event.name not in NO_KERNEL_OPS

    kernels = [e for e in profile.events() if computes(e) and not any(computes(c) for c in e.cpu_children)]
    return {"kernels_per_step": len(kernels), "ops": dict(collections.Counter(e.name for e in kernels))}


def figures_table(figures_by_chip: dict[str, dict]) -> list[str]:
    """The per-chip table of kernels, registers, spills, bytes and compile time."""
    return [
        "| chip | kernels/step | max registers | spill bytes | bytes moved | minimum | ratio "
        "| elementwise+reduction ratio | compile s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(
            f"| {chip} | {f['kernels_per_step']} | {f['max_registers']} | {f['total_spill_bytes']} "
            f"| {f['bytes_moved']} | {f['bytes_minimum']} | {f['bytes_moved_over_minimum']} "
            f"| {f['elementwise_and_reduction']['ratio']} | {f['compile_seconds']} |"
            for chip, f in figures_by_chip.items()
        ),
    ]


def markdown(results: dict) -> str:
    lines = [
        "# GPU static figures: MLP 784-256-10, batch 64, one gradient step",
        "",
        "Generated by `python bench/gpu_static.py` (no GPU needed: PTX + `ptxas -v`).",
        "",
        *figures_table({chip: results[chip] for chip in CHIPS}),
    ]
    plain = results["plain_mlir_route"]
    eager = results.get("torch_eager")
    if eager:
        lines += [
            "",
            f"PyTorch eager, same step: {eager['kernels_per_step']} kernels (innermost ATen compute "
            f"ops under torch.profiler on the CPU; a lower bound for CUDA): {eager['ops']}. gradir: "
            f"{results['sm_90']['kernels_per_step']}.",
        ]
    lines += [
        "",
        f"Strategies (sm_90): {results['sm_90']['strategies']}",
        "",
        "Plain MLIR route of DESIGN.md section 7 on the same module, up to outlining: "
        f"{plain['kernels_per_step']} kernels, {plain['loops_left_on_host']} loops and "
        f"{plain['stores_left_on_host']} stores left on the host, block sizes {plain['block_sizes']}.",
        "",
        "GMM gradient (examples/gmm/gmm.py, float64, d={d} K={K} n={n}; kernels of @gmm_gradient and"
        " its callees):".format(**results["gmm_gradient"]["sm_90"]["sizes"]),
        "",
        *figures_table(results["gmm_gradient"]),
        "",
        "LeNet-5 gradient (examples/cnn/lenet.py, float32, batch {batch}; kernels of @lenet_grad and"
        " its callees):".format(batch=results["cnn_gradient"]["sm_90"]["batch"]),
        "",
        *figures_table(results["cnn_gradient"]),
        "",
        f"Strategies (sm_90): {results['cnn_gradient']['sm_90']['strategies']}. Largest kernels by bytes"
        f" moved (sm_90): "
        + ", ".join(f"{k['name']} {k['bytes']} B, {k['registers']} registers"
                    for k in results["cnn_gradient"]["sm_90"]["largest_kernels"])
        + ".",
        *(
            [
                "",
                f"PyTorch eager, same step: {results['torch_eager_cnn']['kernels_per_step']} kernels"
                f" (counted as for the MLP): {results['torch_eager_cnn']['ops']}.",
            ]
            if results.get("torch_eager_cnn")
            else []
        ),
        "",
        "ratio: all kernels' bytes against the step's minimum (its inputs read once, its outputs "
        "written once; intermediates such as saved activations are not in the minimum). "
        "elementwise+reduction ratio: those kernels' bytes against what their ops must move "
        "(each op's inputs once, outputs once; the excess is split reductions' partials).",
        "",
        "Per kernel (sm_90):",
        "",
        "```",
        results["sm_90"]["table"].rstrip(),
        "```",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    results = {chip: ours(chip) for chip in CHIPS}
    results["plain_mlir_route"] = plain_mlir_route()
    results["torch_eager"] = torch_eager_kernels()
    results["gmm_gradient"] = {chip: gmm(chip, *GMM_SIZES) for chip in CHIPS}
    results["cnn_gradient"] = {chip: cnn(chip) for chip in CHIPS}
    results["torch_eager_cnn"] = torch_eager_kernels("cnn")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu_static.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "gpu_static.md").write_text(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
