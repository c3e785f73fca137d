"""The named pipelines of `autodiff-opt --pipeline NAME` (DESIGN.md section 4).

Each pipeline is a list of xDSL passes, optionally followed by a hand-off to
MLIR 22 (`cpu`: down to the LLVM dialect, `gpu`: down to `gpu.binary`/PTX).
After the hand-off, output is MLIR's own text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gradir.errors import PipelineError
from gradir.instrumentation import apply_passes

GRAD_PASSES = (
    "lift-control-flow",
    "autodiff-jacobian",
    "autodiff-vmap",
    "autodiff-reverse",
    "autodiff-forward",
    "autodiff-specialize-zero",
    "cse",
    "dce",
)
LINALG_PASSES = GRAD_PASSES + (
    "autodiff-lower-grad-of",
    "convert-autodiff-to-linalg",
    "canonicalize",
    "cse",
    "dce",
)

CHECK_NUMERICS_PASS = "autodiff-check-numerics"


def with_numerics_checks(pass_names: tuple[str, ...]) -> tuple[str, ...]:
    """`pass_names` with `autodiff-check-numerics` after the derivative passes (`GRAD_PASSES`),
    while `grad_of` still tells which backward an op is part of, and before any lowering."""
    cut = len(GRAD_PASSES)
    assert pass_names[:cut] == GRAD_PASSES, pass_names
    return pass_names[:cut] + (CHECK_NUMERICS_PASS,) + pass_names[cut:]


@dataclass(frozen=True)
class Pipeline:
    name: str
    description: str
    xdsl_passes: tuple[str, ...]
    mlir_stage: str | None = None
    """`cpu` or `gpu`: what runs in MLIR 22 after the xDSL passes."""


PIPELINES: dict[str, Pipeline] = {
    p.name: p
    for p in (
        Pipeline(
            "grad",
            "lift branches to scf, generate batched and derivative functions: jacobian/hessian, vmap, reverse + forward mode, zero "
            "specialisation, cse, dce",
            GRAD_PASSES,
        ),
        Pipeline(
            "linalg",
            "grad, then inline grad_of and lower every autodiff op to "
            "linalg/tensor/arith/math on tensors",
            LINALG_PASSES,
        ),
        Pipeline(
            "cpu",
            "linalg, then MLIR 22: bufferize, fuse, vectorise, lower to the LLVM dialect",
            LINALG_PASSES,
            "cpu",
        ),
        Pipeline(
            "gpu",
            "linalg, then MLIR 22: bufferize, map to the GPU, outline kernels, "
            "NVVM, PTX in gpu.binary",
            LINALG_PASSES,
            "gpu",
        ),
    )
}


def get_pipeline(name: str) -> Pipeline:
    if name not in PIPELINES:
        raise PipelineError(
            f"unknown pipeline '{name}' (valid pipelines: {', '.join(PIPELINES)})"
        )
    return PIPELINES[name]


def run_xdsl_passes(
    ctx: Context,
    module: ModuleOp,
    pass_names: tuple[str, ...],
    available: dict,
    callback=None,
    options: dict[str, dict] | None = None,
) -> None:
    """Run xDSL passes by name on `module` (in place); `options[name]` are the
    keyword arguments of pass `name`."""
    passes: list[ModulePass] = []
    for name in pass_names:
        if name not in available:
            raise PipelineError(f"unknown pass '{name}'")
        passes.append(available[name]()(**(options or {}).get(name, {})))
    apply_passes(ctx, module, passes, callback)
