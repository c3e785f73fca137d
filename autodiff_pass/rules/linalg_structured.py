"""Derivative rules of named linalg ops through their `linalg.generic` view
(built-in Python rules, loaded by the registry through `RULES`).

A named structured op (`linalg.dot`, `matvec`, `vecmat`, `batch_matvec`,
`batch_vecmat`, `batch_matmul`, `batch_reduce_matmul`, `mmt4d`,
`batch_mmt4d`, `contract`, `elementwise`, `map`, `square`, `reciprocal`,
`quantized_matmul`, `quantized_batch_matmul`, `fill_rng_2d`, `reduce`, and
`matmul` with any indexing maps) *is* a `linalg.generic`: the same operands,
indexing maps and body, with its loops' kinds read off the outputs' maps (a
loop no output indexes is a reduction). `generic_view` builds that generic,
detached, and the rules of `linalg.generic` (`generic_vjp`, `generic_jvp`:
any maps, any body, captured values) differentiate it; no third body
differentiator.

Reverse mode gives one adjoint generic per active operand. Each one's body
starts with a copy of the forward body, which in a contraction is dead once
the operand's adjoint is taken (`g * b` for `a` in `acc + a * b`); the dead
ops and the operands only they read are dropped, and the loops are numbered
the output's way (`tidy_adjoint_generic`), so the gradient of A in `C += A B`
is `dA(i, k) += g(i, j) * B(k, j)` over loops (i, k, j): a two-input
contraction MLIR names a matmul again on the CPU
(`cpu_backend/specialize_generics.py`).

Forward mode of a contraction (`acc + cast(a) * cast(b)`, linear in each
input) needs no generic: the tangent is the same named op applied twice,
`op(t_a, b, t_acc)` then `op(a, t_b, that)`, which lowers like the primal. Other
bodies use the generic view's forward rule.

`linalg.matmul` (formulas for its usual maps), `batch_matmul` and `reduce`
(formulas for a single add/max/min) are in `linalg.py`, which falls back to
these functions for the rest.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, TensorType, i64
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.generic import generic_jvp
from gradir.autodiff_pass.rules.generic_reverse import generic_vjp
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.linalg_quantized import QUANTIZED_CONTRACTIONS
from gradir.dialects.linalg_structured import iterator_types
from gradir.errors import DifferentiationError, error_at

# ----------------------------------------------------------------------------
# The generic view
# ----------------------------------------------------------------------------


def _inputs_and_outputs(op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    outputs = list(op.outputs)  # type: ignore[attr-defined]
    return list(op.operands[: len(op.operands) - len(outputs)]), outputs


def generic_view(op: Operation) -> GenericOp:
    """The `linalg.generic` equivalent to the named structured op `op`: its
    operands, indexing maps and a copy of its body (reading the same outer
    values), a loop being parallel when an output indexes it. Not inserted."""
    inputs, outputs = _inputs_and_outputs(op)
    maps = list(op.get_indexing_maps().data)  # type: ignore[attr-defined]
    loops = maps[0].data.num_dims
    indexed = {
        expr.position for m in maps[len(inputs) :] for expr in m.data.results if isinstance(expr, AffineDimExpr)
    }
    kinds = "".join("p" if d in indexed else "r" for d in range(loops))
    view = GenericOp(
        inputs, outputs, op.regions[0].clone(), maps, list(iterator_types(kinds).data), [r.type for r in op.results]
    )
    view.location = op.location
    return view


def _as_named(op: Operation, error: DifferentiationError) -> DifferentiationError:
    """The generic rules' error, naming the op the user wrote."""
    message = error.message.replace("'linalg.generic'", f"'{op.name}' (as a linalg.generic)", 1)
    return error_at(DifferentiationError, op, message)  # type: ignore[return-value]


def _discard(view: GenericOp, op: Operation) -> None:
    """Hand what was built on the view's results over to `op`'s, and drop the view."""
    for view_result, result in zip(view.results, op.results):
        view_result.replace_all_uses_with(result)
    view.erase()


def view_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue] = ()):
    view = generic_view(op)
    block = builder.insertion_point.block
    existing = set(block.ops)
    try:
        gradients = generic_vjp(builder, view, grads, captured)
    except DifferentiationError as error:
        raise _as_named(op, error) from None
    finally:
        _discard(view, op)
    replaced: dict[SSAValue, SSAValue] = {}
    for new in [inner for inner in block.ops if inner not in existing]:
        if isinstance(new, GenericOp):
            replaced.update(tidy_adjoint_generic(new))
    return [replaced.get(g, g) if g is not None else None for g in gradients]


