"""Boolean (i1) tensors on the CPU: stored as bytes wherever they reach memory.

MLIR 22 aborts the process on a load or store of a `memref<...xi1>`; every
program here once made it do so (or was refused). Results are checked against
NumPy, gradients by central finite differences in float64 (gradir.gradcheck).
"""
import numpy as np
import pytest
from mlir import ir

import gradir
from exercised import assert_exercised
from gradir.mlir_bridge.booleans import (
    reject_boolean_buffers,
    store_boolean_buffers_as_bytes,
    store_booleans_as_bytes,
)
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.errors import PipelineError
from gradir.mlir_bridge import to_mlir_module

RNG = np.random.default_rng(7)

# --- linalg on tensors: masks stored, extracted, reduced and moved ------------------------

MASK_USES = """
#map = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xi1>, tensor<8xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<8xi1>
  %m = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %b : f32
    linalg.yield %c : i1
  } -> tensor<8xi1>
  %s = arith.select %m, %x, %y : tensor<8xi1>, tensor<8xf32>
  %c3 = arith.constant 3 : index
  %b3 = tensor.extract %m[%c3] : tensor<8xi1>
  %v = tensor.extract %x[%c3] : tensor<8xf32>
  %w = tensor.extract %y[%c3] : tensor<8xf32>
  %r = arith.select %b3, %v, %w : f32
  %rt = tensor.from_elements %r : tensor<f32>
  return %m, %s, %rt : tensor<8xi1>, tensor<8xf32>, tensor<f32>
}
"""


def test_mask_returned_selected_with_and_extracted():
    x, y = RNG.standard_normal(8).astype(np.float32), RNG.standard_normal(8).astype(np.float32)
    mask, selected, element = CpuExecutable(MASK_USES).f(x, y)
    assert mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, x > y)
    np.testing.assert_array_equal(selected, np.maximum(x, y))
    assert element == max(x[3], y[3])


ANY_POSITIVE = """
func.func @f(%x: tensor<4x8xf32>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4x8xi1>
  %z = arith.constant 0.0 : f32
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %z : f32
    linalg.yield %c : i1
  } -> tensor<4x8xi1>
  %false = arith.constant false
  %i = tensor.empty() : tensor<4xi1>
  %f = linalg.fill ins(%false : i1) outs(%i : tensor<4xi1>) -> tensor<4xi1>
  %r = linalg.reduce ins(%m : tensor<4x8xi1>) outs(%f : tensor<4xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %o = arith.ori %in, %acc : i1
      linalg.yield %o : i1
    }
  return %r : tensor<4xi1>
}
"""


def test_any_reduction_with_a_filled_boolean_accumulator():
    x = RNG.standard_normal((4, 8)).astype(np.float32) - 1.5
    x[0] = -1.0  # one row without a positive element
    result = CpuExecutable(ANY_POSITIVE).f(x)
    np.testing.assert_array_equal(result, (x > 0).any(axis=1))


LAYOUT = """
func.func @f(%c: tensor<3x4xi1>)
    -> (tensor<4x3xi1>, tensor<2x3x4xi1>, tensor<6x4xi1>, tensor<12xi1>, tensor<2x2xi1>) {
  %e = tensor.empty() : tensor<4x3xi1>
  %t = linalg.transpose ins(%c : tensor<3x4xi1>) outs(%e : tensor<4x3xi1>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<2x3x4xi1>
  %b = linalg.broadcast ins(%c : tensor<3x4xi1>) outs(%e2 : tensor<2x3x4xi1>) dimensions = [0]
  %k = tensor.concat dim(0) %c, %c : (tensor<3x4xi1>, tensor<3x4xi1>) -> tensor<6x4xi1>
  %f = tensor.collapse_shape %c [[0, 1]] : tensor<3x4xi1> into tensor<12xi1>
  %s = tensor.extract_slice %c[1, 1] [2, 2] [1, 1] : tensor<3x4xi1> to tensor<2x2xi1>
  return %t, %b, %k, %f, %s : tensor<4x3xi1>, tensor<2x3x4xi1>, tensor<6x4xi1>, tensor<12xi1>, tensor<2x2xi1>
}
"""


def test_boolean_tensors_transposed_broadcast_concatenated_reshaped_sliced():
    c = RNG.random((3, 4)) > 0.5
    transposed, broadcast, concatenated, flat, sliced = CpuExecutable(LAYOUT).f(c)
    np.testing.assert_array_equal(transposed, c.T)
    np.testing.assert_array_equal(broadcast, np.broadcast_to(c, (2, 3, 4)))
    np.testing.assert_array_equal(concatenated, np.concatenate([c, c]))
    np.testing.assert_array_equal(flat, c.reshape(12))
    np.testing.assert_array_equal(sliced, c[1:3, 1:3])


