"""`autodiff-lower-grad-of`: inline every `autodiff.grad_of` region.

`grad_of` exists so that zero specialisation and the f/df split can see each
op's backward as one linear unit; once nothing needs that, its body is just
ordinary code. Inlining replaces the region's arguments by the op's operands
and the op's results by the yielded values.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from gradir.dialects.autodiff import GradOfOp, YieldOp


class InlineGradOf(RewritePattern):
    """`%r = grad_of (%g) {^bb(%a): ops; yield %v}` -> `ops[%a := %g]`, `%r := %v`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GradOfOp, rewriter: PatternRewriter) -> None:
        block = op.body.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp)
        arguments = tuple(op.grads) if block.args else ()
        # A yielded block argument stands for the matching operand.
        yielded = [
            arguments[value.index]
            if isinstance(value, BlockArgument) and value.block is block
            else value
            for value in terminator.values
        ]
        rewriter.erase(terminator)
        rewriter.inline_block(block, InsertPoint.before(op), arguments)
        rewriter.replace(op, [], yielded)


def inline_grad_of_ops(block: Block) -> None:
    """Inline every `grad_of` of `block` (and those nested in them)."""
    for op in list(block.ops):
        if isinstance(op, GradOfOp):
            inline_grad_of_ops(op.body.block)
            InlineGradOf().match_and_rewrite(op, PatternRewriter(op))



@dataclass(frozen=True)
class AutodiffLowerGradOfPass(ModulePass):
    """Inline `autodiff.grad_of` regions into their enclosing block."""

    name = "autodiff-lower-grad-of"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(InlineGradOf()).rewrite_module(op)
