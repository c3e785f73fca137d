"""Derivative rules of `linalg.generic` (built-in Python rules, loaded by the
registry through `RULES`): the scalar body is differentiated with the same
rules as whole tensors (`derivatives.yaml` formulas emit arith/math on scalars).

Forward mode: one generic computing the primal results and their tangents:
the tangents of the active operands come in with the same indexing maps,
each output gets a tangent output (starting at its init's tangent), and the
body is followed by the tangent code of its ops. Any body works, reductions
included: an accumulator's tangent is the tangent output's block argument.

Reverse mode: one generic per active operand, over the whole iteration space,
writing that operand's gradient through its indexing map; the loops its map
does not use become reductions, which sums over broadcast dimensions. Its body
is a copy of the forward body (the results bound to the op's results) followed
by the adjoint of each scalar op, seeded with the outputs' gradients.
Reductions must combine with `arith.addf` (`yield addf(e, acc)`), so that `e`
receives the output's gradient as it is and the init receives it too; use
`linalg.reduce` for max/min reductions. An operand's map must be a projected
permutation. Anything else is a located error.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import carries_derivative
from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.registry import get_rule
from gradir.errors import DifferentiationError, error_at

NAME = "linalg.generic"


def _fail(op: Operation, message: str):
    raise error_at(DifferentiationError, op, f"differentiation of '{NAME}': {message}")


def _is_reduction(op: GenericOp) -> bool:
    return any(str(kind.data) == "reduction" for kind in op.iterator_types.data)  # type: ignore[attr-defined]


def _maps(op: GenericOp) -> list[AffineMapAttr]:
    return list(op.indexing_maps.data)  # type: ignore[arg-type]


def _rule_of(op: Operation, generic: Operation):
    rule = get_rule(op.name)
    if not isinstance(rule, DerivativeRule):
        # None, or a walk rule (scf.if, func.call), which needs a whole function around it
        _fail(generic, f"its body's '{op.name}' has no derivative rule")
    return rule


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def generic_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, GenericOp)
    inputs, outputs = list(op.inputs), list(op.outputs)
    maps = _maps(op)
    body = op.body.block
    active = [k for k in range(len(inputs)) if tangents[k] is not None]
    float_outputs = [j for j, r in enumerate(op.results) if carries_derivative(r)]
    output_tangents = [
        tangents[len(inputs) + j] or zero_constant(builder, outputs[j].type) for j in float_outputs
    ]
    in_args = list(body.args[: len(inputs)])
    out_args = list(body.args[len(inputs) :])
    new_body = Block(
        arg_types=[
            *[a.type for a in in_args],
            *[in_args[k].type for k in active],
            *[a.type for a in out_args],
            *[out_args[j].type for j in float_outputs],
        ]
    )
    n_in, n_act, n_out = len(in_args), len(active), len(out_args)
    new_args = list(new_body.args)
    value_map: dict[SSAValue, SSAValue] = dict(zip(in_args, new_args[:n_in]))
    value_map.update(zip(out_args, new_args[n_in + n_act : n_in + n_act + n_out]))
    scalar_tangents: dict[SSAValue, SSAValue] = {}
    for k, argument in zip(active, new_args[n_in : n_in + n_act]):
        scalar_tangents[value_map[in_args[k]]] = argument
    for j, argument in zip(float_outputs, new_args[n_in + n_act + n_out :]):
        scalar_tangents[value_map[out_args[j]]] = argument

    at = Builder(InsertPoint.at_end(new_body))
    terminator = body.last_op
    assert isinstance(terminator, YieldOp)
    for inner in body.ops:
        if inner is terminator:
            break
        copy = inner.clone(value_map)
        new_body.add_op(copy)
        operand_tangents = [scalar_tangents.get(v) for v in copy.operands]
        if all(t is None for t in operand_tangents) or not any(carries_derivative(r) for r in copy.results):
            continue
        results = _rule_of(copy, op).emit_jvp(at, copy, operand_tangents)
        for result, tangent in zip(copy.results, results):
            if tangent is not None:
                scalar_tangents[result] = tangent
    yielded = [value_map.get(v, v) for v in terminator.operands]
    yielded_tangents = [
        scalar_tangents.get(yielded[j]) or zero_constant(at, yielded[j].type) for j in float_outputs
    ]
    new_body.add_op(YieldOp(*yielded, *yielded_tangents))

    generic = GenericOp(
        [*inputs, *[tangents[k] for k in active]],  # type: ignore[misc]
        [*outputs, *output_tangents],
        Region(new_body),
        [*maps[: len(inputs)], *[maps[k] for k in active], *maps[len(inputs) :], *[maps[len(inputs) + j] for j in float_outputs]],
        list(op.iterator_types.data),
        [*[r.type for r in op.results], *[op.results[j].type for j in float_outputs]],
    )
    builder.insert(generic)
    tangent_results = list(generic.results[len(op.results) :])
    out: list[SSAValue | None] = [None] * len(op.results)
    for j, tangent in zip(float_outputs, tangent_results):
        out[j] = tangent
    return out


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def _projected_permutation(map_: AffineMapAttr) -> list[int] | None:
    positions = []
    for expr in map_.data.results:
        if not isinstance(expr, AffineDimExpr) or expr.position in positions:
            return None
        positions.append(expr.position)
    return positions


def _reduction_seeds(op: GenericOp) -> list[SSAValue]:
    """For a reduction generic: the expression each output accumulates
    (`yield addf(e, acc)`), which receives the output's gradient."""
    body = op.body.block
    terminator = body.last_op
    assert isinstance(terminator, YieldOp)
    out_args = list(body.args[len(op.inputs) :])
    expressions = []
    for value, accumulator in zip(terminator.operands, out_args):
        combine = value.owner
        if not isinstance(combine, arith.AddfOp) or accumulator not in combine.operands:
            _fail(op, "a reduction must yield arith.addf(expression, accumulator) (use linalg.reduce for max/min)")
        uses = [use.operation for use in accumulator.uses]
        if uses != [combine] or combine.lhs is combine.rhs:
            _fail(op, "a reduction's accumulator may only be added to once")
        expressions.append(combine.rhs if combine.lhs is accumulator else combine.lhs)
    return expressions


