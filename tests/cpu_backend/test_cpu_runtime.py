"""The CPU path: CPU pipeline and runtime, checked against NumPy.

Every program is hand-written linalg/tensor/arith/math on tensors, the form
`convert-autodiff-to-linalg` produces.
"""
import io
import os
import pathlib
import sys

import numpy as np
import pytest
from mlir import ir
from xdsl.printer import Printer

from gradir.cpu_backend.cpu_math_approximation import approximate_math
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm, lower_to_llvm_text
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.errors import ArgumentError, PipelineError
from gradir.mlir_bridge import to_mlir_module
from gradir.mlir_bridge.host_execution import TensorSpec
from gradir.source import parse_module

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mlir_bridge"))
from linalg_programs import MLP_GRADIENT, mlp_gradient_reference, mlp_inputs  # noqa: E402

RNG = np.random.default_rng(1234)


def random(shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(dtype)


# --- elementwise chains ------------------------------------------------------------------

BROADCAST_CHAIN = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i, 0)>
func.func @chain(%x: tensor<5x7xf32>, %bias: tensor<7xf32>, %scale: tensor<5x1xf32>) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<5x7xf32>, tensor<7xf32>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %scale : tensor<5x7xf32>, tensor<5x1xf32>) outs(%e : tensor<5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  %t = math.tanh %scaled : tensor<5x7xf32>
  %ex = math.exp %t : tensor<5x7xf32>
  %sq = arith.mulf %ex, %ex : tensor<5x7xf32>
  %lg = math.log %sq : tensor<5x7xf32>
  %r = arith.subf %lg, %x : tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
"""


def test_broadcast_elementwise_chain_matches_numpy():
    x, bias, scale = random((5, 7)), random(7), random((5, 1))
    result = CpuExecutable(BROADCAST_CHAIN).chain(x, bias, scale)
    expected = np.log(np.exp(np.tanh((x + bias) * scale)) ** 2) - x
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)


WHOLE_TENSOR_ARITH = """
func.func @arith_ops(%a: tensor<3x4xDT>, %b: tensor<3x4xDT>) -> (tensor<3x4xDT>, tensor<3x4xDT>) {
  %sum = arith.addf %a, %b : tensor<3x4xDT>
  %quotient = arith.divf %sum, %b : tensor<3x4xDT>
  %negated = arith.negf %quotient : tensor<3x4xDT>
  %larger = arith.cmpf ogt, %a, %b : tensor<3x4xDT>
  %chosen = arith.select %larger, %a, %negated : tensor<3x4xi1>, tensor<3x4xDT>
  %root = math.sqrt %sum : tensor<3x4xDT>
  %power = math.powf %a, %b : tensor<3x4xDT>
  %absolute = math.absf %power : tensor<3x4xDT>
  %total = arith.addf %root, %absolute : tensor<3x4xDT>
  return %chosen, %total : tensor<3x4xDT>, tensor<3x4xDT>
}
"""


@pytest.mark.parametrize("dtype, mlir_type", [(np.float32, "f32"), (np.float64, "f64")])
def test_arith_and_math_on_whole_tensors(dtype, mlir_type):
    a, b = random((3, 4), dtype, 0.5, 2.0), random((3, 4), dtype, 0.5, 2.0)
    chosen, total = CpuExecutable(WHOLE_TENSOR_ARITH.replace("DT", mlir_type)).arith_ops(a, b)
    assert chosen.dtype == dtype and total.dtype == dtype
    np.testing.assert_allclose(chosen, np.where(a > b, a, -((a + b) / b)), rtol=1e-6)
    np.testing.assert_allclose(total, np.sqrt(a + b) + np.abs(a**b), rtol=1e-6)


def test_f64_transcendentals_are_exact():
    source = """
    func.func @f(%x: tensor<64xf64>) -> tensor<64xf64> {
      %e = math.exp %x : tensor<64xf64>
      %t = math.tanh %e : tensor<64xf64>
      %l = math.log %e : tensor<64xf64>
      %s = arith.addf %t, %l : tensor<64xf64>
      return %s : tensor<64xf64>
    }"""
    x = random(64, np.float64)
    result = CpuExecutable(source).f(x)
    np.testing.assert_allclose(result, np.tanh(np.exp(x)) + x, rtol=1e-14, atol=1e-14)


def test_f16_elementwise():
    source = """
    func.func @f(%x: tensor<16xf16>, %y: tensor<16xf16>) -> tensor<16xf16> {
      %p = arith.mulf %x, %y : tensor<16xf16>
      %e = math.exp %p : tensor<16xf16>
      return %e : tensor<16xf16>
    }"""
    x, y = random(16, np.float16, -1, 1), random(16, np.float16, -1, 1)
    result = CpuExecutable(source).f(x, y)
    assert result.dtype == np.float16
    np.testing.assert_allclose(result, np.exp(x * y), rtol=2e-3)


def test_bool_condition_tensor():
    source = """
    func.func @where(%c: tensor<6xi1>, %a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xf32> {
      %r = arith.select %c, %a, %b : tensor<6xi1>, tensor<6xf32>
      return %r : tensor<6xf32>
    }"""
    condition = np.array([True, False, True, True, False, False])
    a, b = random(6), random(6)
    result = CpuExecutable(source).where(condition, a, b)
    np.testing.assert_array_equal(result, np.where(condition, a, b))


# --- the f32 approximations of exp, log, tanh, sin and cos -------------------------------------------

APPROXIMATED = """
func.func @f(%x: tensor<NxDT>) -> (tensor<NxDT>, tensor<NxDT>, tensor<NxDT>) {
  %e = math.exp %x : tensor<NxDT>
  %l = math.log %x : tensor<NxDT>
  %t = math.tanh %x : tensor<NxDT>
  return %e, %l, %t : tensor<NxDT>, tensor<NxDT>, tensor<NxDT>
}
"""


def ulp_error(actual: np.ndarray, exact: np.ndarray) -> float:
    """Largest error in units of the last place of the f32 result; overflow must give inf."""
    rounded = exact.astype(np.float32)
    overflow = np.isinf(rounded)
    np.testing.assert_array_equal(actual[overflow], rounded[overflow])
    spacing = np.spacing(np.abs(rounded[~overflow])).astype(np.float64)
    return float(np.max(np.abs(actual[~overflow].astype(np.float64) - exact[~overflow]) / spacing))


def test_f32_exp_log_tanh_are_within_a_few_ulp():
    x = np.concatenate(
        [
            np.linspace(-110.0, 90.0, 40001),
            np.geomspace(1e-44, 3e38, 4000),
            -np.geomspace(1e-30, 1.0, 1000),
        ]
    ).astype(np.float32)
    exe = CpuExecutable(APPROXIMATED.replace("N", str(x.size)).replace("DT", "f32"))
    exp, log, tanh = exe.f(x)
    exact = x.astype(np.float64)
    with np.errstate(all="ignore"):
        assert ulp_error(exp, np.exp(exact)) <= 1.5
        positive = x > 0
        assert ulp_error(log[positive], np.log(exact[positive])) <= 1.5
        assert ulp_error(tanh, np.tanh(exact)) <= 8
    assert np.all(np.isnan(log[x < 0]))


def test_f32_approximations_handle_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1.0, 89.0], np.float32)
    exe = CpuExecutable(APPROXIMATED.replace("N", str(x.size)).replace("DT", "f32"))
    exp, log, tanh = exe.f(x)
    with np.errstate(all="ignore"):
        # assert_allclose requires infinities and NaNs at the same places.
        np.testing.assert_allclose(exp, np.exp(x), rtol=3e-7)
        np.testing.assert_allclose(tanh, np.tanh(x), rtol=3e-7)
        np.testing.assert_allclose(log, np.log(x), rtol=3e-7)
    assert np.signbit(tanh[1]) and exp[4] != exp[4]


def test_approximation_rewrites_only_f32_math():
    module = to_mlir_module(
        """
        func.func @f(%a: f32, %b: f64, %v: vector<8xf32>) -> (f32, f64, vector<8xf32>) {
          %x = math.exp %a : f32
          %y = math.exp %b : f64
          %z = math.tanh %v : vector<8xf32>
          return %x, %y, %z : f32, f64, vector<8xf32>
        }"""
    )
    assert approximate_math(module) == 2
    text = str(module)
    assert text.count("math.exp") == 1 and "f64" in text and "math.tanh" not in text
    module.operation.verify()


TRIGONOMETRIC = """
func.func @f(%x: tensor<NxDT>) -> (tensor<NxDT>, tensor<NxDT>) {
  %s = math.sin %x : tensor<NxDT>
  %c = math.cos %x : tensor<NxDT>
  return %s, %c : tensor<NxDT>, tensor<NxDT>
}
"""


def trigonometric_ulp_error(actual: np.ndarray, exact: np.ndarray) -> float:
    """ulp of the f32 result, with a floor of 2^-26 near zeros (where a relative
    measure would demand more precision than the f32 argument itself carries)."""
    spacing = np.maximum(np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64), 2.0**-26)
    return float(np.max(np.abs(actual.astype(np.float64) - exact) / spacing))


def test_f32_sin_cos_are_within_a_few_ulp():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            np.linspace(-10.0, 10.0, 40001),
            rng.uniform(-1e4, 1e4, 40000),
            rng.uniform(-1e6, 1e6, 20000),
            np.geomspace(1e-30, 1.0, 2000),
            -np.geomspace(1e-30, 1.0, 2000),
            np.arange(-200, 200) * (np.pi / 2),  # near the reduction's boundaries and zeros
        ]
    ).astype(np.float32)
    exe = CpuExecutable(TRIGONOMETRIC.replace("N", str(x.size)).replace("DT", "f32"))
    sin, cos = exe.f(x)
    exact = x.astype(np.float64)
    assert trigonometric_ulp_error(sin, np.sin(exact)) <= 2
    assert trigonometric_ulp_error(cos, np.cos(exact)) <= 2


def test_f32_sin_cos_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45], np.float32)
    exe = CpuExecutable(TRIGONOMETRIC.replace("N", str(x.size)).replace("DT", "f32"))
    sin, cos = exe.f(x)
    np.testing.assert_array_equal(sin[:2], [0.0, -0.0])
    assert np.signbit(sin[1]) and not np.signbit(sin[0])
    np.testing.assert_array_equal(cos[:2], [1.0, 1.0])
    assert np.all(np.isnan(sin[2:5])) and np.all(np.isnan(cos[2:5]))
    assert sin[5] == np.float32(1e-45) and cos[5] == 1.0


# --- contractions, reductions, shapes -----------------------------------------------------

MATMUL = """
func.func @mm(%a: tensor<MxKxDT>, %b: tensor<KxNxDT>) -> tensor<MxNxDT> {
  %zero = arith.constant 0.0 : DT
  %e = tensor.empty() : tensor<MxNxDT>
  %z = linalg.fill ins(%zero : DT) outs(%e : tensor<MxNxDT>) -> tensor<MxNxDT>
  %r = linalg.matmul ins(%a, %b : tensor<MxKxDT>, tensor<KxNxDT>) outs(%z : tensor<MxNxDT>) -> tensor<MxNxDT>
  return %r : tensor<MxNxDT>
}
"""


def matmul_source(m: int, k: int, n: int, mlir_type: str) -> str:
    return MATMUL.replace("M", str(m)).replace("K", str(k)).replace("N", str(n)).replace("DT", mlir_type)


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (4, 3, 5), (37, 100, 13), (64, 784, 256), (17, 33, 65)])
@pytest.mark.parametrize("dtype, mlir_type", [(np.float32, "f32"), (np.float64, "f64")])
def test_matmul_matches_numpy(m, k, n, dtype, mlir_type):
    a, b = random((m, k), dtype), random((k, n), dtype)
    result = CpuExecutable(matmul_source(m, k, n, mlir_type)).mm(a, b)
    tolerance = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(result, a @ b, rtol=tolerance, atol=tolerance * np.sqrt(k))


def test_batch_matmul_generic_and_transpose_of_last_dims():
    source = """
    #a = affine_map<(b, m, n, k) -> (b, m, k)>
    #b = affine_map<(b, m, n, k) -> (b, k, n)>
    #c = affine_map<(b, m, n, k) -> (b, m, n)>
    #swap = affine_map<(b, i, j) -> (b, j, i)>
    #id3 = affine_map<(b, i, j) -> (b, i, j)>
    func.func @bmm(%x: tensor<3x37x20xf32>, %y: tensor<3x20x50xf32>) -> tensor<3x50x37xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<3x37x50xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x37x50xf32>) -> tensor<3x37x50xf32>
      %r = linalg.generic {indexing_maps = [#a, #b, #c],
                           iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
          ins(%x, %y : tensor<3x37x20xf32>, tensor<3x20x50xf32>) outs(%f : tensor<3x37x50xf32>) {
      ^bb0(%p: f32, %q: f32, %acc: f32):
        %m = arith.mulf %p, %q : f32
        %s = arith.addf %acc, %m : f32
        linalg.yield %s : f32
      } -> tensor<3x37x50xf32>
      %et = tensor.empty() : tensor<3x50x37xf32>
      %t = linalg.generic {indexing_maps = [#swap, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
          ins(%r : tensor<3x37x50xf32>) outs(%et : tensor<3x50x37xf32>) {
      ^bb0(%p: f32, %o: f32):
        linalg.yield %p : f32
      } -> tensor<3x50x37xf32>
      return %t : tensor<3x50x37xf32>
    }"""
    x, y = random((3, 37, 20)), random((3, 20, 50))
    exe = CpuExecutable(source)
    result = exe.bmm(x, y)
    np.testing.assert_allclose(result, np.transpose(x @ y, (0, 2, 1)), rtol=1e-5, atol=1e-5)
    # Batched contractions and transposes are left to LLVM's loop vectoriser:
    # MLIR 22's vector lowering does not terminate on them (cpu_schedule.py).


REDUCTIONS = """
#id = affine_map<(i, j) -> (i, j)>
#rows = affine_map<(i, j) -> (i)>
#all = affine_map<(i, j) -> ()>
func.func @reduce(%x: tensor<33x70xf32>) -> (tensor<f32>, tensor<33xf32>, tensor<70xf32>, tensor<33xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %total = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<33x70xf32>) outs(%z0 : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %er = tensor.empty() : tensor<33xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<33xf32>) -> tensor<33xf32>
  %row_sums = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<33x70xf32>) outs(%zr : tensor<33xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<33xf32>
  %ec = tensor.empty() : tensor<70xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<70xf32>) -> tensor<70xf32>
  %column_sums = linalg.reduce ins(%x : tensor<33x70xf32>) outs(%zc : tensor<70xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  %mr = linalg.fill ins(%ninf : f32) outs(%er : tensor<33xf32>) -> tensor<33xf32>
  %row_max = linalg.reduce ins(%x : tensor<33x70xf32>) outs(%mr : tensor<33xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %total, %row_sums, %column_sums, %row_max : tensor<f32>, tensor<33xf32>, tensor<70xf32>, tensor<33xf32>
}
"""


def test_reductions_to_scalar_rows_and_columns():
    x = random((33, 70))
    total, row_sums, column_sums, row_max = CpuExecutable(REDUCTIONS).reduce(x)
    assert total.shape == () and row_sums.shape == (33,)
    np.testing.assert_allclose(total, x.sum(dtype=np.float64), rtol=1e-5)
    np.testing.assert_allclose(row_sums, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(column_sums, x.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(row_max, x.max(axis=1))


def test_reshapes_fill_and_multiple_results():
    source = """
    func.func @shapes(%x: tensor<2x6xf32>, %s: tensor<f32>)
        -> (tensor<3x4xf32>, tensor<12xf32>, tensor<2x3xf32>, tensor<2x6xf32>) {
      %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x6xf32> into tensor<12xf32>
      %grid = tensor.expand_shape %flat [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
      %twice = arith.addf %grid, %grid : tensor<3x4xf32>
      %value = tensor.extract %s[] : tensor<f32>
      %e = tensor.empty() : tensor<2x3xf32>
      %filled = linalg.fill ins(%value : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
      return %twice, %flat, %filled, %x : tensor<3x4xf32>, tensor<12xf32>, tensor<2x3xf32>, tensor<2x6xf32>
    }"""
    x = random((2, 6))
    exe = CpuExecutable(source)
    twice, flat, filled, same = exe.shapes(x, 2.5)
    np.testing.assert_array_equal(twice, 2 * x.reshape(3, 4))
    np.testing.assert_array_equal(flat, x.reshape(12))
    np.testing.assert_array_equal(filled, np.full((2, 3), 2.5, np.float32))
    np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)


def test_softmax_op_is_decomposed():
    source = """
    func.func @softmax(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
      %e = tensor.empty() : tensor<4x9xf32>
      %r = linalg.softmax dimension(1) ins(%x : tensor<4x9xf32>) outs(%e : tensor<4x9xf32>) -> tensor<4x9xf32>
      return %r : tensor<4x9xf32>
    }"""
    x = random((4, 9))
    result = CpuExecutable(source).softmax(x)
    expected = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5)


def test_inputs_are_never_updated_in_place():
    source = """
    func.func @poke(%x: tensor<4xf32>) -> tensor<4xf32> {
      %i = arith.constant 1 : index
      %v = arith.constant 42.0 : f32
      %r = tensor.insert %v into %x[%i] : tensor<4xf32>
      return %r : tensor<4xf32>
    }"""
    x = np.arange(4, dtype=np.float32)
    result = CpuExecutable(source).poke(x)
    np.testing.assert_array_equal(result, [0, 42, 2, 3])
    np.testing.assert_array_equal(x, [0, 1, 2, 3])


def test_strided_slices_are_copied_without_runner_utils():
    source = """
    func.func @corner(%x: tensor<6x8xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6x8xf32>) {
      %slice = tensor.extract_slice %x[1, 2] [2, 3] [2, 1] : tensor<6x8xf32> to tensor<2x3xf32>
      %doubled = arith.addf %slice, %slice : tensor<2x3xf32>
      %placed = tensor.insert_slice %y into %x[3, 4] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x8xf32>
      return %doubled, %placed : tensor<2x3xf32>, tensor<6x8xf32>
    }"""
    x, y = random((6, 8)), random((2, 3))
    doubled, placed = CpuExecutable(source).corner(x, y)
    np.testing.assert_array_equal(doubled, 2 * x[1:5:2, 2:5])
    expected = x.copy()
    expected[3:5, 4:7] = y
    np.testing.assert_array_equal(placed, expected)


def test_mlp_gradient_matches_backpropagation():
    inputs = mlp_inputs()
    results = CpuExecutable(MLP_GRADIENT).mlp_grad(*inputs)
    for result, expected in zip(results, mlp_gradient_reference(*inputs)):
        np.testing.assert_allclose(result, expected, rtol=2e-4, atol=2e-6)


# --- calling convention and argument checks -------------------------------------------------

ADD = """
func.func @add(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = arith.addf %a, %b : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @scale(%a: tensor<3x4xf32>, %s: tensor<f32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>,
                                        affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %s : tensor<3x4xf32>, tensor<f32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func private @helper(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  return %a : tensor<3x4xf32>
}
"""


@pytest.fixture(scope="module")
def add_exe() -> CpuExecutable:
    return CpuExecutable(ADD)


def test_signatures_are_read_before_bufferization(add_exe):
    signature = add_exe.signatures["add"]
    assert signature.arguments == (TensorSpec((3, 4), np.dtype(np.float32)),) * 2
    assert signature.results == (TensorSpec((3, 4), np.dtype(np.float32)),)
    assert set(add_exe.signatures) == {"add", "scale"}


def test_call_and_attribute_access_agree(add_exe):
    a, b = random((3, 4)), random((3, 4))
    (by_call,) = add_exe.call("add", a, b)
    by_attribute = add_exe.add(a, b)
    np.testing.assert_array_equal(by_call, a + b)
    np.testing.assert_array_equal(by_attribute, a + b)
    assert by_call is not by_attribute


RESULT_COUNTS = """
func.func @row(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = arith.addf %x, %x : tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
func.func @corner(%x: tensor<1x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = tensor.extract %x[%c0, %c3] : tensor<1x4xf32>
  return %v : f32
}
func.func @total(%x: tensor<1x4xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%x : tensor<1x4xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
    }
  return %s : tensor<f32>
}
func.func @both(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, f32) {
  %r = arith.addf %x, %x : tensor<1x4xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = tensor.extract %x[%c0, %c3] : tensor<1x4xf32>
  return %r, %v : tensor<1x4xf32>, f32
}
func.func @nothing(%x: tensor<1x4xf32>) {
  return
}
"""
"""Functions of one result (a (1, 4) tensor, which a 1-tuple unpacking would quietly turn into
its first row; an f32; a 0-d tensor), of two and of none."""

ROW = np.arange(4, dtype=np.float32).reshape(1, 4)


@pytest.fixture(scope="module")
def counts_exe() -> CpuExecutable:
    return CpuExecutable(RESULT_COUNTS)


def test_a_function_of_one_result_returns_the_result_itself(counts_exe):
    """As a JAX or PyTorch function: `y = exe.f(x)`, `float(exe.loss(x))`, never a 1-tuple."""
    row = counts_exe.row(ROW)
    assert type(row) is np.ndarray and row.shape == (1, 4)
    np.testing.assert_array_equal(row, 2 * ROW)
    corner = counts_exe.corner(ROW)
    assert type(corner) is np.float32 and corner == 3.0 and float(corner) == 3.0
    total = counts_exe.total(ROW)
    assert type(total) is np.ndarray and total.shape == () and float(total) == 6.0


def test_a_function_of_several_results_returns_a_tuple(counts_exe):
    results = counts_exe.both(ROW)
    assert type(results) is tuple and len(results) == 2
    np.testing.assert_array_equal(results[0], 2 * ROW)
    assert type(results[1]) is np.float32 and results[1] == 3.0
    assert counts_exe.nothing(ROW) == ()


def test_call_by_name_always_returns_a_tuple(counts_exe):
    """`exe.call` is the uniform interface for code that handles any function (gradcheck)."""
    (row,) = results = counts_exe.call("row", ROW)
    assert type(results) is tuple and len(results) == 1 and row.shape == (1, 4)
    assert counts_exe.call("corner", ROW) == (3.0,)
    assert type(counts_exe.call("corner", ROW)[0]) is np.float32
    assert len(counts_exe.call("both", ROW)) == 2
    assert counts_exe.call("nothing", ROW) == ()
    assert counts_exe.row.__name__ == "row"


def test_scalars_and_zero_d_arrays_for_zero_d_tensors(add_exe):
    a = random((3, 4))
    for scale in (3.0, 3, np.float32(3.0), np.array(3.0, np.float32)):
        result = add_exe.scale(a, scale)
        np.testing.assert_array_equal(result, a * 3)


def test_non_contiguous_arguments_are_made_contiguous(add_exe):
    base = random((4, 3))
    transposed = base.T
    strided = random((3, 8))[:, ::2]
    result = add_exe.add(transposed, strided)
    np.testing.assert_array_equal(result, transposed + strided)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((np.zeros((3, 4), np.float32),), "add: expected 2 arguments, got 1"),
        ((np.zeros((3, 4), np.float32), np.zeros((4, 3), np.float32)), "add: argument 1 has shape (4, 3), expected (3, 4)"),
        ((np.zeros((3, 4), np.float64), np.zeros((3, 4), np.float32)), "add: argument 0 has dtype float64, expected float32"),
        ((np.zeros((3, 4), np.float32), [[0.0] * 4] * 3), "add: argument 1 is a list, expected a numpy array"),
    ],
)
def test_bad_arguments_raise_one_line_argument_errors(add_exe, arguments, message):
    with pytest.raises(ArgumentError) as error:
        add_exe.add(*arguments)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_unknown_and_private_functions_are_argument_errors(add_exe):
    with pytest.raises(ArgumentError, match=r"no public function 'helper' \(available: add, scale\)"):
        add_exe.call("helper", random((3, 4)))
    with pytest.raises(AttributeError):
        add_exe.missing  # noqa: B018


def test_same_module_text_reuses_the_compiled_engine():
    source = ADD.replace("@add", "@add_cached")
    first = CpuExecutable(source)
    second = CpuExecutable(source)
    assert not first.from_cache and first.compile_seconds > 0
    assert second.from_cache and second.compile_seconds == 0
    assert second._compiled is first._compiled
    third = CpuExecutable(source.replace("arith.addf", "arith.subf"))
    assert third._compiled is not first._compiled


def test_xdsl_module_input(ctx):
    module = parse_module(ctx, ADD, "add.mlir")
    exe = CpuExecutable(module)
    a, b = random((3, 4)), random((3, 4))
    np.testing.assert_array_equal(exe.add(a, b), a + b)


# --- errors from MLIR ---------------------------------------------------------------------




# --- the LLVM-dialect output ---------------------------------------------------------------


def test_lower_to_llvm_text_is_pure_llvm_dialect():
    text = lower_to_llvm_text(ADD)
    module = to_mlir_module(text)
    dialects = {op.name.split(".")[0] for op in _all_ops(module)}
    assert dialects <= {"builtin", "llvm"}
    assert "llvm.func @_mlir_ciface_add" in text and "llvm.func @_mlir_ciface_scale" in text
    assert "llvm.noalias" in text


def test_lower_to_llvm_accepts_xdsl_generic_print(ctx):
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(parse_module(ctx, ADD, "add.mlir"))
    module = lower_to_llvm(to_mlir_module(stream.getvalue()))
    assert isinstance(module, ir.Module)


def _all_ops(module: ir.Module) -> list[ir.Operation]:
    found = []

    def visit(op):
        found.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def test_freed_memory_is_kept_for_reuse_unless_asked_not_to(tmp_path):
    """Large temporaries would otherwise be unmapped on free and page-faulted in
    again on every call (two thirds of the GMM gradient at (20, 50, 1000))."""
    import subprocess
    import sys

    from gradir.cpu_backend.cpu_runtime import retain_freed_memory

    assert retain_freed_memory() is True  # glibc here
    probe = "from gradir.cpu_backend.cpu_runtime import retain_freed_memory as r; print(r())"
    env = {**os.environ, "GRADIR_SYSTEM_MALLOC": "1"}
    # Outside the checkout: its top-level `gradir/` folder would shadow the installed package.
    opted_out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert opted_out.stdout.strip() == "False", opted_out.stderr
