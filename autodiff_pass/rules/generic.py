"""Derivative rules of `linalg.generic` (built-in Python rules, loaded by the
registry through `RULES`): the scalar body is differentiated with the same
rules as whole tensors (`derivatives.yaml` formulas emit arith/math on scalars).

What the body reads: its block arguments (the operands, through their
indexing maps), and values defined outside the generic, read directly
(*captured values*): a float scalar computed before the op, or a tensor read
element by element with `tensor.extract` (a gather, at indices built from
`linalg.index` or computed from data). Captured active values get derivatives
like operands do (the rule declares `captures=True`).

Inside the body only *varied* values are differentiated: those computed from
a float input, an init the body reads, or an active captured value. Constants,
integers, indices and floats made from them (`arith.sitofp`, `linalg.index`)
carry no derivative and need no rule. `arith.bitcast` of a varied float is
refused in both modes (reinterpreted bits have no derivative gradir can give).

Forward mode (here): one generic computing the primal results and their
tangents: the tangents of the active operands come in with the same indexing
maps (any map), each output gets a tangent output (starting at its init's
tangent), and the body is followed by the tangent code of its ops. A captured
scalar's tangent is read from outside like the scalar; a gathered element's
tangent is the same `tensor.extract` from the captured tensor's tangent.

Reverse mode: `generic_reverse`; what both share: `generic_body`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import carries_derivative
from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.generic_body import (
    NAME,
    body_terminator,
    gathers_of,
    indexing_maps,
)
from gradir.autodiff_pass.rules.generic_reverse import generic_vjp
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.scalar_body import emit_tangents

# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def generic_jvp(
    builder: Builder,
    op: Operation,
    tangents: Sequence[SSAValue | None],
    captured_tangents: Mapping[SSAValue, SSAValue],
):
    assert isinstance(op, GenericOp)
    inputs, outputs = list(op.inputs), list(op.outputs)
    maps = indexing_maps(op)
    body = op.body.block
    gathered = gathers_of(op, list(captured_tangents))
    gather_sites = {extract: captured_tangents[value] for value, sites in gathered.items() for extract in sites}
    active = [k for k in range(len(inputs)) if tangents[k] is not None]
    float_outputs = [j for j, r in enumerate(op.results) if carries_derivative(r)]
    output_tangents = [
        tangents[len(inputs) + j] or zero_constant(builder, outputs[j]) for j in float_outputs
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
    scalar_tangents: dict[SSAValue, SSAValue] = {
        value: tangent for value, tangent in captured_tangents.items() if not isinstance(value.type, TensorType)
    }
    for k, argument in zip(active, new_args[n_in : n_in + n_act]):
        scalar_tangents[value_map[in_args[k]]] = argument
    for j, argument in zip(float_outputs, new_args[n_in + n_act + n_out :]):
        scalar_tangents[value_map[out_args[j]]] = argument

    at = Builder(InsertPoint.at_end(new_body))
    terminator = body_terminator(op)

    def gathered_element(tangent_tensor: SSAValue):
        """The tangent of an element gathered from a captured tensor: the same
        element of the tensor's tangent."""

        def emit(at: Builder, copy: Operation) -> None:
            element = at.insert(tensor.ExtractOp(tangent_tensor, list(copy.operands[1:]), copy.results[0].type))
            scalar_tangents[copy.results[0]] = element.result

        return emit

    special = {site: gathered_element(tangent_tensor) for site, tangent_tensor in gather_sites.items()}
    emit_tangents(at, [inner for inner in body.ops if inner is not terminator], value_map, scalar_tangents, op, special)
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


RULES = (
    DerivativeRule(
        NAME, reverse=generic_vjp, forward=generic_jvp, captures=True, reads_operand_activity=True, dynamic_shapes=True
    ),
)
