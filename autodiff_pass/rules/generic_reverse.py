"""Reverse mode of `linalg.generic`: the gradient of every input its body reads.

A *target* is something the body reads one element of per iteration and that
gets a gradient: an operand (through its indexing map), a captured float
scalar (the same element in every iteration), or a captured tensor read by a
`tensor.extract` in the body (a gather). Each target's gradient is the sum,
over the whole iteration space, of the scalar gradient of what the body read,
placed where it was read from:

* *Placed by a map*: when the element read is given by an affine map of the
  loop indices whose results are distinct loop dimensions or constants (every
  operand map of elementwise ops, broadcasts, reductions, matmuls; a scalar,
  `()`; `tensor.extract %t[%i]` with `%i = linalg.index 0`; the size-1
  broadcast `(d0, d1) -> (0, d1)`), the gradient is one *adjoint generic*
  over the iteration space whose output is written through the map's
  dimensions; the loops the map omits become reductions, which is the sum over
  broadcast dimensions. Constant positions are then placed with
  `tensor.insert_slice` into zeros.
* *Scattered*: any other affine map (`d0 + d3` convolution windows, `(d0 + 1)
  mod 3`, a repeated dimension) and gathers at indices computed from data. One
  generic over the iteration space, all loops parallel, writes every
  iteration's contribution and the indices it belongs at; an `scf.for` nest
  then adds the contributions into the gradient one element at a time. Correct
  for any map, and the way an index computed from data can be served; named
  convolutions and pooling have rules of their own that avoid it, and so does
  a generic that is a convolution (`out += a * b`, one input read through
  windows `s * o + d * k`, the other and the output through projected
  permutations: `rules.conv.window_contraction_vjp`).

Every adjoint generic's body is a copy of the forward body (reading the op's
inputs, its results in place of the accumulators of a reduction, or the inits
of an elementwise op) followed by the adjoint of each varied scalar op, seeded
with the outputs' gradients. How a reduction's combiner seeds its
expression is `generic_reductions`' table (sum, product, max, min); a reduction
with any other combiner is differentiated as a sequential fold (`generic_fold`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import carries_derivative
from gradir.autodiff_pass.ir_building import autograd_add, empty_of, zero_constant
from gradir.autodiff_pass.rules.conv import window_contraction_vjp
from gradir.autodiff_pass.rules.generic_fold import fold_vjp
from gradir.autodiff_pass.rules.generic_reductions import Seeding, seeded_in_parallel
from gradir.autodiff_pass.rules.generic_reductions import seeding as seeding_of
from gradir.autodiff_pass.rules.generic_body import (
    add_at,
    body_terminator,
    emit_affine,
    gathers_of,
    indexing_maps,
    is_reduction,
    loop_extent_values,
    loop_nest,
)
from gradir.autodiff_pass.rules.scalar_body import ScalarBackward, propagate_varied


@dataclass
class Target:
    """One input whose gradient the body's adjoint produces."""

    value: SSAValue
    """What gets the gradient: an operand or a captured value."""
    read_as: SSAValue
    """The body value standing for the element read in one iteration."""
    slot: int
    """Its position among the rule's results (operands, then captured values)."""
    map: AffineMap | None = None
    """Loop indices -> the element read, when affine."""
    indices: list[SSAValue] = field(default_factory=list)
    """The body's index values, for a gather at indices computed from data."""

    def placed_by_map(self) -> bool:
        return self.map is not None and _dims_and_constants(self.map)


def _dims_and_constants(map_: AffineMap) -> bool:
    dims = [expr.position for expr in map_.results if isinstance(expr, AffineDimExpr)]
    simple = all(isinstance(expr, AffineDimExpr | AffineConstantExpr) for expr in map_.results)
    return simple and len(dims) == len(set(dims))