def view_jvp(
    builder: Builder,
    op: Operation,
    tangents: Sequence[SSAValue | None],
    captured_tangents: Mapping[SSAValue, SSAValue] | None = None,
):
    view = generic_view(op)
    try:
        return generic_jvp(builder, view, tangents, captured_tangents or {})
    except DifferentiationError as error:
        raise _as_named(op, error) from None
    finally:
        _discard(view, op)


# ----------------------------------------------------------------------------
# Pruning an adjoint generic
# ----------------------------------------------------------------------------


def _erase_dead_body_ops(block: Block) -> None:
    for inner in reversed(list(block.ops)):
        if isinstance(inner, YieldOp) or inner.regions:
            continue
        if all(not result.uses for result in inner.results) and _pure(inner):
            inner.detach()
            inner.erase()


def _pure(op: Operation) -> bool:
    name = op.name
    return name.startswith(("arith.", "math.")) or name in {"linalg.index", "tensor.extract"}


def tidy_adjoint_generic(generic: GenericOp) -> dict[SSAValue, SSAValue]:
    """Drop the body ops nothing uses and the inputs only they read, put
    the input indexing the output's rows first, and number the loops the
    output's way (its dimensions first, in its order, then the reductions,
    as the named op would); the generic is rebuilt in place. Returns old
    result -> new result.

    The input order matters to the CPU's specialisation: MLIR 22 names
    `out(b, i, k) += B(b, k, j) * g(b, i, j)` a batch_matmul its verifier
    rejects, so `specialize_generics` leaves it to loops; rows first it is a
    batch_matmul again."""
    block = generic.body.block
    _erase_dead_body_ops(block)
    inputs = list(generic.inputs)
    maps = [m.data for m in generic.indexing_maps.data]
    kinds = list(generic.iterator_types.data)
    keep = _rows_first([k for k in range(len(inputs)) if block.args[k].uses], maps, len(inputs))
    order = _output_first(maps[len(inputs)], len(kinds))
    if keep == list(range(len(inputs))) and order == list(range(len(kinds))):
        return {}
    position = {old: new for new, old in enumerate(order)}
    renumbered = [AffineDimExpr(position[d]) for d in range(len(kinds))]
    maps = [m.replace_dims_and_symbols(renumbered, [], len(kinds), 0) for m in maps]
    for inner in block.walk():
        if isinstance(inner, IndexOp):
            inner.properties["dim"] = IntegerAttr(position[inner.dim.value.data], i64)
    new_block = Block(arg_types=[block.args[k].type for k in keep] + [a.type for a in block.args[len(inputs) :]])
    for old, new in zip([block.args[k] for k in keep] + list(block.args[len(inputs) :]), new_block.args):
        old.replace_all_uses_with(new)
    for inner in list(block.ops):
        inner.detach()
        new_block.add_op(inner)
    rebuilt = GenericOp(
        [inputs[k] for k in keep],
        list(generic.outputs),
        Region(new_block),
        [AffineMapAttr(maps[k]) for k in keep] + [AffineMapAttr(m) for m in maps[len(inputs) :]],
        [kinds[d] for d in order],
        [r.type for r in generic.results],
    )
    parent = generic.parent_block()
    assert parent is not None
    parent.insert_op_before(rebuilt, generic)
    for old, new in zip(generic.results, rebuilt.results):
        old.replace_all_uses_with(new)
    generic.detach()
    generic.erase(safe_erase=False)
    return dict(zip(generic.results, rebuilt.results))


def _rows_first(kept: list[int], maps: list[AffineMap], input_count: int) -> list[int]:
    """The kept inputs, the one indexing the output's earliest non-batch
    dimension first (MLIR names `out(i, k) += g(i, j) * B(k, j)` a matmul of
    (g, B); of (B, g) a matmul writing C transposed, left to loops, or a
    batch_matmul its verifier rejects)."""
    output = _dims_of(maps[input_count])
    shared = set(output).intersection(*(_dims_of(maps[k]) for k in kept)) if kept else set()

    def first_row(k: int) -> int:
        rows = [output.index(d) for d in _dims_of(maps[k]) if d in output and d not in shared]
        return min(rows, default=len(output))

    return sorted(kept, key=first_row)


