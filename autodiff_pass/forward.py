"""`autodiff-forward`: forward mode for `autodiff.jvp`.

Each `autodiff.jvp` is replaced by a `func.call` to a function generated once
per (callee, wrt) that returns the callee's results and their tangents (see
`forward_walk` for the body, `derivative_functions` for names).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gradir.autodiff_pass.differentiation import lower_entry_ops
from gradir.autodiff_pass.ir_building import paused_garbage_collection
from gradir.dialects.autodiff import JvpOp


@dataclass(frozen=True)
class AutodiffForwardPass(ModulePass):
    """Replace `autodiff.jvp` by calls to generated forward-mode functions."""

    name = "autodiff-forward"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_garbage_collection():
            lower_entry_ops(op, (JvpOp,))
