"""Fused generics are named only when their bodies are exactly a contraction.

MLIR 22's `linalg-specialize-generic-ops` took `acc + exp(a) * b` over a
batch-matmul iteration space for a `linalg.batch_matmul` and dropped the
`exp`: the CPU pipeline computed `a @ b` for `exp(a) @ b` (max error 7.9).
"""
import numpy as np
import pytest

import gradir
from gradir.cpu_backend.specialize_generics import specialize_pure_generics
from gradir.mlir_bridge import to_mlir_module, walk_ops
from gradir.source import parse_module

BATCHED = """
func.func @f(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  %e = autodiff.UNARY %a : tensor<2x3x4xf64>
  %m = autodiff.matmul LHS : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  %t = autodiff.tanh %m : tensor<2x3x5xf64>
  return %t : tensor<2x3x5xf64>
}
"""
NUMPY = {"exp": np.exp, "neg": np.negative, "sin": np.sin}


def batched_source(unary: str) -> str:
    return BATCHED.replace("UNARY", unary).replace("LHS", "%e, %b")


@pytest.mark.parametrize("unary", sorted(NUMPY))
def test_elementwise_op_feeding_a_batched_matmul_is_kept(unary):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    result = gradir.compile(batched_source(unary), target="cpu").f(a, b)
    np.testing.assert_allclose(result, np.tanh(NUMPY[unary](a) @ b), rtol=1e-12, atol=1e-12)


def test_gradient_through_elementwise_and_batched_matmul():
    result = gradir.gradcheck(batched_source("exp"), "f")
    assert result.ok, result.report()


CONTRACTION = """
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @g(%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>, %init: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%init : tensor<2x3x5xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    BODY
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}
"""


def specialized_names(ctx, body: str) -> set[str]:
    module = to_mlir_module(parse_module(ctx, CONTRACTION.replace("BODY", body)))
    specialize_pure_generics(module)
    names = {op.name for op in walk_ops(module, {"linalg.generic", "linalg.batch_matmul"})}
    with module.context:
        assert module.operation.verify()
        assert "gradir.pure_body" not in str(module)
    return names


def test_pure_contraction_body_becomes_a_named_batch_matmul(ctx):
    assert specialized_names(ctx, "%m = arith.mulf %p, %q : f32") == {"linalg.batch_matmul"}


def test_contraction_body_with_a_unary_op_stays_a_generic(ctx):
    body = "%ep = math.exp %p : f32\n    %m = arith.mulf %ep, %q : f32"
    assert specialized_names(ctx, body) == {"linalg.generic"}



FUSED_MULTIPLY_ADD = """
#id = affine_map<(i, j) -> (i, j)>
func.func @fma(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>, %z: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<3x4xf32>, tensor<3x4xf32>) outs(%z : tensor<3x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
"""


def test_pure_body_without_a_named_form_stays_a_generic(ctx):
    """`acc + x * y` with every loop parallel has no named op: the transform must not fail."""
    module = to_mlir_module(parse_module(ctx, FUSED_MULTIPLY_ADD))
    specialize_pure_generics(module)
    assert [op.name for op in walk_ops(module, {"linalg.generic"})] == ["linalg.generic"]


# The gradient of A in a batched matmul as reverse mode writes it for a user's generic:
# dA(b, i, k) = sum_j B(b, k, j) * g(b, i, j), the first input indexing the output's
# columns. MLIR 22 named it a batch_matmul with the output map (d0, d2, d1), which its
# verifier rejects: the gradient of any batched-matmul generic failed to compile.
COLUMNS_FIRST = """
#b = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#g = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#o = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @grad_a(%b: tensor<2x4x5xf64>, %g: tensor<2x3x5xf64>, %init: tensor<2x3x4xf64>) -> tensor<2x3x4xf64> {
  %r = linalg.generic {indexing_maps = [#b, #g, #o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%b, %g : tensor<2x4x5xf64>, tensor<2x3x5xf64>) outs(%init : tensor<2x3x4xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %m = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<2x3x4xf64>
  return %r : tensor<2x3x4xf64>
}
"""


