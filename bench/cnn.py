"""CPU benchmark: the gradient of a LeNet-5 training loss (batch 64, 28x28x1
images, integer labels) with gradir, PyTorch eager, torch.compile and JAX
`jit(grad)`, on one thread and on all of the machine's threads, in one run.

    python bench/cnn.py [--batch 64] [--repeats 30] [--no-write]

The program is examples/cnn/lenet.py's (written as torch-mlir lowers the
module: NCHW `linalg.conv_2d_nchw_fchw`, `tensor.pad`, `linalg.pooling_nchw_max`,
matmuls, log-softmax and an NLL gather; the corpus holds the same program at
batch 4); the PyTorch and JAX functions compute the same loss. Each thread
setting runs in a worker process of its own (XLA reads its thread flags once
per process) pinned to that many cores (`sched_setaffinity`), with every
tool's thread count set to match; gradir's code is single-threaded in both.
In a worker every tool's gradient is first checked against PyTorch eager's,
then calls alternate between the tools (gradir, eager, compiled, JAX,
gradir, ...), so all see the same background load; each tool's time is the
minimum over the repetitions (the median is recorded too). Compile times are
reported apart. Writes bench/results/cnn.json and cnn.md. PyTorch is needed
(the reference); JAX is optional (`pip install -e '.[bench]'`), and a tool
that is missing or fails to compile is reported and skipped.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "cnn"))

from lenet import PARAMETER_SHAPES, lenet, lenet_gradient, torch_loss  # noqa: E402

RESULTS = ROOT / "bench" / "results"
GRADIENT_RTOL = 1e-3
"""Max |ours - torch| per gradient, relative to max |torch gradient| (float32)."""
TOOL_NAMES = {
    "gradir": "gradir",
    "eager": "PyTorch eager",
    "compiled": "torch.compile",
    "jax": "JAX jit(grad)",
}


def problem(batch: int, seed: int = 0) -> dict:
    """Images, labels and PyTorch's default initialisation of the parameters."""
    rng = np.random.default_rng(seed)
    parameters = {}
    for name, shape in PARAMETER_SHAPES.items():
        fan_in = int(np.prod(PARAMETER_SHAPES["w" + name[1:]][1:]))
        bound = 1.0 / np.sqrt(fan_in)
        parameters[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return {
        "x": rng.standard_normal((batch, 1, 28, 28)).astype(np.float32),
        "labels": rng.integers(0, 10, batch).astype(np.int64),
        "parameters": parameters,
    }


# ----------------------------------------------------------------------------
# The tools: each returns (compile seconds, gradient function)
# ----------------------------------------------------------------------------


def gradir_tool(data: dict, threads: int):
    import gradir

    batch = data["x"].shape[0]
    start = time.perf_counter()
    executable = gradir.compile(lenet(batch) + lenet_gradient(batch), target="cpu", num_threads=threads)
    compile_s = time.perf_counter() - start
    arguments = [data["x"], data["labels"], *data["parameters"].values()]

    def gradient():
        return executable.call("lenet_grad", *arguments)

    return compile_s, gradient


def _torch_arguments(data: dict, threads: int):
    import torch

    torch.set_num_threads(threads)
    x, labels = torch.from_numpy(data["x"]), torch.from_numpy(data["labels"])
    parameters = [torch.from_numpy(p.copy()).requires_grad_() for p in data["parameters"].values()]
    return torch, x, labels, parameters


def eager_tool(data: dict, threads: int):
    torch, x, labels, parameters = _torch_arguments(data, threads)

    def gradient():
        loss = torch_loss(torch, x, labels, *parameters)
        return [g.numpy() for g in torch.autograd.grad(loss, parameters)]

    return 0.0, gradient


def compiled_tool(data: dict, threads: int):
    """torch.compile (Inductor, C++ kernels on the CPU) of the loss; its backward is
    compiled too (AOTAutograd) and runs from `torch.autograd.grad`."""
    torch, x, labels, parameters = _torch_arguments(data, threads)
    loss_function = torch.compile(lambda *p: torch_loss(torch, x, labels, *p), fullgraph=True)

    def gradient():
        return [g.numpy() for g in torch.autograd.grad(loss_function(*parameters), parameters)]

    start = time.perf_counter()
    gradient()
    return time.perf_counter() - start, gradient


def jax_tool(data: dict, threads: int):
    import jax
    import jax.numpy as jnp

    def loss(parameters, x, labels):
        w1, b1, w2, b2, w3, b3, w4, b4, w5, b5 = parameters

        def conv(h, w, b, padding):
            out = jax.lax.conv_general_dilated(h, w, (1, 1), [(padding, padding)] * 2,
                                               dimension_numbers=("NCHW", "OIHW", "NCHW"))
            return out + b[None, :, None, None]

        def pool(h):
            return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        h = pool(jax.nn.relu(conv(x, w1, b1, 2)))
        h = pool(jax.nn.relu(conv(h, w2, b2, 0))).reshape(x.shape[0], -1)
        h = jax.nn.relu(h @ w3.T + b3)
        h = jax.nn.relu(h @ w4.T + b4)
        logp = jax.nn.log_softmax(h @ w5.T + b5, axis=1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    gradient_jit = jax.jit(jax.grad(loss))
    parameters = [jnp.asarray(p) for p in data["parameters"].values()]
    x, labels = jnp.asarray(data["x"]), jnp.asarray(data["labels"])
    start = time.perf_counter()
    jax.block_until_ready(gradient_jit(parameters, x, labels))
    compile_s = time.perf_counter() - start

    def gradient():
        return [np.asarray(g) for g in jax.block_until_ready(gradient_jit(parameters, x, labels))]

    return compile_s, gradient


TOOLS = {"gradir": gradir_tool, "eager": eager_tool, "compiled": compiled_tool, "jax": jax_tool}


def gradient_error(gradients, reference) -> float:
    worst = 0.0
    for name, ours, theirs in zip(PARAMETER_SHAPES, gradients, reference):
        ours = np.asarray(ours, dtype=np.float64)
        if ours.shape != theirs.shape:
            raise AssertionError(f"d{name} has shape {ours.shape}, expected {theirs.shape}")
        worst = max(worst, float(np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-30)))
    return worst


# ----------------------------------------------------------------------------
# One thread setting (a worker process)
# ----------------------------------------------------------------------------


def _limit_threads(threads: int) -> None:
    """Before any tool is imported: pin this process to `threads` cores and tell
    every runtime (OpenMP, MKL, XLA's Eigen pool) to use that many."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:threads])
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GRADIR_NUM_THREADS"):
        os.environ[variable] = str(threads)
    flags = f"--xla_cpu_multi_thread_eigen={'true' if threads > 1 else 'false'}"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flags}".strip()


def run_worker(batch: int, repeats: int, threads: int) -> dict:
    _limit_threads(threads)
    data = problem(batch)
    gradients, results = {}, {}
    for name, make in TOOLS.items():
        try:
            compile_s, gradient = make(data, threads)
        except Exception as error:  # noqa: BLE001 - a missing or failing tool is reported, not fatal
            results[name] = {"skipped": f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"}
            continue
        gradients[name] = gradient
        results[name] = {"compile_s": compile_s}
    if "eager" not in gradients:
        raise SystemExit(f"PyTorch is needed as the reference: {results['eager']['skipped']}")
    reference = [np.asarray(g, dtype=np.float64) for g in gradients["eager"]()]
    for name, gradient in gradients.items():
        error = gradient_error(gradient(), reference)
        results[name]["gradient_error"] = error
        if error > GRADIENT_RTOL:
            raise AssertionError(f"{name}'s gradient differs from PyTorch's: relative error {error:.2e}")
    times: dict[str, list[float]] = {name: [] for name in gradients}
    for _ in range(repeats):
        for name, gradient in gradients.items():
            start = time.perf_counter()
            gradient()
            times[name].append(time.perf_counter() - start)
    for name, measured in times.items():
        results[name].update(min_s=min(measured), median_s=float(np.median(measured)), repetitions=len(measured))
    return results


# ----------------------------------------------------------------------------
# The run: one worker per thread setting, then the table
# ----------------------------------------------------------------------------


def environment() -> dict:
    versions = {}
    for module in ("torch", "jax", "xdsl"):
        try:
            versions[module] = str(__import__(module).__version__)
        except Exception:  # noqa: BLE001 - not installed
            versions[module] = None
    return {"machine": platform.machine(), "processor": platform.processor() or None,
            "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
            "python": platform.python_version(), **versions}  # fmt: skip


def markdown(batch: int, runs: dict[int, dict], env: dict) -> str:
    repetitions = next(iter(runs.values()))["gradir"].get("repetitions", "?")
    lines = [
        "# LeNet-5 gradient on the CPU (bench/cnn.py)",
        "",
        f"Generated by `python bench/cnn.py`. The gradient of the LeNet-5 training loss (examples/cnn/lenet.py: "
        f"two 5x5 convolutions with ReLU and 2x2 max pooling, three linear layers, log-softmax, NLL loss) with "
        f"respect to its ten parameters, batch {batch}, 28x28x1 images, float32. Each thread setting is one "
        f"process pinned to that many cores; calls alternate between the tools; times are the minimum (and "
        f"median) over {repetitions} calls. Every gradient is checked against PyTorch eager's first. gradir's "
        f"code is single-threaded. Ratio: gradir's time over the tool's (below 1: gradir is faster).",
        "",
        "| threads | tool | min ms | median ms | gradir / tool | compile s | max rel. error vs eager |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for threads, results in runs.items():
        ours = results["gradir"].get("min_s")
        for name, result in results.items():
            label = TOOL_NAMES[name]
            if "skipped" in result:
                lines.append(f"| {threads} | {label} | – | – | – | – | skipped: {result['skipped']} |")
                continue
            ratio = f"{ours / result['min_s']:.2f}" if ours else "–"
            lines.append(
                f"| {threads} | {label} | {result['min_s'] * 1e3:.2f} | {result['median_s'] * 1e3:.2f} | {ratio} "
                f"| {result['compile_s']:.1f} | {result['gradient_error']:.1e} |"
            )
    lines += ["", f"Environment: {json.dumps(env)}", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    parser.add_argument("--worker-threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker_threads:
        print(json.dumps(run_worker(args.batch, args.repeats, args.worker_threads)))
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    runs = {}
    for threads in sorted({1, cores}):
        command = [sys.executable, __file__, "--batch", str(args.batch), "--repeats", str(args.repeats),
                   "--worker-threads", str(threads)]  # fmt: skip
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0:
            raise SystemExit(f"the {threads}-thread worker failed:\n{completed.stderr[-3000:]}")
        runs[threads] = json.loads(completed.stdout.strip().splitlines()[-1])
    env = environment()
    text = markdown(args.batch, runs, env)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        record = {"batch": args.batch, "runs": {str(t): r for t, r in runs.items()}, "environment": env}
        (RESULTS / "cnn.json").write_text(json.dumps(record, indent=2) + "\n")
        (RESULTS / "cnn.md").write_text(text)


if __name__ == "__main__":
    main()
