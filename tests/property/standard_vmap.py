"""Batches of generated standard-MLIR programs (`standard_programs.py`): `autodiff.vmap` of
each program against a loop of the same compiled program over the examples, and the vmap of
its vjp against a loop of the compiled vjp, in f64 (the program promoted) through the real
CPU pipeline. The `SIZE` examples have their own safe inputs (`standard_programs.examples`),
so each takes its own branches, trip counts and gathered indices: what the batching rules
of `scf.if`, `scf.while`, `scf.for` and gathers must keep apart per lane.

    python standard_vmap.py SEED [SEED ...]

compiles the batch into one module (program by program where that fails, to name the
culprit) and prints one `RESULT {json}` line per program: status `ok` (its report says when
the program has one safe input only, batched as copies), `refused` (a located `vmap of ...
is not supported`: a failure in the test, which lists none), `wrong` (the batched values or
gradients differ from the loop's), `vacuous` (different examples gave the same values:
lanes mixed up would not show), or `error`.
"""

from __future__ import annotations

import json
import sys
import traceback

import numpy as np

SIZE = 3
RTOL, ATOL = 1e-12, 1e-14
"""The batched code and the loop run the same f64 arithmetic per example."""
DIFFERENT = 1e-6
"""Examples whose values differ by less than this would hide lanes mixed up."""


def batched_type(type_: str) -> str:
    """A batch of `SIZE` values of `type_`: a scalar's is a vector."""
    return f"tensor<{SIZE}x{type_[len('tensor<') :] if type_.startswith('tensor<') else type_ + '>'}"


def _signature(name: str, arguments: list[str], results: list[str]) -> str:
    params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(arguments))
    return f"func.func @{name}({params}) -> ({', '.join(results)}) {{"


def _operands(count: int) -> str:
    return ", ".join(f"%a{k}" for k in range(count))


def wrappers(name: str, inputs: list[str], outputs: list[str]) -> str:
    """`@vjp_<name>` (the program's vjp with respect to every argument) and the vmaps of
    the program and of its vjp over every argument (and cotangent): float scalars are
    batched as vectors, as `autodiff.vmap` takes them."""
    types = inputs + outputs
    wrt = ", ".join(str(k) for k in range(len(inputs)))
    vjp = (
        f"autodiff.vjp @{name}({_operands(len(types))}) {{wrt = array<i64: {wrt}>}}"
        f" : ({', '.join(types)}) -> ({', '.join(outputs + inputs)})"
    )
    gradients = ", ".join(f"%g#{len(outputs) + k}" for k in range(len(inputs)))
    lines = [
        _signature(f"vjp_{name}", types, inputs),
        f"  %g:{len(outputs) + len(inputs)} = {vjp}",
        f"  func.return {gradients} : {', '.join(inputs)}",
        "}",
    ]
    for function, arguments_, results_ in ((name, inputs, outputs), (f"vjp_{name}", types, inputs)):
        batched_in = [batched_type(t) for t in arguments_]
        batched_out = [batched_type(t) for t in results_]
        in_axes = ", ".join("0" for _ in arguments_)
        out_axes = ", ".join("0" for _ in results_)
        vmap = (
            f"autodiff.vmap @{function}({_operands(len(arguments_))}) {{in_axes = array<i64: {in_axes}>,"
            f" out_axes = array<i64: {out_axes}>, size = {SIZE} : i64}}"
            f" : ({', '.join(batched_in)}) -> ({', '.join(batched_out)})"
        )
        lines += [
            _signature(f"vmap_{function}", batched_in, batched_out),
            f"  %v:{len(results_)} = {vmap}",
            f"  func.return {', '.join(f'%v#{k}' for k in range(len(results_)))} : {', '.join(batched_out)}",
            "}",
        ]
    return "\n".join(lines) + "\n"


def module_text(programs) -> str:
    """The programs, promoted to f64, with their wrappers."""
    from xdsl.dialects.func import FuncOp

    from gradir.gradient_check import promote_to_f64
    from gradir.source import load_module

    module = promote_to_f64(load_module("".join(p.text for p in programs)))
    text = str(module).rstrip()
    assert text.endswith("}")
    extra = []
    for function in module.ops:
        assert isinstance(function, FuncOp)
        inputs = [str(t) for t in function.function_type.inputs.data]
        outputs = [str(t) for t in function.function_type.outputs.data]
        extra.append(wrappers(function.sym_name.data, inputs, outputs))
    return text[:-1] + "".join(extra) + "}\n"