def test_batched_contraction_reading_columns_first_stays_a_generic(ctx):
    module = to_mlir_module(parse_module(ctx, COLUMNS_FIRST))
    specialize_pure_generics(module)
    with module.context:
        assert module.operation.verify()
    assert [op.name for op in walk_ops(module, {"linalg.generic", "linalg.batch_matmul"})] == ["linalg.generic"]
    rng = np.random.default_rng(3)
    b, g, init = rng.standard_normal((2, 4, 5)), rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 3, 4))
    result = gradir.compile(COLUMNS_FIRST, target="cpu").grad_a(b, g, init)
    np.testing.assert_allclose(result, init + g @ b.transpose(0, 2, 1), rtol=1e-12, atol=1e-12)


BATCHED_GENERIC = CONTRACTION.replace("BODY", "%m = arith.mulf %p, %q : f32")


def test_gradient_of_a_batched_matmul_generic():
    """Reverse mode writes dA with B first: it compiled to an invalid batch_matmul."""
    result = gradir.gradcheck(BATCHED_GENERIC, "g")
    assert result.ok, result.report()


WINDOW = """
func.func @f(%x: tensor<XLENxf64>, %w: tensor<3xf64>, %o: tensor<4xf64>) -> tensor<4xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (WINDOW)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<XLENxf64>, tensor<3xf64>) outs(%o : tensor<4xf64>) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %b : f64
    %s = arith.addf %c, %m : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}
"""


@pytest.mark.parametrize("stride, dilation", [(1, 1), (2, 1), (1, 2), (2, 3)])
def test_a_window_generic_computes_its_strides_and_dilations(stride, dilation):
    """A pure multiply-add body reading `x[s * o + d * k]`: MLIR 22 named a strided or dilated
    one `linalg.conv_1d` (neither stride nor dilation), which read `x[o + k]`: wrong values,
    no error. Window generics now stay generics."""
    window = f"d0 * {stride} + d1 * {dilation}".replace(" * 1", "")
    length = stride * 3 + dilation * 2 + 1
    x, w, o = np.arange(1.0, length + 1), np.array([1.0, 10.0, 100.0]), np.full(4, 0.5)
    text = WINDOW.replace("XLEN", str(length)).replace("WINDOW", window)
    (result,) = gradir.compile(text, target="cpu").call("f", x, w, o)
    want = [0.5 + sum(x[stride * i + dilation * k] * w[k] for k in range(3)) for i in range(4)]
    np.testing.assert_allclose(result, want, rtol=1e-15)


TWO_BATCH_DIMS = """
func.func @f(%a: tensor<2x3x4x5xf64>, %b: tensor<2x3x6x5xf64>, %c: tensor<2x3x4x6xf64>) -> tensor<2x3x4x6xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(v, b, m, n, k) -> (v, b, m, k)>, affine_map<(v, b, m, n, k) -> (v, b, n, k)>,
                                        affine_map<(v, b, m, n, k) -> (v, b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3x4x5xf64>, tensor<2x3x6x5xf64>) outs(%c : tensor<2x3x4x6xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<2x3x4x6xf64>
  return %r : tensor<2x3x4x6xf64>
}
"""


def test_a_contraction_over_two_batch_dimensions_stays_a_generic():
    """What vmap makes of a batch_matmul with B read transposed: MLIR 22 named it a
    linalg.batch_matmul its own verifier rejects ("Unexpected result dim expression")."""
    rng = np.random.default_rng(3)
    a, b, c = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 3, 4, 6))
    (result,) = gradir.compile(TWO_BATCH_DIMS, target="cpu").call("f", a, b, c)
    np.testing.assert_allclose(result, c + np.einsum("vbmk,vbnk->vbmn", a, b), rtol=1e-12, atol=1e-12)
