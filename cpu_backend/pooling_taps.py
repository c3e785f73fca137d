"""Pooling over small strided windows, on the CPU, as one elementwise generic.

A pooling op loops over its output and, innermost, over its window: for 2x2
max pooling a reduction loop of two, which LLVM does not vectorise (0.7 ns per
window element on LeNet's first pooling). With a stride of at least 2 and at
most `MAX_WINDOW` window elements, every window element becomes an operand of
its own, read through the input map with the window loops made constants
(`2 * oh + 1`), and the op one generic over the output:

    out = combine(...combine(combine(init, x[tap 0]), x[tap 1])..., x[tap T-1])

in the op's own order of window elements (row-major over the window), so sums
add in the same order and max/min take the same values. The innermost loop is
then the output's last dimension, read at a constant stride, which LLVM
vectorises. (Stride 1 would make the first element's map the output loop
itself over a larger input, which linalg does not allow.)

Each rewrite is a private function called in place, inlined after elementwise
fusion (so that fusion does not copy a producer into every window element), as
in `conv_matmuls`.
"""
from __future__ import annotations

from math import prod

from mlir import ir
from mlir.dialects import func

from gradir.mlir_bridge import apply_schedule, walk_ops

_PREFIX = "__gradir_pooling_taps_"
POOLING_PREFIX = "linalg.pooling_"
COMBINERS = ("arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf", "arith.addf")
MAX_WINDOW = 16

GENERALIZE_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %pooling = transform.structured.match ops{[OPS]} in %root : (!transform.any_op) -> !transform.any_op
    %generic = transform.structured.generalize %pooling : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def _combiner(op: ir.Operation) -> str | None:
    """The combining op of a body `yield combine(out, in)` (either order) over the
    first input, the second one (the window's shape) unread; else None."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 2 or body[0].name not in COMBINERS or body[1].name != "linalg.yield":
        return None
    element, window, output = block.arguments
    a, b = body[0].operands
    if any(True for _ in window.uses) or not ((a == output and b == element) or (a == element and b == output)):
        return None
    return body[0].name if body[1].operands[0] == body[0].results[0] else None


def _taps(op: ir.Operation) -> list[str] | None:
    """The input map of each window element over the output's loops, as text; None
    when the op is not a pooling over small windows of stride >= 2."""
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    input_map, window_map, output_map = maps
    if not all(isinstance(e, ir.AffineDimExpr) for e in [*window_map.results, *output_map.results]):
        return None
    outputs = [ir.AffineDimExpr(e).position for e in output_map.results]
    kernels = [ir.AffineDimExpr(e).position for e in window_map.results]
    if sorted(outputs + kernels) != list(range(input_map.n_dims)):
        return None
    window_shape = ir.RankedTensorType(op.operands[1].type).shape
    if prod(window_shape) > MAX_WINDOW:
        return None
    for expr in input_map.results:  # every window read with a stride of at least 2
        if not isinstance(expr, ir.AffineDimExpr) and not _strided(expr, set(outputs)):
            return None
    taps = []
    for flat in range(prod(window_shape)):
        position, constants = flat, {}
        for loop, size in reversed(list(zip(kernels, window_shape))):
            constants[loop] = position % size
            position //= size
        substitution = ir.AffineMap.get(
            len(outputs), 0,
            [ir.AffineConstantExpr.get(constants[d]) if d in constants else ir.AffineDimExpr.get(outputs.index(d))
             for d in range(input_map.n_dims)],
        )  # fmt: skip
        taps.append(", ".join(str(e.compose(substitution)) for e in input_map.results))
    return taps


def _strided(expr: ir.AffineExpr, outputs: set[int]) -> bool:
    """`expr` holds an output loop multiplied by a constant of at least 2."""
    if isinstance(expr, ir.AffineMulExpr):
        factors = [expr.lhs, expr.rhs]
        dims = [f for f in factors if isinstance(f, ir.AffineDimExpr)]
        constants = [f for f in factors if isinstance(f, ir.AffineConstantExpr)]
        return bool(dims and constants) and ir.AffineDimExpr(dims[0]).position in outputs and ir.AffineConstantExpr(
            constants[0]
        ).value >= 2
    if isinstance(expr, ir.AffineBinaryExpr):
        return _strided(expr.lhs, outputs) or _strided(expr.rhs, outputs)
    return False


def rewrite_text(op: ir.Operation, taps: list[str], combiner: str, name: str) -> str:
    input_type, output_type = str(op.operands[0].type), str(op.operands[2].type)
    element = str(ir.RankedTensorType(op.operands[2].type).element_type)
    rank = ir.RankedTensorType(op.operands[2].type).rank
    dims = ", ".join(f"d{i}" for i in range(rank))
    maps = [f"affine_map<({dims}) -> ({tap})>" for tap in taps] + [f"affine_map<({dims}) -> ({dims})>"]
    arguments = ", ".join(f"%t{i}: {element}" for i in range(len(taps)))
    body, value = "", "%out"
    for i in range(len(taps)):
        body += f"      %c{i} = {combiner} {value}, %t{i} : {element}\n"
        value = f"%c{i}"
    iterators = ", ".join(['"parallel"'] * rank)
    inputs = ", ".join(["%x"] * len(taps))
    return (
        f"func.func private @{name}(%x: {input_type}, %init: {output_type}) -> {output_type} {{\n"
        f"    %r = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterators}]}}"
        f" ins({inputs} : {', '.join([input_type] * len(taps))}) outs(%init : {output_type}) {{\n"
        f"    ^bb0({arguments}, %out: {element}):\n{body}      linalg.yield {value} : {element}\n"
        f"    }} -> {output_type}\n    return %r : {output_type}\n}}\n"
    )


def pooling_windows_unrolled(module: ir.Module) -> int:
    """Rewrite every pooling op of `module` (on tensors) that qualifies; returns how many."""
    with module.context, ir.Location.unknown():
        names = sorted(_pooling_names(module))
        if not names:
            return 0
        apply_schedule(module, GENERALIZE_SCHEDULE.replace("OPS", ", ".join(f'"{n}"' for n in names)), "cpu-tensor")
        count = 0
        for op in walk_ops(module, {"linalg.generic"}):
            if len(op.operands) != 3 or len(op.results) != 1:
                continue
            combiner = _combiner(op)
            taps = _taps(op) if combiner else None
            if taps is None:
                continue
            name = f"{_PREFIX}{count}"
            count += 1
            parsed = ir.Module.parse(rewrite_text(op, taps, combiner, name))  # type: ignore[arg-type]
            for definition in list(parsed.body.operations):
                module.body.append(definition)
            with ir.InsertionPoint(op):
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), [op.operands[0], op.operands[2]])
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
        return count


def _pooling_names(module: ir.Module) -> set[str]:
    names: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name.startswith(POOLING_PREFIX):
            names.add(op.name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return names
