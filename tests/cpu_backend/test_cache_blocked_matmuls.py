"""Large matmuls run as cache blocks of packed panels (`cpu_backend/cache_blocked_matmuls.py`).

The numeric tests shrink the block sizes so that small, odd shapes (primes,
shapes smaller than one block, K not a multiple of the slice) go through every
edge of the loop nest: full and edge blocks in M, N and K, operands read
transposed through `indexing_maps` or through a transpose that packing absorbs,
f32 and f64, and batch matmuls (loops of matmuls on views of 3-d buffers).
Every product is checked against NumPy through the whole CPU pipeline.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from mlir import ir

import gradir
from gradir.cpu_backend import cache_blocked_matmuls as blocking
from gradir.cpu_backend.cache_blocked_matmuls import Blocking, cache_blocked_matmuls, choose_blocking
from gradir.cpu_backend.cpu_runtime import clear_cache
from gradir.mlir_bridge import walk_ops

MAPS = {
    ("a", False): "affine_map<(d0, d1, d2) -> (d0, d2)>",
    ("a", True): "affine_map<(d0, d1, d2) -> (d2, d0)>",
    ("b", False): "affine_map<(d0, d1, d2) -> (d2, d1)>",
    ("b", True): "affine_map<(d0, d1, d2) -> (d1, d2)>",
}


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 16 rows, 32 columns and 12 deep, for every matmul of at least one
    multiply-add; compiled modules are forgotten before and after, since the
    source text (the compile cache's key) does not say which blocks were used."""
    for name, value in (("DEPTH", 12), ("COLUMNS", 32), ("ROWS", 16)):
        monkeypatch.setattr(blocking, name, {32: value, 64: value})
    monkeypatch.setattr(blocking, "MIN_FLOPS", 1)
    monkeypatch.setattr(blocking, "MIN_REUSE", 1)
    clear_cache()
    yield
    clear_cache()


def stored_shape(name: str, transposed: bool, rows: int, columns: int) -> tuple[int, int]:
    return (columns, rows) if transposed else (rows, columns)


def matmul_by_maps(m: int, n: int, k: int, element: str, a_transposed: bool, b_transposed: bool) -> str:
    """`C = op(A) op(B)` as one `linalg.matmul` whose `indexing_maps` say which operand is transposed."""
    a = "x".join(map(str, stored_shape("a", a_transposed, m, k)))
    b = "x".join(map(str, stored_shape("b", b_transposed, k, n)))
    maps = f"[{MAPS[('a', a_transposed)]}, {MAPS[('b', b_transposed)]}, affine_map<(d0, d1, d2) -> (d0, d1)>]"
    return f"""
func.func @f(%a: tensor<{a}x{element}>, %b: tensor<{b}x{element}>) -> tensor<{m}x{n}x{element}> {{
  %zero = arith.constant 0.0 : {element}
  %e = tensor.empty() : tensor<{m}x{n}x{element}>
  %c = linalg.fill ins(%zero : {element}) outs(%e : tensor<{m}x{n}x{element}>) -> tensor<{m}x{n}x{element}>
  %r = linalg.matmul indexing_maps = {maps}
      ins(%a, %b : tensor<{a}x{element}>, tensor<{b}x{element}>) outs(%c : tensor<{m}x{n}x{element}>) -> tensor<{m}x{n}x{element}>
  return %r : tensor<{m}x{n}x{element}>
}}
"""


def matmul_of_transposes(m: int, n: int, k: int, element: str, a_transposed: bool, b_transposed: bool) -> str:
    """`C = op(A) op(B)` as `autodiff.transpose`s feeding an `autodiff.matmul`, as reverse mode writes it."""
    a_shape, b_shape = stored_shape("a", a_transposed, m, k), stored_shape("b", b_transposed, k, n)
    a, b = "x".join(map(str, a_shape)), "x".join(map(str, b_shape))
    lines, left, right = [], "%a", "%b"
    if a_transposed:
        lines.append(f"%at = autodiff.transpose %a {{permutation = array<i64: 1, 0>}} : tensor<{a}x{element}> -> tensor<{m}x{k}x{element}>")
        left = "%at"
    if b_transposed:
        lines.append(f"%bt = autodiff.transpose %b {{permutation = array<i64: 1, 0>}} : tensor<{b}x{element}> -> tensor<{k}x{n}x{element}>")
        right = "%bt"
    body = "\n  ".join(lines)
    return f"""
func.func @f(%a: tensor<{a}x{element}>, %b: tensor<{b}x{element}>) -> tensor<{m}x{n}x{element}> {{
  {body}
  %c = autodiff.matmul {left}, {right} : (tensor<{m}x{k}x{element}>, tensor<{k}x{n}x{element}>) -> tensor<{m}x{n}x{element}>
  return %c : tensor<{m}x{n}x{element}>
}}
"""