def _mismatch(what: str, got, want) -> str | None:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"{what}: shape {got.shape}, the loop's {want.shape}"
    if not np.allclose(got, want, rtol=RTOL, atol=ATOL):
        error = np.max(np.abs(got - want))
        return f"{what}: batched {got.tolist()}, loop {want.tolist()} (max error {error:.3g})"
    return None


def check_program(executable, program, examples) -> dict:
    name = program.name
    arguments = [[np.asarray(a, dtype=np.float64) for a in inputs] for inputs, _ in examples]
    stacked = [np.stack([example[k] for example in arguments]) for k in range(len(arguments[0]))]
    batched = executable.call(f"vmap_{name}", *stacked)
    loop = [executable.call(name, *example) for example in arguments]
    for k, got in enumerate(batched):
        problem = _mismatch(f"result {k}", got, np.stack([values[k] for values in loop]))
        if problem:
            return {"status": "wrong", "report": problem}
    for e, (_, outputs) in enumerate(examples):  # the loop itself against the generator's NumPy
        for k, want in enumerate(outputs):
            if not np.allclose(loop[e][k], want, rtol=1e-9, atol=1e-12):
                return {"status": "error", "report": f"example {e} result {k}: compiled {loop[e][k]}, NumPy {want}"}
    # A program with a single safe input (`examples` repeats it) is batched as copies: checked
    # against the loop all the same, but lanes mixed up would not show; said in the report.
    copies = all(all(np.array_equal(a, b) for a, b in zip(arguments[0], other)) for other in arguments[1:])
    if not copies and not any(np.ptp(np.asarray(got), axis=0).max(initial=0.0) > DIFFERENT for got in batched):
        return {"status": "vacuous", "report": "every example gave the same values"}
    rng = np.random.default_rng(program.seed)
    cotangents = [[rng.standard_normal(np.shape(v)) for v in values] for values in loop]
    batched_cotangents = [np.stack([c[k] for c in cotangents]) for k in range(len(loop[0]))]
    gradients = executable.call(f"vmap_vjp_{name}", *stacked, *batched_cotangents)
    per_example = [executable.call(f"vjp_{name}", *a, *c) for a, c in zip(arguments, cotangents)]
    for k, got in enumerate(gradients):
        problem = _mismatch(f"gradient {k}", got, np.stack([g[k] for g in per_example]))
        if problem:
            return {"status": "wrong", "report": problem}
    return {"status": "ok", "report": "one safe input only: the examples are copies of it" if copies else ""}


def _compiled(programs):
    import gradir

    # Only what the check calls is compiled for itself (the derived helpers only where inlined).
    called = [name for p in programs for name in (p.name, f"vmap_{p.name}", f"vjp_{p.name}", f"vmap_vjp_{p.name}")]
    return gradir.compile(module_text(programs), target="cpu", opt_level=0, functions=called)


def check_batch(seeds: list[int], generator=None) -> list[dict]:
    """The programs of `seeds` from `generator` (a module with `generate` and `examples`;
    `standard_programs` unless given) checked batched."""
    from gradir.autodiff_pass.batch_builder import VmapError
    from gradir.tools.cli import one_line_message

    if generator is None:
        import standard_programs as generator

    programs = [generator.generate(seed) for seed in seeds]
    try:
        shared = _compiled(programs)
        per_program = {p.name: shared for p in programs}
    except Exception:  # noqa: BLE001 - find which programs do not compile
        per_program = {}
        for program in programs:
            try:
                per_program[program.name] = _compiled([program])
            except Exception as error:  # noqa: BLE001 - reported per program, as a status
                per_program[program.name] = error
    results = []
    for program in programs:
        compiled = per_program[program.name]
        if isinstance(compiled, VmapError):
            outcome = {"status": "refused", "report": one_line_message(compiled)}
        elif isinstance(compiled, Exception):
            outcome = {"status": "error", "report": f"{type(compiled).__name__}: {compiled}"}
        else:
            try:
                outcome = check_program(compiled, program, generator.examples(program.seed, SIZE))
            except Exception as error:  # noqa: BLE001 - reported per program, as a status
                outcome = {"status": "error", "report": "".join(traceback.format_exception(error))[-3000:]}
        outcome.update(seed=program.seed, features=sorted(program.features))
        results.append(outcome)
    return results


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    for outcome in check_batch([int(s) for s in sys.argv[1:]]):
        print("RESULT " + json.dumps(outcome), flush=True)
