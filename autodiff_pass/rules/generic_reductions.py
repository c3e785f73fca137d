"""How the gradients of a `linalg.generic`'s results enter its body's adjoint.

An elementwise generic's body yields each result element: the value yielded
for output j receives that element's gradient, read through output j's map.

A reduction's body combines an expression `e` (computed per iteration) with the
accumulator: `yield combine(e, acc)`. Reverse mode needs, per iteration, the
gradient of `e` (the *seed*), and the gradient of the init:

| combiner | seed of `e` | gradient of the init |
| --- | --- | --- |
| `addf` | `g` | `g` |
| `subf` (`acc - e`) | `-g` | `g` |
| `mulf` | `g * init * prod of the other e` | `g * prod of every e` |
| `maximumf`, `maxnumf`, `minimumf`, `minnumf`, `select(cmpf(e, acc), e, acc)` | `g / ties` where `e` equals the result, else 0 | the same for the init |

`g` is the result's gradient; for max/min the init is one more candidate and
tied candidates share the gradient evenly (PyTorch's `amax` convention, as
`autodiff.max` and `linalg.reduce`). An `addf` seed is the output gradient
itself, read through the output's map; the others are materialised over the
whole iteration space (the expression `e` is computed once more for that) and
read with the identity map. The product's "other e" is an exclusive product
(a second reduction loop over the reduced dimensions), so a zero factor
gives the right gradient without dividing by it.

Besides the combination, a float accumulator may be read by ops that feed only
integer outputs (an arg-max's `cmpf` choosing the index beside a `maximumf`):
they do not change the float result. Which loops an output reduces over comes
from its map (`reduced_loops`): a loop marked "reduction" that the output's map
indexes writes each element once, so along it the output is elementwise.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, AffineMapAttr, FloatAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import carries_derivative, op_inputs
from gradir.autodiff_pass.ir_building import empty_like, empty_of
from gradir.autodiff_pass.rules.generic_body import (
    body_terminator,
    indexing_maps,
    is_reduction,
    loop_extent_values,
    reduced_loops,
)

MAX_COMBINERS = (arith.MaximumfOp, arith.MaxnumfOp)
MIN_COMBINERS = (arith.MinimumfOp, arith.MinnumfOp)


@dataclass
class Seeding:
    """What every adjoint generic reads besides the op's inputs and bound
    outputs (`tensors`, with `maps`), which body value each seeds, and what the
    adjoint must not differentiate (the combiners)."""

    tensors: list[SSAValue] = field(default_factory=list)
    maps: list[AffineMapAttr] = field(default_factory=list)
    seeds: list[tuple[SSAValue, int]] = field(default_factory=list)
    """(body value, position in `tensors`)."""
    skip: set[Operation] = field(default_factory=set)
    """Body ops left out of the backward (a reduction's combiner)."""
    init_gradients: dict[int, SSAValue] = field(default_factory=dict)
    """Output position -> the gradient of its init (reductions)."""

    def read(self, value: SSAValue, map_: AffineMapAttr) -> int:
        self.tensors.append(value)
        self.maps.append(map_)
        return len(self.tensors) - 1


@dataclass(frozen=True)
class Combiner:
    """One reduction output: `yield combine(e, acc)`."""

    kind: str
    """"add", "sub", "mul", "max" or "min"."""
    expression: SSAValue
    """`e`, the value combined in each iteration."""
    ops: frozenset[Operation]
    """The body ops that make up the combination (the `cmpf` of a select too)."""


def seeding(builder: Builder, op: GenericOp, grads: Sequence[SSAValue]) -> Seeding:
    """The seeding of `op`'s adjoint for the output gradients `grads`."""
    maps = indexing_maps(op)
    output_maps = maps[len(op.inputs) :]
    result = Seeding()
    terminator = body_terminator(op)
    if not is_reduction(op):
        for j, value in enumerate(terminator.operands):
            if grads[j] is not None:  # None: an integer output
                result.seeds.append((value, result.read(grads[j], output_maps[j])))
        return result
    assert all(reduced_loops(op, j) for j in range(len(op.outputs))), "a mixed generic is a fold (generic_fold)"
    # An integer output (the index of an arg-max beside the max) has no gradient.
    combiners = {j: _combiner(op, j) for j in range(len(op.outputs)) if carries_derivative(op.outputs[j])}
    needed = {j for j, c in combiners.items() if c.kind not in ("add", "sub")}
    expressions = _expressions_over_the_domain(builder, op, [combiners[j].expression for j in sorted(needed)])
    by_output = dict(zip(sorted(needed), expressions))
    for j, combiner in combiners.items():
        result.skip |= combiner.ops
        grad, init, out = grads[j], op.outputs[j], op.results[j]
        if combiner.kind in ("add", "sub"):
            seed = grad
            if combiner.kind == "sub":
                seed = _elementwise(builder, [grad], grad.type, lambda at, a: at.insert(arith.NegfOp(a[0])).result)
            result.seeds.append((combiner.expression, result.read(seed, output_maps[j])))
            result.init_gradients[j] = grad
            continue
        values = by_output[j]
        if combiner.kind == "mul":
            seed, init_grad = _product_seed(builder, op, j, values, grad, init)
        else:
            seed, init_grad = _extremum_seed(builder, op, j, values, grad, init, out)
        identity = AffineMapAttr(AffineMap.identity(len(op.iterator_types.data)))
        result.seeds.append((combiner.expression, result.read(seed, identity)))
        result.init_gradients[j] = init_grad
    return result


def seeded_in_parallel(op: GenericOp) -> bool:
    """Whether `seeding` serves `op`: it is elementwise, or every output reduces and each
    float one combines its accumulator in a way the table above differentiates. Any other
    reduction (another combiner, such as a log-add-exp; an output elementwise beside one
    that reduces) is differentiated as the sequential fold it is (`generic_fold`)."""
    if not is_reduction(op):
        return True
    return all(reduced_loops(op, j) for j in range(len(op.outputs))) and all(
        _known_combiner(op, j) is not None for j in range(len(op.outputs)) if carries_derivative(op.outputs[j])
    )


def _known_combiner(op: GenericOp, j: int) -> Combiner | None:
    """How float output `j` combines its accumulator, if by one of the table's combiners.
    Besides the combination, the accumulator may be read by ops that feed only integer
    outputs (the `cmpf` choosing an arg-max's index beside a `maximumf`): they leave the
    float result, and so its derivative, as the combination alone makes them."""
    body = op.body.block
    accumulator = body.args[len(op.inputs) + j]
    yielded = body_terminator(op).operands[j]
    combine = yielded.owner
    uses = {use.operation for use in accumulator.uses}
    combiner = _combination(op, j, accumulator, combine, uses)
    if combiner is not None and not _reads_an_accumulator(op, combiner.expression):
        extra = {_in_body(op, use) for use in uses} - combiner.ops  # (an scf.if's yields are in the if)
        if not _feeds_a_float_output(op, extra):
            return combiner
    return None


def _combiner(op: GenericOp, j: int) -> Combiner:
    combiner = _known_combiner(op, j)
    assert combiner is not None, "seeding an op that is not seeded_in_parallel: it is a fold (generic_fold)"
    return combiner


def _in_body(op: GenericOp, inner: Operation) -> Operation:
    """`inner`, or the op directly in `op`'s body that holds it."""
    while inner.parent_block() is not op.body.block:
        parent = inner.parent_op()
        assert parent is not None
        inner = parent
    return inner


def _slice(op: GenericOp, start: set[Operation]) -> set[Operation]:
    """The body ops (directly in the body) computed from the results of `start`, and `start`."""
    seen, work = set(start), list(start)
    while work:
        for result in work.pop().results:
            for use in result.uses:
                user = _in_body(op, use.operation)
                if user not in seen:
                    seen.add(user)
                    work.append(user)
    return seen


def _feeds_a_float_output(op: GenericOp, start: set[Operation]) -> bool:
    terminator = body_terminator(op)
    reached = _slice(op, start)
    for inner in reached:
        for result in inner.results:
            for use in result.uses:
                if use.operation is terminator and carries_derivative(op.outputs[use.index]):
                    return True
    return False


def _reads_an_accumulator(op: GenericOp, value: SSAValue) -> bool:
    """Whether `value` (an expression combined into an output) is computed from an accumulator."""
    accumulators = set(op.body.block.args[len(op.inputs) :])
    if value in accumulators:
        return True
    readers = {_in_body(op, use.operation) for acc in accumulators for use in acc.uses}
    owner = value.owner
    if not isinstance(owner, Operation) or not op.is_ancestor(owner):
        return False  # a block argument, or a value from outside the op (a captured scalar)
    return _in_body(op, owner) in _slice(op, readers)


def _combination(op: GenericOp, j: int, accumulator: SSAValue, combine, uses: set[Operation]) -> Combiner | None:
    """The combiner of `yield combine(e, acc)`, or None; `uses` (the ops reading
    the accumulator) must include the combination's ops."""
    kinds = {arith.AddfOp: "add", arith.MulfOp: "mul", **{c: "max" for c in MAX_COMBINERS}, **{c: "min" for c in MIN_COMBINERS}}
    if isinstance(combine, tuple(kinds)) and accumulator in combine.operands and combine in uses:
        other = combine.rhs if combine.lhs is accumulator else combine.lhs
        if other is not accumulator:
            return Combiner(kinds[type(combine)], other, frozenset({combine}))
    if isinstance(combine, arith.SubfOp) and combine.lhs is accumulator and combine.rhs is not accumulator and combine in uses:
        return Combiner("sub", combine.rhs, frozenset({combine}))
    if isinstance(combine, arith.SelectOp) and isinstance(compare := combine.cond.owner, arith.CmpfOp):
        kind = _select_extremum(combine, compare, accumulator)
        if kind is not None:
            other = combine.lhs if combine.rhs is accumulator else combine.rhs
            return Combiner(kind, other, frozenset({combine, compare}))
    if isinstance(combine, scf.IfOp) and isinstance(compare := combine.cond.owner, arith.CmpfOp):
        chosen = _branch_choice(combine)
        if chosen is not None and accumulator in chosen:
            kind = _comparison_extremum(compare, chosen, accumulator)
            other = chosen[0] if chosen[1] is accumulator else chosen[1]
            if kind is not None:
                return Combiner(kind, other, frozenset({combine, compare}))
    return None


def _select_extremum(select: arith.SelectOp, compare: arith.CmpfOp, acc: SSAValue) -> str | None:
    """`select(cmpf(p, e, acc), e, acc)`: see `_comparison_extremum`."""
    return _comparison_extremum(compare, (select.lhs, select.rhs), acc)


def _comparison_extremum(compare: arith.CmpfOp, chosen: tuple[SSAValue, SSAValue], acc: SSAValue) -> str | None:
    """Choosing `chosen[0]` when `cmpf(p, a, b)` holds, else `chosen[1]`, over
    {a, b} = {e, acc}: a max for p in (ogt, oge, ugt, uge), a min for the
    less-than predicates (mirrored when the chosen values are swapped)."""
    predicate = arith.CMPF_COMPARISON_OPERATIONS[compare.predicate.value.data]
    if {compare.lhs, compare.rhs} != set(chosen) or acc not in chosen or chosen[0] is chosen[1]:
        return None
    greater = predicate in ("ogt", "oge", "ugt", "uge")
    less = predicate in ("olt", "ole", "ult", "ule")
    if not (greater or less):
        return None
    picks_lhs_when_true = chosen[0] is compare.lhs  # choose(lhs > rhs, lhs, rhs) is a max
    return "max" if greater == picks_lhs_when_true else "min"


def _yields(branch: scf.IfOp) -> list[Operation]:
    return [block.last_op for region in branch.regions for block in region.blocks if block.last_op is not None]


def _branch_choice(branch: scf.IfOp) -> tuple[SSAValue, SSAValue] | None:
    """(value yielded by the then branch, by the else branch) for an `scf.if`
    whose branches only yield one outer value each."""
    chosen = []
    for region in branch.regions:
        if len(region.blocks) != 1 or len(region.block.ops) != 1:
            return None
        terminator = region.block.last_op
        if not isinstance(terminator, scf.YieldOp) or len(terminator.operands) != 1:
            return None
        chosen.append(terminator.operands[0])
    return (chosen[0], chosen[1]) if len(chosen) == 2 else None


# ----------------------------------------------------------------------------
# The expressions over the iteration space, and the seeds made from them
# ----------------------------------------------------------------------------


def _expressions_over_the_domain(builder: Builder, op: GenericOp, expressions: list[SSAValue]) -> list[SSAValue]:
    """One all-parallel generic computing each `expression` at every point of
    the iteration space (the body up to it, the accumulators unread)."""
    if not expressions:
        return []
    extents = loop_extent_values(builder, op)
    loops = len(extents)
    body = op.body.block
    block = Block(arg_types=[*[a.type for a in body.args[: len(op.inputs)]], *[e.type for e in expressions]])
    value_map: dict[SSAValue, SSAValue] = dict(zip(body.args[: len(op.inputs)], block.args))
    terminator = body_terminator(op)
    combination = set(body.args[len(op.inputs) :])  # the accumulators and what reads them
    for inner in body.ops:
        if inner is terminator:
            break
        if any(value in combination for value in op_inputs(inner)):
            combination.update(inner.results)
            continue  # the combination: not needed for the expressions
        block.add_op(inner.clone(value_map))
    block.add_op(YieldOp(*[value_map.get(e, e) for e in expressions]))
    maps = indexing_maps(op)[: len(op.inputs)]
    identity = AffineMapAttr(AffineMap.identity(loops))
    shape = [extent if isinstance(extent, int) else DYNAMIC_INDEX for extent in extents]
    types = [TensorType(e.type, shape) for e in expressions]
    inits = [empty_of(builder, t, extents) for t in types]
    generic = builder.insert(
        GenericOp(list(op.inputs), inits, Region(block), [*maps, *[identity] * len(types)],
                  [IteratorTypeAttr.parallel()] * loops, types)
    )
    return list(generic.results)


def _generic(
    builder: Builder,
    inputs: Sequence[tuple[SSAValue, AffineMapAttr]],
    output: tuple[SSAValue, AffineMapAttr],
    iterators: Sequence[IteratorTypeAttr],
    compute: Callable[[Builder, list[SSAValue]], SSAValue],
) -> SSAValue:
    """A generic whose body yields `compute(builder, [input elements..., accumulator])`."""
    init, out_map = output
    element = init.type.element_type  # type: ignore[union-attr]
    block = Block(arg_types=[*[v.type.element_type for v, _ in inputs], element])  # type: ignore[union-attr]
    at = Builder(InsertPoint.at_end(block))
    block.add_op(YieldOp(compute(at, list(block.args))))
    generic = GenericOp([v for v, _ in inputs], [init], Region(block), [*[m for _, m in inputs], out_map], list(iterators), [init.type])
    return builder.insert(generic).results[0]


def _elementwise(builder: Builder, values: Sequence[SSAValue], type_, compute) -> SSAValue:
    """`compute` on each element of `values`, which have `type_` (the first one gives the
    result's sizes)."""
    assert values[0].type == type_
    rank = type_.get_num_dims()
    identity = AffineMapAttr(AffineMap.identity(rank))
    init = empty_like(builder, values[0])
    return _generic(builder, [(v, identity) for v in values], (init, identity), [IteratorTypeAttr.parallel()] * rank, compute)


def _constant(at: Builder, value: float, type_) -> SSAValue:
    return at.insert(arith.ConstantOp(FloatAttr(value, type_))).result


def _iterators(op: GenericOp, j: int) -> list[IteratorTypeAttr]:
    """The op's loops as output `j` sees them: reductions where it accumulates."""
    reduced = reduced_loops(op, j)
    return [IteratorTypeAttr.reduction() if d in reduced else IteratorTypeAttr.parallel()
            for d in range(len(op.iterator_types.data))]


def _extremum_seed(builder, op: GenericOp, j: int, values: SSAValue, grad: SSAValue, init: SSAValue, out: SSAValue):
    """Seed of a max/min reduction: the result's gradient shared evenly among the
    iterations (and the init) whose candidate equals the result."""
    loops = len(op.iterator_types.data)
    identity = AffineMapAttr(AffineMap.identity(loops))
    out_map = indexing_maps(op)[len(op.inputs) + j]
    element = grad.type.element_type  # type: ignore[union-attr]

    def tie(at: Builder, a: SSAValue, b: SSAValue) -> SSAValue:
        equal = at.insert(arith.CmpfOp(a, b, "oeq")).result
        return at.insert(arith.SelectOp(equal, _constant(at, 1.0, element), _constant(at, 0.0, element))).result

    # ties = [init == out] + sum over the reduced dims of [e == out]
    init_ties = _elementwise(builder, [init, out], out.type, lambda at, a: tie(at, a[0], a[1]))
    ties = _generic(
        builder, [(values, identity), (out, out_map)], (init_ties, out_map), _iterators(op, j),
        lambda at, a: at.insert(arith.AddfOp(a[2], tie(at, a[0], a[1]))).result,
    )
    share = _elementwise(builder, [grad, ties], grad.type, lambda at, a: at.insert(arith.DivfOp(a[0], a[1])).result)
    seed_init = empty_like(builder, values)
    seed = _generic(
        builder, [(values, identity), (out, out_map), (share, out_map)], (seed_init, identity),
        [IteratorTypeAttr.parallel()] * loops,
        lambda at, a: at.insert(arith.MulfOp(tie(at, a[0], a[1]), a[2])).result,
    )
    init_grad = _elementwise(builder, [init, out, share], out.type, lambda at, a: at.insert(arith.MulfOp(tie(at, a[0], a[1]), a[2])).result)
    return seed, init_grad


def _product_seed(builder, op: GenericOp, j: int, values: SSAValue, grad: SSAValue, init: SSAValue):
    """Seed of a product reduction: `g * init * (product of the other e)`; the
    init's gradient is `g * (product of every e)`."""
    loops = len(op.iterator_types.data)
    iterators = _iterators(op, j)
    reduced = reduced_loops(op, j)
    identity = AffineMapAttr(AffineMap.identity(loops))
    out_map = indexing_maps(op)[len(op.inputs) + j]
    element = grad.type.element_type  # type: ignore[union-attr]
    ones = _elementwise(builder, [grad], grad.type, lambda at, a: _constant(at, 1.0, element))
    product = _generic(builder, [(values, identity)], (ones, out_map), iterators,
                       lambda at, a: at.insert(arith.MulfOp(a[0], a[1])).result)
    init_grad = _elementwise(builder, [grad, product], grad.type, lambda at, a: at.insert(arith.MulfOp(a[0], a[1])).result)
    # exclusive product: loops (the domain, then a copy of the reduced dims);
    # e is read at the copy, and counts as 1 where the copy equals the point
    copies = {d: loops + k for k, d in enumerate(reduced)}
    read_at_copy = AffineMapAttr(AffineMap(loops + len(reduced), 0, tuple(
        AffineDimExpr(copies.get(d, d)) for d in range(loops))))
    point = AffineMapAttr(AffineMap(loops + len(reduced), 0, tuple(AffineDimExpr(d) for d in range(loops))))
    scale = _elementwise(builder, [grad, init], grad.type, lambda at, a: at.insert(arith.MulfOp(a[0], a[1])).result)
    start = empty_like(builder, values)
    start = _generic(builder, [(scale, out_map)], (start, identity), [IteratorTypeAttr.parallel()] * loops, lambda at, a: a[0])

    def factor(at: Builder, a: list[SSAValue]) -> SSAValue:
        same = None
        for d in reduced:
            here = at.insert(IndexOp(d)).result
            there = at.insert(IndexOp(copies[d])).result
            equal = at.insert(arith.CmpiOp(here, there, "eq")).result
            same = equal if same is None else at.insert(arith.AndIOp(same, equal)).result
        one = _constant(at, 1.0, element)
        chosen = at.insert(arith.SelectOp(same, one, a[0])).result
        return at.insert(arith.MulfOp(a[1], chosen)).result

    iterators_with_copy = [IteratorTypeAttr.parallel()] * loops + [IteratorTypeAttr.reduction()] * len(reduced)
    seed = _generic(builder, [(values, read_at_copy)], (start, point), iterators_with_copy, factor)
    return seed, init_grad

