"""LAGrad's MLIR forms of the ADBench GMM and LSTM, differentiated by gradir, against
gradir's own autodiff-dialect programs and PyTorch eager (CPU, float64, one thread).

    python bench/lagrad_forms.py                    # every size below
    python bench/lagrad_forms.py --problem lstm     # one problem
    python bench/lagrad_forms.py --budget 5         # seconds of timing per size

The LAGrad forms are the corpus programs tests/corpus/programs/lagrad_gmm_full.mlir
and lagrad_lstm.mlir (scf.for over points / time steps, linalg.generic bodies,
tensor slices), re-instantiated at benchmark sizes from the templates in
bench/lagrad_templates/ (tests/bench/test_lagrad_forms.py keeps them equal
to the corpus). gradir's own forms are examples/gmm/gmm.py and
examples/lstm/lstm.py. PyTorch runs the corpus references (tests/corpus/references.py)
and, for gradir's own LSTM, bench/lstm.py's `torch_lstm`.

What each computes, on the same inputs:
  * GMM: the same function. LAGrad takes the log-diagonals Qs and full matrices Ls
    where gradir's program takes ADBench's packed icf; with Ls strictly lower
    triangular (zeros elsewhere, what icf holds) the LAGrad objective is gradir's
    minus its constant terms (Gaussian and Wishart normalisers), and its gradients
    w.r.t. Qs and the strictly lower part of Ls are gradir's d icf.
  * LSTM: two different functions of the same inputs. LAGrad's is ADBench's own
    (its C++ and PyTorch versions): the input gate and the change read the layer's
    hidden state, and the prediction is normalised by log(sum(exp(y)) + 2).
    examples/lstm/lstm.py feeds the layer input to all four gates and normalises by
    the stable log-sum-exp. Same op counts; each form is checked against, and
    timed with, the PyTorch function that computes it.

Protocol: for each size one set of inputs; every gradient is checked against
torch.autograd before anything is timed; then the objective and gradient of
every tool are called in turn, round after round, until the time budget is
spent, so all see the same background load on a shared machine (a fast call is
repeated to fill 50 ms of its turn; minimum and median per call). One thread: torch.set_num_threads(1); gradir's runtime is
single-threaded. Compile time is reported apart.

Results: bench/results/lagrad_forms.json and bench/results/lagrad_forms.md.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import platform
import re
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "bench" / "lagrad_templates"
RESULTS = ROOT / "bench" / "results"
for folder in ("examples/gmm", "examples/lstm", "tests/corpus"):
    sys.path.insert(0, str(ROOT / folder))

GMM_SIZES = [(2, 5, 1000), (10, 25, 1000), (20, 50, 1000)]
"""(d, K, n): ADBench's smallest three at n = 1000."""
LSTM_SIZES = [(2, 14, 100), (2, 14, 1024)]
"""(l, b, c): bench/lstm.py's sizes."""
GRADIENT_RTOL = 1e-8
"""Max |ours - torch| over a gradient, relative to max(1, max |torch|)."""
OBJECTIVE_RTOL = 1e-10

# ----------------------------------------------------------------------------
# Templates
# ----------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{\{([^}]*)\}\}")


def program_body(text: str) -> str:
    """`text` without its header: the leading `//` lines and the blank line after them."""
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith("//"):
        start += 1
    if start < len(lines) and not lines[start].strip():
        start += 1
    return "".join(lines[start:])


def instantiate(template: str, **sizes: int) -> str:
    """The program of bench/lagrad_templates/<template>.mlir.in with every
    placeholder replaced: `{{k}}` by sizes["k"], `{{c - 1}}` by sizes["c"] - 1.
    Every size must be used and every placeholder known."""
    values = {name: str(value) for name, value in sizes.items()}
    if "c" in sizes:
        values["c - 1"] = str(sizes["c"] - 1)
    used: set[str] = set()

    def substitute(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"{template}: no size given for placeholder {{{{{name}}}}}")
        used.add(name)
        return values[name]

    body = _PLACEHOLDER.sub(substitute, program_body((TEMPLATES / f"{template}.mlir.in").read_text()))
    unused = set(sizes) - used
    if unused:
        raise KeyError(f"{template}: sizes {sorted(unused)} appear nowhere in the template")
    described = ", ".join(f"{name} = {value}" for name, value in sizes.items())
    return f"// LAGrad's {template} at {described}, from bench/lagrad_templates/{template}.mlir.in\n{body}"


