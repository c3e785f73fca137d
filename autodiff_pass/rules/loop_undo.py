"""Undo logs: the reverse of an `scf.for` rebuilds a tensor state written element by element
from the next iteration's, instead of caching it whole every iteration.

A loop state `%t` that the body changes only by a chain of `tensor.insert`s
(`%t1 = insert %x into %t[%i]`, `%t2 = insert %y into %t1[%k]`, ..., yielded) at
indices that do not depend on the state: the forward loop caches the element each
insert overwrites (a scalar), and the reverse loop carries the state, starting from
the forward loop's result, and puts the overwritten elements back, last insert first,
which gives the state each iteration started from (the undo log of Enzyme and
Tapenade for arrays overwritten in place). A triangular solve or a Cholesky
factorization writes one element per iteration and reads the matrix it writes:
cached whole, its reverse stacked an n x n state for each of the n^2/2 iterations
of its inner loop (n^4/2 floats: 3.6 s for the gradient of a 256 x 256 Cholesky).
"""
from __future__ import annotations

from collections.abc import Callable

from xdsl.builder import Builder
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.ir_building import clone_op


def insert_chain(forward: Block, position: int, stateful: set[SSAValue]) -> list[tensor.InsertOp] | None:
    """The `tensor.insert`s, first to last, that make the value `forward` (an `scf.for`
    body) yields at `position` from its iteration argument there; None when that value
    is not such a chain, the state is not a statically shaped tensor, or an insert's
    indices depend on the state or are computed by an op with regions."""
    state = forward.args[1 + position]
    if not isinstance(state.type, TensorType) or not state.type.has_static_shape():
        return None
    terminator = forward.last_op
    assert isinstance(terminator, scf.YieldOp)
    value = terminator.operands[position]
    chain: list[tensor.InsertOp] = []
    while value is not state:
        insert = value.owner
        if not isinstance(insert, tensor.InsertOp) or insert.parent_block() is not forward:
            return None
        if _index_ops(forward, list(insert.indices), stateful) is None:
            return None
        chain.append(insert)
        value = insert.dest
    return chain[::-1]


def _index_ops(forward: Block, indices: list[SSAValue], stateful: set[SSAValue]) -> list[Operation] | None:
    """The ops of `forward` that compute `indices`, in block order; None when one of them
    depends on the state or has regions."""
    found: set[Operation] = set()
    pending = list(indices)
    while pending:
        value = pending.pop()
        if value in stateful:
            return None
        owner = value.owner
        if isinstance(value, BlockArgument) or owner.parent_block() is not forward or owner in found:
            continue
        if owner.regions:
            return None
        found.add(owner)
        pending.extend(owner.operands)
    return [op for op in forward.ops if op in found]


def log_overwritten(chain: list[tensor.InsertOp]) -> list[SSAValue]:
    """Read, in the forward body, the element each insert of `chain` overwrites; the
    values to cache."""
    olds = []
    for insert in chain:
        old = tensor.ExtractOp(insert.dest, list(insert.indices), insert.scalar.type)
        Builder(InsertPoint.before(insert)).insert(old)
        olds.append(old.result)
    return olds


def undo(
    at: Builder,
    forward: Block,
    chain: list[tensor.InsertOp],
    state_after: SSAValue,
    induction: SSAValue,
    cached_olds: Callable[[Builder], list[SSAValue]],
) -> SSAValue:
    """The state the iteration of `chain` started from, built at `at` from `state_after`
    (what it yielded): the indices recomputed from `induction` (the iteration's induction
    variable), the overwritten elements (`cached_olds`, read from their stacks) inserted
    back, last first."""
    value_map: dict[SSAValue, SSAValue] = {forward.args[0]: induction}
    index_ops = {op for insert in chain for op in _index_ops(forward, list(insert.indices), set()) or []}
    for op in forward.ops:
        if op in index_ops:
            at.insert(clone_op(op, value_map))
    state = state_after
    for insert, old in reversed(list(zip(chain, cached_olds(at)))):
        indices = [value_map.get(index, index) for index in insert.indices]
        state = at.insert(tensor.InsertOp(old, state, indices)).result
    return state