def generic_vjp(
    builder: Builder,
    op: Operation,
    grads: Sequence[SSAValue],
    captured: Sequence[SSAValue],
    active_operands: Sequence[bool] | None = None,
) -> list[SSAValue | None]:
    """The gradients of the operands marked in `active_operands` (default: every float
    operand) and of the `captured` values."""
    assert isinstance(op, GenericOp)
    if active_operands is None:
        active_operands = [carries_derivative(operand) for operand in op.operands]
    windowed = window_contraction_vjp(builder, op, grads)
    if windowed is not None:
        return windowed  # a convolution written as a generic: no scatter, the convolution adjoints
    if not seeded_in_parallel(op):
        return fold_vjp(builder, op, grads, captured, active_operands)
    reduction = is_reduction(op)
    seeding = seeding_of(builder, op, grads)
    targets = _targets(op, captured, reduction, active_operands)
    gradients: list[SSAValue | None] = [None] * (len(op.operands) + len(captured))

    def add(slot: int, gradient: SSAValue) -> None:
        previous = gradients[slot]
        gradients[slot] = gradient if previous is None else builder.insert(autograd_add(previous, gradient)).result

    reads = BodyReads(
        leaves={t.read_as for t in targets if t.slot >= len(op.operands) and t.read_as is not t.value},
        captured_scalars={value for value in captured if not isinstance(value.type, TensorType)},
        constant_inputs={op.body.block.args[k] for k in range(len(op.inputs)) if not active_operands[k]},
    )
    for target in targets:
        if target.placed_by_map():
            add(target.slot, _gradient_placed_by_map(builder, op, target, seeding, reads))
    scattered = [target for target in targets if not target.placed_by_map()]
    if scattered:
        for slot, gradient in _scattered_gradients(builder, op, scattered, seeding, reads):
            add(slot, gradient)
    for j, gradient in seeding.init_gradients.items():
        if carries_derivative(op.outputs[j]):
            add(len(op.inputs) + j, gradient)
    return gradients


# ----------------------------------------------------------------------------
# Targets
# ----------------------------------------------------------------------------


def _targets(
    op: GenericOp, captured: Sequence[SSAValue], reduction: bool, active_operands: Sequence[bool]
) -> list[Target]:
    body = op.body.block
    maps = indexing_maps(op)
    loops = len(op.iterator_types.data)
    targets = []
    # The inputs, and the inits of an elementwise generic (read as inputs).
    candidates = list(range(len(op.inputs))) + ([] if reduction else [len(op.inputs) + j for j in range(len(op.outputs))])
    for k in candidates:
        if active_operands[k] and body.args[k].uses:
            targets.append(Target(op.operands[k], body.args[k], k, maps[k].data))
    gathered = gathers_of(op, captured)
    for position, value in enumerate(captured):
        slot = len(op.operands) + position
        if not isinstance(value.type, TensorType):
            targets.append(Target(value, value, slot, AffineMap(loops, 0, ())))
            continue
        for extract in gathered[value]:
            exprs = [_as_affine(index) for index in extract.indices]
            if all(expr is not None for expr in exprs):
                targets.append(Target(value, extract.result, slot, AffineMap(loops, 0, tuple(exprs))))  # type: ignore[arg-type]
            else:
                targets.append(Target(value, extract.result, slot, indices=list(extract.indices)))
    return targets


def _as_affine(value: SSAValue) -> AffineExpr | None:
    """`value` (an index computed in the body) as an affine expression of the
    loop indices, when it is one (`linalg.index`, constants, +, -, * constant)."""
    owner = value.owner
    if isinstance(owner, IndexOp):
        return AffineDimExpr(owner.dim.value.data)
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return AffineConstantExpr(owner.value.value.data)
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
        lhs, rhs = _as_affine(owner.lhs), _as_affine(owner.rhs)
        if lhs is None or rhs is None:
            return None
        if isinstance(owner, arith.AddiOp):
            return lhs + rhs
        if isinstance(owner, arith.SubiOp):
            return lhs - rhs
        if isinstance(lhs, AffineConstantExpr) or isinstance(rhs, AffineConstantExpr):
            return lhs * rhs
    return None


# ----------------------------------------------------------------------------
# The adjoint body
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class BodyReads:
    """What the body reads from outside that carries a derivative."""

    leaves: set[SSAValue]
    """Elements gathered from captured tensors: their gradient is wanted as it is."""
    captured_scalars: set[SSAValue]
    """Active float scalars read directly."""
    constant_inputs: set[SSAValue]
    """The body's arguments of inputs that carry no derivative here."""