# ----------------------------------------------------------------------------
# Checking and timing
# ----------------------------------------------------------------------------


def gradient_error(ours, theirs) -> float:
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    if ours.shape != theirs.shape:
        raise AssertionError(f"gradient of shape {ours.shape}, expected {theirs.shape}")
    return float(np.abs(ours - theirs).max()) / max(1.0, float(np.abs(theirs).max()))


def checked(name: str, value: float, gradients, reference_value: float, reference_gradients) -> dict:
    """Errors of one tool against torch.autograd; raises when beyond the tolerances."""
    objective_error = abs(float(value) - reference_value) / max(1.0, abs(reference_value))
    worst = max(gradient_error(o, t) for o, t in zip(gradients, reference_gradients, strict=True))
    if objective_error > OBJECTIVE_RTOL or worst > GRADIENT_RTOL:
        raise AssertionError(f"{name}: objective error {objective_error:.3g}, gradient error {worst:.3g}")
    return {"objective_error": objective_error, "gradient_error": worst}


def race(
    contestants: dict, budget_s: float, slice_s: float = 0.05, min_rounds: int = 3, max_rounds: int = 1000
) -> dict:
    """Call every contestant in turn, round after round, until `budget_s` is spent (at
    least `min_rounds` rounds): all see the same background load, so their ratios hold
    on a shared machine. In a round a contestant is called as many times as fit in
    `slice_s` (once if slower), each call timed, so that fast ones get many samples
    while a slow one takes its turn. Per contestant: min and median seconds per call."""
    repeats = {}
    for name, function in contestants.items():  # warm up, and size each one's turn
        before = time.perf_counter()
        function()
        repeats[name] = max(1, min(1000, int(slice_s / max(time.perf_counter() - before, 1e-9))))
    times: dict[str, list[float]] = {name: [] for name in contestants}
    start = time.perf_counter()
    for round_index in range(max_rounds):
        for name, function in contestants.items():
            for _ in range(repeats[name]):
                before = time.perf_counter()
                function()
                times[name].append(time.perf_counter() - before)
        if round_index + 1 >= min_rounds and time.perf_counter() - start > budget_s:
            break
    return {
        name: {"min_ms": min(ts) * 1e3, "median_ms": float(np.median(ts)) * 1e3, "calls": len(ts)}
        for name, ts in times.items()
    }


def compiled(text: str) -> tuple[object, dict]:
    import gradir

    start = time.perf_counter()
    executable = gradir.compile(text, target="cpu")
    seconds = time.perf_counter() - start
    return executable, {"compile_s": seconds, "mlir_llvm_s": executable.compile_seconds}


# ----------------------------------------------------------------------------
# GMM
# ----------------------------------------------------------------------------


