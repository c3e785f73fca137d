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
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from gradir.mlir_bridge import walk_ops


def yield_loop_states_in_place(module: ir.Module) -> None:
    """Make each tensor yielded by an `scf.for` land in its iteration argument,
    each loop starting from its own `tensor.empty` (CSE merges identical ones,
    and two loops forced to update one buffer in place would conflict).
    `scf.while` likewise, in both regions: what `scf.condition` forwards lands
    in the `before` region's argument, what `scf.yield` yields in the `after`
    region's (one-shot bufferization asks each to be equivalent to its own
    region's argument)."""
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
            stored = bufferization.MaterializeInDestinationOp(value.type, value, argument)
        terminator.operands[position] = stored.result


def _initial_position(loop: ir.Operation, result_number: int) -> int:
    """The operand of `loop` (`scf.for` or `scf.while`) that its result starts from."""
    return (3 if loop.name == "scf.for" else 0) + result_number


def _inner_loop_updates(value: ir.Value, argument: ir.Value) -> bool:
    """Whether `value` is the result of an inner `scf.for` or `scf.while` whose
    matching initial value is `argument` and nothing reads `argument` after that
    loop (the inner loop then updates it in place). A read after it (reverse
    mode's forward loop caching the state it started from) makes bufferization
    copy the state for the inner loop, and the yield must then store it back."""
    if not isinstance(value, ir.OpResult) or value.owner.name not in ("scf.for", "scf.while"):
        return False
    loop = value.owner
    initial = loop.operands[_initial_position(loop, value.result_number)]
    return initial == argument and not _read_after(argument, loop)


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
        while user is not None and user.block != op.operation.block:
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