class AdjointBody:
    """A block holding a copy of the generic's body over new arguments (the
    op's inputs, its bound outputs, the output gradients, then `own_types`
    for the adjoint generic's own outputs), followed by the backward of its
    varied scalar ops, seeded with the output gradients."""

    def __init__(self, op: GenericOp, seeding: Seeding, reads: BodyReads, own_types: list[Attribute]):
        body = op.body.block
        seed_types = [value.type.element_type for value in seeding.tensors]  # type: ignore[union-attr]
        self.block = Block(arg_types=[*[a.type for a in body.args], *seed_types, *own_types])
        args = list(self.block.args)
        self.own_arguments = args[len(body.args) + len(seed_types) :]
        seed_args = args[len(body.args) : len(body.args) + len(seed_types)]
        self.value_map: dict[SSAValue, SSAValue] = dict(zip(body.args, args[: len(body.args)]))
        self.at = Builder(InsertPoint.at_end(self.block))
        terminator = body_terminator(op)

        copies = []
        skip: set[Operation] = set()
        for inner in body.ops:
            if inner is terminator:
                break
            copy = inner.clone(self.value_map)
            self.block.add_op(copy)
            copies.append(copy)
            if inner in seeding.skip:
                skip.add(copy)
        leaf_copies = {self.value_map[value] for value in reads.leaves}
        varied = {self.value_map[a] for a in body.args if carries_derivative(a) and a not in reads.constant_inputs}
        varied |= reads.captured_scalars | leaf_copies
        propagate_varied(copies, varied, op)

        backward = ScalarBackward(self.at, varied, op)
        for value, position in seeding.seeds:
            backward.accumulate(self.value_map.get(value, value), seed_args[position])
        backward.reverse(copies, leaves=leaf_copies, skip=skip)
        self.gradients = backward.gradients

    def gradient_of(self, read_as: SSAValue) -> SSAValue:
        """The gradient of what the forward body read as `read_as` (zero if none)."""
        value = self.value_map.get(read_as, read_as)
        return self.gradients.get(value) or zero_constant(self.at, value.type)


def _adjoint_inputs(op: GenericOp, seeding: Seeding) -> tuple[list[SSAValue], list[AffineMapAttr]]:
    """What every adjoint generic reads: the op's inputs, its results (the
    accumulators' final values, for a reduction) or inits, with the op's maps,
    and the seeding's tensors."""
    maps = indexing_maps(op)
    bound_outputs = list(op.results) if is_reduction(op) else list(op.outputs)
    return [*op.inputs, *bound_outputs, *seeding.tensors], [*maps, *seeding.maps]


# ----------------------------------------------------------------------------
# Gradients placed by a map
# ----------------------------------------------------------------------------


def _gradient_placed_by_map(
    builder: Builder, op: GenericOp, target: Target, seeding: Seeding, reads: BodyReads
) -> SSAValue:
    assert target.map is not None
    loops = len(op.iterator_types.data)
    dims = [expr.position for expr in target.map.results if isinstance(expr, AffineDimExpr)]
    element = target.read_as.type
    covers_exactly = target.slot < len(op.operands) and len(dims) == len(target.map.results)
    extents = loop_extent_values(builder, op)
    if covers_exactly and isinstance(target.value.type, TensorType):
        placed_type = target.value.type  # an operand's map covers it exactly
        # (a scalar operand, `()`, is summed into a 0-d tensor like a captured scalar)
    else:
        placed_type = TensorType(element, [extent if isinstance(extent, int) else DYNAMIC_INDEX
                                           for extent in (extents[d] for d in dims)])  # fmt: skip

    adjoint = AdjointBody(op, seeding, reads, [element])
    (accumulator,) = adjoint.own_arguments
    gradient_read = adjoint.gradient_of(target.read_as)
    if len(dims) == loops:
        # Nothing to sum (every loop indexes the output): the gradient is
        # yielded as it is and the zero init is never read.
        adjoint.block.add_op(YieldOp(gradient_read))
    else:
        total = adjoint.at.insert(arith.AddfOp(accumulator, gradient_read)).result
        adjoint.block.add_op(YieldOp(total))

    inputs, maps = _adjoint_inputs(op, seeding)
    output_map = AffineMapAttr(AffineMap(loops, 0, tuple(AffineDimExpr(d) for d in dims)))
    iterators = [IteratorTypeAttr.parallel() if d in dims else IteratorTypeAttr.reduction() for d in range(loops)]
    placed_sizes = [extents[d] for d, size in zip(dims, placed_type.get_shape()) if size == DYNAMIC_INDEX]
    zeros = zero_constant(builder, placed_type, placed_sizes)  # type: ignore[arg-type]
    generic = builder.insert(GenericOp(inputs, [zeros], Region(adjoint.block), [*maps, output_map], iterators, [placed_type]))
    gradient = generic.results[0]
    if not isinstance(target.value.type, TensorType):
        return builder.insert(tensor.ExtractOp(gradient, [], element)).result
    if placed_type == target.value.type:
        return gradient
    return _insert_at_constants(builder, gradient, target)