def _dims_of(map_: AffineMap) -> list[int]:
    return [expr.position for expr in map_.results if isinstance(expr, AffineDimExpr)]


def _output_first(output_map: AffineMap, loops: int) -> list[int]:
    """Old loop numbers in their new order: the output's dimensions, then the others."""
    first = [expr.position for expr in output_map.results if isinstance(expr, AffineDimExpr)]
    first = list(dict.fromkeys(first))
    return first + [d for d in range(loops) if d not in first]


# ----------------------------------------------------------------------------
# Contractions: forward mode by the op itself
# ----------------------------------------------------------------------------

_CASTS = {"arith.extf", "arith.truncf"}


def is_float_contraction(op: Operation) -> bool:
    """Whether `op`'s body is `acc + cast(a) * cast(b)` on floats (float casts
    only): then the op is linear in each input and in the accumulator."""
    block = op.regions[0].block
    if len(block.args) != 3 or not all(isinstance(r.type, TensorType) for r in op.results):
        return False
    ops = list(block.ops)
    *casts, multiply, add, terminator = ops if len(ops) >= 3 else (None, None, None)
    if not (isinstance(multiply, arith.MulfOp) and isinstance(add, arith.AddfOp) and isinstance(terminator, YieldOp)):
        return False
    if any(cast.name not in _CASTS or cast.operands[0] not in block.args[:2] for cast in casts):
        return False
    factors = {cast.results[0]: cast.operands[0] for cast in casts}
    read = [factors.get(v, v) for v in multiply.operands]
    return (
        sorted(block.args.index(v) for v in read if v in block.args) == [0, 1]
        and set(add.operands) == {multiply.result, block.args[2]}
        and list(terminator.operands) == [add.result]
    )


def _with_operands(op: Operation, operands: Sequence[SSAValue]) -> Operation:
    """A copy of `op` reading `operands`, position by position (not by value: in
    `dot(m, m)` both inputs are one value, and a value map sent both to one tangent)."""
    copy = op.clone()
    copy.operands = operands
    return copy


def contraction_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None], captured=None):
    if not is_float_contraction(op):
        return view_jvp(builder, op, tangents, captured)
    a, b, init = op.operands
    t_a, t_b, t_init = tangents
    total: SSAValue | None = t_init
    for operands in ((t_a, b), (a, t_b)):
        if operands[0] is None or operands[1] is None:
            continue
        accumulator = total if total is not None else zero_constant(builder, init)
        total = builder.insert(_with_operands(op, [*operands, accumulator])).results[0]
    return [total]


CONTRACTIONS = (
    "linalg.dot", "linalg.matvec", "linalg.vecmat", "linalg.batch_matvec", "linalg.batch_vecmat", "linalg.mmt4d",
    "linalg.batch_mmt4d", "linalg.batch_reduce_matmul", "linalg.contract",
)  # fmt: skip
"""Named contractions differentiated through their generic view (reverse) and
by themselves (forward)."""

BODY_OPS = ("linalg.elementwise", "linalg.map", "linalg.square", "linalg.reciprocal", "linalg.fill_rng_2d")
"""Named ops with a scalar body differentiated through their generic view
(`square` and `reciprocal` are `x * x` and `1 / x`: no one scalar op's rule;
`fill_rng_2d`'s numbers are `min + (max - min) * u`, `u` computed from the seed
and the indices in integers: its bounds get `sum(g * (1 - u))` and `sum(g * u)`)."""

QUANTIZED_OPS = tuple(op.name for op in QUANTIZED_CONTRACTIONS)
"""`C += (A - a_zero) * (B - b_zero)` over a matmul's maps: differentiable
(zero points included) when its operands are floats; integer operands carry
no derivative. (The quantized convolutions are in `conv_quantized`: their
input's adjoint through the generic view would be written through a window.)"""

RULES = (
    *(DerivativeRule(name, reverse=view_vjp, forward=contraction_jvp, captures=True, dynamic_shapes=True)
      for name in CONTRACTIONS),
    *(DerivativeRule(name, reverse=view_vjp, forward=view_jvp, captures=True, dynamic_shapes=True)
      for name in (*BODY_OPS, *QUANTIZED_OPS)),
)  # fmt: skip
