"""`autodiff-vmap`: replace each `autodiff.vmap` by a call to a batched function.

Batched functions are generated once per (callee, in_axes, out_axes, size) by
`batched_functions`; the batching rules are data (`rules/batching.yaml`).
The pass runs before `autodiff-reverse` and `autodiff-forward`: it lowers the
grad/vjp/jvp ops inside a function it batches itself (vmap of grad: per-example
gradients), and a function holding a vmap is left holding a call to an
ordinary batched function, which the derivative passes differentiate like any
other (grad of vmap). An `autodiff.vjp {is_grads_batched}` (a batch of
cotangents) becomes a call of the callee and a vmap of the plain vjp over the
cotangents, first.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gradir.autodiff_pass.ir_building import paused_garbage_collection
from gradir.dialects.batching_ops import VmapOp
from gradir.dialects.entry_ops import VjpOp


@dataclass(frozen=True)
class AutodiffVmapPass(ModulePass):
    """Replace `autodiff.vmap` by calls to generated batched functions."""

    name = "autodiff-vmap"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(isinstance(o, VmapOp) or (isinstance(o, VjpOp) and o.is_grads_batched) for o in op.walk()):
            return
        # Imported only for a program that batches: every compile imported batched_functions
        # and the batching rules before (10 ms of the MLP gradient's cold compile).
        from gradir.autodiff_pass.batched_functions import BatchedFunctions

        with paused_garbage_collection():
            table = BatchedFunctions(op)
            for vjp in [o for o in op.walk() if isinstance(o, VjpOp) and o.is_grads_batched]:
                table.lower_batched_vjp(vjp)
            for vmap in [o for o in op.walk() if isinstance(o, VmapOp)]:
                if vmap.parent is not None:
                    table.lower_vmap(vmap)
