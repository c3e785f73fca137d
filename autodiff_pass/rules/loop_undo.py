"""Undo logs: the reverse of an `scf.for` rebuilds a tensor state written element by element
from the next iteration's, instead of caching it whole every iteration.

A loop state `%t` that the body changes only by a chain of `tensor.insert`s
(`%t1 = insert %x into %t[%i]`, `%t2 = insert %y into %t1[%k]`, ..., yielded), some of
them inside the branches of an `scf.if` (a scatter's bounds check: one branch inserts,
the other passes the state on), at indices and conditions that do not depend on the
state: the forward loop caches the element each insert overwrites (a scalar; the `scf.if`
returns those of its branches as extra results), and the reverse loop carries the state,
starting from the forward loop's result, and puts the overwritten elements back, last
insert first, which gives the state each iteration started from (the undo log of Enzyme
and Tapenade for arrays overwritten in place). A triangular solve or a Cholesky
factorization writes one element per iteration and reads the matrix it writes: cached
whole, its reverse stacked an n x n state for each of the n^2/2 iterations of its inner
loop (n^4/2 floats: 3.6 s for the gradient of a 256 x 256 Cholesky); a `segment_max`
stacked its whole result for each of its updates.

An inner `scf.for` of the body that changes the state by inserts at the top of its own
body (a Cholesky column: the elements below the diagonal, one an iteration) is a link too:
the forward inner loop also fills a log, indexed by its induction variable, of the elements
it overwrites (one per insert, as many as the constant upper bound), the outer loop caches
that log, and the reverse puts them back in a loop over the inner iterations, last first.
The n x n state of an n x n Cholesky was cached twice a column (n^3 floats); now its
columns' logs are (n^2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gradir.autodiff_pass.ir_building import clone_op
from gradir.autodiff_pass.rules.loop_cache import (
    add,
    as_index,
    constant_index,
    mul,
    sub,
    trip_count,
)
from gradir.dialects.type_checks import is_float_tensor
from gradir.lowering.standard_ops import index_constant
from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    TensorType,
)
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass
class _Branch:
    """An `scf.if` of the chain: each branch's yield of the state is an insert chain (first to
    last, possibly empty) from the state before the if."""

    op: scf.IfOp
    chains: tuple[list[tensor.InsertOp], list[tensor.InsertOp]]


@dataclass
class _InnerLoop:
    """An inner `scf.for` of the chain: it carries the state as its iteration argument
    `position` and changes it only by `chain`, top-level inserts of its body (first to last)
    at indices computed by `index_ops` (in its body) from its induction variable and values
    the outer iteration's index ops compute. Its lower bound is never negative and its upper
    bound `bound` a constant, so the induction variable indexes a `bound`-element log of the
    elements each insert overwrites."""

    op: scf.ForOp
    position: int
    chain: list[tensor.InsertOp]
    bound: int
    index_ops: set[Operation] = field(default_factory=set)


@dataclass
class UndoLog:
    """How iteration argument `position` of a loop body `forward` is changed: its links, first
    to last (top-level inserts and branches), and the ops computing their indices and
    conditions (`index_ops`, in no order)."""

    forward: Block
    position: int
    links: list[tensor.InsertOp | _Branch]
    index_ops: set[Operation] = field(default_factory=set)

    def record(self) -> list[SSAValue]:
        """Read in the forward body the element each insert overwrites (a branch returns its
        branches' as extra results); the values to cache, in the order `rebuild` takes them."""
        recorded: list[SSAValue] = []
        for link in self.links:
            if isinstance(link, tensor.InsertOp):
                recorded.append(_read_overwritten(link))
                continue
            if isinstance(link, _InnerLoop):
                recorded.extend(_log_overwritten(link))
                continue
            olds = [[_read_overwritten(insert) for insert in chain] for chain in link.chains]
            link.op = _with_extra_results(link.op, olds)
            recorded.extend(link.op.results[len(link.op.results) - len(olds[0]) - len(olds[1]) :])
        return recorded

    def rebuilt_ops(self) -> list[scf.IfOp | scf.ForOp]:
        """The `scf.if`s and inner loops of the chain (`record` replaces each by one with more
        results)."""
        return [link.op for link in self.links if not isinstance(link, tensor.InsertOp)]

    def chain_values(self) -> set[SSAValue]:
        """The states between the links (what each link yields): recomputed in the reverse
        loop from the rebuilt state, never cached whole."""
        values: set[SSAValue] = set()
        for link in self.links:
            if isinstance(link, tensor.InsertOp):
                values.add(link.result)
            elif isinstance(link, _InnerLoop):
                values.add(link.op.results[link.position])
            else:
                values.update(link.op.results)
        return values

    def rebuild(self, at: Builder, state_after: SSAValue, induction: SSAValue, cached: Sequence[SSAValue]) -> SSAValue:
        """The state the iteration started from, built at `at` from `state_after` (what it
        yielded): indices and conditions recomputed from `induction` (the iteration's
        induction variable), the overwritten elements (`cached`, read from their stacks,
        in `record`'s order) inserted back, last first."""
        value_map: dict[SSAValue, SSAValue] = {self.forward.args[0]: induction}
        _clone_in_order(at, self.forward, self.index_ops, value_map)
        olds = list(cached)
        per_link = []
        for link in self.links:
            if isinstance(link, tensor.InsertOp):
                count = 1
            elif isinstance(link, _InnerLoop):
                count = len(link.chain)
            else:
                count = len(link.chains[0]) + len(link.chains[1])
            per_link.append(olds[:count])
            olds = olds[count:]
        state = state_after
        for link, link_olds in reversed(list(zip(self.links, per_link))):
            if isinstance(link, tensor.InsertOp):
                state = _put_back(at, [link], link_olds, state, value_map)
                continue
            if isinstance(link, _InnerLoop):
                state = _undo_inner_loop(at, link, link_olds, state, value_map)
                continue
            then_olds, else_olds = link_olds[: len(link.chains[0])], link_olds[len(link.chains[0]) :]
            regions = []
            for chain, chain_olds, region in zip(
                link.chains, (then_olds, else_olds), (link.op.true_region, link.op.false_region)
            ):
                block = Block()
                inside = Builder(InsertPoint.at_end(block))
                branch_map = dict(value_map)
                _clone_in_order(inside, region.block, self.index_ops, branch_map)
                inside.insert(scf.YieldOp(_put_back(inside, chain, chain_olds, state, branch_map)))
                regions.append(Region(block))
            condition = value_map.get(link.op.cond, link.op.cond)
            state = at.insert(scf.IfOp(condition, [state.type], regions[0], regions[1])).results[0]
        return state


def undo_log(forward: Block, position: int, stateful: set[SSAValue]) -> UndoLog | None:
    """The undo log of iteration argument `position` of `forward` (an `scf.for` body): None
    when the state is not a statically shaped float tensor changed only by inserts (top-level,
    or in the branches of top-level `scf.if`s, or at the top of the body of a top-level
    `scf.for`) at indices, and under conditions and loop bounds, that do not depend on the
    state and are computed without regions."""
    state = forward.args[1 + position]
    if not is_float_tensor(state.type) or not state.type.has_static_shape():
        return None
    terminator = forward.last_op
    assert isinstance(terminator, scf.YieldOp)
    log = UndoLog(forward, position, [])
    value = terminator.operands[position]
    while value is not state:
        owner = value.owner
        if isinstance(owner, tensor.InsertOp) and owner.parent_block() is forward:
            if not _computable(list(owner.indices), stateful, forward, (forward,), log.index_ops):
                return None
            log.links.append(owner)
            value = owner.dest
        elif isinstance(owner, scf.ForOp) and owner.parent_block() is forward:
            inner = _inner_loop(owner, value.index, stateful, forward, log.index_ops)
            if inner is None:
                return None
            log.links.append(inner)
            value = owner.iter_args[value.index]
        elif isinstance(owner, scf.IfOp) and owner.parent_block() is forward and owner.false_region.blocks:
            branch = _branch(owner, value.index, stateful, forward, log.index_ops)
            if branch is None:
                return None
            log.links.append(branch[0])
            value = branch[1]
        else:
            return None
    log.links.reverse()
    return log


def _branch(
    op: scf.IfOp, position: int, stateful: set[SSAValue], forward: Block, index_ops: set[Operation]
) -> tuple[_Branch, SSAValue] | None:
    """`op` as a link (each branch's yield at `position` an insert chain from one value
    defined before `op`) and that value; None when it is not one."""
    if not _computable([op.cond], stateful, forward, (forward,), index_ops):
        return None
    chains, starts = [], []
    for region in (op.true_region, op.false_region):
        block = region.block
        value = block.last_op.operands[position]
        chain = []
        while isinstance(value.owner, tensor.InsertOp) and value.owner.parent_block() is block:
            insert = value.owner
            if not _computable(list(insert.indices), stateful, forward, (forward, block), index_ops):
                return None
            chain.append(insert)
            value = insert.dest
        chains.append(chain[::-1])
        starts.append(value)
    start = starts[0]
    defined_inside = isinstance(start, BlockArgument) and start.block is not forward
    defined_inside |= not isinstance(start, BlockArgument) and op.is_ancestor(start.owner)
    if starts[1] is not start or defined_inside:
        return None
    return _Branch(op, (chains[0], chains[1])), start


def _computable(
    values: list[SSAValue], stateful: set[SSAValue], forward: Block, blocks: tuple[Block, ...], found: set[Operation]
) -> bool:
    """Whether `values` are computed, from the induction variable and values defined outside
    the loop, by ops without regions in `blocks` that do not depend on the state; adds
    those ops to `found`."""
    pending = list(values)
    while pending:
        value = pending.pop()
        if value in stateful:
            return False
        if isinstance(value, BlockArgument):
            if value.block is forward and value.index > 0:
                return False  # another iteration argument (not in `stateful` when inactive)
            if value.block in blocks and value.index > 0 and isinstance(value.block.parent_op(), scf.ForOp):
                return False  # an inner loop's iteration argument (its state, an accumulator)
            if value.block not in blocks and forward.parent_op().is_ancestor(value.block.parent_op()):
                return False
            continue
        owner = value.owner
        if owner in found:
            continue
        if owner.parent_block() in blocks:
            if owner.regions:
                return False
            found.add(owner)
            pending.extend(owner.operands)
        elif forward.parent_op().is_ancestor(owner):
            return False  # defined inside another op of the body
    return True


def _read_overwritten(insert: tensor.InsertOp) -> SSAValue:
    """`tensor.extract` of the element `insert` overwrites, just before it."""
    old = tensor.ExtractOp(insert.dest, list(insert.indices), insert.scalar.type)
    Builder(InsertPoint.before(insert)).insert(old)
    return old.result


def _with_extra_results(op: scf.IfOp, olds: list[list[SSAValue]]) -> scf.IfOp:
    """`op` returning also `olds[0]` (read in its `then` branch) and `olds[1]` (its `else`
    branch's), each branch a zero for the other's."""
    types = [value.type for value in (*olds[0], *olds[1])]
    for number, region in enumerate((op.true_region, op.false_region)):
        terminator = region.block.last_op
        at = Builder(InsertPoint.before(terminator))
        extra = []
        for side, values in enumerate(olds):
            for value in values:
                extra.append(
                    value if side == number else at.insert(arith.ConstantOp(FloatAttr(0.0, value.type))).result
                )
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *extra))
    count = len(op.results)
    then_region, else_region = op.true_region, op.false_region
    rebuilt = scf.IfOp(
        op.cond, [*op.result_types, *types], op.detach_region(then_region), op.detach_region(else_region)
    )
    rebuilt.location = op.location
    Rewriter.replace_op(op, rebuilt, list(rebuilt.results[:count]))
    return rebuilt


