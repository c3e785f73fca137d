"""Derivatives of scalar code inside a region (a `linalg.generic` body): the
tangents of its ops (forward) and their adjoints (reverse), op by op with each
op's local rule (`derivatives.yaml` formulas emit arith/math on scalars), and
`scf.if` branches (relu written with a branch, a max combiner) as `scf.if`s
on the same condition.

Only *varied* values are differentiated: those computed from a seed (a block
argument standing for a float input, an active captured scalar, a gathered
element). Constants, integers and floats made from them need no rule.
`arith.bitcast` of a varied value and ops with other regions are refused:
their derivatives would be lost.
"""
from __future__ import annotations

from collections.abc import Iterable

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import carries_derivative, op_inputs, outer_values
from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.generic_body import fail, refuse_bitcast, rule_of


def propagate_varied(ops: Iterable[Operation], varied: set[SSAValue], generic: Operation) -> None:
    """Add to `varied` the float results (and values inside `scf.if` branches)
    computed from varied values."""
    for op in ops:
        if not any(value in varied for value in op_inputs(op)):
            continue
        refuse_bitcast(op, generic)
        if isinstance(op, scf.IfOp):
            for region in op.regions:
                for block in region.blocks:
                    propagate_varied(block.ops, varied, generic)
        elif op.regions:
            fail(generic, f"its body's '{op.name}' has no derivative rule")
        varied.update(result for result in op.results if carries_derivative(result))


def _branch_yield(region: Region) -> scf.YieldOp | None:
    if not region.blocks:
        return None
    terminator = region.block.last_op
    return terminator if isinstance(terminator, scf.YieldOp) else None


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def emit_tangents(
    at: Builder,
    ops: Iterable[Operation],
    value_map: dict[SSAValue, SSAValue],
    tangents: dict[SSAValue, SSAValue],
    generic: Operation,
    special: dict[Operation, object] | None = None,
) -> None:
    """Clone `ops` with `at` (through `value_map`), each followed by the
    tangents of its results (recorded in `tangents`, keyed by the clones).
    `special[op](at, copy)` handles an op itself (a gathered element)."""
    for inner in ops:
        if (
            isinstance(inner, scf.IfOp)
            and any(carries_derivative(result) for result in inner.results)
            and any(value_map.get(v, v) in tangents for v in op_inputs(inner))
        ):
            _tangent_if(at, inner, value_map, tangents, generic)
            continue
        copy = inner.clone(value_map)
        at.insert(copy)
        if special and inner in special:
            special[inner](at, copy)  # type: ignore[operator]
            continue
        if not any(value in tangents for value in op_inputs(copy)):
            continue
        refuse_bitcast(copy, generic)
        if copy.regions:
            fail(generic, f"its body's '{copy.name}' has no derivative rule")
        if not any(carries_derivative(result) for result in copy.results):
            continue  # a comparison, a float-to-integer conversion: no derivative
        operand_tangents = [tangents.get(value) for value in copy.operands]
        results = rule_of(copy, generic).emit_jvp(at, copy, operand_tangents)
        for result, tangent in zip(copy.results, results):
            if tangent is not None:
                tangents[result] = tangent


def _tangent_if(at, inner: scf.IfOp, value_map, tangents, generic) -> None:
    """`scf.if` with one more result per float result: each branch yields its
    tangent."""
    differentiable = [k for k, result in enumerate(inner.results) if carries_derivative(result)]
    regions = []
    for region in inner.regions:
        block = Block()
        branch = Builder(InsertPoint.at_end(block))
        local_map, local_tangents = dict(value_map), dict(tangents)
        terminator = _branch_yield(region)
        if terminator is None:
            regions.append(Region())
            continue
        emit_tangents(branch, [op for op in region.block.ops if op is not terminator], local_map, local_tangents, generic)
        yielded = [local_map.get(value, value) for value in terminator.operands]
        branch_tangents = [local_tangents.get(yielded[k]) or zero_constant(branch, yielded[k].type) for k in differentiable]
        block.add_op(scf.YieldOp(*yielded, *branch_tangents))
        regions.append(Region(block))
    result_types = [*[r.type for r in inner.results], *[inner.results[k].type for k in differentiable]]
    condition = value_map.get(inner.cond, inner.cond)
    new_if = at.insert(scf.IfOp(condition, result_types, regions[0], regions[1]))
    for result, new in zip(inner.results, new_if.results):
        value_map[result] = new
    for position, k in enumerate(differentiable):
        tangents[new_if.results[k]] = new_if.results[len(inner.results) + position]


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


class ScalarBackward:
    """The adjoint of scalar ops already emitted (copies), appended with `at`;
    gradients flow only into `varied` values."""

    def __init__(self, at: Builder, varied: set[SSAValue], generic: Operation):
        self.at = at
        self.varied = varied
        self.generic = generic
        self.gradients: dict[SSAValue, SSAValue] = {}

    def accumulate(self, value: SSAValue, gradient: SSAValue) -> None:
        if value not in self.varied:
            return  # a constant, an index, a float made from integers: no derivative
        previous = self.gradients.get(value)
        self.gradients[value] = gradient if previous is None else self.at.insert(arith.AddfOp(previous, gradient)).result

    def gradient_or_zero(self, value: SSAValue) -> SSAValue:
        return self.gradients.get(value) or zero_constant(self.at, value.type)

    def reverse(self, ops: list[Operation], leaves: set[SSAValue] = frozenset(), skip: set[Operation] = frozenset()) -> None:
        """Backward through `ops` in reverse order; `leaves` keep their gradients
        (nothing flows past them), `skip` ops are not differentiated."""
        for op in reversed(ops):
            if op in skip or any(result in leaves for result in op.results):
                continue
            if not any(result in self.gradients for result in op.results):
                continue
            if isinstance(op, scf.IfOp):
                self._reverse_if(op)
                continue
            output_grads = [self.gradients.get(r) or zero_constant(self.at, r.type) for r in op.results]
            input_grads = rule_of(op, self.generic).emit_vjp(self.at, op, output_grads)
            for value, gradient in zip(op.operands, input_grads):
                if gradient is not None:
                    self.accumulate(value, gradient)

    def _reverse_if(self, op: scf.IfOp) -> None:
        """An `scf.if` on the same condition whose branches recompute and reverse
        their forward branch, yielding the gradients of the varied values they
        read from outside."""
        outer = [value for value in outer_values(op) if value in self.varied]
        if not outer:
            return
        regions = []
        for region in op.regions:
            block = Block()
            branch = Builder(InsertPoint.at_end(block))
            terminator = _branch_yield(region)
            sub = ScalarBackward(branch, self.varied, self.generic)
            if terminator is not None:
                value_map: dict[SSAValue, SSAValue] = {}
                copies = []
                for inner in region.block.ops:
                    if inner is terminator:
                        break
                    copy = inner.clone(value_map)
                    block.add_op(copy)
                    copies.append(copy)
                local_varied = set(self.varied)
                propagate_varied(copies, local_varied, self.generic)
                sub.varied = local_varied
                for result, value in zip(op.results, terminator.operands):
                    gradient = self.gradients.get(result)
                    if gradient is not None:
                        sub.accumulate(value_map.get(value, value), gradient)
                sub.reverse(copies)
            block.add_op(scf.YieldOp(*[sub.gradient_or_zero(value) for value in outer]))
            regions.append(Region(block))
        new_if = self.at.insert(scf.IfOp(op.cond, [value.type for value in outer], regions[0], regions[1]))
        for value, gradient in zip(outer, new_if.results):
            self.accumulate(value, gradient)
