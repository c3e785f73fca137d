#!/usr/bin/env python3
"""Every corpus program through the GPU pipeline: its vjp, and the per-example vmap of its
vjp (`vmap_sweep.sweep_module_text`: integer arguments batched too, shared where vmap refuses
them per example), compiled with `target="cuda"` and run with the
kernels emulated on the CPU (`CudaProgram.emulate`: the kernel bodies the GPU would run, as
CPU loops), against the same module compiled for the CPU (which `run_corpus.py` checks
against central differences and PyTorch).

Outcome per program and module (`vjp`, `vmap`): `ok`; `refused` (the GPU pipeline, or vmap,
refused it with a one-line error: the error); `n/a` (nothing to differentiate); `wrong`
(the emulated kernels' results differ from the CPU's); `fail` (anything else).

    python tests/corpus/gpu_sweep.py [NAME ...]
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_corpus  # noqa: E402
import vmap_sweep  # noqa: E402

RTOL, ATOL = 1e-9, 1e-12


@dataclass
class GpuResult:
    name: str
    outcomes: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Per module (`vjp`, `vmap`): (outcome, detail)."""


def check(program: run_corpus.Program) -> GpuResult:
    import gradir
    from gradir.autodiff_pass.batch_builder import VmapError
    from gradir.errors import GradirError, InternalError
    from gradir.tools.cli import one_line_message

    result = GpuResult(program.name)
    try:
        modules = vmap_sweep.sweep_module_text(program)
    except LookupError as error:
        result.outcomes = {"vjp": ("n/a", str(error)), "vmap": ("n/a", str(error))}
        return result
    input_specs, result_specs, _ = run_corpus._mlir22_inspect(program)  # noqa: SLF001
    cpu_programs = {}  # source -> its CPU compilation, shared by the functions it holds

    def on_the_cpu(source: str):
        if source not in cpu_programs:
            called = modules.called(program) if source == modules.vmap_text else [program.entry, "__sweep_vjp"]
            cpu_programs[source] = gradir.compile(source, opt_level=vmap_sweep.OPT_LEVEL, functions=called)
        return cpu_programs[source]

    # A result of dynamic shape: its cotangents take the shape the CPU compilation gives it.
    sizing = on_the_cpu(modules.vjp_text) if vmap_sweep.has_dynamic_shape(result_specs) else None
    examples = vmap_sweep.examples_with_cotangents(program, input_specs, result_specs, sizing)
    try:  # both functions in one compilation per target; apart where that fails, to say which
        together = gradir.compile(modules.vmap_text, target="cuda")
    except VmapError:
        together = None
        if modules.batches_integers:  # an offset or a size per example (vmap_sweep's fallback)
            modules = vmap_sweep.sweep_module_text(program, batch_integers=False)
            with contextlib.suppress(GradirError):
                together = gradir.compile(modules.vmap_text, target="cuda")
    except GradirError:
        together = None
    stacked = [
        np.stack([e[k] for e in examples]) if batched else examples[0][k] for k, batched in enumerate(modules.batched)
    ]
    for label, source, function, arguments in (
        ("vjp", modules.vjp_text, "__sweep_vjp", examples[0]),
        ("vmap", modules.vmap_text, "__sweep_vmap", stacked),
    ):
        if together is not None:
            gpu, source = together, modules.vmap_text
        else:
            try:
                gpu = gradir.compile(source, target="cuda")
            except InternalError as error:  # a bug, not a refusal
                result.outcomes[label] = ("fail", f"compiling: {one_line_message(error)}")
                continue
            except GradirError as error:
                result.outcomes[label] = ("refused", one_line_message(error))
                continue
        try:
            got = gpu.emulate(function, *arguments)
            want = on_the_cpu(source).call(function, *arguments)
        except Exception as error:  # noqa: BLE001 - reported as this program's failure
            result.outcomes[label] = ("fail", f"running: {type(error).__name__}: {error}")
            continue
        problems = [
            run_corpus._mismatch(f"result {k}", g, w, RTOL, ATOL)  # noqa: SLF001
            for k, (g, w) in enumerate(zip(got, want))
        ]
        problem = next((p for p in problems if p), None)
        if len(got) != len(want):
            problem = f"{len(got)} results on the GPU, {len(want)} on the CPU"
        result.outcomes[label] = ("wrong", problem) if problem else ("ok", "")
    return result


def main(argv: list[str]) -> int:
    results = [check(program) for program in run_corpus.discover(argv or None)]
    for result in results:
        cells = "  ".join(f"{label}: {outcome:8s}" for label, (outcome, _) in result.outcomes.items())
        details = "; ".join(f"{label}: {detail}" for label, (_, detail) in result.outcomes.items() if detail)
        print(f"{result.name:36s} {cells} {details[:160]}")
    bad = [r.name for r in results if any(o in ("wrong", "fail") for o, _ in r.outcomes.values())]
    print(f"{len(results)} programs; wrong or failed: {', '.join(bad) or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
