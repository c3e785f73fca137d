"""A function argument written inside a branch or a loop is written in a copy, made there.

Public functions' arguments are read-only buffers, so a `tensor.insert` (or
`insert_slice`, `scatter`) into one must write a copy. Left to one-shot
bufferization, that copy was refused inside an `scf.if` of an `scf.for` whose
state the loop updates in place: "'tensor.insert' op not bufferizable under the
given constraints: cannot avoid RaW conflict" on a valid program (property
suite, seed 626762). Made explicit (`bufferization.alloc_tensor() copy(%arg)`)
right before the write, it costs the same copy and bufferizes. Writes at the top
of a function body are left to bufferization, which copies them without trouble.

The same refusal met a write into a loop's own state inside a branch of its
body (reverse mode of that program: the adjoint loop zeroes one element of its
gradient state in one branch). There bufferization usually writes in place, with
no copy at all, so `copy_written_loop_states` is only the fallback that
`cpu_pipeline.bufferize` takes when bufferization has failed.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from gradir.mlir_bridge import walk_ops

_WRITERS = {"tensor.insert", "tensor.insert_slice", "tensor.scatter"}
_DESTINATION = 1
"""Where each of `_WRITERS` takes the tensor it writes into."""


def copy_written_arguments(module: ir.Module) -> int:
    """Give each nested write into a function argument a copy of its own; in place.
    Returns how many writes were given one."""
    return _copy_nested_writes(module, {"func.func"})


def copy_written_loop_states(module: ir.Module) -> int:
    """Give each write into an `scf.for`/`scf.while` state made in a region nested in
    the loop's body (a branch) a copy of its own; in place. Returns how many."""
    return _copy_nested_writes(module, {"scf.for", "scf.while"})


def _copy_nested_writes(module: ir.Module, owners: set[str]) -> int:
    """Copy the destination of each write into a block argument of an op named in
    `owners`, where the write is not in that block itself."""
    copied = 0
    for op in walk_ops(module, _WRITERS):
        destination = op.operands[_DESTINATION]
        if not isinstance(destination, ir.BlockArgument):
            continue
        owner = destination.owner.owner  # the op whose region's block takes the argument
        if owner is None or owner.operation.name not in owners or op.parent.operation == owner.operation:
            continue
        _copy_operand(op, _DESTINATION)
        copied += 1
    return copied


def _copy_operand(op: ir.Operation, index: int) -> None:
    """Make `op` take a copy of its operand `index` (`bufferization.alloc_tensor ... copy`),
    made right before it."""
    value = op.operands[index]
    with ir.InsertionPoint(op), op.location:
        op.operands[index] = bufferization.AllocTensorOp(value.type, [], copy=value).result


def materialize_into_arguments_as_values(module: ir.Module) -> int:
    """Replace each `bufferization.materialize_in_destination %v in %arg` (tensor form)
    whose destination is a function's argument by `%v`; in place. Returns how many.

    The op asks for `%v` in `%arg`'s very buffer, and a public function's arguments are
    the caller's read-only arrays, so bufferization refused it ("would write to read-only
    buffer": tpp-mlir's MLP benchmarks end so). Its tensor result is `%v` as a value,
    which is all a caller of gradir's functions sees: results are returned, never
    written into arguments."""
    replaced = 0
    for op in walk_ops(module, {"bufferization.materialize_in_destination"}):
        if len(op.results) != 1:
            continue  # the memref form writes memory the program owns: left as it is
        source, destination = op.operands[0], op.operands[1]
        if not isinstance(destination, ir.BlockArgument) or destination.owner.owner is None:
            continue
        if destination.owner.owner.operation.name != "func.func":
            continue
        op.results[0].replace_all_uses_with(source)
        op.erase()
        replaced += 1
    return replaced


def copy_yielded_slices(module: ir.Module) -> int:
    """Give each `tensor.extract_slice` that an `scf.yield` of a branch returns a copy of
    its own; in place. Returns how many slices were copied.

    A slice is a view of its source. Returned from an `scf.if` (a batched undo log returns
    the slice of the state each branch overwrites) while the source is written after the
    branch, the view must be a copy, and MLIR 22 refused to make one ("'tensor.extract_slice'
    op not bufferizable under the given constraints: cannot avoid RaW conflict": the Hessian
    of tests/autodiff_pass/test_loop_undo.py's BRANCHES). Like `copy_written_loop_states`, a
    fallback that `cpu_pipeline.bufferize` takes only when bufferization has failed."""
    copied = 0
    for op in walk_ops(module, {"scf.yield"}):
        parent = op.parent
        if parent is None or parent.name != "scf.if":
            continue
        for index, value in enumerate(op.operands):
            if not isinstance(value, ir.OpResult) or value.owner.name != "tensor.extract_slice":
                continue
            _copy_operand(op, index)
            copied += 1
    return copied
