"""What the derivative rules of `linalg.generic` share: reading the op (its
maps, its terminator, the tensors its body gathers from), the located errors, and
scalar loops over the iteration space (`loop_nest`, `emit_affine`)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
)
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.registry import get_rule
from gradir.errors import DifferentiationError, error_at

NAME = "linalg.generic"


def fail(op: Operation, message: str):
    raise error_at(DifferentiationError, op, f"differentiation of '{NAME}': {message}")


def reduced_loops(op: GenericOp, j: int) -> list[int]:
    """The loops marked "reduction" that output `j` accumulates over: those its
    map does not index. A loop marked "reduction" that the output's map does
    index (an IREE transpose marks one so) visits each element of the output
    once, so the output is elementwise along it (MLIR's semantics: the body
    applied in order over the iteration space, each output element written at
    the points its map sends there)."""
    out_map = indexing_maps(op)[len(op.inputs) + j].data
    indexed = {expr.position for expr in out_map.results if isinstance(expr, AffineDimExpr)}
    return [d for d, kind in enumerate(op.iterator_types.data)  # type: ignore[arg-type]
            if str(kind.data) == "reduction" and d not in indexed]  # type: ignore[attr-defined]


def is_reduction(op: GenericOp) -> bool:
    """Whether an output accumulates over some loop (see `reduced_loops`)."""
    return any(reduced_loops(op, j) for j in range(len(op.outputs)))


def indexing_maps(op: GenericOp) -> list[AffineMapAttr]:
    return list(op.indexing_maps.data)  # type: ignore[arg-type]


def rule_of(op: Operation, generic: Operation) -> DerivativeRule:
    """The local rule of a body op (a walk rule needs a whole function around it)."""
    rule = get_rule(op.name)
    if not isinstance(rule, DerivativeRule):
        fail(generic, f"its body's '{op.name}' has no derivative rule")
    return rule


def body_terminator(op: GenericOp) -> YieldOp:
    terminator = op.body.block.last_op
    if not isinstance(terminator, YieldOp):
        fail(op, "its body must end with linalg.yield")
    return terminator


def gathers_of(op: GenericOp, captured: Sequence[SSAValue]) -> dict[SSAValue, list[tensor.ExtractOp]]:
    """For each captured tensor, the `tensor.extract` ops of the body reading it
    (the only way a scalar body can read a tensor that is not an operand's elements; a
    `tensor.dim` reads its size, which has no derivative)."""
    tensors = {value for value in captured if isinstance(value.type, TensorType)}
    found: dict[SSAValue, list[tensor.ExtractOp]] = {value: [] for value in tensors}
    for inner in op.body.walk():
        for value in inner.operands:
            if value not in tensors or isinstance(inner, tensor.DimOp):
                continue
            if not isinstance(inner, tensor.ExtractOp) or inner.tensor is not value or inner.parent is not op.body.block:
                fail(op, f"its body reads the captured tensor {value.type} with '{inner.name}'; "
                     "only tensor.extract directly in the body is supported")
            found[value].append(inner)
    return found


def refuse_bitcast(inner: Operation, generic: Operation) -> None:
    if isinstance(inner, arith.BitcastOp):
        fail(generic, "its body bitcasts a value that carries a derivative "
             "(reinterpreted bits have no derivative gradir can compute)")


def refuse_regions(inner: Operation, generic: Operation) -> None:
    """An op with regions in the body (`scf.if`) reading a varied value: its
    regions' derivatives would be lost, so it is refused by name."""
    if inner.regions:
        fail(generic, f"its body's '{inner.name}' has no derivative rule")


def _extent_sources(op: GenericOp) -> dict[int, tuple[int, SSAValue, int]]:
    """Loop -> (its trip count, or DYNAMIC_INDEX; an operand indexed by it directly; which
    dimension of it), a static size preferred where operands differ."""
    sources: dict[int, tuple[int, SSAValue, int]] = {}
    for operand, map_ in zip(op.operands, indexing_maps(op)):
        shape = operand.type.get_shape() if isinstance(operand.type, TensorType) else ()
        for dim, (size, expr) in enumerate(zip(shape, map_.data.results)):
            if isinstance(expr, AffineDimExpr):
                known = sources.get(expr.position)
                if known is None or known[0] == DYNAMIC_INDEX and size != DYNAMIC_INDEX:
                    sources[expr.position] = (size, operand, dim)
    if len(sources) != len(op.iterator_types.data):
        fail(op, "the extent of a loop cannot be read off an operand indexed by it directly")
    return sources