# --- gradients of select with conditions in loops and branches -----------------------------

SELECT_IN_LOOP = """
func.func @f(%c: tensor<i1>, %k: tensor<3x1xi1>, %x: tensor<3x4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<3x4xf64>) {
    %s = autodiff.select %c, %a, %y : (tensor<i1>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
    %t = autodiff.select %k, %s, %y : (tensor<3x1xi1>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
    %u = autodiff.tanh %t : tensor<3x4xf64>
    scf.yield %u : tensor<3x4xf64>
  }
  %r = autodiff.sum %z : tensor<3x4xf64> -> tensor<f64>
  return %r : tensor<f64>
}
"""


@pytest.mark.parametrize("condition", [True, False])
def test_zero_dim_and_broadcast_conditions_inside_a_loop(condition):
    rows = np.array([[True], [False], [condition]])
    inputs = [np.array(condition), rows, RNG.standard_normal((3, 4)), RNG.standard_normal(4)]
    result = gradir.gradcheck(SELECT_IN_LOOP, "f", inputs=inputs, wrt=[2, 3], allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)


BOOLEAN_LOOP_STATE = """
func.func @f(%c: tensor<4xi1>, %x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x, %k = %c) -> (tensor<4xf64>, tensor<4xi1>) {
    %s = autodiff.select %k, %a, %y : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %u = autodiff.sin %s : tensor<4xf64>
    scf.yield %u, %k : tensor<4xf64>, tensor<4xi1>
  }
  %r = autodiff.sum %z#0 : tensor<4xf64> -> tensor<f64>
  return %r : tensor<f64>
}
"""


def test_boolean_loop_state():
    inputs = [np.array([True, False, True, False]), RNG.standard_normal(4), RNG.standard_normal(4)]
    result = gradir.gradcheck(BOOLEAN_LOOP_STATE, "f", inputs=inputs, wrt=[1, 2], allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)


BRANCHES = """
func.func @chosen(%pt: tensor<i1>, %x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %p = tensor.extract %pt[] : tensor<i1>
  %z = scf.if %p -> (tensor<4xf64>) {
    scf.yield %x : tensor<4xf64>
  } else {
    scf.yield %y : tensor<4xf64>
  }
  %w = autodiff.sin %z : tensor<4xf64>
  %r = autodiff.sum %w : tensor<4xf64> -> tensor<f64>
  return %r : tensor<f64>
}
func.func @computed(%pt: tensor<i1>, %c: tensor<4xi1>, %x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
  %p = tensor.extract %pt[] : tensor<i1>
  %z = scf.if %p -> (tensor<4xf64>) {
    %s = autodiff.select %c, %x, %y : (tensor<4xi1>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    scf.yield %s : tensor<4xf64>
  } else {
    %s = autodiff.relu %x : tensor<4xf64>
    scf.yield %s : tensor<4xf64>
  }
  %r = autodiff.sum %z : tensor<4xf64> -> tensor<f64>
  return %r : tensor<f64>
}
"""


@pytest.mark.parametrize("branch", [True, False])
def test_branch_on_a_boolean_tensor(branch):
    """`chosen` canonicalises to a select on a scalar i1 (a generic with a scalar
    operand made MLIR abort) and its gradient frees buffers whose ownership is
    known at run time (flags the deallocation pipeline kept in an i1 buffer)."""
    x, y = RNG.standard_normal(4), RNG.standard_normal(4)
    result = gradir.gradcheck(BRANCHES, "chosen", inputs=[np.array(branch), x, y], wrt=[1, 2], allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)
    condition = np.array([True, False, True, False])
    inputs = [np.array(branch), condition, x, y]
    result = gradir.gradcheck(BRANCHES, "computed", inputs=inputs, wrt=[2, 3], allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)


BRANCH_BUFFERS = """
func.func @f(%p: tensor<i1>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = tensor.extract %p[] : tensor<i1>
  %r:2 = scf.if %c -> (tensor<8xf32>, tensor<8xf32>) {
    %e = tensor.empty() : tensor<8xf32>
    %a = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%in: f32, %o: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<8xf32>
    scf.yield %a, %y : tensor<8xf32>, tensor<8xf32>
  } else {
    scf.yield %x, %x : tensor<8xf32>, tensor<8xf32>
  }
  %s = arith.addf %r#0, %r#1 : tensor<8xf32>
  %t = arith.mulf %r#0, %r#1 : tensor<8xf32>
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}
"""