def _clone_in_order(at: Builder, block: Block, ops: set[Operation], value_map: dict[SSAValue, SSAValue]) -> None:
    for op in block.ops:
        if op in ops:
            at.insert(clone_op(op, value_map))


def _put_back(
    at: Builder,
    chain: list[tensor.InsertOp],
    olds: list[SSAValue],
    state: SSAValue,
    value_map: dict[SSAValue, SSAValue],
) -> SSAValue:
    """`state` with each insert of `chain` undone, last first."""
    for insert, old in reversed(list(zip(chain, olds))):
        indices = [value_map.get(index, index) for index in insert.indices]
        state = at.insert(tensor.InsertOp(old, state, indices)).result
    return state


def _inner_loop(
    op: scf.ForOp, position: int, stateful: set[SSAValue], forward: Block, index_ops: set[Operation]
) -> _InnerLoop | None:
    """`op` as a link (its state at `position` changed only by top-level inserts of its body,
    its bounds computable, its lower bound never negative, its upper bound a constant); None
    when it is not one."""
    bound, step = constant_index(op.ub), constant_index(op.step)
    if bound is None or bound <= 0 or step is None or step <= 0 or not _never_negative(op.lb, forward):
        return None
    if not _computable([op.lb, op.ub, op.step], stateful, forward, (forward,), index_ops):
        return None
    body = op.body.block
    state = body.args[1 + position]
    value = body.last_op.operands[position]
    inner = _InnerLoop(op, position, [], bound)
    while value is not state:
        insert = value.owner
        if not isinstance(insert, tensor.InsertOp) or insert.parent_block() is not body:
            return None
        if not _computable(list(insert.indices), stateful, forward, (forward, body), inner.index_ops):
            return None
        inner.chain.append(insert)
        value = insert.dest
    if not inner.chain:
        return None
    inner.chain.reverse()
    # Index ops of the outer body found on the way belong to the outer log.
    outer = {found for found in inner.index_ops if found.parent_block() is forward}
    index_ops.update(outer)
    inner.index_ops -= outer
    return inner


