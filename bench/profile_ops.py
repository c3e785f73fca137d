"""Where a compiled function spends its time, op by op, on the CPU.

The function is taken to the end of the CPU pipeline's tensor stage
(`cpu_pipeline.fuse_tensors`: inlined, fused, contractions named), then each
of its top-level ops that computes a tensor (a fused `linalg.generic`, a
matmul, a transpose, a reduce, ...) is compiled alone, as a public function of
its operands, and timed on random inputs of the same shapes (best of
`--repeat` calls). Views and empty tensors are free and left out. The sum is
close to the whole function's time, since the pieces were fused the same way;
what it misses is what the real function saves by reusing a buffer in place.

    python bench/profile_ops.py --gmm 20,50,1000 --function gmm_gradient
    python bench/profile_ops.py --lenet 64 --function lenet_grad
    python bench/profile_ops.py FILE.mlir --function f
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from mlir import ir
from mlir.dialects import func

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "gmm"))
sys.path.insert(0, str(ROOT / "examples" / "cnn"))

from gradir.cpu_backend.cpu_pipeline import fuse_tensors  # noqa: E402
from gradir.cpu_backend.cpu_runtime import CpuExecutable  # noqa: E402
from gradir.mlir_bridge import generic_text, to_mlir_module  # noqa: E402
from gradir.compilation import lower_to_linalg  # noqa: E402
from gradir.errors import PipelineError  # noqa: E402

FREE_OPS = {
    "tensor.empty", "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice",
    "arith.constant", "func.return", "tensor.cast",
}  # fmt: skip


def tensor_stage(source: str) -> ir.Module:
    module = to_mlir_module(generic_text(lower_to_linalg(source)))
    fuse_tensors(module)
    return module


def _function(module: ir.Module, name: str) -> ir.Operation:
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op.operation
    raise SystemExit(f"no function @{name}")


def isolated(op: ir.Operation, name: str) -> str | None:
    """`op` alone in a public function of its non-constant operands and of the values
    its regions read from outside, as MLIR text; None when one of them is no tensor."""
    arguments: list[ir.Value] = []
    constants: list[ir.Operation] = []
    for value in [*op.operands, *_captured(op)]:
        owner = _defining_op(value)
        if owner is not None and owner.name == "arith.constant":
            if all(value != c.results[0] for c in constants):
                constants.append(owner)
        elif value not in arguments:
            arguments.append(value)  # a loop's body may read tensors from outside: arguments too
    if not all(isinstance(v.type, ir.RankedTensorType) for v in arguments):
        return None
    if not all(isinstance(r.type, ir.RankedTensorType) for r in op.results):
        return None
    with op.context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp(name, ([v.type for v in arguments], [r.type for r in op.results]))
        entry = function.add_entry_block()
        with ir.InsertionPoint(entry):
            mapping = {}
            for constant in constants:
                clone = constant.clone()
                mapping[constant.results[0]] = clone.results[0]
            for position, argument in enumerate(arguments):
                mapping[argument] = entry.arguments[position]
            copy = op.clone()
            _replace_inside(copy, mapping)
            for position, operand in enumerate(op.operands):
                copy.operands[position] = mapping[operand]
            func.ReturnOp(list(copy.results))
        return str(module)


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _captured(op: ir.Operation) -> list[ir.Value]:
    """Values defined outside `op` that ops in its regions read."""
    inside = set()
    found: list[ir.Value] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        for region in inner.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    inside.add(argument)
        for result in inner.results:
            inside.add(result)
        if inner.operation != op.operation:
            for operand in inner.operands:
                if operand not in inside and operand not in found:
                    found.append(operand)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _replace_inside(op: ir.Operation, mapping: dict) -> None:
    def visit(inner: ir.Operation) -> ir.WalkResult:
        for position, operand in enumerate(inner.operands):
            if operand in mapping:
                inner.operands[position] = mapping[operand]
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)


def random_inputs(executable: CpuExecutable, name: str, rng: np.random.Generator) -> list[np.ndarray]:
    specs = executable.signatures[name].arguments
    return [rng.uniform(0.1, 1.0, spec.shape).astype(spec.dtype) for spec in specs]


def time_call(executable: CpuExecutable, name: str, inputs: list[np.ndarray], repeat: int) -> float:
    call = getattr(executable, name)
    call(*inputs)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        call(*inputs)
        best = min(best, time.perf_counter() - start)
    return best


def describe(op: ir.Operation) -> str:
    types = " ".join(str(r.type) for r in op.results)
    head = op.name
    if op.name == "linalg.generic":
        kinds = str(op.attributes["iterator_types"]).count("reduction")
        body = [o.name for o in op.regions[0].blocks[0].operations][:-1]
        head = f"generic({kinds} red; {' '.join(n.split('.')[-1] for n in body)})"
    elif op.name == "scf.for":  # e.g. a convolution over chunks of the batch (conv_matmuls)
        inner = []

        def visit(nested: ir.Operation) -> ir.WalkResult:
            if nested.name == "linalg.matmul":
                left, right = (ir.RankedTensorType(v.type).shape for v in list(nested.operands)[:2])
                inner.append(f"matmul {left[0]}x{left[1]}x{right[1]}")
            return ir.WalkResult.ADVANCE

        op.walk(visit, ir.WalkOrder.PRE_ORDER)
        head = f"scf.for ({', '.join(inner) or 'no matmul'})"
    return f"{head} -> {types}"


def _forwarded(module: ir.Module, function: ir.Operation) -> ir.Operation:
    """The function that `function` only calls (a public forwarder keeps its call:
    mlir_bridge/forwarding_calls.py), followed to the end; else `function` itself."""
    body = [op.operation for op in function.regions[0].blocks[0].operations]
    if [op.name for op in body] != ["func.call", "func.return"]:
        return function
    return _forwarded(module, _function(module, ir.FlatSymbolRefAttr(body[0].attributes["callee"]).value))


def profile(source: str, function_name: str, repeat: int) -> list[tuple[float, str]]:
    module = tensor_stage(source)
    function = _forwarded(module, _function(module, function_name))
    rng = np.random.default_rng(0)
    rows = []
    for position, op in enumerate(function.regions[0].blocks[0].operations):
        op = op.operation
        if op.name in FREE_OPS:
            continue
        text = isolated(op, f"piece{position}")
        if text is None:
            rows.append((float("nan"), f"(not isolated) {op.name}"))
            continue
        try:
            executable = CpuExecutable(text)
        except PipelineError as error:  # e.g. index-typed tensors, which the runtime cannot pass
            rows.append((float("nan"), f"(not timed: {error}) {op.name}"))
            continue
        inputs = random_inputs(executable, f"piece{position}", rng)
        rows.append((time_call(executable, f"piece{position}", inputs, repeat), describe(op)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", help="an autodiff/linalg .mlir file")
    parser.add_argument("--gmm", help="d,K,n: profile the ADBench GMM program instead")
    parser.add_argument("--lenet", type=int, metavar="BATCH", help="profile examples/cnn's LeNet-5 (and its gradient) instead")
    parser.add_argument("--function", required=True)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    if args.gmm:
        from gmm import gmm_program

        source = gmm_program(*(int(v) for v in args.gmm.split(",")))
    elif args.lenet:
        from lenet import lenet, lenet_gradient

        source = lenet(args.lenet) + lenet_gradient(args.lenet)
    else:
        source = Path(args.file).read_text()
    whole = CpuExecutable(generic_text(lower_to_linalg(source)))
    inputs = random_inputs(whole, args.function, np.random.default_rng(1))
    total = time_call(whole, args.function, inputs, args.repeat)
    rows = profile(source, args.function, args.repeat)
    measured = sum(t for t, _ in rows if t == t)
    print(f"@{args.function}: {total * 1e3:.2f} ms whole; {measured * 1e3:.2f} ms summed over {len(rows)} ops")
    print("| ms | % of sum | op |\n| ---: | ---: | --- |")
    for seconds, what in sorted(rows, key=lambda r: -r[0] if r[0] == r[0] else 0)[: args.top]:
        print(f"| {seconds * 1e3:.3f} | {100 * seconds / measured:.1f} | `{what}` |")


if __name__ == "__main__":
    main()
