"""Loop-carried tensors bufferize into one buffer per `scf.for` (and `scf.while`) state.

A loop body usually computes its next state into a fresh tensor
(`h' = tanh(h W + b)`). One-shot bufferization then cannot prove that the
yielded buffer is the iteration argument's buffer, and the deallocation
pipeline tracks its ownership with i1 flags stored in memory, which MLIR 22
cannot lower to LLVM (an assertion aborts the process). Writing the new state
into the iteration argument's tensor (`bufferization.materialize_in_destination`)
makes every yield equivalent to its argument: the loop updates one buffer in
place, copying the new state in at the end of each iteration, and no ownership
flags are needed.

A loop that permutes its states (`scf.yield %b, %a`, or a Fibonacci-like
`scf.yield %b, %a_plus_b`) writes one state's buffer while another state still
needs to be read from it: copying `%b` into `%a`'s buffer first destroys `%a`
before it is copied into `%b`'s, which one-shot bufferization reports as a
"RaW conflict". Such a yielded value, one that is (or was computed in place in,
or is a view of) the buffer of another state of the same loop, is copied out
first (`bufferization.alloc_tensor ... copy`), before any state is written.

One-shot bufferization pairs the operands of an `scf.while`'s `scf.condition`
with the `before` region's arguments, and those of its `scf.yield` with the
`after` region's, by position. An `scf.while` whose regions take different
arguments (canonicalization drops a forwarded value the `after` region does
not read: JAX's `lax.while_loop` exported and canonicalized) has no such
pairing; it is first rewritten so that both regions take the same arguments
(`_same_arguments_in_both_regions`).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization, cf, scf, tensor, ub

from gradir.errors import PipelineError
from gradir.mlir_bridge import walk_ops


def yield_loop_states_in_place(module: ir.Module) -> None:
    """Make each tensor yielded by an `scf.for` land in its iteration argument,
    each loop starting from its own `tensor.empty` (CSE merges identical ones,
    and two loops forced to update one buffer in place would conflict).
    `scf.while` likewise, in both regions: what `scf.condition` forwards lands
    in the `before` region's argument, what `scf.yield` yields in the `after`
    region's (one-shot bufferization asks each to be equivalent to its own
    region's argument)."""
    for loop in walk_ops(module, {"scf.while"}):
        _same_arguments_in_both_regions(loop)
    for loop in walk_ops(module, {"scf.for", "scf.while"}):
        first_initial = 3 if loop.name == "scf.for" else 0
        for position, initial in enumerate(list(loop.operands)[first_initial:], start=first_initial):
            owner = initial.owner if isinstance(initial, ir.OpResult) else None
            if owner is not None and owner.name == "tensor.empty":
                loop.operands[position] = owner.clone(ir.InsertionPoint(loop)).results[0]
        if loop.name == "scf.for":
            body = loop.regions[0].blocks[0]
            _write_states_in_place(list(body.operations)[-1], 0, list(body.arguments)[1:])
        else:
            for region, first_forwarded in zip(loop.regions, (1, 0)):  # scf.condition's operand 0 is the flag
                block = region.blocks[0]
                _write_states_in_place(list(block.operations)[-1], first_forwarded, list(block.arguments))


def _same_arguments_in_both_regions(loop: ir.Operation) -> None:
    """Rewrite `loop`, an `scf.while` whose `before` region takes arguments B and whose
    `after` region takes F (different types), into one whose regions both take B ++ F.

    The new `before` region runs the old one on B and passes on its own B unchanged
    followed by the forwarded F values (`scf.condition(%c) B, F`); the new `after`
    region runs the old one on F and yields its B values followed by F unchanged. The
    F arguments of the first `before` iteration start from placeholders nobody reads
    (`tensor.empty`, a zero scalar) and the loop's results are the F part. Each
    terminator operand then has an argument of its own type at its position, which
    `_write_states_in_place` makes it land in."""
    before, after = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
    state_types = [argument.type for argument in before.arguments]
    forwarded_types = [argument.type for argument in after.arguments]
    if state_types == forwarded_types:
        return
    both = state_types + forwarded_types
    with ir.InsertionPoint(loop), loop.location:
        placeholders = [_placeholder(type_) for type_ in forwarded_types]
        symmetric = scf.WhileOp(both, [*loop.operands, *placeholders])
        new_before = symmetric.before.blocks.append(*both)
        new_after = symmetric.after.blocks.append(*both)
    _move_body(before, new_before, list(new_before.arguments)[: len(state_types)])
    condition = list(new_before.operations)[-1]
    forwarded = list(condition.operands)[1:]
    with ir.InsertionPoint(condition), condition.location:
        scf.ConditionOp(condition.operands[0], [*list(new_before.arguments)[: len(state_types)], *forwarded])
    condition.erase()
    _move_body(after, new_after, list(new_after.arguments)[len(state_types) :])
    yielded = list(new_after.operations)[-1]
    with ir.InsertionPoint(yielded), yielded.location:
        scf.YieldOp([*yielded.operands, *list(new_after.arguments)[len(state_types) :]])
    yielded.erase()
    for old, new in zip(loop.results, list(symmetric.results)[len(state_types) :]):
        old.replace_all_uses_with(new)
    loop.erase()


