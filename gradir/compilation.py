"""`gradir.compile`: an autodiff program to something you can call.

The module runs the `linalg` pipeline's xDSL passes (derivatives generated,
lowered to linalg on tensors), then goes to MLIR 22 for the chosen target.
"""
from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from gradir.api_arguments import checked_integer
from gradir.errors import ArgumentError, PipelineError
from gradir.instrumentation import stage
from gradir.pass_table import gradir_passes
from gradir.pipelines import LINALG_PASSES, run_xdsl_passes
from gradir.source import load_module, make_context
from gradir.verify import (
    refuse_external_calls,
    refuse_recursion,
    refuse_unrunnable_ops,
    refuse_writes_to_read_only_memory,
    verify_module,
)

TARGETS = ("cpu", "cuda")
TARGET_OPTIONS = {"cpu": ("opt_level", "num_threads"), "cuda": ("chip", "features", "policy", "opt_level")}
"""The keyword options each target's compiled program takes (`CpuExecutable`, `CudaProgram`)."""


def available_passes() -> dict:
    """xDSL's passes plus gradir's, by CLI name."""
    from xdsl.transforms import get_all_passes

    return get_all_passes() | gradir_passes()


def lower_to_linalg(source, ctx: Context | None = None, checkpoint_every: int = 0) -> ModuleOp:
    """Parse/clone `source`, verify it, and run the `linalg` pipeline's passes on
    it (`checkpoint_every`: the `autodiff-reverse` option, for loops)."""
    ctx = ctx or make_context()
    with stage("parse"):
        module = load_module(source, ctx)
    with stage("verify"):
        verify_module(module)

    def verify_after(previous, module, _next):
        if previous is not None:
            verify_module(module, f"after pass '{previous.name}'")

    options = {"autodiff-reverse": {"checkpoint_every": checkpoint_every}}
    run_xdsl_passes(ctx, module, LINALG_PASSES, available_passes(), verify_after, options)
    return module


def compile(source, target: str = "cpu", checkpoint_every: int = 0, **options):
    """Compile an autodiff program for `target` ("cpu", or "cuda", also spelled "gpu" as
    in the CLI's `--pipeline gpu`).

    `checkpoint_every=k` makes reverse-mode `scf.for` loops save their state
    every k iterations and recompute in between instead of caching every
    iteration (see `autodiff-reverse{checkpoint-every=k}`).

    `cpu` returns a `CpuExecutable` (`exe.name(*arrays)`: one result itself, several as a
    tuple; `.call(name, *arrays)`: always a tuple);
    `cuda` returns a `CudaProgram` (`.ptx`, `.host_module`, `.launch_configs`,
    `.call`, which needs a CUDA driver)."""
    if target == "gpu":
        target = "cuda"  # the CLI's name (`--pipeline gpu`) for the same target
    if not isinstance(target, str) or target not in TARGETS:
        raise PipelineError(f"unknown target {target!r} (valid targets: {', '.join(TARGETS)})")
    checkpoint_every = checked_integer("checkpoint_every", checkpoint_every, minimum=0)
    unknown = sorted(set(options) - set(TARGET_OPTIONS[target]))
    if unknown:
        raise ArgumentError(
            f"unknown option {unknown[0]!r} for target '{target}' "
            f"(valid: {', '.join(TARGET_OPTIONS[target])})"
        )
    module = lower_to_linalg(source, checkpoint_every=checkpoint_every)
    with stage("verify"):
        refuse_recursion(module)  # calls keep the user's locations; the first cycle is the user's
        refuse_external_calls(module)
        refuse_unrunnable_ops(module)
        refuse_writes_to_read_only_memory(module)
    if target == "cpu":
        from gradir.cpu_backend.cpu_runtime import CpuExecutable

        return CpuExecutable(module, **options)
    from gradir.gpu_backend.cuda_program import CudaProgram

    return CudaProgram(module, **options)
