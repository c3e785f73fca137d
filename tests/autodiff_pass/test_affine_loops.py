"""affine.for through both modes (it becomes the scf.for it stands for),
checked numerically in float64 through the CPU pipeline: affine.apply in the
body, bound maps with symbols and several results, tensor and scalar states,
checkpointing, and scalar signatures."""
import numpy as np
import pytest

from xdsl.dialects.func import FuncOp

import gradir
from gradir.compilation import lower_to_linalg


# x^k-like product over a scalar state, reading w at 2*i+1 (affine.apply),
# from i = max(0, n-4) to min(3, n) with n from tensor.dim (a symbol).
AFFINE = """
#odd = affine_map<(d0) -> (d0 * 2 + 1)>
func.func @affine_scalar(%xt: tensor<f64>, %w: tensor<8xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %n = tensor.dim %w, %c0 : tensor<8xf64>
  %y = affine.for %i = max affine_map<()[s0] -> (0, s0 - 7)>()[%n] to min affine_map<()[s0] -> (4, s0)>()[%n]
      iter_args(%a = %x) -> (f64) {
    %k = affine.apply #odd(%i)
    %wk = tensor.extract %w[%k] : tensor<8xf64>
    %m = arith.mulf %a, %wk : f64
    %s = math.sin %m : f64
    %t = arith.addf %s, %x : f64
    affine.yield %t : f64
  }
  %r = tensor.from_elements %y : tensor<f64>
  return %r : tensor<f64>
}
"""

# A tensor state: MLIR's one-shot bufferization has no model of affine.for, so
# the primal itself does not run on the CPU (lower-affine comes after
# bufferization there); its derivative functions, made of scf.for, do. They are
# checked against central differences of the same loop written with scf.for.
AFFINE_TENSOR = """
func.func @affine_tensor(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %y = affine.for %i = 1 to 8 step 3 iter_args(%a = %x) -> (tensor<3xf64>) {
    %m = arith.mulf %a, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    affine.yield %t : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

SCF_TWIN = """
func.func @scf_tensor(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %y = scf.for %i = %c1 to %c8 step %c3 iter_args(%a = %x) -> (tensor<3xf64>) {
    %m = arith.mulf %a, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

TENSOR_ENTRIES = """
func.func @grad(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %g:2 = autodiff.grad @affine_tensor(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3xf64>, tensor<3xf64>
}
func.func @jvp(%x: tensor<3xf64>, %w: tensor<3xf64>, %tx: tensor<3xf64>, %tw: tensor<3xf64>) -> tensor<f64> {
  %r:2 = autodiff.jvp @affine_tensor(%x, %w, %tx, %tw) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<f64>)
  return %r#1 : tensor<f64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_affine_for_with_a_scalar_state(checkpoint_every):
    inputs = [np.array(0.6), np.linspace(-1.2, 1.3, 8)]
    result = gradir.gradcheck(AFFINE, "affine_scalar", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()


TENSOR_INPUTS = [np.array([0.7, 1.1, -0.4]), np.array([0.9, -1.2, 1.5])]


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_affine_for_with_a_tensor_state_and_a_step(checkpoint_every):
    module = lower_to_linalg(AFFINE_TENSOR + TENSOR_ENTRIES, checkpoint_every=checkpoint_every)
    for op in list(module.ops):
        if isinstance(op, FuncOp) and op.sym_name.data == "affine_tensor":
            module.body.block.erase_op(op)  # the primal: it does not bufferize
    assert "affine.for" not in str(module)
    derivatives = gradir.compile(module)
    primal = gradir.compile(SCF_TWIN).scf_tensor
    rng = np.random.default_rng(0)
    direction = [rng.normal(size=3), rng.normal(size=3)]
    eps = 1e-6
    plus = primal(*[p + eps * d for p, d in zip(TENSOR_INPUTS, direction)])
    minus = primal(*[p - eps * d for p, d in zip(TENSOR_INPUTS, direction)])
    numeric = (plus - minus) / (2 * eps)
    gx, gw = derivatives.grad(*TENSOR_INPUTS)
    tangent = derivatives.jvp(*TENSOR_INPUTS, *direction)
    np.testing.assert_allclose(gx @ direction[0] + gw @ direction[1], numeric, rtol=1e-6)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-6)


def test_affine_for_on_tensors_runs_on_the_cpu():
    result = gradir.gradcheck(AFFINE_TENSOR, "affine_tensor", inputs=TENSOR_INPUTS)
    assert result.ok, result.report()


def test_affine_bounds_are_those_of_the_map():
    """The loop runs i = 1..3 (max(0, 8-7) to min(4, 8)): the primal against NumPy."""
    x, w = 0.6, np.linspace(-1.2, 1.3, 8)
    value = gradir.compile(AFFINE).affine_scalar(np.array(x), w)
    a = x
    for i in range(1, 4):
        a = np.sin(a * w[2 * i + 1]) + x
    np.testing.assert_allclose(value, a, rtol=1e-12)


def test_enzyme_affine_reduce_with_a_scalar_signature():
    text = """
func.func @reduce(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %p = affine.for %iv = 0 to 16 iter_args(%acc = %one) -> (f64) {
    %next = arith.mulf %acc, %x : f64
    affine.yield %next : f64
  }
  return %p : f64
}
"""
    result = gradir.gradcheck(text, "reduce", inputs=[np.float64(1.05)])
    assert result.ok, result.report()


# Bounds MLIR computes with `mod`, `floordiv` and `ceildiv`, by constants and by a symbol
# (semi-affine), of negative values too: `-3 mod 4` is 1 (xDSL's expansion gave -3, and the
# differentiated loop ran another number of trips than the program: a wrong gradient).
AFFINE_DIVISIONS = """
func.func @f(%x: tensor<3xf64>, %n: index, %s: index) -> tensor<3xf64> {
  %r = affine.for %i = max affine_map<(d0)[s0] -> (d0 floordiv 3, d0 ceildiv s0)>(%n)[%s]
      to affine_map<(d0)[s0] -> (d0 mod 4 + (d0 mod s0) + 2)>(%n)[%s]
      iter_args(%a = %x) -> (tensor<3xf64>) {
    %y = math.sin %a : tensor<3xf64>
    %z = arith.addf %y, %x : tensor<3xf64>
    affine.yield %z : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


@pytest.mark.parametrize("n, s", [(-3, 2), (-1, 5), (5, 3), (-7, 4), (6, 4)])
def test_bounds_with_divisions_follow_mlir(n, s):
    def trips():
        lower = max(n // 3, -(-n // s))
        upper = n % 4 + n % s + 2  # Python's % is MLIR's mod for a positive divisor
        return max(0, upper - lower)

    x = np.array([0.3, -0.5, 0.9])
    want = x.copy()
    for _ in range(trips()):
        want = np.sin(want) + x
    (got,) = gradir.compile(AFFINE_DIVISIONS).call("f", x, np.int64(n), np.int64(s))
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert trips() > 0
    result = gradir.gradcheck(AFFINE_DIVISIONS, "f", inputs=[x, np.int64(n), np.int64(s)], wrt=[0])
    assert result.ok, result.report()
