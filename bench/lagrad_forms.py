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

Protocol: for each size one set of inputs; each tool and program runs in a
process of its own (sharing one with PyTorch slowed gradir's LSTM gradient 3x);
every gradient is checked against torch.autograd before anything is timed; then
the objective and gradient of every tool take turns, round after round, until the
time budget is spent, so all see the same background load on a shared machine (a
turn's first call is timed apart: it pays for the caches the other turns left; a
fast call is repeated to fill 0.2 s of its turn; minimum and median per call, of
the thread's CPU time, which leaves out the time other processes hold the core,
and of the wall-clock time). One thread: torch.set_num_threads(1); gradir's runtime is
single-threaded. Compile time is reported apart.

Results: bench/results/lagrad_forms.json and bench/results/lagrad_forms.md (written by
bench/lagrad_forms_report.py).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import pathlib
import platform
import re
import sys
import time
import traceback

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "bench" / "lagrad_templates"
RESULTS = ROOT / "bench" / "results"
for folder in ("bench", "examples/gmm", "examples/lstm", "tests/corpus"):
    sys.path.insert(0, str(ROOT / folder))

from lagrad_forms_report import markdown, ratios, size_text  # noqa: E402

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
# Checking
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


# ----------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------


def take_turn(function, slice_s: float) -> tuple[float, list[float], list[float]]:
    """One turn of `function`: a first call timed apart (it pays for what the other
    turns left in the caches), then calls until the turn has lasted `slice_s` (at
    least one), so that a fast function gets many samples while a slow one takes its
    turn. Returns the first call's CPU seconds, then each later call's CPU and
    wall-clock seconds. CPU time is the calling thread's: every tool runs on it, and
    it leaves out the time other processes hold the core."""
    cpu_before = time.thread_time()
    function()
    first = time.thread_time() - cpu_before
    cpu: list[float] = []
    wall: list[float] = []
    turn_start = time.perf_counter()
    while not wall or time.perf_counter() - turn_start < slice_s:
        wall_before, cpu_before = time.perf_counter(), time.thread_time()
        function()
        cpu.append(time.thread_time() - cpu_before)
        wall.append(time.perf_counter() - wall_before)
    return first, cpu, wall


def race(turns: dict, budget_s: float, slice_s: float = 0.2, min_rounds: int = 3, max_rounds: int = 1000) -> dict:
    """Let every contestant take its turn (`turns[name](slice_s)`, as `take_turn`
    returns), one after another, round after round, until `budget_s` is spent (at least
    `min_rounds` rounds): all see the same background load, so their ratios hold on a
    shared machine. Per contestant, in ms per call: minimum and median CPU time
    (`min_ms`, `median_ms`) and wall-clock time (`wall_min_ms`, `wall_median_ms`) of the
    calls after each turn's first, and of those first calls (`first_min_ms`, ...)."""
    first: dict[str, list[float]] = {name: [] for name in turns}
    cpu: dict[str, list[float]] = {name: [] for name in turns}
    wall: dict[str, list[float]] = {name: [] for name in turns}
    start = time.perf_counter()
    for round_index in range(max_rounds):
        for name, turn in turns.items():
            first_s, cpu_s, wall_s = turn(slice_s)
            first[name].append(first_s)
            cpu[name] += cpu_s
            wall[name] += wall_s
        if round_index + 1 >= min_rounds and time.perf_counter() - start > budget_s:
            break

    def ms(samples: list[float], prefix: str) -> dict:
        return {f"{prefix}min_ms": min(samples) * 1e3, f"{prefix}median_ms": float(np.median(samples)) * 1e3}

    return {
        name: {**ms(cpu[name], ""), **ms(wall[name], "wall_"), **ms(first[name], "first_"), "calls": len(cpu[name])}
        for name in turns
    }


# ----------------------------------------------------------------------------
# Contestants: each tool and program in a process of its own
# ----------------------------------------------------------------------------


def compiled(text: str) -> tuple[object, dict]:
    import gradir

    start = time.perf_counter()
    executable = gradir.compile(text, target="cpu")
    seconds = time.perf_counter() - start
    return executable, {"compile_s": seconds, "mlir_llvm_s": executable.compile_seconds}


def gradir_functions(executable, objective: str, gradient: str, arguments: list, constant: float = 0.0) -> dict:
    """The objective and gradient calls of a compiled program, and `values`: the objective
    (less `constant`) and the gradients, for the check."""

    def values():
        value = float(executable.call(objective, *arguments)[0]) - constant
        return value, [np.asarray(g) for g in executable.call(gradient, *arguments)]

    return {
        "objective": lambda: executable.call(objective, *arguments),
        "gradient": lambda: executable.call(gradient, *arguments),
        "values": values,
    }


def torch_functions(loss, parameters: list) -> dict:
    """The same for a PyTorch loss: objective without autograd, gradient by torch.autograd."""
    import torch

    def objective():
        with torch.no_grad():
            return loss()

    def values():
        value = loss()
        return value.item(), [g.numpy() for g in torch.autograd.grad(value, parameters)]

    return {"objective": objective, "gradient": lambda: torch.autograd.grad(loss(), parameters), "values": values}


def gmm_inputs(d: int, k: int, n: int) -> dict:
    """ADBench's instance (seeded: the same in every process), with LAGrad's Qs and Ls."""
    from gmm_data import generate_gmm_instance
    from gmm_reference import lower_triangle_indices

    instance = generate_gmm_instance(d, k, n)
    rows, columns = lower_triangle_indices(d)
    lower = np.zeros((k, d, d))
    lower[:, rows, columns] = instance.icf[:, d:]
    return {
        "alphas": instance.alphas, "means": instance.means, "icf": instance.icf, "x": instance.x,
        "log_diagonals": instance.icf[:, :d].copy(), "lower": lower, "rows": rows, "columns": columns,
        "gamma": float(instance.gamma), "m": int(instance.m),
    }  # fmt: skip


def gmm_functions(tool: str, form: str, size: tuple[int, int, int]) -> tuple[dict, dict]:
    from gmm import gmm_program
    from gmm_reference import objective_constant

    d, k, n = size
    given = gmm_inputs(d, k, n)
    lagrad_arguments = [given[name] for name in ("alphas", "means", "log_diagonals", "lower", "x", "gamma", "m")]
    if tool == "torch":  # LAGrad's form, which with Ls lower triangular is gradir's function too
        import torch

        import references

        parameters = [torch.tensor(a, requires_grad=True) for a in lagrad_arguments[:4]]
        data = [torch.tensor(given["x"]), torch.tensor(given["gamma"]), torch.tensor(given["m"])]
        return torch_functions(lambda: references.gmm_full(*parameters, *data), parameters), {}
    if form == "lagrad_form":
        executable, info = compiled(instantiate("gmm_full", k=k, d=d, n=n))
        return gradir_functions(executable, "mlir_gmm_opt_full", "grad_gmm", lagrad_arguments), info
    executable, info = compiled(gmm_program(d, k, n, given["gamma"], given["m"]))
    own_arguments = [given[name] for name in ("alphas", "means", "icf", "x")]
    constant = objective_constant(d, k, n, given["gamma"], given["m"])
    return gradir_functions(executable, "gmm_objective", "gmm_gradient", own_arguments, constant), info


def bench_lstm_module():
    """bench/lstm.py (for `torch_lstm`), under a name that does not shadow examples/lstm/lstm.py."""
    spec = importlib.util.spec_from_file_location("bench_lstm", ROOT / "bench" / "lstm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lstm_functions(tool: str, form: str, size: tuple[int, int, int]) -> tuple[dict, dict]:
    from lstm import lstm_inputs, lstm_program

    l, b, c = size  # noqa: E741 - ADBench's name
    main, extra, state, sequence = lstm_inputs(l, c, b)
    if form == "lagrad_form":  # the same numbers in LAGrad's layout
        arguments = [main.reshape(l, 2, 4, b), extra, state.reshape(l, 2, b), sequence]
    else:
        arguments = [main, extra, state, sequence]
    if tool == "gradir" and form == "lagrad_form":
        executable, info = compiled(instantiate("lstm", l=l, b=b, c=c))
        return gradir_functions(executable, "mlstm_objective", "grad_lstm", arguments), info
    if tool == "gradir":
        executable, info = compiled(lstm_program(l, c, b))
        return gradir_functions(executable, "lstm_objective", "lstm_gradient", arguments), info
    import torch

    import references

    tensors = [torch.tensor(a, requires_grad=i < 2) for i, a in enumerate(arguments)]
    if form == "lagrad_form":
        return torch_functions(lambda: references.lstm_objective(*tensors), tensors[:2]), {}
    torch_lstm = bench_lstm_module().torch_lstm
    return torch_functions(lambda: torch_lstm(torch, *tensors), tensors[:2]), {}


FUNCTIONS = {"gmm": gmm_functions, "lstm": lstm_functions}
CONTESTANTS = {
    "gmm": [("gradir", "lagrad_form"), ("gradir", "gradir_own"), ("torch", "gmm_full")],
    "lstm": [("gradir", "lagrad_form"), ("gradir", "gradir_own"), ("torch", "lagrad_form"), ("torch", "gradir_own")],
}
"""(tool, program) pairs per problem; PyTorch's GMM is one function for both forms."""


def contestant_name(problem: str, tool: str, form: str, function: str) -> str:
    if tool == "gradir":
        return f"{form}_{function}"
    return f"torch_{function}" if problem == "gmm" else f"torch_{form}_{function}"


def serve(problem: str, tool: str, form: str, size: tuple[int, int, int], connection) -> None:
    """A contestant's process: build its functions, send their compile times, then
    answer ("values",) and ("turn", function, slice_s) until ("stop",)."""
    try:
        if tool == "torch":
            import torch

            torch.set_num_threads(1)
        functions, info = FUNCTIONS[problem](tool, form, size)
        connection.send(info)
        while (request := connection.recv())[0] != "stop":
            if request[0] == "values":
                connection.send(functions["values"]())
            else:
                _, function, slice_s = request
                connection.send(take_turn(functions[function], slice_s))
    except Exception:  # noqa: BLE001 - any failure goes back to the parent, which raises it
        connection.send(RuntimeError(f"{problem} {tool} {form} {size}:\n{traceback.format_exc()}"))


class Contestant:
    """One tool and program in a process of its own (started with `spawn`): tools that
    share a process share its heap, and a gradir gradient called after PyTorch's LSTM
    gradient ran 3x slower for as long as the two alternated."""

    def __init__(self, problem: str, tool: str, form: str, size: tuple[int, int, int]):
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=serve, args=(problem, tool, form, size, child), daemon=True)
        self.process.start()
        child.close()
        self.compile_info = self._reply()  # waits until built: compilations do not overlap

    def _reply(self):
        reply = self.connection.recv()
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def ask(self, *request):
        self.connection.send(request)
        return self._reply()

    def turn(self, function: str):
        return lambda slice_s: self.ask("turn", function, slice_s)

    def close(self) -> None:
        if self.process.is_alive():
            self.connection.send(("stop",))
        self.process.join(timeout=60)


def check_all(problem: str, size: tuple[int, int, int], values: dict) -> dict:
    """Both gradir programs against the PyTorch function each computes."""
    if problem == "gmm":
        reference_value, (d_alphas, d_means, d_log_diagonals, d_lower) = values[("torch", "gmm_full")]
        given = gmm_inputs(*size)
        d_icf = np.concatenate([d_log_diagonals, d_lower[:, given["rows"], given["columns"]]], axis=1)
        references = {"lagrad_form": values[("torch", "gmm_full")], "gradir_own": (reference_value, [d_alphas, d_means, d_icf])}
    else:
        references = {form: values[("torch", form)] for form in ("lagrad_form", "gradir_own")}
    checks = {}
    for form, (reference_value, reference_gradients) in references.items():
        value, gradients = values[("gradir", form)]
        checks[form] = checked(form, value, gradients, reference_value, reference_gradients)
        checks[form]["objective"] = reference_value
    return checks


def run(problem: str, size: tuple[int, int, int], budget_s: float) -> dict:
    """Check, then time, every contestant of `problem` at `size`."""
    contestants: dict[tuple[str, str], Contestant] = {}
    try:
        for tool, form in CONTESTANTS[problem]:
            contestants[(tool, form)] = Contestant(problem, tool, form, size)
        checks = check_all(problem, size, {key: c.ask("values") for key, c in contestants.items()})
        turns = {
            contestant_name(problem, tool, form, function): contestants[(tool, form)].turn(function)
            for function in ("gradient", "objective")
            for tool, form in CONTESTANTS[problem]
        }  # fmt: skip
        times = race(turns, budget_s)
    finally:
        for contestant in contestants.values():
            contestant.close()
    names = ("d", "k", "n") if problem == "gmm" else ("l", "b", "c")
    return {
        "problem": problem, "size": dict(zip(names, size)), "checks": checks, "times": times,
        "compile": {form: contestants[("gradir", form)].compile_info for form in ("lagrad_form", "gradir_own")},
        "torch_for": {
            form: contestant_name(problem, "torch", "gmm_full" if problem == "gmm" else form, "gradient")
            for form in ("lagrad_form", "gradir_own")
        },
    }  # fmt: skip


def environment() -> dict:
    from importlib.metadata import version

    return {
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": version("torch"),
        "threads": 1,
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", choices=("gmm", "lstm"), action="append", help="default: both")
    parser.add_argument("--budget", type=float, default=20.0, help="seconds of timing per size")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    args = parser.parse_args()
    problems = args.problem or ["gmm", "lstm"]
    sizes = [("gmm", size) for size in GMM_SIZES if "gmm" in problems]
    sizes += [("lstm", size) for size in LSTM_SIZES if "lstm" in problems]
    rows = []
    started, load_before = time.perf_counter(), os.getloadavg()
    for problem, size in sizes:
        row = run(problem, size, args.budget)
        row["ratios_min"], row["ratios_median"] = ratios(row, "min_ms"), ratios(row, "median_ms")
        row["ratios_wall_min"] = ratios(row, "wall_min_ms")
        print(
            f"{problem} {size_text(row)}: LAGrad form {row['times']['lagrad_form_gradient']['min_ms']:.3f} ms, "
            f"gradir own {row['times']['gradir_own_gradient']['min_ms']:.3f} ms; "
            + ", ".join(f"{key} {value:.3g}" for key, value in row["ratios_min"].items()),
            flush=True,
        )
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
