"""vmap runs a branch on a batched condition, and a loop past some examples' end, on
every lane, keeping each lane's result only where the unbatched program computed it
(`batching_control_flow.keeping_only`). The other lanes compute indices the unbatched
program never did; a read or write at them went out of bounds (a run-time error, not a
wrong number). Each case: the batched program against a loop of the unbatched one, on the
CPU and with the GPU kernels emulated, and per-example gradients against central
differences."""
import math

import numpy as np
import pytest

import gradir

# Reads w[i] only where i < 4 (w has 4 elements); i comes from the example's data.
GUARDED_READ = """
func.func @guarded(%x: tensor<f64>, %w: tensor<4xf64>) -> tensor<f64> {
  %xf = tensor.extract %x[] : tensor<f64>
  %k = arith.fptosi %xf : f64 to i64
  %i = arith.index_cast %k : i64 to index
  %c4 = arith.constant 4 : index
  %inside = arith.cmpi slt, %i, %c4 : index
  %r = scf.if %inside -> (f64) {
    %wi = tensor.extract %w[%i] : tensor<4xf64>
    %p = arith.mulf %wi, %xf : f64
    scf.yield %p : f64
  } else {
    %s = math.sin %xf : f64
    scf.yield %s : f64
  }
  %t = tensor.from_elements %r : tensor<f64>
  return %t : tensor<f64>
}
func.func @guarded_batched(%x: tensor<3xf64>, %w: tensor<4xf64>) -> tensor<3xf64> {
  %r = autodiff.vmap @guarded(%x, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 3 : i64}
      : (tensor<3xf64>, tensor<4xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
"""

# x <- sin(x) * w + x while i < n, leaving early once x > 3: each example stops after its
# own number of iterations, so the backward reads each one's tape from its own end.
EARLY_EXIT = """
func.func @early(%xt: tensor<f64>, %w: f64, %n: index) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f64
  %x0 = tensor.extract %xt[] : tensor<f64>
  %r:3 = scf.while (%i = %c0, %x = %x0, %stop = %c0) : (index, f64, index) -> (index, f64, index) {
    %more = arith.cmpi slt, %i, %n : index
    %running = arith.cmpi eq, %stop, %c0 : index
    %go = arith.andi %more, %running : i1
    scf.condition(%go) %i, %x, %stop : index, f64, index
  } do {
  ^bb0(%j: index, %y: f64, %s: index):
    %sine = math.sin %y : f64
    %t = arith.mulf %sine, %w : f64
    %y1 = arith.addf %t, %y : f64
    %big = arith.cmpf ogt, %y1, %three : f64
    %j1 = arith.addi %j, %c1 : index
    %s1 = arith.select %big, %c1, %c0 : index
    scf.yield %j1, %y1, %s1 : index, f64, index
  }
  %out = tensor.from_elements %r#1 : tensor<f64>
  return %out : tensor<f64>
}
func.func @early_vjp(%x: tensor<f64>, %w: f64, %n: index, %ct: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %r:2 = autodiff.vjp @early(%x, %w, %n, %ct) {wrt = array<i64: 0>} : (tensor<f64>, f64, index, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
func.func @per_example_gradients(%x: tensor<3xf64>, %w: f64, %n: index, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %r:2 = autodiff.vmap @early_vjp(%x, %w, %n, %ct) {in_axes = array<i64: 0, -1, -1, 0>, out_axes = array<i64: 0, 0>, size = 3 : i64}
      : (tensor<3xf64>, f64, index, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>
}
"""


def early_exit(x: float, w: float, n: int) -> float:
    for _ in range(n):
        x = math.sin(x) * w + x
        if x > 3:
            break
    return x


@pytest.fixture(scope="module")
def programs():
    source = GUARDED_READ + EARLY_EXIT
    return gradir.compile(source, target="cpu"), gradir.compile(source, target="cuda")


def test_a_branch_reads_only_where_its_lanes_take_it(programs):
    cpu, gpu = programs
    w = np.array([0.5, -1.0, 2.0, 0.25])
    x = np.array([2.5, 7.5, 0.5])  # 7.5 reads w[7] if the branch it does not take reads
    want = [w[int(v)] * v if int(v) < 4 else math.sin(v) for v in x]
    np.testing.assert_allclose(cpu.guarded_batched(x, w), want, rtol=1e-15)
    np.testing.assert_allclose(gpu.emulate("guarded_batched", x, w)[0], want, rtol=1e-15)


def test_per_example_gradients_of_a_loop_each_example_leaves_at_its_own_iteration(programs):
    cpu, gpu = programs
    x = np.array([0.5, 2.0, 1.0])  # 6, 1 and 3 iterations
    w, n = 1.5, 6
    cotangent = np.array([1.0, -0.5, 2.0])
    step = 1e-6
    want = [c * (early_exit(v + step, w, n) - early_exit(v - step, w, n)) / (2 * step) for v, c in zip(x, cotangent)]
    values, gradients = cpu.per_example_gradients(x, w, n, cotangent)
    np.testing.assert_allclose(values, [early_exit(v, w, n) for v in x], rtol=1e-14)
    np.testing.assert_allclose(gradients, want, rtol=1e-6)
    one_at_a_time = [cpu.early_vjp(np.array(v), w, n, np.array(c))[1] for v, c in zip(x, cotangent)]
    np.testing.assert_allclose(gradients, one_at_a_time, rtol=1e-14)
    np.testing.assert_allclose(gpu.emulate("per_example_gradients", x, w, n, cotangent)[1], one_at_a_time, rtol=1e-13)


