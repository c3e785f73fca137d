"""Every gradir pass, once: CLI name, where it lives, and one line on what it does.

This is the only list of gradir's passes. The packages' exports
(`from gradir.autodiff_pass import AutodiffReversePass`), the xDSL universe
entry point (`xdsl-opt`), `autodiff-opt`'s pass registry and its
`--list-passes` are all derived from it. A pass named `autodiff-specialize-zero`
lives in `autodiff_pass/specialize_zero.py` as `AutodiffSpecializeZeroPass`:
the file is named after the CLI name, so a reader finds a pass in one step.

Nothing here imports a pass module; each is imported on first use (the
registry is a dict of factories, as xDSL's is).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.passes import ModulePass


@dataclass(frozen=True)
class PassEntry:
    """One pass of the table."""

    name: str
    """The CLI name (`-p NAME`)."""
    module: str
    """The module defining it, named after the CLI name."""
    class_name: str
    """The `ModulePass` subclass in `module`."""
    summary: str
    """One line for `--list-passes`."""
    replaces_xdsl: bool = False
    """gradir's drop-in replacement of the xDSL pass of the same name: used by
    `autodiff-opt` and `gradir.compile`, left out of the xDSL universe (xDSL
    refuses two passes of one name, and `xdsl-opt` keeps its own)."""

    @property
    def package(self) -> str:
        """The package that exports the pass class (`gradir.autodiff_pass`)."""
        return self.module.rsplit(".", 1)[0]

    def load(self) -> type[ModulePass]:
        """The pass class; a missing module is an ImportError, never a skip."""
        return getattr(importlib.import_module(self.module), self.class_name)


PASSES: tuple[PassEntry, ...] = (
    PassEntry(
        "lift-control-flow",
        "gradir.autodiff_pass.lift_control_flow",
        "LiftControlFlowPass",
        "branches between blocks (cf) -> scf (MLIR's lift-cf-to-scf), scf.index_switch -> "
        "a chain of scf.if, scf.forall -> an scf.for nest, scf.execute_region inlined: the "
        "structured control flow the rules cover",
    ),
    PassEntry(
        "autodiff-jacobian",
        "gradir.autodiff_pass.jacobian",
        "AutodiffJacobianPass",
        "autodiff.jacobian/hessian -> calls to functions made of autodiff.vmap of "
        "vjp (rev) or jvp (fwd; the Hessian: forward over reverse)",
    ),
    PassEntry(
        "autodiff-vmap",
        "gradir.autodiff_pass.vmap",
        "AutodiffVmapPass",
        "autodiff.vmap -> calls to generated batched functions (batching rules: "
        "rules/batching.yaml); lowers the grad/vjp/jvp inside what it batches",
    ),
    PassEntry(
        "autodiff-reverse",
        "gradir.autodiff_pass.reverse",
        "AutodiffReversePass",
        "autodiff.grad/vjp -> calls to generated reverse-mode functions "
        "(primal, then grad_of per active op); option checkpoint-every=k for scf.for",
    ),
    PassEntry(
        "autodiff-forward",
        "gradir.autodiff_pass.forward",
        "AutodiffForwardPass",
        "autodiff.jvp -> calls to generated forward-mode (tangent) functions",
    ),
    PassEntry(
        "autodiff-specialize-zero",
        "gradir.autodiff_pass.specialize_zero",
        "AutodiffSpecializeZeroPass",
        "fold autograd_add with a zero side; grad_of with all-zero operands becomes zeros",
    ),
    PassEntry(
        "autodiff-split",
        "gradir.autodiff_pass.split",
        "AutodiffSplitPass",
        "split each generated vjp function into <name>_fwd and <name>_bwd (PyTorch's Gradient)",
    ),
    PassEntry(
        "autodiff-check-numerics",
        "gradir.autodiff_pass.check_numerics",
        "AutodiffCheckNumericsPass",
        "make the program stop at the first op (forward or backward) whose result holds "
        "a NaN or Inf, naming it and its location (--check-numerics)",
    ),
    PassEntry(
        "autodiff-lower-grad-of",
        "gradir.autodiff_pass.lower_grad_of",
        "AutodiffLowerGradOfPass",
        "inline grad_of regions",
    ),
    PassEntry(
        "convert-autodiff-to-linalg",
        "gradir.lowering.convert_autodiff_to_linalg",
        "ConvertAutodiffToLinalgPass",
        "every autodiff op -> linalg/tensor/arith/math on tensors",
    ),
    PassEntry(
        "cse",
        "gradir.autodiff_pass.cse",
        "ScopedCommonSubexpressionElimination",
        "common subexpression elimination, linear in nested regions (replaces xDSL's cse)",
        replaces_xdsl=True,
    ),
    PassEntry(
        "dce",
        "gradir.autodiff_pass.dce",
        "DeadCodeElimination",
        "dead code elimination in one backward sweep; also erases unused linalg ops "
        "on tensors (replaces xDSL's dce)",
        replaces_xdsl=True,
    ),
)
"""Why gradir replaces `cse` and `dce`: xDSL 0.74's `cse` copies its table of
known ops into every nested region, which is quadratic on gradient functions
(one `grad_of` region per forward op); gradir's is the same CSE with chained
scopes. Both answer "is this op pure?" once per op class instead of asking its
traits on every query, and pause the cyclic garbage collector; `dce` also
erases unused linalg ops on tensors, which xDSL cannot tell are pure."""

PASSES_BY_NAME: dict[str, PassEntry] = {entry.name: entry for entry in PASSES}


def gradir_passes(replacements: bool = True) -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for gradir's passes by CLI name, with (by default) those that
    replace xDSL passes of the same name."""
    return {
        entry.name: entry.load
        for entry in PASSES
        if replacements or not entry.replaces_xdsl
    }


def pass_exports(package: str) -> dict[str, str]:
    """The pass classes `package` exports: class name -> defining module."""
    return {entry.class_name: entry.module for entry in PASSES if entry.package == package}
