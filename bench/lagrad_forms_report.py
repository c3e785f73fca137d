"""The results page of bench/lagrad_forms.py: tables of its rows, ratios, and what the
numbers compare (`markdown`)."""
from __future__ import annotations

GRADIENT_COLUMNS = (
    "| problem | size | LAGrad form | gradir own | PyTorch (for LAGrad form) | PyTorch (for gradir own) "
)
RATIO_COLUMNS = ("lagrad_form_over_gradir_own", "lagrad_form_over_torch", "gradir_own_over_torch")


def ratios(row: dict, statistic: str) -> dict:
    """The three gradient-time ratios of one row, from `statistic` (a key of `race`'s results)."""
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


def gradient_table(rows: list[dict], time_cell, ratio_cell=None) -> list[str]:
    """One line per row: the four gradient times (`time_cell(timing)`), then, with
    `ratio_cell(row, key)`, the three ratios."""
    ratio_header = "| LAGrad form / gradir own | LAGrad form / PyTorch | gradir own / PyTorch |"
    lines = [
        GRADIENT_COLUMNS + (ratio_header if ratio_cell else "|"),
        "| --- | --- | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: |" if ratio_cell else ""),
    ]
    for row in rows:
        times, torch_for = row["times"], row["torch_for"]
        names = ["lagrad_form_gradient", "gradir_own_gradient", torch_for["lagrad_form"], torch_for["gradir_own"]]
        cells = [row["problem"].upper(), size_text(row), *(time_cell(times[name]) for name in names)]
        if ratio_cell:
            cells += [ratio_cell(row, key) for key in RATIO_COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def objective_table(rows: list[dict]) -> list[str]:
    lines = [
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
    return lines


def markdown(rows: list[dict], env: dict) -> str:
    load = env["load_average_1min"]
    return "\n".join([
        "# LAGrad's MLIR forms vs gradir's own programs vs PyTorch eager (GMM, LSTM)",
        "",
        f"`python bench/lagrad_forms.py` ({env['date']}; {env['machine']}, {env['cpu_count']} cores, "
        f"shared, load average {load['start']:.1f} at the start and {load['end']:.1f} at the end; "
        f"Python {env['python']}, PyTorch {env['torch']}, one thread). Float64. "
        "*LAGrad form*: LAGrad's own MLIR program (the corpus's lagrad_gmm_full / lagrad_lstm "
        "at these sizes: scf.for loops over points or time steps, linalg.generic bodies, tensor "
        "slices) differentiated by gradir; *gradir own*: gradir's autodiff-dialect program "
        "(examples/gmm, examples/lstm) of the same objective; *PyTorch*: eager autograd. Every "
        "gradient is checked against torch.autograd first; then, each tool and program in a "
        "process of its own, they take turns, round after round, on the same inputs. Read the "
        "ratios: the machine is shared and noisy.",
        "",
        "Gradient time (CPU time of the one thread every tool runs on, which leaves out the "
        "time other processes hold the core), ms, minimum (median):",
        "",
        *gradient_table(
            rows,
            lambda timing: f"{timing['min_ms']:.3f} ({timing['median_ms']:.3f})",
            lambda row, key: f"{ratios(row, 'min_ms')[key]:.3g} ({ratios(row, 'median_ms')[key]:.3g})",
        ),
        "",
        "Objective time (CPU, ms, minimum) and gradient/objective, the ADBench metric; compile time "
        "(`gradir.compile`, s; in parentheses its MLIR 22 + LLVM part):",
        "",
        *objective_table(rows),
        "",
        "The same gradients in wall-clock time (ms, minimum; on this loaded machine a call "
        "longer than a few ms is rarely left alone on its core, so these run higher than the "
        "CPU times above, the more the longer the call):",
        "",
        *gradient_table(
            rows,
            lambda timing: f"{timing['wall_min_ms']:.3f}",
            lambda row, key: f"{ratios(row, 'wall_min_ms')[key]:.3g}",
        ),
        "",
        "The first gradient call of each turn, right after the other turns (CPU ms, median; "
        "timed apart and left out of the tables above: it pays for the caches the other "
        "turns left):",
        "",
        *gradient_table(rows, lambda timing: f"{timing['first_median_ms']:.3f}"),
        "",
        NOTES.strip(),
        "",
    ])


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
- gradir's own LSTM is therefore not quite ADBench's: examples/lstm/lstm.py's docstring calls
  it "ADBench's model", but ADBench's C++ (`src/cpp/shared/lstm.h`) and PyTorch
  (`src/python/modules/PyTorch/lstm_objective.py`) both feed the hidden state to the input
  gate and the change, and both add 2 inside the log-sum-exp.
- One process per tool and program: in a single process, alternating with PyTorch's LSTM
  made gradir's LSTM gradients (c = 1024) 3x slower for as long as they alternated: CPU
  time, not preemption, and no page faults; the cause (the shared heap, where gradir's
  runtime keeps freed memory, see cpu_backend/cpu_runtime.py, or the caches) was not
  investigated further.

## Why the LAGrad forms are slower than gradir's own programs

- **GMM.** LAGrad's program loops over the n points (`scf.for`) and, in each, over the K
  components (an `scf.for` carrying the K-vector of terms): per point and component, d-long
  vector ops and a d x d matrix-vector product (a `linalg.generic` on slices), each a small
  loop nest of its own. gradir's own program does the same arithmetic as one
  (n x d) x (d x Kd) matmul and elementwise ops over n x K x d, which the CPU pipeline
  vectorises and register-blocks. The gradient widens the gap: the reversed point loop
  recomputes the component loop (a loop is recomputed, not cached), and the reversed
  component loop recomputes each component's centred point and product before its
  backward, so the forward arithmetic runs three times, and the backward's products (the
  d x d gradient of L_k, the transposed product) are again small loop nests per point and
  component.
- **LSTM.** LAGrad's layers are an `scf.for` over an l x 2 x b state tensor updated with
  `insert_slice`, its gates go through helper functions; gradir's own program unrolls the
  layers and carries each state as a b-vector. The reversed time loop recomputes the layer
  loop of each step (with a caching copy) before reversing it.
- **Fixed in gradir by this bench** (measured on this machine under load, wall-clock: the
  first pair in runs of their own, the second pair alternating in one process):
  1. A sum with a gradient that is zero outside one slice is a sum on that slice
     (`AccumulateIntoSlice`, autograd_add's canonicalization pattern). Before, each
     (point, component) iteration of the reversed GMM loop added the d x d gradient of L_k,
     inserted into a zero K x d x d tensor, to the running sum: GMM (10, 25, 1000) gradient
     55 -> 9 ms, LSTM c = 1024 5.1 -> 4.0 ms.
  2. A reversed loop sums the gradient of a value it captures from that value's gradient
     so far, and a reversed loop nested in another into the outer one's running sum (before,
     each inner loop summed from zero and its K x d x d result was added once per point):
     GMM (10, 25, 1000) 15.8 -> 7.1 ms, (20, 50, 1000) 129 -> 78 ms.
"""