def loop_extents(op: GenericOp) -> list[int]:
    """The trip count of each loop (`DYNAMIC_INDEX` where known only at run time), read off
    the operands a loop indexes directly."""
    sources = _extent_sources(op)
    return [sources[d][0] for d in range(len(sources))]


def loop_extent_values(builder: Builder, op: GenericOp) -> list[int | SSAValue]:
    """The trip count of each loop: a number, or the `tensor.dim` of an operand it indexes
    directly where it is known only at run time."""
    sources = _extent_sources(op)
    extents: list[int | SSAValue] = []
    for d in range(len(sources)):
        size, operand, dim = sources[d]
        if size != DYNAMIC_INDEX:
            extents.append(size)
            continue
        position = builder.insert(arith.ConstantOp(IntegerAttr(dim, IndexType()))).result
        extents.append(builder.insert(tensor.DimOp(operand, position)).result)
    return extents


def emit_affine(at: Builder, expr: AffineExpr, dims: list[SSAValue]) -> SSAValue:
    """`expr` over the loop indices `dims`, as index arithmetic."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return at.insert(arith.ConstantOp(IntegerAttr(expr.value, IndexType()))).result
    assert isinstance(expr, AffineBinaryOpExpr), f"unsupported affine expression {expr}"
    lhs, rhs = emit_affine(at, expr.lhs, dims), emit_affine(at, expr.rhs, dims)
    kinds: dict[AffineBinaryOpKind, type[Operation]] = {
        AffineBinaryOpKind.Add: arith.AddiOp,
        AffineBinaryOpKind.Mul: arith.MuliOp,
        AffineBinaryOpKind.Mod: arith.RemUIOp,
        AffineBinaryOpKind.FloorDiv: arith.FloorDivSIOp,
        AffineBinaryOpKind.CeilDiv: arith.CeilDivSIOp,
    }
    return at.insert(kinds[expr.kind](lhs, rhs)).result  # type: ignore[call-arg]


def loop_nest(
    builder: Builder,
    extents: list[int | SSAValue],
    initial: list[SSAValue],
    body: Callable[[Builder, list[SSAValue], list[SSAValue]], list[SSAValue]],
) -> list[SSAValue]:
    """An scf.for nest over `extents` (numbers or `index` values) carrying `initial`;
    `body(builder, ivs, carried)` returns the next carried values. Returns the final ones."""
    zero = builder.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))).result
    one = builder.insert(arith.ConstantOp(IntegerAttr(1, IndexType()))).result
    bounds = [n if isinstance(n, SSAValue) else builder.insert(arith.ConstantOp(IntegerAttr(n, IndexType()))).result
              for n in extents]  # fmt: skip

    def level(at: Builder, depth: int, ivs: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
        if depth == len(extents):
            return body(at, ivs, list(carried))
        block = Block(arg_types=[IndexType(), *[value.type for value in carried]])
        inner = Builder(InsertPoint.at_end(block))
        results = level(inner, depth + 1, [*ivs, block.args[0]], list(block.args[1:]))
        block.add_op(scf.YieldOp(*results))
        loop = at.insert(scf.ForOp(zero, bounds[depth], one, carried, Region(block)))
        return list(loop.results)

    return level(builder, 0, [], initial)


def add_at(at: Builder, gradients: SSAValue, gradient: SSAValue | None, indices: Sequence[SSAValue]) -> SSAValue:
    """`gradients[indices] += gradient`, one element (nothing when there is no gradient)."""
    if gradient is None:
        return gradients
    element_type = gradients.type.element_type  # type: ignore[attr-defined]
    previous = at.insert(tensor.ExtractOp(gradients, list(indices), element_type)).result
    total = at.insert(arith.AddfOp(previous, gradient)).result
    return at.insert(tensor.InsertOp(total, gradients, list(indices))).result
