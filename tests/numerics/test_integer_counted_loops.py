"""`scf.for` loops that count in an integer type (`: i32`, `: i64`), which MLIR allows and
the loop rules, computing in `index`, differentiated into invalid IR (`autodiff_pass/
index_loops.py` makes the derivative's copy count in index). Each program uses its counter
in the body (a position, a weight), runs a negative lower bound, a step of 2 and a loop
nested in another, and is checked by `gradcheck` (f64 central differences, vjp and jvp,
through the CPU pipeline) with its loop states cached and checkpointed, and its values against NumPy, batched
too with per-example trip counts."""
import numpy as np
import pytest

import gradir

PROGRAM = """
func.func @f(%x: tensor<6xf64>, %s: f64, %n: i32) -> f64 {
  %lo = arith.constant -2 : i32
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i32
  %c1 = arith.constant 1 : i64
  %r:2 = scf.for %i = %lo to %n step %c2 iter_args(%t = %x, %a = %s) -> (tensor<6xf64>, f64) : i32 {
    %w = arith.sitofp %i : i32 to f64
    %p = arith.index_cast %i : i32 to index
    %c3 = arith.constant 3 : index
    %k = arith.addi %p, %c3 : index
    %v = tensor.extract %t[%k] : tensor<6xf64>
    %m = arith.mulf %v, %a : f64
    %q = math.sin %m : f64
    %z = arith.addf %q, %w : f64
    %u = tensor.insert %z into %t[%k] : tensor<6xf64>
    %inner = scf.for %j = %c0 to %c1 step %c1 iter_args(%b = %a) -> (f64) : i64 {
      %jw = arith.sitofp %j : i64 to f64
      %e = arith.mulf %b, %v : f64
      %g = math.tanh %e : f64
      %h = arith.addf %g, %jw : f64
      scf.yield %h : f64
    }
    scf.yield %u, %inner : tensor<6xf64>, f64
  }
  %c5 = arith.constant 5 : index
  %last = tensor.extract %r#0[%c5] : tensor<6xf64>
  %y = arith.mulf %last, %r#1 : f64
  return %y : f64
}
"""


def numpy_f(x, s, n):
    t, a = x.copy(), s
    for i in range(-2, n, 2):
        v = t[i + 3]
        t[i + 3] = np.sin(v * a) + i
        a = np.tanh(a * v)
    return t[5] * a


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_loops_counting_in_i32_and_i64_are_differentiated(checkpoint_every):
    x = np.array([0.3, -0.6, 0.8, 0.5, -0.4, 0.7])
    inputs = [x, np.array(0.9), np.array(3, dtype=np.int32)]
    result = gradir.gradcheck(PROGRAM, "f", wrt=[0, 1], inputs=inputs, checkpoint_every=checkpoint_every)
    assert all(check.ok and not check.vacuous for check in result.checks), result
    value = gradir.compile(PROGRAM, target="cpu", checkpoint_every=checkpoint_every).f(*inputs)
    np.testing.assert_allclose(value, numpy_f(x, 0.9, 3), rtol=1e-12)


def test_a_loop_counting_in_i32_batches_with_per_example_trip_counts():
    """vmap runs such a loop to the largest trip count, each example keeping its state past
    its own (the batching rule's counter, bounds and lane test in the loop's own type)."""
    xs = np.random.default_rng(3).standard_normal((3, 6))
    trips = np.array([1, 3, 2], dtype=np.int32)
    values = gradir.vmap(PROGRAM, "f", in_axes=(0, None, 0))(xs, np.float64(0.9), trips)
    np.testing.assert_allclose(values, [numpy_f(xs[b], 0.9, trips[b]) for b in range(3)], rtol=1e-12)
