"""ADBench GMM: objective and gradient times for gradir (CPU), PyTorch eager and JAX.

    python bench/adbench_gmm.py                      # every size, every tool found
    python bench/adbench_gmm.py --sizes 2,5,1000 --tools gradir,torch
    python bench/adbench_gmm.py --data path/to/adbench/data/gmm   # ADBench's own files

Protocol. For each (d, K, n) one set of inputs (ADBench's generator and seed, or
its file `<data>/1k|10k/gmm_d{d}_K{K}.txt`) is shared by every tool. The parent
computes the reference objective and gradient with torch.autograd; each tool
then runs in its own process (own thread settings, a time limit, and a crash
or hang in one tool cannot take the others down), checks its objective and
gradient against that reference, and only then is timed. Compile time (first
call for JAX) is reported apart. Every tool gets the same thread count (default
1: the gradir CPU runtime is single-threaded). Times are the minimum over
repetitions capped by count and by a time budget (so the whole run stays
well under 15 minutes on 2 cores); objective and gradient calls alternate,
so both see the same background load and their ratio holds on a shared machine.

Results go to bench/results/adbench_gmm.json; then bench/plot_gmm.py rewrites
the table in bench/RESULTS.md and the plot bench/results/gmm.png.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "gmm"))

from gmm_data import GMMInstance, generate_gmm_instance, read_gmm_instance  # noqa: E402

RESULTS_JSON = ROOT / "bench" / "results" / "adbench_gmm.json"
DEFAULT_SIZES = [
    (2, 5, 1000), (10, 25, 1000), (20, 50, 1000), (64, 200, 1000),
    (2, 5, 10000), (10, 25, 10000), (20, 50, 10000),
]  # fmt: skip
TOOLS = ("gradir", "torch", "jax")
GRADIENT_RTOL = 1e-8
"""Max |ours - torch| over the gradient, relative to max |torch gradient|."""
OBJECTIVE_RTOL = 1e-10


# ----------------------------------------------------------------------------
# Timing and checking (used inside the workers)
# ----------------------------------------------------------------------------


def measure(
    objective, gradient, budget_s: float, max_repetitions: int, min_repetitions: int = 2
) -> tuple[dict, dict]:
    """Time `objective` and `gradient` (already warmed up) in alternation until the budget
    (for both together) or the repetition cap is spent. Alternating makes both see the
    same background load, so their ratio holds on a shared machine."""
    times: dict[str, list[float]] = {"objective": [], "gradient": []}
    start = time.perf_counter()
    while len(times["gradient"]) < max_repetitions:
        for name, function in (("objective", objective), ("gradient", gradient)):
            before = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - before)
        if len(times["gradient"]) >= min_repetitions and time.perf_counter() - start > budget_s:
            break
    return tuple(
        {"min_s": min(ts), "median_s": float(np.median(ts)), "repetitions": len(ts)}
        for ts in (times["objective"], times["gradient"])
    )


def check(value, gradients, reference: dict) -> dict:
    """Errors of one tool's objective and gradient against the torch reference."""
    objective_error = abs(float(value) - reference["value"]) / max(1.0, abs(reference["value"]))
    gradient_error = 0.0
    for name, ours in zip(("alphas", "means", "icf"), gradients):
        theirs = reference[f"d_{name}"]
        ours = np.asarray(ours, dtype=np.float64)
        if ours.shape != theirs.shape:
            raise AssertionError(f"d {name} has shape {ours.shape}, expected {theirs.shape}")
        scale = max(1.0, float(np.abs(theirs).max()))
        gradient_error = max(gradient_error, float(np.abs(ours - theirs).max()) / scale)
    ok = objective_error <= OBJECTIVE_RTOL and gradient_error <= GRADIENT_RTOL
    return {"objective_error": objective_error, "gradient_error": gradient_error, "correct": bool(ok)}


# ----------------------------------------------------------------------------
# Workers: one tool, one size, in a fresh process
# ----------------------------------------------------------------------------


def run_gradir(problem: dict, options) -> dict:
    import gradir
    from gmm import gmm_program

    d, k, n = problem["d"], problem["k"], problem["n"]
    start = time.perf_counter()
    source = gmm_program(d, k, n, problem["gamma"], problem["m"])
    generate_s = time.perf_counter() - start
    start = time.perf_counter()
    executable = gradir.compile(source, target="cpu", num_threads=options.threads)
    compile_s = time.perf_counter() - start
    arguments = [problem[name] for name in ("alphas", "means", "icf", "x")]

    def objective():
        return executable.call("gmm_objective", *arguments)[0]

    def gradient():
        return executable.call("gmm_gradient", *arguments)

    return {
        "compile_s": compile_s,
        "mlir_llvm_compile_s": executable.compile_seconds,
        "program_generation_s": generate_s,
        "program_chars": len(source),
        **timed(objective, gradient, problem, options),
    }


