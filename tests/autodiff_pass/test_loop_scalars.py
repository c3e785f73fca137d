"""Float scalars in control flow, both modes, checked numerically (float64
central differences through the CPU pipeline): scalar `scf.for` states,
`scf.if` with scalar results, active scalars read inside loops and branches
from outside, and a loop whose result the function returns directly.

Most programs take tensors, extract their scalars and return
`tensor.from_elements`; the scalar-signature versions pass and return the
scalars themselves across the CPU runtime boundary."""
import numpy as np
import pytest

import gradir
from gradir.autodiff_pass.rules.loop_cache import CACHE_ATTRIBUTE
from gradir.compilation import lower_to_linalg


# A scalar state a, updated with a weight read per iteration and the captured
# scalar x (also the initial value: the body reads the loop's own operand).
SCALAR_LOOP = """
func.func @scalar_loop(%xt: tensor<f64>, %wt: tensor<4xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> f64 {
    %w = tensor.extract %wt[%i] : tensor<4xf64>
    %m = arith.mulf %a, %w : f64
    %s = math.sin %m : f64
    %t = arith.addf %s, %x : f64
    scf.yield %t : f64
  }
  %r = tensor.from_elements %y : tensor<f64>
  return %r : tensor<f64>
}
"""

SCALAR_INPUTS = [np.array(0.7), np.array([0.9, 1.3, -0.8, 0.6])]


@pytest.mark.parametrize("checkpoint_every", [0, 3])
def test_scalar_loop_state_and_captured_scalar(checkpoint_every):
    result = gradir.gradcheck(SCALAR_LOOP, "scalar_loop", inputs=SCALAR_INPUTS, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()


def test_scalar_loop_caches_scalars_in_a_vector_stack():
    text = SCALAR_LOOP + """
func.func @g(%xt: tensor<f64>, %wt: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>) {
  %g:2 = autodiff.grad @scalar_loop(%xt, %wt) : (tensor<f64>, tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>)
  return %g#0, %g#1 : tensor<f64>, tensor<4xf64>
}
"""
    module = lower_to_linalg(text)
    (cache,) = [op.attributes[CACHE_ATTRIBUTE] for op in module.walk() if CACHE_ATTRIBUTE in op.attributes]
    # The state a (read by mulf's gradient of w) and m (read by sin's): 4 f64 each.
    assert cache.data["values"].value.data == 2
    assert cache.data["bytes"].value.data == 2 * 4 * 8
    assert "tensor<4xf64>" in str(module)


# A branch with scalar results, reading active scalars from outside, nested.
SCALAR_BRANCHES = """
func.func @scalar_branches(%xt: tensor<f64>, %ct: tensor<2xi1>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %p = tensor.extract %ct[%c0] : tensor<2xi1>
  %q = tensor.extract %ct[%c1] : tensor<2xi1>
  %two = arith.constant 2.0 : f64
  %r:2 = scf.if %p -> (f64, f64) {
    %m = arith.mulf %x, %x : f64
    scf.yield %m, %two : f64, f64
  } else {
    %n = scf.if %q -> (f64) {
      %c = math.cos %x : f64
      scf.yield %c : f64
    } else {
      scf.yield %two : f64
    }
    %s = arith.addf %n, %x : f64
    scf.yield %s, %x : f64, f64
  }
  %z = arith.mulf %r#0, %r#1 : f64
  %out = tensor.from_elements %z : tensor<f64>
  return %out : tensor<f64>
}
"""


@pytest.mark.parametrize("conditions", [(True, False), (False, True), (False, False)])
def test_scalar_branches(conditions):
    inputs = [np.array(0.7), np.array(conditions)]
    result = gradir.gradcheck(SCALAR_BRANCHES, "scalar_branches", inputs=inputs, wrt=[0])
    assert result.ok, result.report()


# A tensor loop whose body reads its own initial value again: the gradient
# through that read was lost (the operand was not counted as captured).
READS_ITS_INIT = """
func.func @reads_init(%x: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %s = autodiff.sin %a : tensor<3xf64>
    %t = autodiff.mul %s, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  %r = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %r : tensor<f64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_loop_reading_its_own_initial_value(checkpoint_every):
    result = gradir.gradcheck(
        READS_ITS_INIT, "reads_init", inputs=[np.array([0.7, 1.1, -0.4])], checkpoint_every=checkpoint_every
    )
    assert result.ok, result.report()


# The function returns the cached loop's result itself (no op in between).
RETURNED_LOOP = """
func.func @returned(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %m = autodiff.mul %a, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = autodiff.tanh %m : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_function_returning_a_loop_result(checkpoint_every):
    inputs = [np.array([0.7, 1.1, -0.4]), np.array([0.9, -1.2, 1.5])]
    result = gradir.gradcheck(RETURNED_LOOP, "returned", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()


# ----------------------------------------------------------------------------
# The same programs with scalar signatures (need scalars at the runtime boundary)
# ----------------------------------------------------------------------------

SCALAR_SIGNATURE_LOOP = """
func.func @scalar_loop(%x: f64, %wt: tensor<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> f64 {
    %w = tensor.extract %wt[%i] : tensor<4xf64>
    %m = arith.mulf %a, %w : f64
    %s = math.sin %m : f64
    %t = arith.addf %s, %x : f64
    scf.yield %t : f64
  }
  return %y : f64
}
"""

SCALAR_SIGNATURE_BRANCH = """
func.func @branch(%x: f64, %c: i1) -> f64 {
  %two = arith.constant 2.0 : f64
  %r = scf.if %c -> (f64) {
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  } else {
    %s = math.sin %x : f64
    scf.yield %s : f64
  }
  %z = arith.mulf %r, %two : f64
  return %z : f64
}
"""


def test_scalar_signature_loop():
    result = gradir.gradcheck(SCALAR_SIGNATURE_LOOP, "scalar_loop", inputs=[np.float64(0.7), SCALAR_INPUTS[1]])
    assert result.ok, result.report()


def test_scalar_signature_branch():
    result = gradir.gradcheck(SCALAR_SIGNATURE_BRANCH, "branch", inputs=[np.float64(0.7), np.bool_(True)], wrt=[0])
    assert result.ok, result.report()


# Integers and indices are never active: a float made from the induction
# variable (sitofp) scales the state but carries no derivative of its own.
FROM_INTEGER = """
func.func @from_integer(%xt: tensor<f64>) -> tensor<f64> {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %x = tensor.extract %xt[] : tensor<f64>
  %y = scf.for %i = %c1 to %c5 step %c1 iter_args(%a = %x) -> f64 {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %m = arith.mulf %a, %fi : f64
    %s = math.sin %m : f64
    scf.yield %s : f64
  }
  %r = tensor.from_elements %y : tensor<f64>
  return %r : tensor<f64>
}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 3])
def test_float_from_an_integer_in_a_loop(checkpoint_every):
    result = gradir.gradcheck(FROM_INTEGER, "from_integer", inputs=[np.array(0.3)], checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
