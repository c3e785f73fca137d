"""scf.while through both modes, checked numerically (float64 central
differences through the CPU pipeline): counter-driven and state-driven
conditions, a `before` region that computes what it forwards, tensor and
scalar states, no iteration, checkpointing; and the counting copy that
reverse mode runs first (only what the condition needs); scalar signatures too."""
import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.func import FuncOp

import gradir
from gradir.compilation import lower_to_linalg


# `before` forwards the counter, the state and sin(a) * w[i] (so the `after`
# arguments differ from the `before` ones); `after` reads the captured x.
WHILE = """
func.func @counted(%xt: tensor<f64>, %w: tensor<8xf64>, %nt: tensor<i64>) -> tensor<2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %n64 = tensor.extract %nt[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %r:3 = scf.while (%i = %c0, %a = %x) : (index, f64) -> (index, f64, f64) {
    %go = arith.cmpi slt, %i, %n : index
    %wi = tensor.extract %w[%i] : tensor<8xf64>
    %s = math.sin %a : f64
    %f = arith.mulf %s, %wi : f64
    scf.condition(%go) %i, %a, %f : index, f64, f64
  } do {
  ^bb0(%j: index, %b: f64, %c: f64):
    %next = arith.addi %j, %c1 : index
    %m = arith.mulf %b, %c : f64
    %t = arith.addf %m, %x : f64
    scf.yield %next, %t : index, f64
  }
  %out = tensor.from_elements %r#1, %r#2 : tensor<2xf64>
  return %out : tensor<2xf64>
}

func.func @converging(%xt: tensor<f64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %w0 = tensor.extract %w[%c0] : tensor<3xf64>
  %w1 = tensor.extract %w[%c1] : tensor<3xf64>
  %w2 = tensor.extract %w[%c2] : tensor<3xf64>
  %bound = arith.constant 20.0 : f64
  %r:2 = scf.while (%h = %w0, %g = %w1) : (f64, f64) -> (f64, f64) {
    %total = arith.addf %h, %g : f64
    %go = arith.cmpf olt, %total, %bound : f64
    scf.condition(%go) %h, %g : f64, f64
  } do {
  ^bb0(%a: f64, %b: f64):
    %e = math.exp %a : f64
    %m = arith.mulf %e, %x : f64
    %t = arith.addf %a, %m : f64
    %u = arith.mulf %b, %w2 : f64
    scf.yield %t, %u : f64, f64
  }
  %p = arith.mulf %r#0, %r#1 : f64
  %out = tensor.from_elements %p : tensor<f64>
  return %out : tensor<f64>
}
"""

COUNTED_INPUTS = [np.array(0.6), np.linspace(0.9, 1.6, 8)]


@pytest.mark.parametrize("checkpoint_every", [0, 2, 3])
@pytest.mark.parametrize("trips", [5, 1, 0])
def test_counted_while(trips, checkpoint_every):
    inputs = [*COUNTED_INPUTS, np.array(trips, dtype=np.int64)]
    result = gradir.gradcheck(WHILE, "counted", inputs=inputs, wrt=[0, 1], checkpoint_every=checkpoint_every)
    assert result.ok, result.report()


CONVERGING_INPUTS = [np.array(0.35), np.array([0.5, 0.8, 1.3])]


