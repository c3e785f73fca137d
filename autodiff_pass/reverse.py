"""`autodiff-reverse`: reverse mode for `autodiff.grad` and `autodiff.vjp`.

Each entry op is replaced by a `func.call` to a derivative function generated
once per (callee, wrt) (see `derivative_functions` for names and signatures,
`reverse_walk` for the body: primal copy, then one `grad_of` per active op in
reverse order, gradients summed with `autograd_add`, missing ones
`autograd_zero`). Entry ops inside a differentiated function are lowered
first, so grad of grad and Hessian-vector products work.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gradir.autodiff_pass.differentiation import lower_entry_ops
from gradir.autodiff_pass.ir_building import paused_garbage_collection
from gradir.autodiff_pass.reverse_walk import ReverseOptions
from gradir.dialects.autodiff import GradOp, VjpOp
from gradir.errors import PipelineError


@dataclass(frozen=True)
class AutodiffReversePass(ModulePass):
    """Replace `autodiff.grad` / `autodiff.vjp` by calls to generated reverse-mode functions."""

    name = "autodiff-reverse"

    checkpoint_every: int = 0
    """`autodiff-reverse{checkpoint-every=k}`: an `scf.for` saves its state every
    k iterations and its reverse recomputes the iterations in between, instead of
    caching what the backward reads in every iteration (0: no checkpointing)."""

    reuse_backward_bodies: bool = True
    """`autodiff-reverse{reuse-backward-bodies=false}`: emit every derivatives.yaml
    backward by interpreting its formulas, instead of cloning the body emitted
    for the first op of the same shape (the same IR, slower; for comparisons)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.checkpoint_every < 0:
            raise PipelineError(
                f"autodiff-reverse: checkpoint-every must be >= 0, got {self.checkpoint_every}"
            )
        options = ReverseOptions(self.checkpoint_every, self.reuse_backward_bodies)
        with paused_garbage_collection():
            lower_entry_ops(op, (GradOp, VjpOp), options)
