"""Each function result gets its own tensor before bufferization.

A function that returns one value twice (two zero gradients folded into one
`linalg.fill`, or the same gradient for two arguments) would hand the same
buffer to two out-parameters, and MLIR 22's `buffer-results-to-out-params`
crashes the process (a segmentation fault) on it. A repeated result is
returned as a copy (`bufferization.alloc_tensor ... copy`) instead.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import bufferization

from gradir.mlir_bridge import walk_ops


def copy_repeated_results(module: ir.Module) -> None:
    """Replace the second and later occurrences of a value in a `func.return` by copies."""
    for terminator in walk_ops(module, {"func.return"}):
        seen: list[ir.Value] = []
        for position, value in enumerate(list(terminator.operands)):
            if not isinstance(value.type, ir.RankedTensorType):
                continue
            if any(value == earlier for earlier in seen):
                with ir.InsertionPoint(terminator), terminator.location:
                    copy = bufferization.AllocTensorOp(value.type, [], copy=value)
                terminator.operands[position] = copy.result
            else:
                seen.append(value)
