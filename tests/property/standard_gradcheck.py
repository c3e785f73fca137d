"""Gradchecks generated standard-MLIR programs (`standard_programs.py`), a
batch at a time, in a child process, so that a crash or a hang inside MLIR or
the JIT fails one batch instead of the test session.

    python standard_gradcheck.py SEED [SEED ...]

compiles the programs of those seeds into one module (one JIT compile for the
batch; a batch that does not compile is compiled program by program to name
the culprit) and prints one `RESULT {json}` line per program. Per program:

- the compiled outputs equal the generator's NumPy evaluation (the margins it
  checked are those of this program);
- `gradir.gradcheck`'s comparison (f64, central differences, vjp and jvp)
  passes;
- the check is not vacuous: the vjp gradient of some argument and the jvp
  tangent of some result are not all zero (zero against zero proves nothing);
- a program with dynamic sizes does the same at its `other_sizes`.
"""

from __future__ import annotations

import json
import sys
import traceback

import numpy as np

NONZERO = 1e-4
"""A derivative this large is checked meaningfully: ten times gradcheck's atol (1e-5), so a
wrong one cannot pass as within tolerance of zero. (At 1e-3, the long fuzz run's seed
771138 was called vacuous for a tangent of 4.6e-4 that matched to 3.5e-14.)"""
FORWARD_RTOL = 1e-9


def check_program(checker, program) -> dict:
    name = program.name
    exe = checker.executable
    outputs = exe.call(name, *program.inputs)
    for position, (got, expected) in enumerate(zip(outputs, program.expected)):
        if not np.allclose(got, expected, rtol=FORWARD_RTOL, atol=1e-12):
            return {"status": "forward", "report": f"result {position}: compiled {np.asarray(got).tolist()}, "
                    f"NumPy {np.asarray(expected).tolist()}"}  # fmt: skip
    # Arguments that do not matter are common in random programs: vacuity is judged below,
    # over the whole program (some gradient and some tangent must be non-zero).
    result = checker.check(name, program.inputs, seed=program.seed, allow_vacuous=True)
    if not result.ok:
        return {"status": "mismatch", "report": result.report()}
    for inputs, expected in program.other_sizes:
        # The same compiled code at another size of a dynamic dimension.
        where = f"at input shapes {[np.shape(x) for x in inputs]}"
        for position, (got, want) in enumerate(zip(exe.call(name, *inputs), expected)):
            if np.shape(got) != np.shape(want) or not np.allclose(got, want, rtol=FORWARD_RTOL, atol=1e-12):
                return {"status": "forward", "report": f"{where}, result {position}: compiled "
                        f"{np.asarray(got).tolist()}, NumPy {np.asarray(want).tolist()}"}  # fmt: skip
        other = checker.check(name, inputs, seed=program.seed, allow_vacuous=True)
        if not other.ok:
            return {"status": "mismatch", "report": f"{where}:\n{other.report()}"}
    # Cotangents away from zero (a small one would make a live gradient look dead),
    # of random signs (ones could cancel two results' contributions).
    rng = np.random.default_rng(program.seed)
    cotangents = [rng.choice([-1.0, 1.0], np.shape(o)) * rng.uniform(0.5, 1.5, np.shape(o)) for o in outputs]
    gradients = exe.call(f"__gradcheck_vjp_{name}", *program.inputs, *cotangents)[len(outputs) :]
    tangents = [rng.standard_normal(np.shape(program.inputs[i])) for i in checker.wrt[name]]
    derivatives = exe.call(f"__gradcheck_jvp_{name}", *program.inputs, *tangents)[len(outputs) :]
    gradient_sizes = [float(np.max(np.abs(g), initial=0.0)) for g in gradients]
    tangent_sizes = [float(np.max(np.abs(t), initial=0.0)) for t in derivatives]
    nonzero_gradients = sum(size > NONZERO for size in gradient_sizes)
    nonzero_tangents = sum(size > NONZERO for size in tangent_sizes)
    status = "ok" if nonzero_gradients and nonzero_tangents else "vacuous"
    return {
        "status": status,
        "report": result.report(),
        "arguments": len(gradients),
        "nonzero_gradients": nonzero_gradients,
        "results": len(derivatives),
        "nonzero_tangents": nonzero_tangents,
        "gradient_sizes": gradient_sizes,
        "tangent_sizes": tangent_sizes,
    }


