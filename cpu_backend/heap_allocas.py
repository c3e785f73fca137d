"""`memref.alloca`s that could overflow the stack become heap buffers (`memref.alloc`).

A `memref.alloca` takes stack until its allocation scope (the function, or a
`memref.alloca_scope`) ends. The stack is small (8 MiB for the main thread, often less
for others) and running out of it is a segmentation fault that ends the user's process,
with no way to turn it into an error: an alloca of `memref<100000000xf64>` (800 MB) did,
and so does a small alloca inside a loop, which takes new stack in every iteration.
Rewritten before bufferization, these become `memref.alloc`s that the deallocation
pipeline frees after their last use, that `memory_check` weighs against the memory this
process may hold, and that the checked allocator turns into an `AllocationError` when
they cannot be had. Moved to the heap are allocas

- whose size is known only at run time,
- inside a loop (each iteration would take more stack, where MLIR's `buffer-loop-hoisting`
  cannot take it out of the loop, as from under an `scf.if`),
- inside a `memref.alloca_scope` (the scope then has nothing left to free, and canonicalize
  inlines it; kept, it failed to lower once its body held a loop: "'memref.alloca_scope'
  op expects region #0 to have 0 or 1 blocks"),
- and, in the order they come, those that would bring their function's static allocas past
  `STACK_BUDGET`.

Small allocas elsewhere stay on the stack, where LLVM keeps them in registers.
"""
from __future__ import annotations

from mlir import ir

from gradir.cpu_backend.memory_check import static_bytes
from gradir.mlir_bridge import walk_ops

STACK_BUDGET = 256 * 1024
"""Bytes of static allocas one function may keep on the stack: a thirty-second of the main
thread's usual 8 MiB, leaving the rest to callers (Python's own frames among them)."""

_NESTED = {"memref.alloca_scope", "scf.for", "scf.while", "scf.forall", "scf.parallel", "affine.for", "affine.parallel"}


def _function_if_stack_is_bounded(op: ir.Operation) -> ir.Operation | None:
    """The function holding `op`, or None where a loop or an alloca scope lies in between."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in _NESTED:
            return None
        parent = parent.parent
    return parent


def allocas_on_heap(module: ir.Module) -> int:
    """Rewrite, in place, every `memref.alloca` of `module` that could overflow the stack
    as a `memref.alloc` (same type, sizes and alignment); returns how many were."""
    stack_used: dict[ir.Operation, int] = {}
    moved = 0
    for op in walk_ops(module, {"memref.alloca"}):
        size = static_bytes(ir.MemRefType(op.results[0].type))
        function = _function_if_stack_is_bounded(op)
        if size is not None and function is not None:
            used = stack_used.get(function, 0)
            if used + size <= STACK_BUDGET:
                stack_used[function] = used + size
                continue
        _to_alloc(op)
        moved += 1
    return moved


def _to_alloc(alloca: ir.Operation) -> None:
    with ir.InsertionPoint(alloca), alloca.location:
        alloc = ir.Operation.create(
            "memref.alloc",
            results=[alloca.results[0].type],
            operands=list(alloca.operands),
            attributes={name: alloca.attributes[name] for name in alloca.attributes},
        )
    alloca.results[0].replace_all_uses_with(alloc.results[0])
    alloca.erase()
