"""`scf.for` loops that count in an integer type are made to count in `index` before
differentiation.

MLIR lets an `scf.for` count in any signless integer type (`scf.for %i = %lb to %ub step %s
... : i32`); the loop rules compute trip counts, tape positions and checkpoint segments in
`index`, and differentiated such a loop into invalid IR (`'arith.maxsi' op attribute i32
expected ..., but got index`). In the derivative function's copy of the primal (the user's
function stays as written) each such loop gets its bounds cast to `index` in front of it,
and its body the induction variable cast back to the loop's type, which the body's ops
read as before: the same iterations, since the casts sign-extend (zero-extend for a loop
marked `unsignedCmp`, whose comparisons are unsigned) into the 64-bit `index`.
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint, Rewriter


def count_loops_in_index(block: Block) -> None:
    """Rewrite every `scf.for` under `block` whose induction variable is not an `index`."""
    for loop in [op for op in block.walk() if isinstance(op, scf.ForOp)]:
        counter = loop.body.block.args[0]
        if isinstance(counter.type, IndexType):
            continue
        cast = arith.IndexCastUIOp if "unsignedCmp" in loop.attributes else arith.IndexCastOp
        before = Builder(InsertPoint.before(loop))
        bounds = [before.insert(cast(value, IndexType())).result for value in (loop.lb, loop.ub, loop.step)]
        body = loop.body.block
        index = body.insert_arg(IndexType(), 0)
        back = cast(index, counter.type)
        Rewriter.insert_op(back, InsertPoint.at_start(body))
        counter.replace_all_uses_with(back.result)
        body.erase_arg(counter)
        rebuilt = scf.ForOp(*bounds, list(loop.iter_args), loop.detach_region(loop.body))
        rebuilt.location = loop.location
        rebuilt.attributes.update({k: v for k, v in loop.attributes.items() if k != "unsignedCmp"})
        Rewriter.replace_op(loop, rebuilt)
