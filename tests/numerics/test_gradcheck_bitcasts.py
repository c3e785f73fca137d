"""gradcheck's f64 copy of a program that reinterprets bits (`arith.bitcast` between
integers and f32): jax.random builds uniform floats as `bitcast(bits >> 9 | 0x3f800000) - 1`.

Promotion renamed every f32 to f64, so `arith.bitcast %b : i32 to f32` read `i32 to f64`,
which is not an op: no program using jax.random (JAX's VAE, ADVI, truncated normal) could
be gradchecked. Such a bitcast keeps its width, joined to the f64 program by extf/truncf.
"""
import numpy as np

import gradir
from gradir.gradient_check import promote_to_f64
from gradir.source import load_module

NOISE = """
#map = affine_map<(d0) -> (d0)>
func.func @noisy(%x: tensor<4xf32>, %bits: tensor<4xi32>, %sign_of: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %mantissa = arith.constant 9 : i32
  %one_bits = arith.constant 1065353216 : i32
  %sign_bit = arith.constant 31 : i32
  %one = arith.constant 1.0 : f32
  %as_floats = arith.bitcast %bits : tensor<4xi32> to tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %bits, %sign_of, %as_floats : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: i32, %s: f32, %f: f32, %o: f32):
    %shifted = arith.shrui %b, %mantissa : i32
    %in_one_two = arith.ori %shifted, %one_bits : i32
    %u12 = arith.bitcast %in_one_two : i32 to f32
    %u = arith.subf %u12, %one : f32
    %s_bits = arith.bitcast %s : f32 to i32
    %negative = arith.shrui %s_bits, %sign_bit : i32
    %flip = arith.uitofp %negative : i32 to f32
    %scale = arith.addf %u, %flip : f32
    %sq = arith.mulf %a, %a : f32
    %y = arith.mulf %sq, %scale : f32
    %z = arith.addf %y, %f : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

X = np.array([0.5, -1.25, 0.75, 1.5])
BITS = np.array([0.5, 1.5, -2.0, 3.25], dtype=np.float32).view(np.int32)  # finite as floats too
SIGNS = np.array([1.0, -2.0, 3.0, -0.5])


def expected(x, bits, signs):
    u = ((bits.astype(np.uint32) >> 9) | np.uint32(0x3F800000)).view(np.float32).astype(np.float64) - 1.0
    flip = (signs < 0).astype(np.float64)
    return x * x * (u + flip) + bits.view(np.float32)


def test_gradcheck_of_a_program_that_builds_floats_from_bits():
    result = gradir.gradcheck(NOISE, "noisy", inputs=[X, BITS, SIGNS], wrt=[0])
    assert result.ok, result.report()
    assert result.checks  # the derivative is 2x * (u + flip): nowhere zero for these inputs


def test_the_f64_copy_computes_what_the_f32_program_does():
    promoted = promote_to_f64(load_module(NOISE))
    text = str(promoted)
    assert "i32 to f32" in text and "f32 to i32" in text  # the reinterpretations keep their width
    (got,) = gradir.compile(promoted).call("noisy", X, BITS, SIGNS)
    np.testing.assert_allclose(got, expected(X, BITS, SIGNS), rtol=1e-6)
