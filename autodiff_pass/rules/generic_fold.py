"""Reverse mode of a reduction `linalg.generic` as the sequential fold it is.

MLIR defines a generic by its body applied at every point of the iteration space in
lexicographic order, each output element updated where its map sends the point. The
parallel adjoint (`generic_reductions.seeding`) needs a combiner it knows (a sum, product,
max or min), whose partial results need not be kept. Any other body is a fold
`acc' = f(acc, x)` whose derivative needs every intermediate accumulator: a log-add-exp
(`lax.cumlogsumexp`, JAX's `reduce_window` with its own body), a generic mixing an
elementwise output with a reducing one, a body reading its accumulator twice. This file
differentiates those as JAX differentiates a scan:

1. *forward*: an `scf.for` nest over the loops, in the generic's order, recomputes the fold
   and keeps, at each point, the accumulators the body read there (`states`, one tensor per
   output whose accumulator the body reads, over the whole iteration space);
2. *backward*: the same nest in reverse order recomputes the body at each point from those
   states and runs its scalar adjoint (`ScalarBackward`, each op's own rule): the gradient
   of each accumulator at the point (`adjoints`, one tensor per float output, starting as
   the result's gradient) goes into what the body read, which is added into the inputs'
   gradients where their maps read them, and into the accumulator the point read, whose
   gradient replaces it. What is left at the end is the init's gradient.

The fold costs one scalar iteration per point and a copy of the accumulators per point: it is
what a combiner without an algebraic shortcut needs, and only such generics take it.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from gradir.autodiff_pass.activity import carries_derivative
from gradir.autodiff_pass.ir_building import empty_of, zero_constant
from gradir.autodiff_pass.rules.generic_body import (
    add_at,
    body_terminator,
    emit_affine,
    gathers_of,
    indexing_maps,
    loop_extent_values,
    loop_nest,
)
from gradir.autodiff_pass.rules.scalar_body import ScalarBackward, propagate_varied
from gradir.lowering.standard_ops import index_constant


def fold_vjp(
    builder: Builder,
    op: GenericOp,
    grads: Sequence[SSAValue | None],
    captured: Sequence[SSAValue],
    active_operands: Sequence[bool],
) -> list[SSAValue | None]:
    """The gradients of `op`'s active operands and of the `captured` values (see the module
    docstring); `grads[j]` is result j's gradient (None: none, or an integer result)."""
    body = op.body.block
    n_in = len(op.inputs)
    maps = [m.data for m in indexing_maps(op)]
    extents = loop_extent_values(builder, op)
    point = [extent if isinstance(extent, int) else DYNAMIC_INDEX for extent in extents]
    read_accumulators = [j for j in range(len(op.outputs)) if body.args[n_in + j].uses]
    float_outputs = [j for j in range(len(op.outputs)) if carries_derivative(op.outputs[j])]

    def element(at: Builder, source: SSAValue, map_: AffineMap, ivs: list[SSAValue]) -> SSAValue:
        if not isinstance(source.type, TensorType):
            return source  # a scalar operand
        indices = [emit_affine(at, expr, ivs) for expr in map_.results]
        return at.insert(tensor.ExtractOp(source, indices, source.type.element_type)).result

    def place(at: Builder, value: SSAValue, into: SSAValue, indices: list[SSAValue]) -> SSAValue:
        return at.insert(tensor.InsertOp(value, into, indices)).result

    def body_copy(at: Builder, ivs: list[SSAValue], reads: dict[SSAValue, SSAValue]) -> tuple[list[Operation], dict]:
        """The body's ops (not its yield) cloned at the point `ivs`, its block arguments
        standing for `reads`; `linalg.index` is the point's coordinate."""
        value_map: dict[SSAValue, SSAValue] = dict(reads)
        copies = []
        terminator = body_terminator(op)
        for inner in body.ops:
            if inner is terminator:
                break
            if isinstance(inner, IndexOp):
                value_map[inner.result] = ivs[inner.dim.value.data]
                continue
            copy = inner.clone(value_map)
            at.insert(copy)
            copies.append(copy)
        return copies, value_map

    # 1. forward: the fold again, keeping the accumulators each point read
    states_init = [empty_of(builder, TensorType(op.outputs[j].type.element_type, point), extents) for j in read_accumulators]

    def forward(at: Builder, ivs: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
        accumulators, states = carried[: len(op.outputs)], carried[len(op.outputs) :]
        reads = {body.args[k]: element(at, op.inputs[k], maps[k], ivs) for k in range(n_in)}
        out_indices = [[emit_affine(at, expr, ivs) for expr in maps[n_in + j].results] for j in range(len(op.outputs))]
        for j, accumulator in enumerate(accumulators):
            reads[body.args[n_in + j]] = at.insert(
                tensor.ExtractOp(accumulator, out_indices[j], op.outputs[j].type.element_type)
            ).result
        _, value_map = body_copy(at, ivs, reads)
        yielded = [value_map.get(v, v) for v in body_terminator(op).operands]
        next_states = [place(at, reads[body.args[n_in + j]], s, ivs) for j, s in zip(read_accumulators, states)]
        return [*[place(at, y, a, i) for y, a, i in zip(yielded, accumulators, out_indices)], *next_states]

    carried = loop_nest(builder, extents, [*op.outputs, *states_init], forward)
    states = dict(zip(read_accumulators, carried[len(op.outputs) :]))

    # 2. backward, in reverse order
    active_inputs = [k for k in range(n_in) if active_operands[k] and carries_derivative(op.inputs[k])]
    gathered = gathers_of(op, [value for value in captured if isinstance(value.type, TensorType)])
    gather_sources = {site: source for source, sites in gathered.items() for site in sites}
    captured_tensors = list(gathered)
    captured_scalars = [value for value in captured if not isinstance(value.type, TensorType)]
    adjoints_init = [grads[j] if grads[j] is not None else zero_constant(builder, op.outputs[j]) for j in float_outputs]
    input_gradients_init = [zero_constant(builder, op.inputs[k]) for k in active_inputs]
    tensor_gradients_init = [zero_constant(builder, value) for value in captured_tensors]
    scalar_gradients_init = [zero_constant(builder, value.type) for value in captured_scalars]
    counts = [len(float_outputs), len(active_inputs), len(captured_tensors), len(captured_scalars)]

    def backward(at: Builder, ivs: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
        adjoints, input_grads, tensor_grads, scalar_grads = _split(carried, counts)
        point_ivs = [_reversed_index(at, iv, extent) for iv, extent in zip(ivs, extents)]
        reads = {body.args[k]: element(at, op.inputs[k], maps[k], point_ivs) for k in range(n_in)}
        for j, accumulator_states in states.items():
            reads[body.args[n_in + j]] = at.insert(
                tensor.ExtractOp(accumulator_states, point_ivs, op.outputs[j].type.element_type)
            ).result
        copies, value_map = body_copy(at, point_ivs, reads)
        gathered_reads = {value_map[site.result]: gather_sources[site] for site in gather_sources if site.result in value_map}
        varied = {reads[body.args[k]] for k in active_inputs}
        varied |= {reads[body.args[n_in + j]] for j in float_outputs if j in states}
        varied |= set(captured_scalars) | set(gathered_reads)
        propagate_varied(copies, varied, op)
        backward_body = ScalarBackward(at, varied, op)
        out_indices = {j: [emit_affine(at, expr, point_ivs) for expr in maps[n_in + j].results] for j in float_outputs}
        element_type = {j: op.outputs[j].type.element_type for j in float_outputs}
        terminator = body_terminator(op)
        for j, adjoint in zip(float_outputs, adjoints):
            gradient = at.insert(tensor.ExtractOp(adjoint, out_indices[j], element_type[j])).result
            backward_body.accumulate(value_map.get(terminator.operands[j], terminator.operands[j]), gradient)
        backward_body.reverse(copies, leaves=set(gathered_reads))
        next_adjoints = []
        for j, adjoint in zip(float_outputs, adjoints):
            read = reads.get(body.args[n_in + j])
            gradient = backward_body.gradient_or_zero(read) if read is not None else zero_constant(at, element_type[j])
            next_adjoints.append(place(at, gradient, adjoint, out_indices[j]))
        next_inputs = [
            add_at(at, gradients, backward_body.gradients.get(reads[body.args[k]]), [emit_affine(at, e, point_ivs) for e in maps[k].results])
            for k, gradients in zip(active_inputs, input_grads)
        ]  # fmt: skip
        next_tensors = list(tensor_grads)
        for read, source in gathered_reads.items():
            slot = captured_tensors.index(source)
            next_tensors[slot] = add_at(at, next_tensors[slot], backward_body.gradients.get(read), list(read.owner.operands[1:]))
        next_scalars = [
            g if backward_body.gradients.get(v) is None else at.insert(arith.AddfOp(g, backward_body.gradients[v])).result
            for v, g in zip(captured_scalars, scalar_grads)
        ]
        return [*next_adjoints, *next_inputs, *next_tensors, *next_scalars]

    initial = [*adjoints_init, *input_gradients_init, *tensor_gradients_init, *scalar_gradients_init]
    final = loop_nest(builder, extents, initial, backward)
    init_grads, input_grads, tensor_grads, scalar_grads = _split(final, counts)
    gradients: list[SSAValue | None] = [None] * (len(op.operands) + len(captured))
    for k, gradient in zip(active_inputs, input_grads):
        gradients[k] = gradient
    for j, gradient in zip(float_outputs, init_grads):
        gradients[n_in + j] = gradient
    for value, gradient in [*zip(captured_tensors, tensor_grads), *zip(captured_scalars, scalar_grads)]:
        gradients[len(op.operands) + list(captured).index(value)] = gradient
    return gradients


def _split(values: Sequence[SSAValue], counts: Sequence[int]) -> list[list[SSAValue]]:
    parts, start = [], 0
    for count in counts:
        parts.append(list(values[start : start + count]))
        start += count
    return parts


def _reversed_index(at: Builder, iv: SSAValue, extent: int | SSAValue) -> SSAValue:
    """`extent - 1 - iv`: the loop run backwards."""
    if isinstance(extent, int):
        last = index_constant(at, extent - 1)
    else:
        last = at.insert(arith.SubiOp(extent, index_constant(at, 1))).result
    return at.insert(arith.SubiOp(last, iv)).result
