"""Each tensor result of an `scf.if` bufferizes to one buffer made before the branch.

Left alone, each branch of an `scf.if` allocates its own result buffer and the
`if` yields a `memref.cast` of it to a dynamic strided layout. GPU kernels take
static, identity-layout buffers (bare pointers), and a buffer allocated inside a
branch would have to be freed after the `if`, outside the block that made it.
Writing each branch's result into one `tensor.empty` made before the `if`
(`bufferization.materialize_in_destination`) gives both branches the same
destination: `mlir_bridge.destinations` lets the branch's op write it directly,
and the `if` yields that buffer unchanged. Where a branch yields a value from
outside (e.g. `scf.yield %x`) the result is left alone: materializing (or
copying) that value too makes one-shot bufferization fail for some op orders
(a read-after-write conflict, or a write to a read-only argument). The other
branch's buffer then escapes its block, and `map_to_gpu` hoists its allocation
in front of the `if`. A slice from outside (`scf.yield %slice_of_an_input`) is copied in
its branch first (LAGrad's scf/forintermediate): the `if` would otherwise yield a view at
an offset known only at run time, which no kernel can take as an argument.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization, tensor

from gradir.mlir_bridge import walk_ops


def yield_branch_results_in_place(module: ir.Module) -> None:
    """Give each static tensor result of every `scf.if` one destination for both branches."""
    for branch in walk_ops(module, {"scf.if"}):
        if len(branch.regions[1].blocks) == 0:
            continue  # an `if` without else yields nothing
        for position, result in enumerate(branch.results):
            if not isinstance(result.type, ir.RankedTensorType):
                continue
            result_type = ir.RankedTensorType(result.type)
            if not result_type.has_static_shape:
                continue
            yields = [list(r.blocks[0].operations)[-1] for r in branch.regions]
            for terminator in yields:
                _copy_passed_slice(terminator, position)
            if not all(_defined_in(t.operands[position], t.operation.block) for t in yields):
                continue  # a branch passes a buffer through; the GPU mapping hoists the other's
            with ir.InsertionPoint(branch), branch.location:
                destination = tensor.EmptyOp(result_type.shape, result_type.element_type).result
            for region in branch.regions:
                terminator = list(region.blocks[0].operations)[-1]
                value = terminator.operands[position]
                with ir.InsertionPoint(terminator), terminator.location:
                    stored = bufferization.MaterializeInDestinationOp(
                        value.type, value, destination
                    )
                terminator.operands[position] = stored.result


def _defined_in(value: ir.Value, block: ir.Block) -> bool:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return owner == block
    return owner.operation.block == block



def _copy_passed_slice(terminator: ir.Operation, position: int) -> None:
    """A branch passing on a slice from outside (`scf.yield %slice_of_input`) yields a view
    at an offset that may change per call; the `if`'s result, a buffer with a dynamic
    offset, could not be a kernel argument (the bare-pointer convention passes none). The
    branch yields a copy of the slice instead."""
    value = terminator.operands[position]
    if _defined_in(value, terminator.operation.block) or not isinstance(value, ir.OpResult):
        return
    if value.owner.name != "tensor.extract_slice":
        return
    with ir.InsertionPoint(terminator), terminator.location:
        copy = bufferization.AllocTensorOp(value.type, [], copy=value).result
    terminator.operands[position] = copy