def check_product(source: str, m: int, n: int, k: int, element: str, a_transposed: bool, b_transposed: bool) -> None:
    dtype = np.float32 if element == "f32" else np.float64
    rng = np.random.default_rng(m * 10000 + n * 100 + k)
    a = rng.standard_normal(stored_shape("a", a_transposed, m, k)).astype(dtype)
    b = rng.standard_normal(stored_shape("b", b_transposed, k, n)).astype(dtype)
    result = gradir.compile(source, target="cpu").f(a, b)
    expected = (a.T if a_transposed else a).astype(np.float64) @ (b.T if b_transposed else b).astype(np.float64)
    tolerance = 1e-4 if element == "f32" else 1e-11
    np.testing.assert_allclose(result, expected, rtol=tolerance, atol=tolerance * np.sqrt(k))


# Primes, shapes smaller than one block (16 x 32 x 12), a K that the 12-deep slice
# (and the 8-deep register slice) does not divide, one row, one column.
SHAPES = [(37, 67, 29), (5, 7, 3), (16, 32, 12), (33, 65, 25), (1, 70, 30), (40, 1, 30), (17, 97, 13)]


def shape_id(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


TRANSPOSES = list(itertools.product([False, True], repeat=2))


@pytest.mark.parametrize("element", ["f32", "f64"])
@pytest.mark.parametrize("a_transposed, b_transposed", TRANSPOSES)
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
def test_blocked_matmul_by_maps_matches_numpy(small_blocks, shape, a_transposed, b_transposed, element):
    m, n, k = shape
    check_product(matmul_by_maps(m, n, k, element, a_transposed, b_transposed), m, n, k, element, a_transposed, b_transposed)


@pytest.mark.parametrize("element", ["f32", "f64"])
@pytest.mark.parametrize("a_transposed, b_transposed", TRANSPOSES)
@pytest.mark.parametrize("shape", [(37, 67, 29), (6, 40, 53)], ids=shape_id)
def test_blocked_matmul_of_transposes_matches_numpy(small_blocks, shape, a_transposed, b_transposed, element):
    m, n, k = shape
    check_product(matmul_of_transposes(m, n, k, element, a_transposed, b_transposed), m, n, k, element, a_transposed, b_transposed)


@pytest.mark.parametrize("element", ["f32", "f64"])
def test_blocked_batch_matmul_matches_numpy(small_blocks, element):
    batch, m, n, k = 3, 19, 41, 31
    t = lambda *shape: f"tensor<{'x'.join(map(str, shape))}x{element}>"  # noqa: E731
    source = f"""
func.func @f(%a: {t(batch, m, k)}, %b: {t(batch, k, n)}) -> {t(batch, m, n)} {{
  %c = autodiff.matmul %a, %b : ({t(batch, m, k)}, {t(batch, k, n)}) -> {t(batch, m, n)}
  return %c : {t(batch, m, n)}
}}
"""
    dtype = np.float32 if element == "f32" else np.float64
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((batch, m, k)).astype(dtype), rng.standard_normal((batch, k, n)).astype(dtype)
    np.testing.assert_allclose(gradir.compile(source).f(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_default_blocks_with_edges_in_every_dimension_match_numpy():
    # 301 x 601 x 701 with the real blocks: edge blocks in N (601 = 2 * 256 + 89) and K (701 = 2 * 256 + 189).
    m, n, k = 301, 601, 701
    assert choose_blocking(m, n, k, 32) == Blocking(rows=301, columns=256, depth=256, rows_outer=False)
    for transposes in [(False, False), (True, False), (False, True)]:
        check_product(matmul_of_transposes(m, n, k, "f32", *transposes), m, n, k, "f32", *transposes)


# The IR: what the rewrite makes of a large matmul on buffers.

LARGE = """
func.func @f(%x: memref<8192x784xf32>, %dz: memref<8192x2048xf32>, %w: memref<784x2048xf32>) {
  %xt = memref.alloc() : memref<784x8192xf32>
  linalg.transpose ins(%x : memref<8192x784xf32>) outs(%xt : memref<784x8192xf32>) permutation = [1, 0]
  linalg.matmul ins(%xt, %dz : memref<784x8192xf32>, memref<8192x2048xf32>) outs(%w : memref<784x2048xf32>)
  memref.dealloc %xt : memref<784x8192xf32>
  return
}
"""


def rewritten(text: str) -> tuple[ir.Module, int]:
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        count = cache_blocked_matmuls(module)
        assert module.operation.verify()
        return module, count


def test_large_matmul_is_blocked_packed_and_parallel_over_disjoint_blocks_of_c():
    module, count = rewritten(LARGE)
    assert count == 1
    text = str(module)
    # Parallel over 8 blocks of 256 columns of C, a K loop of 256-deep slices.
    assert "scf.forall (%arg3) = (0) to (2048) step (256)" in text
    assert "to %c8192 step %c256" in text
    # Packed panels of its own per parallel iteration: A (784 x 256) and B (256 rows padded to 272).
    assert "memref.alloc() {alignment = 64 : i64} : memref<784x256xf32>" in text
    assert "memref.alloc() {alignment = 64 : i64} : memref<256x272xf32>" in text
    # x^T is packed straight from x: the transposed copy of all of x is gone.
    assert "memref<784x8192xf32>" not in text
    transposes = walk_ops(module, {"linalg.transpose"})
    assert [str(t.operands[0].type) for t in transposes] == ["memref<256x784xf32, strided<[784, 1], offset: ?>>"]
    matmuls = walk_ops(module, {"linalg.matmul"})
    assert [str(m.operands[0].type) for m in matmuls] == ["memref<784x256xf32, strided<[256, 1], offset: ?>>"]


def test_small_matmul_keeps_the_plain_schedule():
    # The MLP at batch 64 (64 x 784 @ 784 x 256): below MIN_FLOPS, untouched.
    text = """
func.func @f(%a: memref<64x784xf32>, %b: memref<784x256xf32>, %c: memref<64x256xf32>) {
  linalg.matmul ins(%a, %b : memref<64x784xf32>, memref<784x256xf32>) outs(%c : memref<64x256xf32>)
  return
}
"""
    module, count = rewritten(text)
    assert count == 0 and "scf.forall" not in str(module)


def test_a_transpose_whose_source_changes_before_the_matmul_is_kept():
    # The matmul must read x as it was when transposed: packing from x itself would see the fill.
    text = LARGE.replace(
        "  linalg.matmul",
        "  %one = arith.constant 1.0 : f32\n  linalg.fill ins(%one : f32) outs(%x : memref<8192x784xf32>)\n  linalg.matmul",
    )
    module, count = rewritten(text)
    assert count == 1
    transposes = walk_ops(module, {"linalg.transpose"})
    assert [str(t.operands[1].type) for t in transposes] == ["memref<784x8192xf32>"]


def test_blocks_divide_the_extent_when_a_multiple_of_the_step_does():
    assert choose_blocking(8192, 2048, 784, 32) == Blocking(rows=1024, columns=256, depth=256, rows_outer=True)
    assert choose_blocking(784, 2048, 8192, 32).depth == 256
    assert choose_blocking(64, 256, 784, 32) is None  # MLP batch 64: small
    assert choose_blocking(64, 256, 784, 32, always=True) is not None
    # 8192 x 2048 @ 2048 x 10: packing A for 10 columns costs more than it saves ...
    assert choose_blocking(8192, 10, 2048, 32) is None
    # ... unless it also saves transposing A (a^T dlogits: 2048 x 8192 @ 8192 x 10).
    assert choose_blocking(2048, 10, 8192, 32, absorbs_transpose=True) is not None


def test_a_transpose_of_the_buffer_the_matmul_writes_is_kept():
    # C = x^T B written over x: packing from x would read blocks the matmul already wrote.
    text = """
func.func @f(%x: memref<1024x1024xf32>, %b: memref<1024x1024xf32>) {
  %xt = memref.alloc() : memref<1024x1024xf32>
  linalg.transpose ins(%x : memref<1024x1024xf32>) outs(%xt : memref<1024x1024xf32>) permutation = [1, 0]
  linalg.matmul ins(%xt, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%x : memref<1024x1024xf32>)
  memref.dealloc %xt : memref<1024x1024xf32>
  return
}
"""
    module, count = rewritten(text)
    assert count == 1
    transposes = walk_ops(module, {"linalg.transpose"})
    assert [str(t.operands[1].type) for t in transposes] == ["memref<1024x1024xf32>"]