def _insert_at_constants(builder: Builder, gradient: SSAValue, target: Target) -> SSAValue:
    """Place `gradient` (indexed by the map's dimensions only) into zeros of the
    target's shape: at the map's constant positions, from 0 along its dimensions
    (a gather may read only the start of a captured tensor)."""
    assert target.map is not None and isinstance(target.value.type, TensorType)
    full = target.value.type.get_shape()
    small = iter(enumerate(gradient.type.get_shape()))  # type: ignore[union-attr]
    offsets, sizes, dynamic = [], [], []
    for expr, size in zip(target.map.results, full):
        if isinstance(expr, AffineConstantExpr):
            offsets.append(expr.value)
            sizes.append(1)
        else:
            offsets.append(0)
            dim, known = next(small)
            sizes.append(known)
            if known == DYNAMIC_INDEX:
                position = builder.insert(arith.ConstantOp(IntegerAttr(dim, IndexType()))).result
                dynamic.append(builder.insert(tensor.DimOp(gradient, position)).result)
    zeros = zero_constant(builder, target.value)
    insert = tensor.InsertSliceOp.get(
        gradient, zeros, static_sizes=sizes, static_offsets=offsets, static_strides=[1] * len(full), sizes=dynamic
    )
    return builder.insert(insert).result


# ----------------------------------------------------------------------------
# Scattered gradients
# ----------------------------------------------------------------------------


def _scattered_gradients(builder: Builder, op: GenericOp, targets: list[Target], seeding: Seeding, reads: BodyReads):
    """One generic writing each iteration's contribution and indices per
    target, then an scf.for nest adding the contributions into the gradients."""
    extents = loop_extent_values(builder, op)
    loops = len(extents)
    index_counts = [len(_element_indices_count(target)) for target in targets]
    own_types: list[Attribute] = []
    for target, count in zip(targets, index_counts):
        own_types += [target.read_as.type] + [IndexType()] * count
    adjoint = AdjointBody(op, seeding, reads, own_types)
    at = adjoint.at
    loop_indices = [at.insert(IndexOp(d)).result for d in range(loops)]
    yielded: list[SSAValue] = []
    for target in targets:
        yielded.append(adjoint.gradient_of(target.read_as))
        if target.map is not None:
            yielded += [emit_affine(at, expr, loop_indices) for expr in target.map.results]
        else:
            yielded += [adjoint.value_map.get(index, index) for index in target.indices]
    adjoint.block.add_op(YieldOp(*yielded))

    inputs, maps = _adjoint_inputs(op, seeding)
    identity = AffineMapAttr(AffineMap.identity(loops))
    shape = [extent if isinstance(extent, int) else DYNAMIC_INDEX for extent in extents]
    result_types = [TensorType(type_, shape) for type_ in own_types]
    inits = [empty_of(builder, type_, extents) for type_ in result_types]
    generic = builder.insert(
        GenericOp(inputs, inits, Region(adjoint.block), [*maps, *[identity] * len(inits)],
                  [IteratorTypeAttr.parallel()] * loops, result_types)
    )
    per_iteration = iter(generic.results)
    sites = []
    for target, count in zip(targets, index_counts):
        contribution = next(per_iteration)
        sites.append((target, contribution, [next(per_iteration) for _ in range(count)]))

    accumulated: dict[SSAValue, int] = {}
    for target in targets:
        accumulated.setdefault(target.value, len(accumulated))
    initial = [zero_constant(builder, value) for value in accumulated]

    def scatter(at: Builder, ivs: list[SSAValue], gradients: list[SSAValue]) -> list[SSAValue]:
        for target, contribution, index_tensors in sites:
            slot = accumulated[target.value]
            element_type = target.read_as.type
            amount = at.insert(tensor.ExtractOp(contribution, ivs, element_type)).result
            indices = [at.insert(tensor.ExtractOp(t, ivs, IndexType())).result for t in index_tensors]
            gradients[slot] = add_at(at, gradients[slot], amount, indices)
        return gradients

    final = loop_nest(builder, extents, initial, scatter)
    slot_of = {target.value: target.slot for target in targets}
    return [(slot_of[value], final[position]) for value, position in accumulated.items()]


def _element_indices_count(target: Target) -> list[int]:
    if target.map is not None:
        return list(range(len(target.map.results)))
    return list(range(len(target.indices)))
