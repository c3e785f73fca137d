"""Gathers inside the branches of a `linalg.generic` body are moved to the body's top level
before differentiation.

StableHLO's linalg lowering writes every `concatenate` as a generic whose body picks the
input with nested `scf.if`s and reads it with `tensor.extract` in the branch; a body may
equally read a table only where a condition holds. The generic rules differentiate a gather
(a `tensor.extract` of a tensor from outside the op) directly in the body, where each
iteration's element and its gradient have one place. So, in the derivative function's copy
of the primal (as `inline_body_calls` does; the user's function stays as written), each such
extract becomes one at the top of the body reading

    src[select(P, i, 0), ...]

where `P` is the conjunction of the branch conditions leading to it and `i` its indices,
recomputed at the top (their ops are `arith` and `math` ops, `tensor.dim`, `linalg.index`);
where `P` fails the element is read at 0 and not used, since the branch that
used it is not taken, so its gradient there is zero. An extract whose indices or conditions
need anything else (a loop in the body, a division by a value, which could trap when run
unconditionally) stays where it is, and the generic rule names it.

The one cost: reading element 0 of a tensor that is empty at run time is out of bounds, so a
derivative of such a program with an empty input is refused at run time (the CPU checks every
index), where the primal ran.
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

_RECOMPUTABLE_DIALECTS = ("arith.", "math.")
"""Ops run unconditionally at the top of the body to recompute an index or a condition: those
of `arith` and `math` (float ops cannot trap: a NaN or a poisoned `fptosi` where the branch
is not taken only feeds the index `select` discards), `tensor.dim` and `linalg.index`; not
an integer division (see `_DIVISIONS`) nor a `tensor.extract` (which could read out of
bounds)."""

_DIVISIONS = (arith.DivUIOp, arith.DivSIOp, arith.RemUIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp)
"""Integer divisions trap on a zero divisor (and the smallest integer by -1): recomputed only
when the divisor is a constant other than 0 and -1 (`(i + c) mod n`, a row of a flattened
index)."""


def hoist_gathers_out_of_branches(block: Block) -> None:
    """Move each `tensor.extract` of a captured tensor inside an `scf.if` of a generic body in
    `block` to its body's top level (see the module docstring)."""
    for generic in [op for op in block.walk() if isinstance(op, GenericOp)]:
        body = generic.body.block
        for extract in [op for op in body.walk() if isinstance(op, tensor.ExtractOp)]:
            if extract.parent_block() is not body and not generic.is_ancestor(extract.tensor.owner):
                _hoist(generic, extract)


def _hoist(generic: GenericOp, extract: tensor.ExtractOp) -> None:
    body = generic.body.block
    path: list[tuple[scf.IfOp, bool]] = []  # (if, taken in its then region), innermost first
    op: Operation = extract
    while op.parent_block() is not body:
        parent = op.parent_op()
        if not isinstance(parent, scf.IfOp):
            return  # a loop in the body: left to the rule, which names it
        path.append((parent, op.parent_region() is parent.true_region))
        op = parent
    top = op  # the outermost scf.if, an op of the body
    at = Builder(InsertPoint.before(top))
    recomputed: dict[SSAValue, SSAValue] = {}

    def available(value: SSAValue) -> SSAValue | None:
        """`value` at the top of the body before `top`: itself, or recomputed there."""
        if value in recomputed:
            return recomputed[value]
        owner = value.owner
        if not isinstance(owner, Operation) or not top.is_ancestor(owner):
            return value  # a block argument of the body, or defined before `top` or outside
        if not _recomputable(owner):
            return None
        outer = _outer_operands(owner)
        operands = [available(operand) for operand in outer]
        if any(operand is None for operand in operands):
            return None
        copy = owner.clone({old: new for old, new in zip(outer, operands)})
        at.insert(copy)
        for old, new in zip(owner.results, copy.results):
            recomputed[old] = new
        return recomputed[value]

    conditions = []
    for branch, then in reversed(path):
        condition = available(branch.cond)
        if condition is None:
            return
        if not then:
            true = at.insert(arith.ConstantOp(IntegerAttr(1, IntegerType(1)))).result
            condition = at.insert(arith.XOrIOp(condition, true)).result
        conditions.append(condition)
    indices = [available(index) for index in extract.indices]
    if any(index is None for index in indices):
        return
    taken = conditions[0]
    for condition in conditions[1:]:
        taken = at.insert(arith.AndIOp(taken, condition)).result
    zero = at.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))).result
    safe = [at.insert(arith.SelectOp(taken, index, zero)).result for index in indices]
    hoisted = at.insert(tensor.ExtractOp(extract.tensor, safe, extract.result.type))
    extract.result.replace_all_uses_with(hoisted.result)
    Rewriter.erase_op(extract)


def _recomputable(op: Operation) -> bool:
    """See `_RECOMPUTABLE_DIALECTS`; an `scf.if` whose branches hold only such ops too (a
    choice the condition of a deeper branch reads)."""
    if isinstance(op, scf.IfOp):
        return all(
            isinstance(inner, scf.YieldOp) or _recomputable(inner)
            for region in op.regions for block in region.blocks for inner in block.ops
        )  # fmt: skip
    if op.regions:
        return False
    if isinstance(op, _DIVISIONS):
        divisor = op.operands[1].owner
        return isinstance(divisor, arith.ConstantOp) and divisor.value.value.data not in (0, -1)
    return op.name.startswith(_RECOMPUTABLE_DIALECTS) or isinstance(op, (tensor.DimOp, IndexOp))


def _outer_operands(op: Operation) -> list[SSAValue]:
    """The values `op` and the ops nested in it read from outside `op`, each once."""
    found: list[SSAValue] = []
    for inner in op.walk():
        for value in inner.operands:
            owner = value.owner
            if value not in found and not op.is_ancestor(owner):
                found.append(value)
    return found
