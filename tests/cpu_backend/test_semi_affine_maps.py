"""Semi-affine maps (`ceildiv`, `floordiv`, `mod`, `*` by a symbol) parse and compute what MLIR
defines, run by the CPU backend (MLIR 22's `lower-affine`): floor and ceiling round towards
minus and plus infinity, `mod` is never negative for a positive divisor. xDSL 0.74's parser
refused them (`gradir.source.SemiAffineParser`)."""
import numpy as np
import pytest

import gradir

PROGRAM = """
#ceil = affine_map<(d0, d1)[s0] -> ((d1 - d0) ceildiv s0)>
func.func @f(%i: index, %j: index, %s: index) -> tensor<5xi64> {
  %a = affine.apply #ceil(%i, %j)[%s]
  %b = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%i)[%s]
  %c = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%i)[%s]
  %d = affine.apply affine_map<(d0)[s0] -> (d0 * s0 + 1)>(%i)[%s]
  %e = affine.apply affine_map<(d0, d1)[s0] -> (s0 * (d0 + d1))>(%i, %j)[%s]
  %a1 = arith.index_cast %a : index to i64
  %b1 = arith.index_cast %b : index to i64
  %c1 = arith.index_cast %c : index to i64
  %d1 = arith.index_cast %d : index to i64
  %e1 = arith.index_cast %e : index to i64
  %r = tensor.from_elements %a1, %b1, %c1, %d1, %e1 : tensor<5xi64>
  return %r : tensor<5xi64>
}
"""


@pytest.fixture(scope="module")
def program():
    return gradir.compile(PROGRAM, target="cpu")


@pytest.mark.parametrize("i, j, s", [(3, 10, 4), (-7, 2, 3), (7, -2, 5), (0, 0, 1), (-9, -9, 2)])
def test_semi_affine_maps_compute_what_mlir_defines(program, i, j, s):
    ceil = -((i - j) // s)  # ceil((j - i) / s)
    want = [ceil, i // s, i % s, i * s + 1, s * (i + j)]
    (got,) = program.call("f", np.int64(i), np.int64(j), np.int64(s))
    assert got.tolist() == want