def run_torch(problem: dict, options) -> dict:
    import torch
    from gmm_reference import gmm_objective_torch

    torch.set_num_threads(options.threads)
    x = torch.from_numpy(problem["x"])
    parameters = [torch.from_numpy(problem[name]).requires_grad_() for name in ("alphas", "means", "icf")]
    gamma, m = problem["gamma"], problem["m"]

    def objective():
        with torch.no_grad():
            return gmm_objective_torch(*parameters, x, gamma, m).item()

    def gradient():
        value = gmm_objective_torch(*parameters, x, gamma, m)
        return [g.numpy() for g in torch.autograd.grad(value, parameters)]

    return {"compile_s": 0.0, "threads": torch.get_num_threads(), **timed(objective, gradient, problem, options)}


def gmm_objective_jax(alphas, means, icf, x, gamma, m, constant):
    """The objective in jax.numpy, written as a JAX user would (scatter by index arrays)."""
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp
    from gmm_reference import lower_triangle_indices

    k, d = means.shape
    n = x.shape[0]
    log_diagonal = icf[:, :d]
    rows, columns = lower_triangle_indices(d)
    factors = jnp.zeros((k, d, d), icf.dtype).at[:, rows, columns].set(icf[:, d:])
    factors = factors + jnp.exp(log_diagonal)[:, :, None] * jnp.eye(d)
    mahalanobis = jnp.einsum("krc,ic->ikr", factors, x) - jnp.einsum("krc,kc->kr", factors, means)
    inner = alphas + log_diagonal.sum(axis=1) - 0.5 * (mahalanobis**2).sum(axis=2)
    main = logsumexp(inner, axis=1).sum() - n * logsumexp(alphas)
    frobenius = (jnp.exp(log_diagonal) ** 2).sum() + (icf[:, d:] ** 2).sum()
    return main + 0.5 * gamma * gamma * frobenius - m * log_diagonal.sum() + constant


def run_jax(problem: dict, options) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    from gmm_reference import objective_constant

    d, k, n = problem["d"], problem["k"], problem["n"]
    constant = objective_constant(d, k, n, problem["gamma"], problem["m"])
    arguments = [jax.numpy.asarray(problem[name]) for name in ("alphas", "means", "icf", "x")]

    def loss(alphas, means, icf, x):
        return gmm_objective_jax(alphas, means, icf, x, problem["gamma"], problem["m"], constant)

    objective_jit = jax.jit(loss)
    gradient_jit = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))
    start = time.perf_counter()
    objective_jit(*arguments).block_until_ready()
    jax.block_until_ready(gradient_jit(*arguments))
    compile_s = time.perf_counter() - start

    def objective():
        return float(objective_jit(*arguments))

    def gradient():
        return [np.asarray(g) for g in jax.block_until_ready(gradient_jit(*arguments))]

    return {"compile_s": compile_s, "version": jax.__version__, **timed(objective, gradient, problem, options)}


def timed(objective, gradient, problem: dict, options) -> dict:
    """Warm up, check against the reference, then time; timing is skipped when wrong."""
    value = objective()
    gradients = gradient()
    errors = check(value, gradients, problem["reference"])
    if not errors["correct"]:
        return errors
    objective_time, gradient_time = measure(objective, gradient, options.budget, options.repetitions)
    return {
        **errors,
        "objective": objective_time,
        "gradient": gradient_time,
        "ratio": gradient_time["min_s"] / objective_time["min_s"],
    }


WORKERS = {"gradir": run_gradir, "torch": run_torch, "jax": run_jax}


def worker_main(options) -> None:
    with np.load(options.worker_input) as data:
        problem = {name: data[name] for name in data.files}
    reference = {name[len("reference_"):]: problem.pop(name) for name in list(problem) if name.startswith("reference_")}
    reference["value"] = float(reference["value"])
    problem["reference"] = reference
    for name in ("d", "k", "n", "m"):
        problem[name] = int(problem[name])
    problem["gamma"] = float(problem["gamma"])
    result = WORKERS[options.worker](problem, options)
    print("RESULT " + json.dumps(result))


# ----------------------------------------------------------------------------
# Parent: inputs, reference, one worker per tool and size
# ----------------------------------------------------------------------------


def load_instance(d: int, k: int, n: int, data_dir: str | None) -> tuple[GMMInstance, str]:
    if data_dir:
        folder = {1000: "1k", 10000: "10k"}.get(n)
        path = pathlib.Path(data_dir) / (folder or "") / f"gmm_d{d}_K{k}.txt"
        if path.exists():
            return read_gmm_instance(path), str(path)
    return generate_gmm_instance(d, k, n), "generated (ADBench distributions, seed 31337)"


def reference_gradient(instance: GMMInstance) -> dict:
    from gmm_reference import gmm_gradient_torch

    value, d_alphas, d_means, d_icf = gmm_gradient_torch(
        instance.alphas, instance.means, instance.icf, instance.x, instance.gamma, instance.m
    )
    return {"value": value, "d_alphas": d_alphas, "d_means": d_means, "d_icf": d_icf}


