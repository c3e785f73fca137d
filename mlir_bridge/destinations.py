"""Values stored into a destination are computed in that destination.

Two kinds of op store a value into a bigger destination: `bufferization.materialize_in_destination`
(which `loop_states` and `branch_results` add for a loop's next state or a branch's result)
and `tensor.insert_slice` (a reverse loop pushing a value onto its tape, or adding one
slice's gradient). Where the value is a fresh linalg result, one-shot bufferization computes
it in a temporary buffer and copies it over: on the GPU, one more kernel per store, in every
iteration of a loop.

MLIR's `eliminate-empty-tensors` removes those copies, but MLIR 22 miscompiles with it: in a
loop that inserts into a tensor defined before the loop (`tensor.insert_slice %s into
%outside[%i]`), the loop-invariant tensor was written in place, so iteration i saw every
earlier iteration's slice (tests/gpu_backend/test_destinations.py has the programs). Neither
backend runs it.

This module does the rewrite the copies need, where it is safe: the `tensor.empty` the value
starts from becomes the destination (or its slice, `tensor.extract_slice` with the insert's
offsets). The destination must come from the store's own loop iteration (a loop-carried
state, or a value of the same block): never from outside a loop around the store. The result
is destination-passing IR a user could have written, which one-shot bufferization analyses
as written and copies where writing in place would conflict.
"""
from __future__ import annotations

from mlir import ir

from gradir.mlir_bridge import walk_ops

_LOOPS = {"scf.for", "scf.while", "scf.forall", "scf.parallel", "affine.for"}


def compute_into_destinations(module: ir.Module) -> None:
    """Rewrite every store whose value is computed from a `tensor.empty` it alone uses.
    Inserts go first: a value both pushed onto a tape and yielded as the next state is
    computed in the tape's slice (each kernel then writes the tape at the loop's index),
    and the state is a copy of it."""
    inserts = walk_ops(module, {"tensor.insert_slice"})
    for store in inserts + walk_ops(module, {"bufferization.materialize_in_destination"}):
        value, destination = store.operands[0], store.operands[1]
        if not isinstance(destination.type, ir.RankedTensorType) or not _from_this_iteration(destination, store):
            continue
        start = _empty_start(value)
        if start is None:
            continue
        first, position = start
        empty = first.operands[position]
        if store.name == "tensor.insert_slice":
            offsets = list(store.operands)[2:]
            if not all(_available_before(v, first) for v in [destination, *offsets]):
                continue
            with _earliest_point(first, [destination, *offsets]), first.location:
                view = _slice_of(store, empty.type).result
        else:
            if empty.type != destination.type or not _available_before(destination, first):
                continue
            view = destination
        first.operands[position] = view
        empty.owner.operation.erase()


def _empty_start(value: ir.Value) -> tuple[ir.Operation, int] | None:
    """The linalg op and operand where `value`'s chain of linalg inits starts from a
    `tensor.empty` nothing else uses. (An op reading an empty init's elements reads undefined
    values, so the destination's may take their place. Values on the chain may have other
    readers: they then read the destination's slice.)"""
    while isinstance(value, ir.OpResult):
        op = value.owner.operation
        inits = _inits(op)
        if not op.name.startswith("linalg.") or inits is None:
            return None
        position = inits[value.result_number]
        init = op.operands[position]
        if isinstance(init, ir.OpResult) and init.owner.name == "tensor.empty":
            if len(list(init.uses)) != 1:
                return None
            return op, position
        value = init
    return None


def _inits(op: ir.Operation) -> list[int] | None:
    """The operand positions of a destination-style linalg op's inits (its `outs`), one per
    result, read from `operandSegmentSizes` (ins, outs)."""
    if "operandSegmentSizes" not in op.attributes:
        return None
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    if len(sizes) != 2 or sizes[1] != len(op.results):
        return None
    return list(range(sizes[0], sizes[0] + sizes[1]))


def _slice_of(insert: ir.Operation, slice_type: ir.Type) -> ir.Operation:
    """`tensor.extract_slice` of the insert's destination at its offsets, sizes and strides."""
    sizes = list(ir.DenseI32ArrayAttr(insert.attributes["operandSegmentSizes"]))
    attributes = {name: insert.attributes[name] for name in ("static_offsets", "static_sizes", "static_strides")}
    attributes["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, *sizes[2:]])
    return ir.Operation.create(
        "tensor.extract_slice", results=[slice_type], operands=list(insert.operands)[1:], attributes=attributes
    )


def _earliest_point(op: ir.Operation, operands: list[ir.Value]) -> ir.InsertionPoint:
    """Just after the last of `operands` defined in `op`'s block, else the block's start:
    where `eliminate-empty-tensors` puts its slices, and where one-shot bufferization then
    finds the slice's write in place (placed just before `op`, a tape entry that is also the
    loop's next state was computed in a temporary and copied)."""
    block = op.block
    last = None
    for candidate in block.operations:
        candidate = candidate.operation
        if candidate == op:
            break
        if any(isinstance(v, ir.OpResult) and v.owner.operation == candidate for v in operands):
            last = candidate
    if last is None:
        return ir.InsertionPoint.at_block_begin(block)
    return ir.InsertionPoint.after(last)


def _from_this_iteration(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined in `op`'s block or a block around it with no loop between:
    a loop-invariant destination is where MLIR 22's bufferization went wrong."""
    holder, crossed_loop = _holder_in(_defining_block(value), op)
    return holder is not None and not crossed_loop


def _available_before(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined before `op`: an argument of a block enclosing `op`, or the
    result of an op earlier in a block enclosing it."""
    block = _defining_block(value)
    holder, _ = _holder_in(block, op)
    if holder is None:
        return False
    if isinstance(value.owner, ir.Block):
        return True
    for candidate in block.operations:
        if candidate.operation == holder:
            return False
        if candidate.operation == value.owner.operation:
            return True
    return False


def _holder_in(block: ir.Block, op: ir.Operation) -> tuple[ir.Operation | None, bool]:
    """The op of `block` that is or encloses `op` (None if `block` does not enclose it), and
    whether a loop lies between them."""
    current, crossed_loop = op, False
    while current.block != block:
        parent = current.parent
        if parent is None or parent.name == "builtin.module":
            return None, crossed_loop
        crossed_loop = crossed_loop or parent.name in _LOOPS
        current = parent.operation
    return current, crossed_loop


def _defining_block(value: ir.Value) -> ir.Block:
    return value.owner if isinstance(value.owner, ir.Block) else value.owner.operation.block