@pytest.mark.parametrize("branch", [True, False])
def test_branch_yielding_a_new_and_an_outside_tensor(branch):
    x, y = RNG.standard_normal(8).astype(np.float32), RNG.standard_normal(8).astype(np.float32)
    total, product = CpuExecutable(BRANCH_BUFFERS).f(np.array(branch), x, y)
    a, b = (-x, y) if branch else (x, x)
    np.testing.assert_allclose(total, a + b, rtol=1e-6)
    np.testing.assert_allclose(product, a * b, rtol=1e-6)


def test_gradient_of_a_gradient_through_select():
    source = """
    func.func @f(%c: tensor<2x1xi1>, %x: tensor<2x3xf64>, %y: tensor<f64>) -> tensor<f64> {
      %s = autodiff.select %c, %x, %y : (tensor<2x1xi1>, tensor<2x3xf64>, tensor<f64>) -> tensor<2x3xf64>
      %q = autodiff.mul %s, %s : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
      %r = autodiff.sum %q : tensor<2x3xf64> -> tensor<f64>
      return %r : tensor<f64>
    }
    func.func @g(%c: tensor<2x1xi1>, %x: tensor<2x3xf64>, %y: tensor<f64>) -> tensor<f64> {
      %gx, %gy = autodiff.grad @f(%c, %x, %y) {wrt = array<i64: 1, 2>}
          : (tensor<2x1xi1>, tensor<2x3xf64>, tensor<f64>) -> (tensor<2x3xf64>, tensor<f64>)
      %s = autodiff.sum %gx : tensor<2x3xf64> -> tensor<f64>
      %t = autodiff.mul %s, %gy : (tensor<f64>, tensor<f64>) -> tensor<f64>
      return %t : tensor<f64>
    }
    """
    inputs = [np.array([[True], [False]]), RNG.standard_normal((2, 3)), RNG.standard_normal(())]
    result = gradir.gradcheck(source, "g", inputs=inputs, wrt=[1, 2], allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)


# --- the steps themselves ---------------------------------------------------------------


def test_no_boolean_tensor_is_left_for_bufferization():
    constant = "%m = arith.constant dense<[true, false]> : tensor<2xi1>\n  return"
    module = to_mlir_module(LAYOUT.replace("return", constant))
    with module.context, ir.Location.unknown():
        store_booleans_as_bytes(module)
        module.operation.verify()
    text = str(module)
    assert "xi1>" not in text and "tensor<i1>" not in text
    assert "dense<[1, 0]> : tensor<2xi8>" in text


def test_unknown_op_on_boolean_tensors_is_a_located_error():
    module = to_mlir_module(
        """
        func.func @f(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
          %c = arith.andi %a, %b : tensor<4xi1>
          return %c : tensor<4xi1>
        }"""
    )
    with module.context, ir.Location.unknown(), pytest.raises(PipelineError, match="reaches `arith.andi`"):
        store_booleans_as_bytes(module)


DEALLOCATION_FLAGS = """
func.func private @helper(%flags: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %f = memref.load %flags[%c0] : memref<?xi1>
  %n = arith.xori %f, %f : i1
  memref.store %n, %flags[%c0] : memref<?xi1>
  return
}
func.func @f() {
  %flags = memref.alloc() : memref<2xi1>
  %cast = memref.cast %flags : memref<2xi1> to memref<?xi1>
  call @helper(%cast) : (memref<?xi1>) -> ()
  memref.dealloc %flags : memref<2xi1>
  return
}
"""


def test_deallocation_flags_become_bytes():
    module = to_mlir_module(DEALLOCATION_FLAGS)
    with module.context, ir.Location.unknown():
        store_boolean_buffers_as_bytes(module)
        module.operation.verify()
        reject_boolean_buffers(module)
    text = str(module)
    assert "xi1>" not in text and "memref<?xi8>" in text
    assert "arith.trunci" in text and "arith.extui" in text


def test_an_i1_buffer_left_is_a_clear_error_not_an_abort():
    module = to_mlir_module(
        """
        func.func @f(%m: memref<4xi1>) {
          %true = arith.constant true
          linalg.fill ins(%true : i1) outs(%m : memref<4xi1>)
          return
        }"""
    )
    with module.context, ir.Location.unknown():
        store_boolean_buffers_as_bytes(module)  # linalg.fill: not one it converts
        with pytest.raises(PipelineError, match="would be stored in memory .at `linalg.fill`"):
            reject_boolean_buffers(module)
