"""`autodiff-specialize-zero`: propagate AutogradZero through the reverse code.

A backward is linear, so a zero gradient flowing in gives zero gradients out
(PyTorch's specializeAutogradZero): `autograd_add` with a zero side is its
other side, a `grad_of` whose operands are all zero yields zeros, and the
gradients nobody reads are dropped, so their backward code disappears.
Only AD ops are touched: unused user ops stay (no general DCE here).

The rewrite patterns below state the rules (the fold of `autograd_add` is the
op's canonicalization pattern, `dialects.ad_ops.FoldAutogradAddOfZero`);
`specialize_zero` reaches their fixpoint in two sweeps instead of a greedy
pattern walk (the tests compare the two): zeros only flow
forward (a fold makes zeros for later ops) and reads only backward (dropping a
gradient can only make earlier values unread), so one forward sweep of folds
then one backward sweep of drops leave nothing for the patterns to do.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from gradir.autodiff_pass.ir_building import autograd_zero, paused_garbage_collection
from gradir.dialects.ad_ops import FoldAutogradAddOfZero
from gradir.dialects.autodiff import AutogradAddOp, AutogradZeroOp, GradOfOp, YieldOp
from gradir.dialects.type_checks import dynamic_dims


def is_zero(value: SSAValue) -> bool:
    return type(value.owner) is AutogradZeroOp


def folds_to_zeros(op: GradOfOp) -> bool:
    """Whether `op`'s operands are all zero, so that its results are zeros of their types. A
    result of dynamic shape has no sizes to give its zero here (they are the forward op's
    operands'): such a `grad_of` stays, and computes zeros."""
    return (
        bool(op.grads)
        and all(is_zero(grad) for grad in op.grads)
        and not any(dynamic_dims(result.type) for result in op.results)
    )


class GradOfOfZeros(RewritePattern):
    """A `grad_of` whose operands are all zero has zero results (linearity)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GradOfOp, rewriter: PatternRewriter) -> None:
        if not folds_to_zeros(op):
            return
        zeros = [autograd_zero(result.type) for result in op.results]
        rewriter.replace(op, zeros, [zero.result for zero in zeros])


def narrow_grad_of(op: GradOfOp, rewriter: PatternRewriter) -> GradOfOp | None:
    """Remove the results of `op` nobody reads, and the backward code that only
    computed them; `op` goes away when none is read. Returns what is left."""
    read = [index for index, result in enumerate(op.results) if result.first_use is not None]
    if not read:  # a `grad_of` with no results at all (an op with no derivative) too
        rewriter.erase(op)
        return None
    if len(read) == len(op.results):
        return op
    block = op.body.block
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    terminator.operands = [terminator.values[index] for index in read]
    narrowed = GradOfOp.create(
        operands=op.grads,
        result_types=[op.results[index].type for index in read],
        properties=dict(op.properties),
        regions=[op.detach_region(op.body)],
    )
    narrowed.location = op.location
    new_results: list[SSAValue | None] = [None] * len(op.results)
    for position, index in enumerate(read):
        new_results[index] = narrowed.results[position]
    rewriter.replace(op, narrowed, new_results)
    for nested in reversed(list(block.ops)):
        if is_trivially_dead(nested):
            rewriter.erase(nested)
    return narrowed


class DropUnreadGradOfResults(RewritePattern):
    """Remove the gradients of a `grad_of` that nobody reads, and with them the
    backward code computing them; a `grad_of` with no read result goes away."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GradOfOp, rewriter: PatternRewriter) -> None:
        narrow_grad_of(op, rewriter)


class EraseUnreadAutogradOps(RewritePattern):
    """Unread `autograd_zero` / `autograd_add` are bookkeeping left by the folds above."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: AutogradZeroOp | AutogradAddOp, rewriter: PatternRewriter
    ) -> None:
        if op.result.first_use is None:
            rewriter.erase(op)


SPECIALIZE_ZERO_PATTERNS: tuple[RewritePattern, ...] = (
    FoldAutogradAddOfZero(),
    GradOfOfZeros(),
    DropUnreadGradOfResults(),
    EraseUnreadAutogradOps(),
)


def drop_unread_gradients(block: Block) -> None:
    """Narrow every `grad_of` of `block` to the gradients that are read (one
    backward sweep, so a gradient read only by dropped code is dropped too)."""
    for op in reversed(list(block.ops)):
        if isinstance(op, GradOfOp):
            narrow_grad_of(op, PatternRewriter(op))


def _fold_zeros(block: Block) -> None:
    """Forward sweep: sums with a zero side and `grad_of`s of zeros, nested blocks included.
    Runs once per op: ops are compared by exact class and read by position
    (`grad_of`'s operands are its gradients, `autograd_add`'s are a, b)."""
    op = block.first_op
    while op is not None:
        following = op.next_op
        kind = type(op)
        if kind is AutogradAddOp:
            a, b = op.operands
            if is_zero(a) or is_zero(b):
                op.results[0].replace_all_uses_with(b if is_zero(a) else a)
                block.erase_op(op)
        elif kind is GradOfOp and folds_to_zeros(op):
            zeros = [autograd_zero(result.type) for result in op.results]
            block.insert_ops_before(zeros, op)
            for result, zero in zip(op.results, zeros):
                result.replace_all_uses_with(zero.result)
            block.erase_op(op)
        elif op.regions:
            for region in op.regions:
                for nested in region.blocks:
                    _fold_zeros(nested)
        op = following


def _drop_unread(block: Block) -> None:
    """Backward sweep: unread gradients, their backward code and unread AD bookkeeping."""
    op = block.last_op
    while op is not None:
        preceding = op.prev_op
        kind = type(op)
        if kind is GradOfOp:
            read_in_full = bool(op.results) and all(result.first_use is not None for result in op.results)
            kept = op if read_in_full else narrow_grad_of(op, PatternRewriter(op))
            if kept is not None:
                _drop_unread(kept.body.block)
        elif kind is AutogradZeroOp or kind is AutogradAddOp:
            if op.results[0].first_use is None:
                block.erase_op(op)
        elif op.regions:
            for region in op.regions:
                for nested in region.blocks:
                    _drop_unread(nested)
        op = preceding


def specialize_zero(region: Region) -> None:
    """Fold zeros through `region` and drop the gradients nobody reads (see above)."""
    for block in region.blocks:
        _fold_zeros(block)
    for block in region.blocks:
        _drop_unread(block)


@dataclass(frozen=True)
class AutodiffSpecializeZeroPass(ModulePass):
    """Fold AutogradZero away: zero sides of sums, all-zero `grad_of`s, unread gradients."""

    name = "autodiff-specialize-zero"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_garbage_collection():
            specialize_zero(op.body)