def compile_checker(programs):
    """One module for the batch. `GRADIR_STANDARD_CHECKPOINT=k` reverses the loops
    with `checkpoint-every=k` (recomputing segments instead of caching every state);
    `GRADIR_STANDARD_BRANCHES=1` checks the programs written with branches between blocks
    (`with_branches`)."""
    import os

    from gradir.gradient_check import GradChecker

    checkpoint_every = int(os.environ.get("GRADIR_STANDARD_CHECKPOINT", "0"))
    text = "".join(with_branches(p.text) if branches() else p.text for p in programs)
    return GradChecker(text, [(p.name, None) for p in programs], checkpoint_every)


def branches() -> bool:
    import os

    return os.environ.get("GRADIR_STANDARD_BRANCHES", "0") == "1"


def with_branches(text: str) -> str:
    """`text` with its `scf` control flow rewritten by MLIR 22's `convert-scf-to-cf`
    (loop states as block arguments, `cf.cond_br` between blocks), what gradir's
    `lift-control-flow` turns back; MLIR's error where it cannot (an `scf.if` inside a
    `linalg.generic` body, which has one block)."""
    from mlir import ir, passmanager

    context = ir.Context()
    module = ir.Module.parse(text, context)
    passmanager.PassManager.parse("builtin.module(convert-scf-to-cf)", context).run(module.operation)
    return "\n".join(str(op) for op in module.body.operations) + "\n"


def check_batch(seeds: list[int]) -> list[dict]:
    from standard_programs import generate

    programs = [generate(seed) for seed in seeds]
    if branches():
        results = []
        for program in list(programs):
            try:
                rewritten = with_branches(program.text)
            except Exception as error:  # noqa: BLE001 -- reported per program, as a status
                reason = f"{type(error).__name__}: {str(error).splitlines()[0]}"
            else:
                if "cf.cond_br" in rewritten or "cf.br" in rewritten:
                    continue
                reason = "no scf control flow to rewrite"
            programs.remove(program)
            results.append({"status": "not rewritten", "report": reason, "seed": program.seed,
                            "features": sorted(program.features)})  # fmt: skip
        return results + (check_programs(programs) if programs else [])
    return check_programs(programs)


def check_programs(programs) -> list[dict]:
    try:
        shared = compile_checker(programs)
        per_program = {p.name: shared for p in programs}
    except Exception:  # find which programs do not compile
        per_program = {}
        for program in programs:
            try:
                per_program[program.name] = compile_checker([program])
            except Exception as error:
                per_program[program.name] = error
    results = []
    for program in programs:
        checker = per_program[program.name]
        if isinstance(checker, Exception):
            outcome = {"status": "error", "report": f"{type(checker).__name__}: {checker}"}
        else:
            try:
                outcome = check_program(checker, program)
            except Exception as error:
                outcome = {"status": "error", "report": "".join(traceback.format_exception(error))[-3000:]}
        outcome.update(seed=program.seed, features=sorted(program.features))
        results.append(outcome)
    return results


def run_batch_in_child(
    seeds: list[int], cpu_seconds: float, script: str = __file__, options: tuple[str, ...] = ()
) -> tuple[list[dict], str]:
    """`check_batch(seeds)` of `script` (this file's, or `standard_vmap.py`'s, given
    `options` such as `--dynamic`) in a child process: its results, and what went wrong
    when it crashed or ran out of time (empty when it finished)."""
    import resource
    import subprocess

    def limit_cpu_time() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds), int(cpu_seconds) + 5))

    command = [sys.executable, script, *options, *map(str, seeds)]
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=5 * cpu_seconds, preexec_fn=limit_cpu_time
        )
    except subprocess.TimeoutExpired:
        return [], f"no result after {5 * cpu_seconds:.0f} s (a hang?)"
    results = [
        json.loads(line[len("RESULT ") :]) for line in completed.stdout.splitlines() if line.startswith("RESULT ")
    ]
    if completed.returncode != 0 or len(results) != len(seeds):
        return results, (
            f"the batch crashed (exit status {completed.returncode}; a negative one is a signal) "
            f"after {len(results)} of {len(seeds)} programs:\n{completed.stderr[-3000:]}"
        )
    return results, ""


if __name__ == "__main__":
    for outcome in check_batch([int(s) for s in sys.argv[1:]]):
        print("RESULT " + json.dumps(outcome), flush=True)
