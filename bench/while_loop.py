"""Reverse mode of scf.while: what counting the iterations first costs (CPU, f64).

    python bench/while_loop.py

Reverse mode runs a counting copy of an `scf.while` (cut down to what its
condition needs) to size the stacks, then the loop as a counted `scf.for`
that caches, then the reverse (autodiff_pass/rules/scf_while.py). Measured,
median of repetitions on one thread:

1. `counter`: a 64-wide tanh recurrence, `while i < n`, against the same loop
   as `scf.for`: the counting copy is the counter alone.
2. `state`: a scalar recurrence whose condition reads the state (`a < bound`),
   against the same number of iterations as `scf.for`: the counting copy is
   the whole loop.
3. `store`: the alternative design, a stack that doubles when full while the
   loop runs, hand-written as a primal loop pushing its state (it does not
   compile through the CPU pipeline today; the page says so).

Results: bench/results/while_loop.md.
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gradir  # noqa: E402
from gradir.compilation import lower_to_linalg  # noqa: E402
from xdsl.dialects.func import FuncOp  # noqa: E402

RESULTS = ROOT / "bench" / "results"
N = 2000
WIDTH = 64

COUNTER = f"""
func.func @for_loop(%x: tensor<{WIDTH}xf64>, %w: tensor<{WIDTH}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<{WIDTH}xf64>) {{
    %m = arith.mulf %h, %w : tensor<{WIDTH}xf64>
    %a = arith.addf %m, %x : tensor<{WIDTH}xf64>
    %t = math.tanh %a : tensor<{WIDTH}xf64>
    scf.yield %t : tensor<{WIDTH}xf64>
  }}
  %s = autodiff.sum %y : tensor<{WIDTH}xf64> -> tensor<f64>
  return %s : tensor<f64>
}}
func.func @while_loop(%x: tensor<{WIDTH}xf64>, %w: tensor<{WIDTH}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  %r:2 = scf.while (%i = %c0, %h = %x) : (index, tensor<{WIDTH}xf64>) -> (index, tensor<{WIDTH}xf64>) {{
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %i, %h : index, tensor<{WIDTH}xf64>
  }} do {{
  ^bb0(%j: index, %g: tensor<{WIDTH}xf64>):
    %next = arith.addi %j, %c1 : index
    %m = arith.mulf %g, %w : tensor<{WIDTH}xf64>
    %a = arith.addf %m, %x : tensor<{WIDTH}xf64>
    %t = math.tanh %a : tensor<{WIDTH}xf64>
    scf.yield %next, %t : index, tensor<{WIDTH}xf64>
  }}
  %s = autodiff.sum %r#1 : tensor<{WIDTH}xf64> -> tensor<f64>
  return %s : tensor<f64>
}}
"""

# a += 1e-3 * (2 + sin(a * w)): grows by 1e-3..3e-3 per step; stops at a >= bound.
STATE = """
func.func @for_loop(%xt: tensor<f64>, %wt: tensor<f64>, %nt: tensor<i64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %w = tensor.extract %wt[] : tensor<f64>
  %n64 = tensor.extract %nt[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %rate = arith.constant 1.0e-3 : f64
  %two = arith.constant 2.0 : f64
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %m = arith.mulf %a, %w : f64
    %s = math.sin %m : f64
    %d = arith.addf %s, %two : f64
    %e = arith.mulf %d, %rate : f64
    %next = arith.addf %a, %e : f64
    scf.yield %next : f64
  }
  %out = tensor.from_elements %y : tensor<f64>
  return %out : tensor<f64>
}
func.func @while_loop(%xt: tensor<f64>, %wt: tensor<f64>, %nt: tensor<i64>) -> tensor<f64> {
  %x = tensor.extract %xt[] : tensor<f64>
  %w = tensor.extract %wt[] : tensor<f64>
  %rate = arith.constant 1.0e-3 : f64
  %two = arith.constant 2.0 : f64
  %bound = arith.constant 4.0 : f64
  %y = scf.while (%a = %x) : (f64) -> f64 {
    %go = arith.cmpf olt, %a, %bound : f64
    scf.condition(%go) %a : f64
  } do {
  ^bb0(%b: f64):
    %m = arith.mulf %b, %w : f64
    %s = math.sin %m : f64
    %d = arith.addf %s, %two : f64
    %e = arith.mulf %d, %rate : f64
    %next = arith.addf %b, %e : f64
    scf.yield %next : f64
  }
  %out = tensor.from_elements %y : tensor<f64>
  return %out : tensor<f64>
}
"""

# The primal loop of STATE pushing its state onto a stack: preallocated for a
# known count, or doubling when full (the store a while loop would need
# without counting first); the stack is summed afterwards so that it is read.
STORE = """
func.func @preallocated(%xt: tensor<f64>, %nt: tensor<i64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %n64 = tensor.extract %nt[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %rate = arith.constant 1.0e-3 : f64
  %empty = tensor.empty(%n) : tensor<?xf64>
  %y:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %stack = %empty) -> (f64, tensor<?xf64>) {
    %pushed = tensor.insert %a into %stack[%i] : tensor<?xf64>
    %s = math.sin %a : f64
    %e = arith.mulf %s, %rate : f64
    %next = arith.addf %a, %e : f64
    scf.yield %next, %pushed : f64, tensor<?xf64>
  }
  %zero = arith.constant 0.0 : f64
  %total = scf.for %k = %c0 to %n step %c1 iter_args(%t = %zero) -> (f64) {
    %v = tensor.extract %y#1[%k] : tensor<?xf64>
    %u = arith.addf %t, %v : f64
    scf.yield %u : f64
  }
  %out = tensor.from_elements %total : tensor<f64>
  return %out : tensor<f64>
}
func.func @doubling(%xt: tensor<f64>, %nt: tensor<i64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %n64 = tensor.extract %nt[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %rate = arith.constant 1.0e-3 : f64
  %empty = tensor.empty(%c16) : tensor<?xf64>
  %y:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %stack = %empty) -> (f64, tensor<?xf64>) {
    %size = tensor.dim %stack, %c0 : tensor<?xf64>
    %full = arith.cmpi eq, %i, %size : index
    %room = scf.if %full -> (tensor<?xf64>) {
      %bigger = arith.muli %size, %c2 : index
      %grown = tensor.empty(%bigger) : tensor<?xf64>
      %copied = tensor.insert_slice %stack into %grown[0] [%size] [1] : tensor<?xf64> into tensor<?xf64>
      scf.yield %copied : tensor<?xf64>
    } else {
      scf.yield %stack : tensor<?xf64>
    }
    %pushed = tensor.insert %a into %room[%i] : tensor<?xf64>
    %s = math.sin %a : f64
    %e = arith.mulf %s, %rate : f64
    %next = arith.addf %a, %e : f64
    scf.yield %next, %pushed : f64, tensor<?xf64>
  }
  %zero = arith.constant 0.0 : f64
  %total = scf.for %k = %c0 to %n step %c1 iter_args(%t = %zero) -> (f64) {
    %v = tensor.extract %y#1[%k] : tensor<?xf64>
    %u = arith.addf %t, %v : f64
    scf.yield %u : f64
  }
  %out = tensor.from_elements %total : tensor<f64>
  return %out : tensor<f64>
}
"""


def median_seconds(function, budget_s: float = 2.0, max_repeats: int = 200) -> float:
    function()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < 5 or (len(times) < max_repeats and time.perf_counter() - start < budget_s):
        t0 = time.perf_counter()
        function()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def gradient_times(text: str, inputs: list[np.ndarray], wrt: str) -> dict[str, float]:
    entries = ""
    signature = ", ".join(f"%a{i}: {t}" for i, t in enumerate(_types(inputs)))
    arguments = ", ".join(f"%a{i}" for i in range(len(inputs)))
    types = ", ".join(_types(inputs))
    grad_types = ", ".join(_types(inputs)[int(i)] for i in wrt.split(","))
    for name in ("for_loop", "while_loop"):
        entries += f"""