WHILE_IN_A_FOR = """
func.func @f(%x: tensor<f64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %s0 = tensor.extract %x[] : tensor<f64>
  %r:2 = scf.for %iv = %c0 to %c3 step %c2 iter_args(%a = %zero, %b = %zero) -> (f64, f64) {
    %w:2 = scf.while (%i = %c0, %v = %b) : (index, f64) -> (index, f64) {
      %p = arith.cmpi slt, %i, %c3 : index
      %k = arith.constant 0.75 : f64
      %q = arith.cmpf olt, %v, %k : f64
      %go = arith.andi %p, %q : i1
      scf.condition(%go) %i, %v : index, f64
    } do {
    ^bb0(%j: index, %u: f64):
      %j1 = arith.addi %j, %c1 : index
      %u1 = arith.addf %u, %a : f64
      scf.yield %j1, %u1 : index, f64
    }
    %a1 = arith.addf %a, %s0 : f64
    scf.yield %a1, %w#1 : f64, f64
  }
  %t = tensor.from_elements %r#1 : tensor<f64>
  return %t : tensor<f64>
}
"""
"""A while loop inside a for loop whose state becomes batched one iteration of the for's
fixpoint at a time: the while's counter is batched on one pass (its condition then reads a
batched state) and unbatched on the next, where its stale "batched" mark handed
`arith.cmpi` an unbatched `index` (a RuleError before 2026-11-30; found by
tests/property/test_standard_programs_vmap.py, seed 2)."""


def test_a_value_batched_on_one_pass_of_a_loop_fixpoint_only_is_not_batched_on_the_next():
    xs = np.array([0.2, 0.5, 0.9])
    f = gradir.compile(WHILE_IN_A_FOR, target="cpu")
    want = [f.call("f", np.array(x))[0] for x in xs]
    np.testing.assert_array_equal(gradir.vmap(WHILE_IN_A_FOR, "f")(xs), want)
    assert len(set(np.round(want, 12))) == 3


ROW_AT_THE_COUNTER = """
func.func @rows(%x: tensor<3x2xf64>, %s: tensor<f64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %limit = arith.constant 1.5 : f64
  %s0 = tensor.extract %s[] : tensor<f64>
  %r:2 = scf.while (%i = %c0, %v = %s0) : (index, f64) -> (index, f64) {
    %more = arith.cmpi slt, %i, %c3 : index
    %small = arith.cmpf olt, %v, %limit : f64
    %go = arith.andi %more, %small : i1
    scf.condition(%go) %i, %v : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %row = tensor.extract_slice %x[%j, 0] [1, 2] [1, 1] : tensor<3x2xf64> to tensor<2xf64>
    %a = tensor.extract %row[%c0] : tensor<2xf64>
    %b = tensor.extract %row[%c1] : tensor<2xf64>
    %p = arith.mulf %a, %b : f64
    %e = math.sin %p : f64
    %w1 = arith.addf %w, %e : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %w1 : index, f64
  }
  %out = tensor.from_elements %r#1 : tensor<f64>
  return %out : tensor<f64>
}
func.func @rows_vjp(%x: tensor<3x2xf64>, %s: tensor<f64>, %ct: tensor<f64>) -> tensor<3x2xf64> {
  %r:2 = autodiff.vjp @rows(%x, %s, %ct) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<3x2xf64>)
  return %r#1 : tensor<3x2xf64>
}
"""
"""A while loop reading row `i` of x at its counter until its state passes 1.5: each
example stops after its own number of rows, so the gradient writes each example's rows at
its own iterations (`insert_slice` at per-lane offsets: a scatter; it was refused before
2026-11-30, found by tests/property/test_standard_programs_vmap.py, seeds 38 and 144)."""


def test_per_example_gradients_write_rows_at_each_examples_own_iterations():
    rows = gradir.compile(ROW_AT_THE_COUNTER, target="cpu")
    x = np.random.default_rng(4).uniform(0.6, 1.0, (3, 3, 2))
    s = np.array([1.2, 0.7, -2.0])  # one, two and three rows read
    per_example = gradir.vmap(ROW_AT_THE_COUNTER, "rows_vjp", in_axes=(0, 0, None))(x, s, np.array(1.0))
    for b in range(3):
        want = rows.call("rows_vjp", x[b], np.array(s[b]), np.array(1.0))[0]
        np.testing.assert_array_equal(per_example[b], want)
        step, numeric = 1e-6, np.zeros((3, 2))
        for index in np.ndindex(3, 2):
            bump = np.zeros((3, 2))
            bump[index] = step
            plus = rows.call("rows", x[b] + bump, np.array(s[b]))[0]
            minus = rows.call("rows", x[b] - bump, np.array(s[b]))[0]
            numeric[index] = (plus - minus) / (2 * step)
        np.testing.assert_allclose(per_example[b], numeric, rtol=1e-7, atol=1e-9)
    assert [np.count_nonzero(per_example[b].any(axis=1)) for b in range(3)] == [1, 2, 3]
