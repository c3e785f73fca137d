"""Allocations that cannot succeed, refused before the code runs.

Unchecked, a `malloc` that fails returns NULL and the compiled code stores into it: a buffer larger than the
machine can give (a 640 GB temporary, a loop cache of terabytes) ends the process with a
segmentation fault on the first store. After bufferization every buffer of static shape
is a `memref.alloc` whose size is known, so one larger than this process may ever hold
(physical memory, or `ulimit -v` where lower) is a `PipelineError` naming the function and
the size instead. Buffers sized at run time are checked when allocated
(`checked_allocations`); many buffers that together exceed memory are not caught here.
"""
from __future__ import annotations

import math
import os
import resource

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import walk_ops


def available_memory() -> int:
    """Bytes this process may at most allocate: physical memory, or its address-space limit."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        physical = 2**63 - 1
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return physical if soft in (resource.RLIM_INFINITY, -1) else min(physical, soft)


def _element_bytes(element: ir.Type) -> int:
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


def human_bytes(count: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if count < 1024 or unit == "PiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.3g} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def refuse_impossible_allocations(module: ir.Module, limit: int) -> None:
    """A `PipelineError` at the first static `memref.alloc` of more than `limit` bytes."""
    for op in walk_ops(module, {"memref.alloc", "memref.alloca"}):
        memref = ir.MemRefType(op.results[0].type)
        if not memref.has_static_shape:
            continue
        size = math.prod(memref.shape) * _element_bytes(memref.element_type)
        if size > limit:
            raise PipelineError(
                f"cpu-memory: @{_function_name(op)} allocates a buffer {memref} of "
                f"{human_bytes(size)}, more than this process can ever hold "
                f"({human_bytes(limit)}); it would crash when run"
            )