def _never_negative(value: SSAValue, forward: Block) -> bool:
    """Whether `value` (an index) is a constant >= 0, the induction variable of the loop whose
    body is `forward` when that loop starts at a constant >= 0 and steps up, or a sum of such."""
    known = constant_index(value)
    if known is not None:
        return known >= 0
    if value is forward.args[0]:
        loop = forward.parent_op()
        lower, step = constant_index(loop.lb), constant_index(loop.step)
        return lower is not None and lower >= 0 and step is not None and step > 0
    owner = value.owner
    if isinstance(owner, arith.AddiOp) and owner.parent_block() is forward:
        return _never_negative(owner.lhs, forward) and _never_negative(owner.rhs, forward)
    return False


def _log_overwritten(link: _InnerLoop) -> list[SSAValue]:
    """Rebuild `link.op` with one more iteration argument per insert of its chain: a
    `link.bound`-element tensor holding, at each induction value, the element the insert
    overwrote. Returns the logs (the new loop's extra results)."""
    op, body = link.op, link.op.body.block
    types, initial = [], []
    at = Builder(InsertPoint.before(op))
    for insert in link.chain:
        log_type = TensorType(insert.scalar.type, [link.bound])
        zeros = DenseIntOrFPElementsAttr.from_list(log_type, [0.0])
        initial.append(at.insert(arith.ConstantOp(zeros, log_type)).result)
        types.append(log_type)
    logs = [body.insert_arg(log_type, len(body.args)) for log_type in types]
    written = []
    for insert, log in zip(link.chain, logs):
        old = _read_overwritten(insert)
        inside = Builder(InsertPoint.before(insert))
        written.append(inside.insert(tensor.InsertOp(old, log, [body.args[0]])).result)
    terminator = body.last_op
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *written))
    count = len(op.results)
    rebuilt = scf.ForOp(op.lb, op.ub, op.step, [*op.iter_args, *initial], op.detach_region(op.body))
    rebuilt.location = op.location
    Rewriter.replace_op(op, rebuilt, list(rebuilt.results[:count]))
    link.op = rebuilt
    return list(rebuilt.results[count:])


