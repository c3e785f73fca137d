"""scf.for and scf.if through reverse and forward mode, checked numerically
(float64 central differences through the CPU pipeline), and the loop cache:
only what the backward reads, smaller with checkpointing, same gradient."""
import pathlib
import sys

import numpy as np
import pytest

import gradir
from exercised import assert_exercised
from gradir.autodiff_pass.rules.loop_cache import CACHE_ATTRIBUTE, cache_bytes
from gradir.compilation import lower_to_linalg

ROOT = pathlib.Path(__file__).resolve().parents[2]
RNN = ROOT / "examples" / "standard" / "rnn.mlir"
PIECEWISE = ROOT / "examples" / "standard" / "piecewise.mlir"
sys.path.insert(0, str(ROOT / "examples" / "lstm"))

from lstm import lstm_inputs, lstm_program, lstm_reference  # noqa: E402


def rnn_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) * 0.3 for s in [(20, 4, 8), (4, 16), (8, 16), (16, 16), (16,)]]


def rnn_with_grad_entry() -> str:
    return RNN.read_text() + """
func.func @rnn_grad(%xs: tensor<20x4x8xf32>, %h0: tensor<4x16xf32>, %wx: tensor<8x16xf32>,
                    %wh: tensor<16x16xf32>, %b: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16x16xf32>) {
  %g:2 = autodiff.grad @rnn_loss(%xs, %h0, %wx, %wh, %b) {wrt = array<i64: 2, 3>}
    : (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16x16xf32>)
  return %g#0, %g#1 : tensor<8x16xf32>, tensor<16x16xf32>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 5, 3])
def test_rnn_gradients_match_finite_differences(checkpoint_every):
    # k = 3 leaves a short last segment (20 = 6 * 3 + 2).
    result = gradir.gradcheck(
        RNN, "rnn_loss", inputs=rnn_inputs(), wrt=[0, 1, 2, 3, 4], checkpoint_every=checkpoint_every
    )
    assert result.ok, result.report()


def test_rnn_cache_holds_only_what_the_backward_reads():
    module = lower_to_linalg(rnn_with_grad_entry())
    caches = [op.attributes[CACHE_ATTRIBUTE] for op in module.walk() if CACHE_ATTRIBUTE in op.attributes]
    assert len(caches) == 1
    # The state h (read by the matmul's gradient) and tanh's result, 20 x 4 x 16 f32 each;
    # the input slice is recomputed from the loop-invariant sequence, the adds cache nothing.
    assert caches[0].data["values"].value.data == 2
    assert cache_bytes(module) == 2 * 20 * 4 * 16 * 4


def test_checkpointing_shrinks_the_cache_and_keeps_the_gradient():
    text = rnn_with_grad_entry()
    sizes = {k: cache_bytes(lower_to_linalg(text, checkpoint_every=k)) for k in (0, 5, 3)}
    assert sizes[5] < sizes[0] and sizes[3] < sizes[0]
    inputs = [a.astype(np.float32) for a in rnn_inputs(1)]
    plain = gradir.compile(text).rnn_grad(*inputs)
    for k in (5, 3):
        checkpointed = gradir.compile(text, checkpoint_every=k).rnn_grad(*inputs)
        for a, b in zip(plain, checkpointed):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["then-branch", "else-branch"])
def test_piecewise_gradient_follows_the_branch_taken(sign):
    x = np.array([0.5, 0.2, -0.1, 0.3, 0.4]) * sign
    result = gradir.gradcheck(PIECEWISE, "piecewise", inputs=[x])
    assert result.ok, result.report()


def test_lstm_objective_and_gradient():
    text = lstm_program(2, 6, 3)
    inputs = lstm_inputs(2, 6, 3)
    objective = gradir.compile(text).lstm_objective(*inputs)
    np.testing.assert_allclose(objective, lstm_reference(*inputs), rtol=1e-12)
    result = gradir.gradcheck(text, "lstm_objective", inputs=inputs, wrt=[0, 1], checkpoint_every=2)
    assert result.ok, result.report()


LOOP_INVARIANT_READS = """
func.func @powers(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c11 = arith.constant 11 : index
  %y = scf.for %i = %c1 to %c11 step %c2 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %a = autodiff.mul %acc, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %b = autodiff.sin %w : tensor<3xf32>
    %c = autodiff.add %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %c : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""


def test_loop_invariant_weight_read_twice_per_iteration_with_a_step():
    result = gradir.gradcheck(LOOP_INVARIANT_READS, "powers")
    assert result.ok, result.report()


# Bounds known only at run time: the upper bound and step read from an integer
# tensor, the lower bound a tensor.dim (not a constant when reverse mode runs).
DYNAMIC_BOUNDS = """
func.func @dynamic(%x: tensor<3xf64>, %w: tensor<3xf64>, %bounds: tensor<2xi64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub64 = tensor.extract %bounds[%c0] : tensor<2xi64>
  %step64 = tensor.extract %bounds[%c1] : tensor<2xi64>
  %ub = arith.index_cast %ub64 : i64 to index
  %step = arith.index_cast %step64 : i64 to index
  %three = tensor.dim %x, %c0 : tensor<3xf64>
  %lb = arith.subi %three, %c1 : index
  %y = scf.for %i = %lb to %ub step %step iter_args(%a = %x) -> (tensor<3xf64>) {
    %m = autodiff.mul %a, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = autodiff.sin %m : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2, 3])
@pytest.mark.parametrize("bounds", [(9, 1), (12, 3), (8, 2), (2, 1), (1, 2)], ids=str)
def test_bounds_known_only_at_run_time(bounds, checkpoint_every):
    """The stacks are sized at run time (tensor<?x3xf64>); (2, 1) and (1, 2) run
    no iteration; with checkpointing the segments are counted at run time."""
    inputs = [np.array([0.7, 1.1, -0.4]), np.array([0.9, -1.2, 1.5]), np.array(bounds, dtype=np.int64)]
    result = gradir.gradcheck(
        DYNAMIC_BOUNDS, "dynamic", inputs=inputs, wrt=[0, 1], checkpoint_every=checkpoint_every,
        allow_vacuous=bounds[0] <= 2,  # from 2 to 2 or 1: no iteration, the weight's gradient is 0
    )  # fmt: skip
    assert_exercised(result)


def test_run_time_bounds_record_bytes_per_iteration():
    text = DYNAMIC_BOUNDS + """
func.func @g(%x: tensor<3xf64>, %w: tensor<3xf64>, %b: tensor<2xi64>) -> tensor<3xf64> {
  %g = autodiff.grad @dynamic(%x, %w, %b) {wrt = array<i64: 1>} : (tensor<3xf64>, tensor<3xf64>, tensor<2xi64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""
    module = lower_to_linalg(text)
    (cache,) = [op.attributes[CACHE_ATTRIBUTE] for op in module.walk() if CACHE_ATTRIBUTE in op.attributes]
    assert cache.data["bytes_per_iteration"].value.data == 2 * 3 * 8
    assert "bytes" not in cache.data and cache_bytes(module) == 0
    assert "tensor<?x3xf64>" in str(module)


NESTED = """
func.func @nested(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %z = scf.for %j = %c0 to %c3 step %c1 iter_args(%in = %acc) -> (tensor<3xf32>) {
      %a = autodiff.mul %in, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %t = autodiff.sin %a : tensor<3xf32>
      scf.yield %t : tensor<3xf32>
    }
    %u = autodiff.tanh %z : tensor<3xf32>
    scf.yield %u : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""


def test_nested_loops():
    """The outer reverse caches the outer state; the inner loop is recomputed
    from it in each outer reverse iteration and reversed with its own cache."""
    result = gradir.gradcheck(NESTED, "nested")
    assert result.ok, result.report()


DECAYING_STATE = """
func.func @decay(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d0 = arith.constant dense<1.5> : tensor<3xf32>
  %y:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x, %d = %d0) -> (tensor<3xf32>, tensor<3xf32>) {
    %a = autodiff.mul %acc, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %b = autodiff.add %a, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s = autodiff.sin %b : tensor<3xf32>
    %dn = autodiff.sigmoid %d : tensor<3xf32>
    scf.yield %s, %dn : tensor<3xf32>, tensor<3xf32>
  }
  %r = autodiff.sum %y#0 : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @ddecay(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = autodiff.grad @decay(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 3])
def test_inactive_loop_state_is_neither_cached_nor_differentiated(checkpoint_every):
    """The decay factor never meets x or w (activity is a fixpoint over the
    iterations): only the decay and sin's input are cached, not the state."""
    result = gradir.gradcheck(
        DECAYING_STATE, "decay", inputs=[np.array([0.3, -0.2, 0.4]), np.array([0.1, 0.5, -0.7])],
        checkpoint_every=checkpoint_every,
    )  # fmt: skip
    assert result.ok, result.report()
    module = lower_to_linalg(DECAYING_STATE)
    (cache,) = [op.attributes[CACHE_ATTRIBUTE] for op in module.walk() if CACHE_ATTRIBUTE in op.attributes]
    assert cache.data["values"].value.data == 2
    assert cache_bytes(module) == 2 * 4 * 3 * 4


LOOP_CORNERS = """
func.func @result_ignores_state(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %b = %x) -> (tensor<3xf32>, tensor<3xf32>) {
    %s = autodiff.sin %w : tensor<3xf32>
    %m = autodiff.mul %b, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %s, %m : tensor<3xf32>, tensor<3xf32>
  }
  %z = autodiff.mul %y#0, %y#1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = autodiff.sum %z : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @no_iteration(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = scf.for %i = %c1 to %c0 step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %a = autodiff.mul %acc, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %e = autodiff.exp %y : tensor<3xf32>
  %r = autodiff.sum %e : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @reads_induction_variable(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %y = scf.for %i = %c1 to %c5 step %c1 iter_args(%a = %x) -> (tensor<3xf32>) {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %e = tensor.splat %fi : tensor<3xf32>
    %m = autodiff.mul %a, %e : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %n = autodiff.mul %m, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s = autodiff.sin %n : tensor<3xf32>
    scf.yield %s : tensor<3xf32>
  }
  %r = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
@pytest.mark.parametrize("function", ["result_ignores_state", "no_iteration", "reads_induction_variable"])
def test_loop_corner_cases(function, checkpoint_every):
    """A result that does not depend on its own state (but on a weight), a loop
    that runs no iteration (identity), a body that reads the induction variable."""
    inputs = [np.array([0.3, -0.2, 0.4]), np.array([0.9, 1.1, -0.7])]
    # No iteration: a zero gradient for the weight. (From 0, the body that reads the induction
    # variable multiplied the state by 0 and every gradient was 0: the check was vacuous.)
    result = gradir.gradcheck(LOOP_CORNERS, function, inputs=inputs, checkpoint_every=checkpoint_every, allow_vacuous=True)
    assert_exercised(result)
