"""`linalg.pack` / `linalg.unpack` on tensors of dynamic shape (`dialects/linalg_pack.py`,
`autodiff_pass/rules/linalg_pack.py`), reverse and forward mode against central
differences in f64 through the CPU pipeline, each program compiled once and checked at
several run-time sizes (full and partial last tiles).

Before, the verifier ceil-divided the dynamic sentinel by the tile size, so a pack of
`tensor<?xf64>` into `tensor<?x2xf64>` was refused as expecting
`tensor<-4611686018427387904x2xf64>`; and the rules built their `tensor.empty`s from the
static type only. Now a dynamic dimension's tile count is dynamic, what the rules build is
sized by `tensor.dim` of the op's own values, and the adjoint pack of an unpack whose tiled
dimension is dynamic gets a zero padding value (its last tile may be partial at run time).
"""
from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from gradir.compilation import lower_to_linalg
from gradir.dialects.linalg_pack import PackOp
from gradir.gradient_check import GradChecker

# x (n) cut into tiles of 2, the last one padded with %pad when n is odd
PACK_PADDED = """
func.func @f(%x: tensor<?xf64>, %pad: f64) -> tensor<?x2xf64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %tiles = arith.ceildivui %n, %c2 : index
  %init = tensor.empty(%tiles) : tensor<?x2xf64>
  %p = linalg.pack %x padding_value(%pad : f64) inner_dims_pos = [0] inner_tiles = [2] into %init
      : tensor<?xf64> -> tensor<?x2xf64>
  return %p : tensor<?x2xf64>
}
"""

# x (2k x 3) with its outer dimensions swapped: full tiles, no padding value
PACK_TRANSPOSED = """
func.func @f(%x: tensor<?x3xf64>) -> tensor<3x?x2xf64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf64>
  %tiles = arith.divui %n, %c2 : index
  %init = tensor.empty(%tiles) : tensor<3x?x2xf64>
  %p = linalg.pack %x outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [2] into %init
      : tensor<?x3xf64> -> tensor<3x?x2xf64>
  return %p : tensor<3x?x2xf64>
}
"""

# tiles of 3 read back into a destination of run-time size (maybe shorter than the tiles:
# the padding dropped); the destination is overwritten, only the tiles are differentiated
UNPACK = """
func.func @f(%p: tensor<?x3xf64>, %init: tensor<?xf64>) -> tensor<?xf64> {
  %u = linalg.unpack %p inner_dims_pos = [0] inner_tiles = [3] into %init : tensor<?x3xf64> -> tensor<?xf64>
  return %u : tensor<?xf64>
}
"""

# pack (padded) then unpack back, squared so the gradient depends on x
ROUND_TRIP = """
func.func @f(%x: tensor<2x?xf64>, %pad: f64) -> tensor<2x?xf64> {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c1 : tensor<2x?xf64>
  %tiles = arith.ceildivui %n, %c3 : index
  %dest = tensor.empty(%tiles) : tensor<2x?x3xf64>
  %p = linalg.pack %x padding_value(%pad : f64) inner_dims_pos = [1] inner_tiles = [3] into %dest
      : tensor<2x?xf64> -> tensor<2x?x3xf64>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<2x?x3xf64>) outs(%dest : tensor<2x?x3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.mulf %a, %a : f64
    linalg.yield %s : f64
  } -> tensor<2x?x3xf64>
  %back = tensor.empty(%n) : tensor<2x?xf64>
  %r = linalg.unpack %q inner_dims_pos = [1] inner_tiles = [3] into %back : tensor<2x?x3xf64> -> tensor<2x?xf64>
  return %r : tensor<2x?xf64>
}
"""


@cache
def _checker(text: str, wrt: tuple[int, ...] | None = None) -> GradChecker:
    return GradChecker(text, [("f", None if wrt is None else list(wrt))])


def _check(text: str, inputs, wrt: tuple[int, ...] | None = None) -> None:
    result = _checker(text, wrt).check("f", inputs)
    assert result.ok, result.report()
    assert result.checks


def _normal(seed: int, *shapes) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


@pytest.mark.parametrize("n", [4, 5, 1])
def test_pack_of_a_dynamic_dimension_with_padding(n):
    """The padding value gets the gradient of the padded positions (none when n is even:
    the check then finds its gradient zero on both sides)."""
    x, pad = _normal(n, n, ())
    result = _checker(PACK_PADDED).check("f", [x, pad], allow_vacuous=n % 2 == 0)
    assert result.ok, result.report()


@pytest.mark.parametrize("n", [2, 6])
def test_pack_of_a_dynamic_dimension_transposed(n):
    _check(PACK_TRANSPOSED, _normal(n, (n, 3)))


@pytest.mark.parametrize("tiles, size", [(2, 6), (2, 5), (3, 7), (1, 1)])
def test_unpack_into_a_destination_of_dynamic_size(tiles, size):
    """A partial last tile at run time: the adjoint pack must pad, or the tiles' positions
    past the destination would get whatever the empty tensor held."""
    p, init = _normal(tiles * 10 + size, (tiles, 3), size)
    _check(UNPACK, [p, init], wrt=(0,))


@pytest.mark.parametrize("n", [3, 4, 8])
def test_pack_then_unpack_of_a_dynamic_dimension(n):
    x, pad = _normal(n, (2, n), ())
    result = _checker(ROUND_TRIP).check("f", [x, pad], allow_vacuous=True)
    assert result.ok, result.report()
    assert result.checks


def test_adjoint_pack_of_a_dynamic_unpack_is_padded():
    """The tiles' positions past a destination of run-time size are read by nobody: the
    adjoint pack gives them a zero padding value (a pack with a partial tile and none is
    undefined in MLIR; the CPU lowering happens to pad with zeros, so the values alone do
    not show it)."""
    entry = """
func.func @vjp(%p: tensor<?x3xf64>, %init: tensor<?xf64>, %ct: tensor<?xf64>) -> tensor<?x3xf64> {
  %r:2 = autodiff.vjp @f(%p, %init, %ct) {wrt = array<i64: 0>} : (tensor<?x3xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?x3xf64>)
  return %r#1 : tensor<?x3xf64>
}
"""
    packs = [op for op in lower_to_linalg(UNPACK + entry).walk() if isinstance(op, PackOp)]
    assert len(packs) == 1
    assert packs[0].padding_value is not None