def _undo_inner_loop(
    at: Builder, link: _InnerLoop, logs: Sequence[SSAValue], state: SSAValue, value_map: dict[SSAValue, SSAValue]
) -> SSAValue:
    """`state` with the inserts of `link`'s loop undone, its last iteration first: a loop over
    its iterations backwards putting back the elements `logs` hold."""
    op = link.op
    lower, upper, step = (value_map.get(v, v) for v in (op.lb, op.ub, op.step))
    trips = as_index(at, trip_count(at, lower, upper, step))
    last = sub(at, trips, 1)
    block = Block(arg_types=[IndexType(), state.type])
    inside = Builder(InsertPoint.at_end(block))
    induction = as_index(inside, add(inside, lower, mul(inside, sub(inside, last, block.args[0]), step)))
    inner_map = dict(value_map)
    inner_map[op.body.block.args[0]] = induction
    _clone_in_order(inside, op.body.block, link.index_ops, inner_map)
    olds = [inside.insert(tensor.ExtractOp(log, [induction], log.type.element_type)).result for log in logs]
    inside.insert(scf.YieldOp(_put_back(inside, link.chain, olds, block.args[1], inner_map)))
    return at.insert(scf.ForOp(index_constant(at, 0), trips, index_constant(at, 1), [state], Region(block))).results[0]