def gmm_run(d: int, k: int, n: int, budget_s: float) -> dict:
    import torch

    import references
    from gmm import gmm_program
    from gmm_data import generate_gmm_instance
    from gmm_reference import lower_triangle_indices, objective_constant

    instance = generate_gmm_instance(d, k, n)
    rows, columns = lower_triangle_indices(d)
    log_diagonals = instance.icf[:, :d].copy()
    lower = np.zeros((k, d, d))
    lower[:, rows, columns] = instance.icf[:, d:]
    gamma, m = float(instance.gamma), int(instance.m)
    lagrad_inputs = [instance.alphas, instance.means, log_diagonals, lower, instance.x, gamma, m]
    own_inputs = [instance.alphas, instance.means, instance.icf, instance.x]
    constant = objective_constant(d, k, n, gamma, m)

    lagrad, lagrad_compile = compiled(instantiate("gmm_full", k=k, d=d, n=n))
    own, own_compile = compiled(gmm_program(d, k, n, gamma, m))

    parameters = [torch.tensor(a, requires_grad=True) for a in lagrad_inputs[:4]]
    data = [torch.tensor(instance.x), torch.tensor(gamma), torch.tensor(m)]
    value = references.gmm_full(*parameters, *data)
    d_alphas, d_means, d_log_diagonals, d_lower = (g.numpy() for g in torch.autograd.grad(value, parameters))
    reference_value = value.item()
    d_icf = np.concatenate([d_log_diagonals, d_lower[:, rows, columns]], axis=1)

    checks = {
        "lagrad_form": checked(
            "LAGrad form", lagrad.call("mlir_gmm_opt_full", *lagrad_inputs)[0],
            lagrad.call("grad_gmm", *lagrad_inputs), reference_value,
            [d_alphas, d_means, d_log_diagonals, d_lower],
        ),
        "gradir_own": checked(
            "gradir's own", float(own.call("gmm_objective", *own_inputs)[0]) - constant,
            own.call("gmm_gradient", *own_inputs), reference_value, [d_alphas, d_means, d_icf],
        ),
    }  # fmt: skip

    def torch_objective():
        with torch.no_grad():
            return references.gmm_full(*parameters, *data)

    def torch_gradient():
        return torch.autograd.grad(references.gmm_full(*parameters, *data), parameters)

    times = race(
        {
            "lagrad_form_gradient": lambda: lagrad.call("grad_gmm", *lagrad_inputs),
            "gradir_own_gradient": lambda: own.call("gmm_gradient", *own_inputs),
            "torch_gradient": torch_gradient,
            "lagrad_form_objective": lambda: lagrad.call("mlir_gmm_opt_full", *lagrad_inputs),
            "gradir_own_objective": lambda: own.call("gmm_objective", *own_inputs),
            "torch_objective": torch_objective,
        },
        budget_s,
    )
    return {
        "problem": "gmm", "size": {"d": d, "k": k, "n": n},
        "checks": checks, "times": times,
        "compile": {"lagrad_form": lagrad_compile, "gradir_own": own_compile},
        "torch_for": {"lagrad_form": "torch_gradient", "gradir_own": "torch_gradient"},
    }  # fmt: skip


# ----------------------------------------------------------------------------
# LSTM
# ----------------------------------------------------------------------------


