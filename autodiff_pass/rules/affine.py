"""Rule of `affine.for` (a walk rule): it becomes an `scf.for`, differentiated by `scf_for`.

An `affine.for` with `iter_args` on tensors or float scalars is the loop
`scf.for` is, with bounds given by affine maps of index operands: the lower
bound is the largest result of its map, the upper bound the smallest, the
step a positive constant. The rule builds that `scf.for` in front of the op
(bound maps expanded to `arith`, the body moved over, `affine.yield` becoming
`scf.yield`), hands its activity, gradients or tangents to the new loop and
differentiates it with the `scf.for` rule, so both modes, run-time bounds and
checkpointing work as they do there.

Other affine ops need no rule: `affine.apply` computes indices, which are
never active, and `affine.load` reads a memref, which is not a differentiable
value (its result is a constant to the derivative). Storing a value that
depends on a differentiated argument (`affine.store`) is a located error
raised by the activity analysis, and an active `affine.if` or
`affine.parallel` is named by the walk as an op without a rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir.affine import (
    AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineSymExpr,
)  # fmt: skip
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule
from gradir.autodiff_pass.rules.loop_cache import index_constant
from gradir.autodiff_pass.rules.scf_for import forward_for, reverse_for
from gradir.errors import DifferentiationError, error_at


def affine_value(builder: Builder, expr: AffineExpr, dims: Sequence[SSAValue], symbols: Sequence[SSAValue]) -> SSAValue:
    """The value of `expr` as MLIR defines it, built with `arith`: `mod` is never negative for a
    positive divisor (`-3 mod 4` is 1). xDSL 0.74's `lower_affine.affine_expr_ops` makes `mod` an
    `arith.remsi` (-3): the differentiated loop ran another trip count than the program's own,
    lowered by MLIR, and the gradient was wrong with no error."""
    if isinstance(expr, AffineConstantExpr):
        return index_constant(builder, expr.value)
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return symbols[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr), expr
    lhs, rhs = affine_value(builder, expr.lhs, dims, symbols), affine_value(builder, expr.rhs, dims, symbols)
    if expr.kind is AffineBinaryOpKind.Mod:
        remainder = builder.insert(arith.RemSIOp(lhs, rhs)).result
        negative = builder.insert(arith.CmpiOp(remainder, index_constant(builder, 0), "slt")).result
        shifted = builder.insert(arith.AddiOp(remainder, rhs)).result
        return builder.insert(arith.SelectOp(negative, shifted, remainder)).result
    combine = {AffineBinaryOpKind.Add: arith.AddiOp, AffineBinaryOpKind.Mul: arith.MuliOp,
               AffineBinaryOpKind.FloorDiv: arith.FloorDivSIOp, AffineBinaryOpKind.CeilDiv: arith.CeilDivSIOp}  # fmt: skip
    return builder.insert(combine[expr.kind](lhs, rhs)).result


def bound_value(
    builder: Builder, bound: AffineMapAttr, operands: Sequence[SSAValue], combine: type[Operation]
) -> SSAValue:
    """The value of an affine bound map: its results combined by `combine`
    (`arith.maxsi` for a lower bound, `arith.minsi` for an upper one)."""
    affine_map = bound.data
    dims, symbols = operands[: affine_map.num_dims], operands[affine_map.num_dims :]
    values = []
    for expr in affine_map.results:
        values.append(affine_value(builder, expr, dims, symbols))
    result = values[0]
    for value in values[1:]:
        result = builder.insert(combine(result, value)).result  # type: ignore[call-arg]
    return result


def _access_indices(op: Operation) -> list[SSAValue]:
    """The memref indices an `affine.load`/`store` reads, computed in front of it."""
    access = op.properties["map"].data  # type: ignore[union-attr]
    operands = list(op.operands[2:] if isinstance(op, affine.StoreOp) else op.operands[1:])
    dims, symbols = operands[: access.num_dims], operands[access.num_dims :]
    builder = Builder(InsertPoint.before(op))
    return [affine_value(builder, expr, dims, symbols) for expr in access.results]


def lower_accesses(region) -> None:
    """The `affine.load`s and `affine.store`s under `region` as `memref.load` and `memref.store`
    at indices computed with `arith`: once their loop is an `scf.for`, its induction variable
    is neither a dimension nor a symbol to MLIR ("'affine.load' op operand cannot be used as a
    dimension id"). (`affine.apply` takes any index operands.)"""
    for op in [op for op in region.walk() if isinstance(op, (affine.LoadOp, affine.StoreOp))]:
        if isinstance(op, affine.LoadOp):
            Rewriter.replace_op(op, memref.LoadOp.get(op.memref, _access_indices(op)))
        else:
            Rewriter.replace_op(op, memref.StoreOp.get(op.value, op.memref, _access_indices(op)))


def to_scf_for(op: affine.ForOp) -> scf.ForOp:
    """Insert in front of `op` the `scf.for` it stands for, taking over its
    body (its affine accesses lowered: `lower_accesses`); `op` is left in place, with an
    empty region, for the caller to replace."""
    step = op.step.value.data
    if step <= 0:
        raise error_at(DifferentiationError, op, "'affine.for' step must be positive")
    builder = Builder(InsertPoint.before(op))
    lower = bound_value(builder, op.lowerBoundMap, op.lowerBoundOperands, arith.MaxSIOp)
    upper = bound_value(builder, op.upperBoundMap, op.upperBoundOperands, arith.MinSIOp)
    step_value = index_constant(builder, step)
    body = op.body.block
    terminator = body.last_op
    if not isinstance(terminator, affine.YieldOp) or len(terminator.operands) != len(op.results):
        raise error_at(
            DifferentiationError,
            op,
            f"'affine.for' must end its body with affine.yield of its {len(op.results)} result(s)",
        )
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands))
    loop = scf.ForOp(lower, upper, step_value, list(op.inits), op.detach_region(op.body))
    loop.location = op.location
    builder.insert(loop)
    lower_accesses(loop.body)
    return loop


def reverse_affine_for(walk: ReverseContext, op: Operation) -> None:
    assert isinstance(op, affine.ForOp)
    gradients = [walk.gradient(result) for result in op.results]
    if all(gradient is None for gradient in gradients):
        return
    loop = to_scf_for(op)
    for old, new, gradient in zip(op.results, loop.results, gradients):
        walk.activity.replace(old, new)
        if gradient is not None:
            walk.accumulate(new, gradient)
    Rewriter.replace_op(op, [], list(loop.results))
    reverse_for(walk, loop)


def forward_affine_for(walk: ForwardContext, op: Operation) -> None:
    assert isinstance(op, affine.ForOp)
    loop = to_scf_for(op)
    for old, new in zip(op.results, loop.results):
        walk.activity.replace(old, new)
    forward_for(walk, loop)
    # The scf.for rule rebuilt the loop (with tangent iteration arguments) in
    # its place, right in front of `op`, or left it as it was.
    rebuilt = op.prev_op
    assert isinstance(rebuilt, scf.ForOp)
    walk.replace(op, list(rebuilt.results[: len(op.results)]))


RULES = (WalkRule("affine.for", reverse=reverse_affine_for, forward=forward_affine_for, dynamic_shapes=True),)
