"""Loop-carried tensors bufferize into one buffer per `scf.for` state.

A loop body usually computes its next state into a fresh tensor
(`h' = tanh(h W + b)`). One-shot bufferization then cannot prove that the
yielded buffer is the iteration argument's buffer, and the deallocation
pipeline tracks its ownership with i1 flags stored in memory, which MLIR 22
cannot lower to LLVM (an assertion aborts the process). Writing the new state
into the iteration argument's tensor (`bufferization.materialize_in_destination`)
makes every yield equivalent to its argument: the loop updates one buffer in
place, copying the new state in at the end of each iteration, and no ownership
flags are needed.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from gradir.mlir_bridge import walk_ops


def yield_loop_states_in_place(module: ir.Module) -> None:
    """Make each tensor yielded by an `scf.for` land in its iteration argument,
    each loop starting from its own `tensor.empty` (CSE merges identical ones,
    and two loops forced to update one buffer in place would conflict)."""
    for loop in walk_ops(module, {"scf.for"}):
        for position, initial in enumerate(list(loop.operands)[3:], start=3):
            owner = initial.owner if isinstance(initial, ir.OpResult) else None
            if owner is not None and owner.name == "tensor.empty":
                loop.operands[position] = owner.clone(ir.InsertionPoint(loop)).results[0]
        body = loop.regions[0].blocks[0]
        terminator = list(body.operations)[-1]
        iteration_arguments = list(body.arguments)[1:]
        for position, (value, argument) in enumerate(
            zip(list(terminator.operands), iteration_arguments)
        ):
            if not isinstance(value.type, ir.RankedTensorType) or value == argument:
                continue
            if _inner_loop_updates(value, argument):
                continue  # already in place: an inner loop started from this state
            with ir.InsertionPoint(terminator), terminator.location:
                stored = bufferization.MaterializeInDestinationOp(value.type, value, argument)
            terminator.operands[position] = stored.result


def _inner_loop_updates(value: ir.Value, argument: ir.Value) -> bool:
    """Whether `value` is the result of an inner `scf.for` whose matching
    initial value is `argument` (the inner loop then updates it in place)."""
    if not isinstance(value, ir.OpResult) or value.owner.name != "scf.for":
        return False
    initial = value.owner.operands[3 + value.result_number]
    return initial == argument
