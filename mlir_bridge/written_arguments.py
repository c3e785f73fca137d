"""A function argument written inside a branch or a loop is written in a copy, made there.

Public functions' arguments are read-only buffers, so a `tensor.insert` (or
`insert_slice`, `scatter`) into one must write a copy. Left to one-shot
bufferization, that copy was refused inside an `scf.if` of an `scf.for` whose
state the loop updates in place: "'tensor.insert' op not bufferizable under the
given constraints: cannot avoid RaW conflict" on a valid program (property
suite, seed 626762). Made explicit (`bufferization.alloc_tensor() copy(%arg)`)
right before the write, it costs the same copy and bufferizes. Writes at the top
of a function body are left to bufferization, which copies them without trouble.
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
    copied = 0
    for op in walk_ops(module, _WRITERS):
        destination = op.operands[_DESTINATION]
        if not isinstance(destination, ir.BlockArgument):
            continue
        owner = destination.owner.owner  # the op whose region's block takes the argument
        if owner is None or owner.operation.name != "func.func" or op.parent.operation == owner.operation:
            continue
        with ir.InsertionPoint(op), op.location:
            copy = bufferization.AllocTensorOp(destination.type, [], copy=destination)
        op.operands[_DESTINATION] = copy.result
        copied += 1
    return copied
