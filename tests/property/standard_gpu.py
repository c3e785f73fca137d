"""Random standard-MLIR programs (`standard_programs.py`) through the GPU pipeline, kernels
emulated on the CPU (`CudaProgram.emulate`), against the CPU pipeline: the program, its vjp
and its jvp (the gradcheck wrappers), in f64. `python tests/property/standard_gpu.py FIRST
COUNT [named]` prints each seed's outcome: ok, refused (the one-line error) or wrong (`named`:
the programs of `named_programs.py`)."""
from __future__ import annotations

import sys

import numpy as np

from standard_programs import Program, generate

RTOL, ATOL = 1e-9, 1e-12


def gradient_module_text(program: Program) -> tuple[str, tuple[int, ...]]:
    """The program promoted to f64 with its `__gradcheck_vjp_/jvp_` wrappers (what
    `gradir.GradChecker` compiles for the CPU), and the arguments they differentiate."""
    from xdsl.dialects.func import FuncOp

    from gradir.gradient_check import _wrapper_functions, checked_wrt, promote_to_f64
    from gradir.source import load_module

    module = promote_to_f64(load_module(program.text))
    callee = next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == program.name)
    wrt = checked_wrt(callee, None)
    text = str(module)
    return text[: text.rstrip().rfind("}")] + _wrapper_functions(callee, wrt) + "}\n", wrt


def check_on_gpu(seed: int, generator=generate) -> tuple[str, str]:
    """(outcome, detail) for the program `generator` (`standard_programs.generate` unless
    given) draws for `seed`: `ok`, `refused` (the GPU pipeline's one-line error) or `wrong`."""
    import gradir

    program = generator(seed)
    text, wrt = gradient_module_text(program)
    # The three functions checked, each compiled for itself; the derived ones only inlined.
    called = [program.name, f"__gradcheck_vjp_{program.name}", f"__gradcheck_jvp_{program.name}"]
    try:
        gpu = gradir.compile(text, target="cuda", functions=called)
    except gradir.PipelineError as error:
        return "refused", str(error)
    cpu = gradir.compile(text, opt_level=0, functions=called)  # the reference: its numbers, not its speed
    inputs = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in program.inputs]
    rng = np.random.default_rng(seed)
    outputs = cpu.call(program.name, *inputs)
    calls = [
        (program.name, []),
        (f"__gradcheck_vjp_{program.name}", [rng.standard_normal(np.shape(o)) for o in outputs]),
        (f"__gradcheck_jvp_{program.name}", [rng.standard_normal(np.shape(inputs[i])) for i in wrt]),
    ]
    for function, extra in calls:
        got, want = gpu.emulate(function, *inputs, *extra), cpu.call(function, *inputs, *extra)
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
            if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
                return "wrong", f"{function} result {k}: max |GPU - CPU| {np.max(np.abs(g - w))}"
    return "ok", ""


if __name__ == "__main__":
    first, count = int(sys.argv[1]), int(sys.argv[2])
    if sys.argv[3:] == ["named"]:
        from named_programs import generate as generator
    else:
        generator = generate
    for seed in range(first, first + count):
        outcome, detail = check_on_gpu(seed, generator)
        print(f"{seed:6d} {outcome:8s} {detail[:150]}", flush=True)