def _converging(x, w):
    """The loop in NumPy: (trips, h + g, h * g)."""
    h, g, trips = w[0], w[1], 0
    while h + g < 20:
        h, g, trips = h + np.exp(h) * x, g * w[2], trips + 1
    return trips, h + g, h * g


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_while_whose_condition_reads_the_float_state(checkpoint_every):
    """h + g < 20: the inputs keep the trip count away from a change."""
    inputs = CONVERGING_INPUTS
    trips, total, expected = _converging(float(inputs[0]), inputs[1])
    assert trips == 4 and total > 50  # 6.7 after 3 iterations: far from 20 both ways
    value = gradir.compile(WHILE).converging(*inputs)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    result = gradir.gradcheck(WHILE, "converging", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()


# A tensor state. Reverse mode's derivative is an scf.for behind an index-only
# counting copy: it is checked against central differences of the same loop
# written as scf.for. The primal and the forward-mode derivative (an scf.while)
# run on the CPU since mlir_bridge/loop_states.py makes scf.while states update
# their buffers in place, as scf.for's (one-shot bufferization refused them).
TENSOR_WHILE = """
func.func @tensor_while(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.while (%i = %c0, %h = %x) : (index, tensor<3xf64>) -> (index, tensor<3xf64>) {
    %go = arith.cmpi slt, %i, %c4 : index
    scf.condition(%go) %i, %h : index, tensor<3xf64>
  } do {
  ^bb0(%j: index, %g: tensor<3xf64>):
    %next = arith.addi %j, %c1 : index
    %m = arith.mulf %g, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    scf.yield %next, %t : index, tensor<3xf64>
  }
  %s = autodiff.sum %r#1 : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %g:2 = autodiff.grad @tensor_while(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3xf64>, tensor<3xf64>
}
"""

SCF_TWIN = """
func.func @twin(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%g = %x) -> (tensor<3xf64>) {
    %m = arith.mulf %g, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

TENSOR_INPUTS = [np.array([0.7, 1.1, -0.4]), np.array([0.9, -1.2, 1.5])]


@pytest.mark.parametrize("checkpoint_every", [0, 3])
def test_tensor_state_while_gradient(checkpoint_every):
    module = lower_to_linalg(TENSOR_WHILE, checkpoint_every=checkpoint_every)
    for op in list(module.ops):
        if isinstance(op, FuncOp) and op.sym_name.data == "tensor_while":
            module.body.block.erase_op(op)  # the primal: it does not bufferize
    gx, gw = gradir.compile(module).grad(*TENSOR_INPUTS)
    twin = gradir.compile(SCF_TWIN).twin
    eps = 1e-6
    for index, gradient in enumerate((gx, gw)):
        for entry in range(3):
            plus = [p.copy() for p in TENSOR_INPUTS]
            minus = [p.copy() for p in TENSOR_INPUTS]
            plus[index][entry] += eps
            minus[index][entry] -= eps
            numeric = (twin(*plus) - twin(*minus)) / (2 * eps)
            np.testing.assert_allclose(gradient[entry], numeric, rtol=1e-6, atol=1e-9)


def test_tensor_state_while_runs_on_the_cpu():
    result = gradir.gradcheck(TENSOR_WHILE, "tensor_while", inputs=TENSOR_INPUTS)
    assert result.ok, result.report()


def _counting_copy(text: str, entry: str) -> scf.WhileOp:
    module = lower_to_linalg(text)
    (vjp,) = [op for op in module.ops if getattr(op, "sym_name", None) and op.sym_name.data == entry]
    (counting,) = [op for op in vjp.walk() if isinstance(op, scf.WhileOp)]
    return counting


def test_the_counting_copy_keeps_only_what_the_condition_needs():
    text = WHILE + """
func.func @g(%xt: tensor<f64>, %w: tensor<8xf64>, %nt: tensor<i64>, %ct: tensor<2xf64>) -> (tensor<2xf64>, tensor<f64>) {
  %r:2 = autodiff.vjp @counted(%xt, %w, %nt, %ct) {wrt = array<i64: 0>} : (tensor<f64>, tensor<8xf64>, tensor<i64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<f64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<f64>
}
func.func @h(%xt: tensor<f64>, %w: tensor<3xf64>, %ct: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %r:2 = autodiff.vjp @converging(%xt, %w, %ct) {wrt = array<i64: 0>} : (tensor<f64>, tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
"""
    counted = _counting_copy(text, "counted_vjp_0")
    # i and the counter: no float state, no sin, no extract of w.
    assert [str(t) for t in counted.result_types] == ["index", "index"]
    assert not any(op.name in ("math.sin", "arith.mulf") for op in counted.walk())
    converging = _counting_copy(text, "converging_vjp_0")
    # the condition reads the whole state: all of it is counted
    assert [str(t) for t in converging.result_types] == ["f64", "f64", "index"]


def test_scalar_signature_while():
    text = """
func.func @while(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, f64) -> (index, f64) {
    %go = arith.cmpi slt, %i, %c4 : index
    scf.condition(%go) %i, %a : index, f64
  } do {
  ^bb0(%j: index, %b: f64):
    %next = arith.addi %j, %c1 : index
    %s = math.sin %b : f64
    %t = arith.addf %s, %x : f64
    scf.yield %next, %t : index, f64
  }
  return %r#1 : f64
}
"""
    result = gradir.gradcheck(text, "while", inputs=[np.float64(0.7)])
    assert result.ok, result.report()


# An scf.while and an affine.for nested in an scf.for: the inner loops are
# recomputed per outer iteration in the reverse and reversed with their own caches
# (the while's trip count, i, changes with the outer iteration).
NESTED = """
func.func @nested(%xt: tensor<f64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> f64 {
    %wi = tensor.extract %w[%i] : tensor<3xf64>
    %r:2 = scf.while (%j = %c0, %b = %a) : (index, f64) -> (index, f64) {
      %go = arith.cmpi slt, %j, %i : index
      scf.condition(%go) %j, %b : index, f64
    } do {
    ^bb0(%k: index, %c: f64):
      %next = arith.addi %k, %c1 : index
      %m = arith.mulf %c, %wi : f64
      %s = math.sin %m : f64
      scf.yield %next, %s : index, f64
    }
    %z = affine.for %l = 0 to 2 iter_args(%e = %r#1) -> (f64) {
      %q = arith.mulf %e, %x : f64
      %t = math.cos %q : f64
      affine.yield %t : f64
    }
    %u = arith.addf %z, %a : f64
    scf.yield %u : f64
  }
  %out = tensor.from_elements %y : tensor<f64>
  return %out : tensor<f64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_while_and_affine_for_nested_in_a_loop(checkpoint_every):
    inputs = [np.array(0.6), np.array([0.9, 1.3, -0.7])]
    result = gradir.gradcheck(NESTED, "nested", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