func.func @grad_{name}({signature}) -> ({grad_types}) {{
  %g = autodiff.grad @{name}({arguments}) {{wrt = array<i64: {wrt}>}} : ({types}) -> ({grad_types})
  return %g : {grad_types}
}}"""
    # The primal scf.while on tensors does not bufferize on the CPU (its state
    # is not updated in place, see tests/autodiff_pass/test_while_loops.py):
    # only the derivative functions are compiled.
    module = lower_to_linalg(text + entries)
    for op in list(module.ops):
        if isinstance(op, FuncOp) and op.sym_name.data in ("for_loop", "while_loop"):
            module.body.block.erase_op(op)
    executable = gradir.compile(module)
    results = {}
    reference = None
    for name in ("for_loop", "while_loop"):
        function = getattr(executable, f"grad_{name}")
        gradient = function(*inputs)
        reference = gradient if reference is None else reference
        np.testing.assert_allclose(gradient, reference, rtol=1e-9)
        results[name] = median_seconds(lambda: function(*inputs))
    return results


def _types(inputs: list[np.ndarray]) -> list[str]:
    types = []
    for array in inputs:
        element = "f64" if array.dtype == np.float64 else "i64"
        shape = "x".join(str(d) for d in array.shape)
        types.append(f"tensor<{shape}x{element}>" if shape else f"tensor<{element}>")
    return types


def main() -> None:
    rng = np.random.default_rng(0)
    rows = []
    counter = gradient_times(COUNTER, [rng.normal(size=WIDTH) * 0.5, rng.normal(size=WIDTH) * 0.5], "0")
    rows.append(("counter (`i < n`, 64-wide tanh, n = %d)" % N, counter["for_loop"], counter["while_loop"]))

    x, w = 0.5, 0.8
    a, trips = x, 0
    while a < 4.0:
        a, trips = a + 1e-3 * (2 + np.sin(a * w)), trips + 1
    state_inputs = [np.array(x), np.array(w), np.array(trips, dtype=np.int64)]
    state = gradient_times(STATE, state_inputs, "0")
    rows.append((f"state (`a < bound`, scalar, {trips} iterations)", state["for_loop"], state["while_loop"]))

    store_inputs = [np.array(0.5), np.array(200_000, dtype=np.int64)]
    preallocated_only = STORE[: STORE.index("func.func @doubling")]
    store = gradir.compile(preallocated_only)
    preallocated = median_seconds(lambda: store.preallocated(*store_inputs))
    try:
        gradir.compile(STORE)
        doubling_note = "compiles (update this page)"
    except gradir.GradirError as error:
        doubling_note = f"does not compile: `{str(error).splitlines()[0]}`"
    lines = [
        "# Reverse mode of scf.while: counting first (bench/while_loop.py)",
        "",
        "CPU, f64, one thread, median. Gradient times of the same loop written as `scf.for`",
        "(known count) and as `scf.while` (counted first, then an `scf.for`).",
        "",
        "| loop | scf.for gradient | scf.while gradient | ratio |",
        "| --- | --- | --- | --- |",
    ]
    for name, for_time, while_time in rows:
        lines.append(f"| {name} | {for_time * 1e3:.3f} ms | {while_time * 1e3:.3f} ms | {while_time / for_time:.2f}x |")
    lines += [
        "",
        "The alternative, a stack that doubles while the loop runs, hand-written as the",
        f"primal loop pushing its scalar state (preallocated: {preallocated * 1e3:.3f} ms for",
        f"200,000 iterations), {doubling_note}: the CPU pipeline updates loop states in",
        "place, which assumes a state whose shape does not change.",
    ]
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "while_loop.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