def bench_lstm_module():
    """bench/lstm.py (for `torch_lstm`), under a name that does not shadow examples/lstm/lstm.py."""
    spec = importlib.util.spec_from_file_location("bench_lstm", ROOT / "bench" / "lstm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lstm_run(l: int, b: int, c: int, budget_s: float) -> dict:  # noqa: E741 - ADBench's name
    import torch

    import references
    from lstm import lstm_inputs, lstm_program

    torch_lstm = bench_lstm_module().torch_lstm
    main, extra, state, sequence = lstm_inputs(l, c, b)
    # The same numbers in LAGrad's layout: main[layer, weight or bias, gate], state[layer, hidden or cell].
    lagrad_inputs = [main.reshape(l, 2, 4, b), extra, state.reshape(l, 2, b), sequence]
    own_inputs = [main, extra, state, sequence]

    lagrad, lagrad_compile = compiled(instantiate("lstm", l=l, b=b, c=c))
    own, own_compile = compiled(lstm_program(l, c, b))

    lagrad_tensors = [torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(lagrad_inputs)]
    own_tensors = [torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(own_inputs)]

    def lagrad_torch():
        return references.lstm_objective(*lagrad_tensors)

    def own_torch():
        return torch_lstm(torch, *own_tensors)

    lagrad_value, own_value = lagrad_torch(), own_torch()
    checks = {
        "lagrad_form": checked(
            "LAGrad form", lagrad.call("mlstm_objective", *lagrad_inputs)[0],
            lagrad.call("grad_lstm", *lagrad_inputs), lagrad_value.item(),
            [g.numpy() for g in torch.autograd.grad(lagrad_value, lagrad_tensors[:2])],
        ),
        "gradir_own": checked(
            "gradir's own", own.call("lstm_objective", *own_inputs)[0],
            own.call("lstm_gradient", *own_inputs), own_value.item(),
            [g.numpy() for g in torch.autograd.grad(own_value, own_tensors[:2])],
        ),
        "objectives": {"lagrad_form": lagrad_value.item(), "gradir_own": own_value.item()},
    }  # fmt: skip

    def objective(function):
        def run():
            with torch.no_grad():
                return function()

        return run

    times = race(
        {
            "lagrad_form_gradient": lambda: lagrad.call("grad_lstm", *lagrad_inputs),
            "gradir_own_gradient": lambda: own.call("lstm_gradient", *own_inputs),
            "torch_lagrad_form_gradient": lambda: torch.autograd.grad(lagrad_torch(), lagrad_tensors[:2]),
            "torch_gradir_own_gradient": lambda: torch.autograd.grad(own_torch(), own_tensors[:2]),
            "lagrad_form_objective": lambda: lagrad.call("mlstm_objective", *lagrad_inputs),
            "gradir_own_objective": lambda: own.call("lstm_objective", *own_inputs),
            "torch_lagrad_form_objective": objective(lagrad_torch),
            "torch_gradir_own_objective": objective(own_torch),
        },
        budget_s,
    )
    return {
        "problem": "lstm", "size": {"l": l, "b": b, "c": c},
        "checks": checks, "times": times,
        "compile": {"lagrad_form": lagrad_compile, "gradir_own": own_compile},
        "torch_for": {"lagrad_form": "torch_lagrad_form_gradient", "gradir_own": "torch_gradir_own_gradient"},
    }  # fmt: skip


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------


def ratios(row: dict, statistic: str) -> dict:
    """The three gradient-time ratios of one row, from `statistic` (min_ms or median_ms)."""
    times = row["times"]

    def ms(name: str) -> float:
        return times[name][statistic]

    lagrad, own = ms("lagrad_form_gradient"), ms("gradir_own_gradient")
    return {
        "lagrad_form_over_gradir_own": lagrad / own,
        "lagrad_form_over_torch": lagrad / ms(row["torch_for"]["lagrad_form"]),
        "gradir_own_over_torch": own / ms(row["torch_for"]["gradir_own"]),
    }


def size_text(row: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in row["size"].items())


def markdown(rows: list[dict], env: dict) -> str:
    def pair(timing: dict) -> str:
        return f"{timing['min_ms']:.3f} ({timing['median_ms']:.3f})"

    lines = [
        "# LAGrad's MLIR forms vs gradir's own programs vs PyTorch eager (GMM, LSTM)",
        "",
        f"`python bench/lagrad_forms.py` ({env['date']}; {env['machine']}, {env['cpu_count']} cores, "
        f"shared, load average {env['load_average_1min']['start']:.1f} at the start and "
        f"{env['load_average_1min']['end']:.1f} at the end; Python {env['python']}, PyTorch "
        f"{env['torch']}, one thread). Float64. "
        "*LAGrad form*: LAGrad's own MLIR program (the corpus's lagrad_gmm_full / lagrad_lstm "
        "at these sizes: scf.for loops over points or time steps, linalg.generic bodies, tensor "
        "slices) differentiated by gradir; *gradir own*: gradir's autodiff-dialect program "
        "(examples/gmm, examples/lstm) of the same objective; *PyTorch*: eager autograd. Every "
        "gradient is checked against torch.autograd first; then all calls alternate, round after "
        "round, on the same inputs. Read the ratios: the machine is shared and noisy.",
        "",
        "Gradient time, ms, minimum (median):",
        "",
        "| problem | size | LAGrad form | gradir own | PyTorch (for LAGrad form) | PyTorch (for gradir own) "
        "| LAGrad form / gradir own | LAGrad form / PyTorch | gradir own / PyTorch |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        times, torch_for = row["times"], row["torch_for"]
        by_min, by_median = ratios(row, "min_ms"), ratios(row, "median_ms")
        cells = [
            row["problem"].upper(), size_text(row), pair(times["lagrad_form_gradient"]),
            pair(times["gradir_own_gradient"]), pair(times[torch_for["lagrad_form"]]),
            pair(times[torch_for["gradir_own"]]),
        ]  # fmt: skip
        for key in ("lagrad_form_over_gradir_own", "lagrad_form_over_torch", "gradir_own_over_torch"):
            cells.append(f"{by_min[key]:.3g} ({by_median[key]:.3g})")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Objective time (ms, minimum) and gradient/objective, the ADBench metric; compile time "
        "(`gradir.compile`, s; in parentheses its MLIR 22 + LLVM part):",
        "",
        "| problem | size | LAGrad form obj | grad/obj | gradir own obj | grad/obj | PyTorch obj "
        "(LAGrad form; gradir own) | LAGrad form compile s | gradir own compile s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        times, compile_ = row["times"], row["compile"]

        def obj(name: str) -> float:
            return times[name]["min_ms"]

        torch_objectives = (
            f"{obj('torch_objective'):.3f}" if "torch_objective" in times
            else f"{obj('torch_lagrad_form_objective'):.3f}; {obj('torch_gradir_own_objective'):.3f}"
        )  # fmt: skip
        lines.append(
            f"| {row['problem'].upper()} | {size_text(row)} | {obj('lagrad_form_objective'):.3f} "
            f"| {obj('lagrad_form_gradient') / obj('lagrad_form_objective'):.2f} "
            f"| {obj('gradir_own_objective'):.3f} "
            f"| {obj('gradir_own_gradient') / obj('gradir_own_objective'):.2f} | {torch_objectives} "
            f"| {compile_['lagrad_form']['compile_s']:.1f} ({compile_['lagrad_form']['mlir_llvm_s']:.1f}) "
            f"| {compile_['gradir_own']['compile_s']:.1f} ({compile_['gradir_own']['mlir_llvm_s']:.1f}) |"
        )
    lines += ["", NOTES.strip(), ""]
    return "\n".join(lines)


NOTES = """
## What is compared

- **GMM**: one function. LAGrad's program takes the log-diagonals `Qs` (K x d) and full
  matrices `Ls` (K x d x d); gradir's takes ADBench's packed `icf`. The inputs are
  ADBench's (generator and seed of bench/adbench_gmm.py) with `Ls` the strictly lower
  triangle of `icf` and zeros elsewhere: LAGrad's objective is then gradir's minus its
  constant terms (checked to 1e-10), and its gradients w.r.t. `Qs` and the lower part of
  `Ls` are gradir's `d icf` (checked to 1e-8). PyTorch runs the corpus reference
  `gmm_full` (vectorised: one einsum for all points and components). LAGrad's `d Ls` is
  a full K x d x d tensor, d^2 per component where `icf` has d(d-1)/2.
- **LSTM**: two functions of the same inputs (the same numbers in each program's layout).
  LAGrad's program is ADBench's objective as ADBench's C++ and PyTorch write it: the input
  gate and the change read the layer's hidden state (`hidden * w + b`), the others the
  layer input, and the prediction is normalised by `log(sum(exp(y)) + 2)`.
  examples/lstm/lstm.py (gradir's own, and bench/lstm.py) feeds the layer input to all four
  gates and normalises by the stable log-sum-exp `log(sum(exp(y - max))) + max`. The op
  counts are the same; each form is checked against and timed with the PyTorch function
  that computes it (the corpus reference `lstm_objective` for LAGrad's, bench/lstm.py's
  `torch_lstm` for gradir's own), so "LAGrad form / gradir own" compares two functions of
  equal work, not one.
- One process: gradir's runtime keeps freed memory for reuse (glibc `mallopt`, see
  cpu_backend/cpu_runtime.py), which applies to PyTorch's allocations in the same process
  too.
"""


def environment() -> dict:
    import torch

    return {
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=("gmm", "lstm"), action="append", help="default: both")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds of timing per size")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    problems = args.problem or ["gmm", "lstm"]
    runs = [(gmm_run, size) for size in GMM_SIZES if "gmm" in problems]
    runs += [(lstm_run, size) for size in LSTM_SIZES if "lstm" in problems]
    rows = []
    started, load_before = time.perf_counter(), os.getloadavg()
    for run, size in runs:
        row = run(*size, budget_s=args.budget)
        by_min = ratios(row, "min_ms")
        print(
            f"{row['problem']} {size_text(row)}: LAGrad form {row['times']['lagrad_form_gradient']['min_ms']:.3f} ms, "
            f"gradir own {row['times']['gradir_own_gradient']['min_ms']:.3f} ms; "
            + ", ".join(f"{key} {value:.3g}" for key, value in by_min.items()),
            flush=True,
        )
        row["ratios_min"], row["ratios_median"] = by_min, ratios(row, "median_ms")
        rows.append(row)
    env = environment()
    env["total_s"] = time.perf_counter() - started
    env["load_average_1min"] = {"start": load_before[0], "end": os.getloadavg()[0]}
    text = markdown(rows, env)
    print(text)
    if not args.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "lagrad_forms.json").write_text(json.dumps({"environment": env, "rows": rows}, indent=2) + "\n")
        (RESULTS / "lagrad_forms.md").write_text(text)


if __name__ == "__main__":
    main()