def _move_body(block: ir.Block, into: ir.Block, arguments: list[ir.Value]) -> None:
    """Move the ops of `block` to the end of `into`, its arguments replaced by `arguments`."""
    for old, new in zip(block.arguments, arguments):
        old.replace_all_uses_with(new)
    for op in list(block.operations):
        op.detach_from_parent()
        into.append(op)


def _placeholder(type_: ir.Type) -> ir.Value:
    """A value of `type_` that is never read: the first iteration's `after`-side state."""
    if isinstance(type_, ir.RankedTensorType):
        if not type_.has_static_shape:
            raise PipelineError(
                f"an scf.while whose regions take different arguments forwards {type_}, a tensor "
                "of dynamic shape, which gradir cannot yet give the loop a buffer for"
            )
        return tensor.EmptyOp(type_.shape, type_.element_type).result
    if isinstance(type_, ir.FloatType):
        return arith.ConstantOp(type_, 0.0).result
    if isinstance(type_, (ir.IntegerType, ir.IndexType)):
        return arith.ConstantOp(type_, 0).result
    return ub.PoisonOp(type_).result


def _write_states_in_place(terminator: ir.Operation, first: int, states: list[ir.Value]) -> None:
    """Make each tensor `terminator` passes on (its operands from `first`) land
    in the matching state of `states`, copying out first what another state's
    buffer holds."""
    updates = []
    for position, (value, argument) in enumerate(zip(list(terminator.operands)[first:], states), start=first):
        if not isinstance(value.type, ir.RankedTensorType) or value == argument:
            continue
        if _inner_loop_updates(value, argument):
            continue  # already in place: an inner loop started from this state
        _copy_state_read_after_inner_loop(value, argument)
        if any(state != argument for state in _states_written_through(value, states)):
            with ir.InsertionPoint(terminator), terminator.location:
                value = bufferization.AllocTensorOp(value.type, [], copy=value).result
        updates.append((position, value, argument))
    # Every copy above is made before the first state is overwritten.
    for position, value, argument in updates:
        with ir.InsertionPoint(terminator), terminator.location:
            _assert_same_extents(value, argument, terminator.parent)
            stored = bufferization.MaterializeInDestinationOp(value.type, value, argument)
        terminator.operands[position] = stored.result


def _assert_same_extents(value: ir.Value, argument: ir.Value, loop: ir.Operation) -> None:
    """A run-time check, located at `loop`, that `value` (the next state) has the extents of
    `argument` (its buffer) where its type does not say: a state that grows between iterations
    is valid MLIR, but updating it in place would copy between buffers of different sizes
    (before, MLIR's own check of that copy failed, naming neither the loop nor the cause)."""
    value_type = ir.RankedTensorType(value.type)
    for dim in range(value_type.rank):
        if not value_type.is_dynamic_dim(dim):
            continue
        index = arith.ConstantOp(ir.IndexType.get(), dim).result
        same = arith.CmpIOp(
            arith.CmpIPredicate.eq, tensor.DimOp(value, index).result, tensor.DimOp(argument, index).result
        ).result
        with loop.location:
            cf.AssertOp(
                same,
                f"a loop state of dynamic shape ({value.type}) whose extents change between iterations "
                f"({loop.name}): gradir updates a loop's state in place, in one buffer",
            )


def _initial_position(loop: ir.Operation, result_number: int) -> int:
    """The operand of `loop` (`scf.for` or `scf.while`) that its result starts from."""
    return (3 if loop.name == "scf.for" else 0) + result_number