def generic_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, GenericOp)
    inputs, outputs = list(op.inputs), list(op.outputs)
    maps = _maps(op)
    reduction = _is_reduction(op)
    seeds_at = _reduction_seeds(op) if reduction else None
    loops = len(op.iterator_types.data)
    gradients: list[SSAValue | None] = [None] * len(op.operands)
    # Operands whose gradient comes from the body: the inputs, and the inits of
    # an elementwise generic (their block arguments are read as inputs).
    candidates = list(range(len(inputs))) + ([] if reduction else [len(inputs) + j for j in range(len(outputs))])
    for k in candidates:
        operand = op.operands[k]
        if not carries_derivative(operand) or not op.body.block.args[k].uses:
            continue  # not a float, or the body never reads it
        positions = _projected_permutation(maps[k])
        if positions is None:
            _fail(op, f"operand #{k} has an indexing map that is not a projected permutation")
        gradients[k] = _operand_gradient(builder, op, k, positions, grads, seeds_at, loops)
    if reduction:
        for j, grad in enumerate(grads):
            if carries_derivative(outputs[j]):
                gradients[len(inputs) + j] = grad
    return gradients


def _operand_gradient(
    builder: Builder,
    op: GenericOp,
    k: int,
    positions: list[int],
    grads: Sequence[SSAValue],
    seeds_at: list[SSAValue] | None,
    loops: int,
) -> SSAValue:
    inputs, outputs = list(op.inputs), list(op.outputs)
    maps = _maps(op)
    body = op.body.block
    operand = op.operands[k]
    # Inputs of the adjoint generic: the op's inputs, its results (reduction:
    # the accumulators' final values) or inits (elementwise), the output gradients.
    bound_outputs = list(op.results) if seeds_at is not None else outputs
    adjoint_inputs = [*inputs, *bound_outputs, *grads]
    output_maps = maps[len(inputs) :]
    adjoint_maps = [*maps[: len(inputs)], *output_maps, *output_maps, maps[k]]
    element = body.args[k].type
    new_body = Block(
        arg_types=[*[a.type for a in body.args], *[a.type for a in body.args[len(inputs) :]], element]
    )
    args = list(new_body.args)
    value_map: dict[SSAValue, SSAValue] = dict(zip(body.args, args[: len(body.args)]))
    grad_args = args[len(body.args) : len(body.args) + len(outputs)]
    accumulator = args[-1]
    at = Builder(InsertPoint.at_end(new_body))
    terminator = body.last_op
    assert isinstance(terminator, YieldOp)
    copies = []
    for inner in body.ops:
        if inner is terminator:
            break
        copy = inner.clone(value_map)
        new_body.add_op(copy)
        copies.append(copy)

    scalar_grads: dict[SSAValue, SSAValue] = {}

    def accumulate(value: SSAValue, gradient: SSAValue) -> None:
        previous = scalar_grads.get(value)
        scalar_grads[value] = gradient if previous is None else at.insert(arith.AddfOp(previous, gradient)).result

    targets = seeds_at if seeds_at is not None else list(terminator.operands)
    skip = {value_map[v].owner for v in terminator.operands} if seeds_at is not None else set()
    for value, grad in zip(targets, grad_args):
        accumulate(value_map.get(value, value), grad)
    for copy in reversed(copies):
        if copy in skip or not any(r in scalar_grads for r in copy.results):
            continue
        output_grads = [scalar_grads.get(r) or zero_constant(at, r.type) for r in copy.results]
        input_grads = _rule_of(copy, op).emit_vjp(at, copy, output_grads)
        for value, gradient in zip(copy.operands, input_grads):
            if gradient is not None and carries_derivative(value):
                accumulate(value, gradient)
    contribution = scalar_grads.get(args[k]) or zero_constant(at, element)
    total = at.insert(arith.AddfOp(accumulator, contribution)).result
    new_body.add_op(YieldOp(total))

    iterators = [
        IteratorTypeAttr.parallel() if d in positions else IteratorTypeAttr.reduction() for d in range(loops)
    ]
    zeros = zero_constant(builder, operand.type)
    generic = GenericOp(adjoint_inputs, [zeros], Region(new_body), adjoint_maps, iterators, [operand.type])
    return builder.insert(generic).results[0]


RULES = (DerivativeRule(NAME, reverse=generic_vjp, forward=generic_jvp),)