def environment(threads: int) -> dict:
    def version(module: str) -> str | None:
        try:
            return __import__(module).__version__
        except Exception:  # noqa: BLE001 - any failure means "not available"
            return None

    return {
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": version("torch"),
        "jax": version("jax"),
        "threads": threads,
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def run_worker(tool: str, problem_path: str, options) -> dict:
    command = [
        sys.executable, __file__, "--worker", tool, "--worker-input", problem_path,
        "--threads", str(options.threads), "--budget", str(options.budget),
        "--repetitions", str(options.repetitions),
    ]  # fmt: skip
    threads = str(options.threads)
    env = dict(
        os.environ, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads,
        GRADIR_NUM_THREADS=threads,
    )  # fmt: skip
    if options.threads == 1:  # XLA has no thread-count flag; this keeps its CPU ops on one thread
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    try:
        completed = subprocess.run(command, capture_output=True, text=True, timeout=options.timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {options.timeout} s"}
    for line in completed.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    lines = (completed.stderr or completed.stdout).strip().splitlines()
    return {"error": lines[-1] if lines else f"exit status {completed.returncode}"}


def tool_available(tool: str) -> bool:
    if tool == "gradir":
        return True
    probe = subprocess.run([sys.executable, "-c", f"import {tool}"], capture_output=True)
    return probe.returncode == 0


def describe(tool: str, result: dict) -> str:
    if "error" in result:
        return f"{tool}: FAILED ({result['error']})"
    if not result["correct"]:
        return f"{tool}: WRONG (objective error {result['objective_error']:.2g}, gradient error {result['gradient_error']:.2g})"
    return (
        f"{tool}: objective {result['objective']['min_s'] * 1e3:.3f} ms, gradient "
        f"{result['gradient']['min_s'] * 1e3:.3f} ms, ratio {result['ratio']:.2f}, compile {result['compile_s']:.2f} s"
    )


def main_parent(options) -> None:
    sizes = DEFAULT_SIZES
    if options.sizes:
        sizes = [tuple(int(v) for v in size.split(",")) for size in options.sizes.split(";")]
    tools = [t for t in options.tools.split(",") if t]
    unavailable = [t for t in tools if not tool_available(t)]
    for tool in unavailable:
        print(f"{tool}: not installed, skipped", flush=True)
    tools = [t for t in tools if t not in unavailable]
    started = time.perf_counter()
    runs = []
    with tempfile.TemporaryDirectory() as scratch:
        for d, k, n in sizes:
            instance, origin = load_instance(d, k, n, options.data)
            reference = reference_gradient(instance)
            problem_path = os.path.join(scratch, f"gmm_d{d}_K{k}_n{n}.npz")
            np.savez(
                problem_path, d=d, k=k, n=n, gamma=instance.gamma, m=instance.m,
                alphas=instance.alphas, means=instance.means, icf=instance.icf, x=instance.x,
                **{f"reference_{name}": value for name, value in reference.items()},
            )  # fmt: skip
            print(f"d={d} K={k} n={n} ({instance.parameter_count} parameters; {origin})", flush=True)
            results = {}
            for tool in tools:
                results[tool] = run_worker(tool, problem_path, options)
                print("  " + describe(tool, results[tool]), flush=True)
            runs.append(
                {"d": d, "k": k, "n": n, "parameters": instance.parameter_count, "inputs": origin, "results": results}
            )
    report = {
        "environment": environment(options.threads),
        "protocol": {
            "timing": "min over repetitions after one warm-up call; objective and gradient calls alternate",
            "budget_s": options.budget,
            "max_repetitions": options.repetitions,
            "gradient_rtol": GRADIENT_RTOL,
            "objective_rtol": OBJECTIVE_RTOL,
            "tools_not_installed": unavailable,
        },
        "total_seconds": time.perf_counter() - started,
        "runs": runs,
    }
    output = pathlib.Path(options.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {output} in {report['total_seconds']:.0f} s", flush=True)
    if not options.no_plot:
        sys.path.insert(0, str(ROOT / "bench"))
        import plot_gmm

        plot_gmm.main(["--json", str(output)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", help="'d,K,n;d,K,n;...' (default: the ADBench set above)")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma list from gradir,torch,jax")
    parser.add_argument("--threads", type=int, default=1, help="threads for every tool (default 1)")
    parser.add_argument("--budget", type=float, default=3.0, help="seconds of timing per tool and size")
    parser.add_argument("--repetitions", type=int, default=10, help="at most this many timed calls")
    parser.add_argument("--timeout", type=float, default=240, help="seconds per tool and size")
    parser.add_argument("--data", help="ADBench data/gmm folder (1k/, 10k/); default: generate")
    parser.add_argument("--output", default=str(RESULTS_JSON))
    parser.add_argument("--no-plot", action="store_true", help="do not regenerate RESULTS.md and the PNG")
    parser.add_argument("--worker", choices=TOOLS, help=argparse.SUPPRESS)
    parser.add_argument("--worker-input", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        worker_main(options)
    else:
        main_parent(options)


if __name__ == "__main__":
    main()