def _inner_loop_updates(value: ir.Value, argument: ir.Value) -> bool:
    """Whether `value` is the result of an inner `scf.for` or `scf.while` whose
    matching initial value is `argument`, or `argument` with elements inserted, and
    nothing reads `argument` after that loop or insert (the inner loop then updates it
    in place). A read after it (reverse
    mode's forward loop caching the state it started from) makes bufferization
    copy the state for the inner loop, and the yield must then store it back."""
    if not isinstance(value, ir.OpResult) or value.owner.name not in ("scf.for", "scf.while"):
        return False
    loop = value.owner
    initial = loop.operands[_initial_position(loop, value.result_number)]
    # The state with elements written into it first is its buffer too, when nothing reads
    # the state after a write (reverse mode's gradient of a state, zeroed at the element the
    # forward body wrote, before an inner loop adds to it): stored back at the yield, the
    # whole state was copied every iteration (the gradient of a Cholesky factorization).
    writes = [(initial, loop)]  # (a value, the op that writes in its buffer)
    while initial != argument:
        owner = initial.owner if isinstance(initial, ir.OpResult) else None
        if owner is None or owner.name != "tensor.insert" or owner.operation.block != loop.operation.block:
            return False
        initial = owner.operands[1]
        writes.append((initial, owner))
    return not any(_read_after(value, writer) for value, writer in writes)


def _copy_state_read_after_inner_loop(value: ir.Value, argument: ir.Value) -> None:
    """An inner loop that starts from the state `argument`, which is read after it,
    starts from a copy instead: it updates the copy in place and the state is stored
    back at the yield, after its last read."""
    if not isinstance(value, ir.OpResult) or value.owner.name not in ("scf.for", "scf.while"):
        return
    loop = value.owner
    position = _initial_position(loop, value.result_number)
    if loop.operands[position] == argument:
        with ir.InsertionPoint(loop), loop.location:
            copy = bufferization.AllocTensorOp(argument.type, [], copy=argument).result
        loop.operands[position] = copy


def _read_after(value: ir.Value, op: ir.OpView) -> bool:
    """Whether an op after `op` in its block (or nested in one) reads `value`."""
    later, seen = set(), False
    for other in op.operation.block.operations:
        if seen:
            later.add(other.operation)
        seen = seen or other.operation == op.operation
    for use in value.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        # Up to the op in `op`'s block holding the use; none for a use outside that block's
        # ops (the top-level op has no block: MLIR's bindings abort the process on asking).
        while user is not None and (user.parent is None or user.block != op.operation.block):
            parent = user.parent
            user = parent.operation if parent is not None else None
        if user is not None and user in later:
            return True
    return False


_IN_PLACE_OPERAND = {
    "tensor.insert": 1,
    "tensor.insert_slice": 1,
    "bufferization.materialize_in_destination": 1,
    "tensor.extract_slice": 0,
    "tensor.expand_shape": 0,
    "tensor.collapse_shape": 0,
    "tensor.cast": 0,
    "tensor.reshape": 0,
}
"""Ops whose result, bufferized in place, is written in (or is a view of) one operand's buffer:
that operand's position. (Linalg ops write their `outs`, `scf.for` its initial values.)"""


def _states_written_through(value: ir.Value, states: list[ir.Value]) -> list[ir.Value]:
    """The loop states among `states` whose buffers `value` may be written in (or be a view
    of) once bufferized in place, following destination operands; empty for a fresh tensor.
    (A state chosen by an `scf.if` needs nothing: one-shot bufferization copies it itself.)"""
    while isinstance(value, ir.OpResult):
        op, number = value.owner, value.result_number
        if op.name.startswith("linalg."):
            position = len(op.operands) - len(op.results) + number  # `outs` tie to results
        elif op.name in ("scf.for", "scf.while"):
            position = _initial_position(op, number)
        elif op.name in _IN_PLACE_OPERAND:
            position = _IN_PLACE_OPERAND[op.name]
        else:
            return []
        if not 0 <= position < len(op.operands):
            return []
        value = op.operands[position]
    return [state for state in states if value == state]


def drop_in_place_states(module: ir.Module) -> int:
    """Undo `yield_loop_states_in_place`'s writes: each `bufferization.materialize_in_destination`
    (tensor form) into an `scf.for`/`scf.while` region's argument is replaced by the value it
    wrote; in place. Returns how many.

    Forced in place, a loop's state must be its initial value's buffer all along; where that
    buffer is read after the loop writes it (a reversed inner loop accumulating into the
    gradients its outer reversed loop carries, read again after it: tests/property's seed
    918032), one-shot bufferization refused the loop ("'scf.for' op not bufferizable under
    the given constraints: cannot avoid RaW conflict"). Without the writes, and with
    `allow-return-allocs-from-loops`, it allocates and copies where it must: the last of
    `cpu_pipeline.bufferize`'s attempts, taken only after the others failed."""
    dropped = 0
    for op in walk_ops(module, {"bufferization.materialize_in_destination"}):
        if len(op.results) != 1:
            continue
        destination = op.operands[1]
        if not isinstance(destination, ir.BlockArgument) or destination.owner.owner is None:
            continue
        if destination.owner.owner.operation.name not in ("scf.for", "scf.while"):
            continue
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
        dropped += 1
    return dropped
