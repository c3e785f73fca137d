"""Allocations that cannot succeed, refused before the code runs.

Unchecked, a `malloc` that fails returns NULL and the compiled code stores into it: a buffer larger than the
machine can give (a 640 GB temporary, a loop cache of terabytes) ends the process with a
segmentation fault on the first store. After bufferization every buffer of static shape
is a `memref.alloc` whose size is known, so one larger than this process may ever hold
(physical memory, or `ulimit -v` where lower) is a `PipelineError` naming the function and
the size instead; so are buffers that are each small enough but must be live together
(`_peak_lower_bound`). Buffers sized at run time are checked when allocated
(`checked_allocations`).
"""
from __future__ import annotations

import heapq
import math

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import walk_ops
from gradir.native_calls import available_memory, human_bytes  # noqa: F401 -- re-exported


def element_bytes(element: ir.Type) -> int:
    for kind in (ir.IntegerType, ir.FloatType):
        if isinstance(element, kind):
            return max(1, (kind(element).width + 7) // 8)
    return 8  # index, and anything pointer-sized


def _function_name(op: ir.Operation) -> str:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    if parent is None:
        return "?"
    return ir.StringAttr(parent.attributes["sym_name"]).value


def static_bytes(memref: ir.MemRefType) -> int | None:
    """Bytes of a buffer of static shape; None when its shape is known only at run time."""
    if not memref.has_static_shape:
        return None
    return math.prod(memref.shape) * element_bytes(memref.element_type)


def _static_bytes(op: ir.Operation) -> int | None:
    return static_bytes(ir.MemRefType(op.results[0].type))


def refuse_impossible_allocations(module: ir.Module, limit: int) -> None:
    """A `PipelineError` at the first static `memref.alloc` of more than `limit` bytes, or
    at the first function whose static buffers must hold more than `limit` bytes at once."""
    for op in walk_ops(module, {"memref.alloc", "memref.alloca"}):
        size = _static_bytes(op)
        if size is not None and size > limit:
            raise PipelineError(
                f"cpu-memory: @{_function_name(op)} allocates a buffer {op.results[0].type} of "
                f"{human_bytes(size)}, more than this process can ever hold "
                f"({human_bytes(limit)}); it would crash when run"
            )
    for function in walk_ops(module, {"func.func"}):
        if not function.regions[0].blocks:
            continue
        peak, buffers = _peak_lower_bound(function.regions[0].blocks[0])
        if peak > limit:
            largest = max(buffers, key=_static_bytes)
            raise PipelineError(
                f"cpu-memory: @{ir.StringAttr(function.attributes['sym_name']).value} needs at least "
                f"{human_bytes(peak)} at once ({len(buffers)} buffers live together, the largest "
                f"{largest.results[0].type} of {human_bytes(_static_bytes(largest))}), more than this "
                f"process can ever hold ({human_bytes(limit)}); it would fail when run"
            )


def _top_level_position(op: ir.Operation, block_ops: dict) -> int | None:
    while op is not None:
        position = block_ops.get(op)
        if position is not None:
            return position
        op = op.parent
    return None


def _peak_lower_bound(block: ir.Block) -> tuple[int, list[ir.Operation]]:
    """Bytes the static `memref.alloc`s of `block` (a function body) must hold at once, and
    which buffers do at that moment.

    A buffer is live from its allocation to its last use (its `memref.dealloc` aside), whatever
    the deallocation pipeline decided: however early it is freed, it exists until then. Uses are
    counted at the op of `block` that holds them, buffers allocated inside loops and branches,
    uses through views and the callees' own buffers not at all, so the result is a lower bound
    of the peak: a function over the limit cannot run, one under it still may not."""
    operations = list(block.operations)
    block_ops = {op: position for position, op in enumerate(operations)}
    intervals: list[tuple[int, int, ir.Operation]] = []
    for start, op in enumerate(operations):
        if op.name != "memref.alloc" or _static_bytes(op) is None:
            continue
        end = start
        for use in op.results[0].uses:
            user = use.owner
            if user.name == "memref.dealloc":
                continue
            position = _top_level_position(user, block_ops)
            if position is not None:
                end = max(end, position)
        intervals.append((start, end, op))
    # Sweep the allocations in order (the peak is reached at one of them), dropping the
    # buffers whose last use came before.
    peak, peak_start, total, ending = 0, -1, 0, []
    for start, end, op in intervals:
        while ending and ending[0][0] < start:
            total -= heapq.heappop(ending)[1]
        size = _static_bytes(op)
        heapq.heappush(ending, (end, size))
        total += size
        if total > peak:
            peak, peak_start = total, start
    live_at_peak = [op for start, end, op in intervals if start <= peak_start <= end]
    return peak, live_at_peak
