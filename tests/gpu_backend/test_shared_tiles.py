"""Shared-memory contraction tiles on contractions of every layout, emulated vs NumPy.

Each case is a `linalg.generic` contraction whose operands are laid out one way or the other
(A as m x k or k x m, B as k x n or n x k, the output as m x n or n x m, with or without a
batch dim), tiled under a policy that forces the shared-memory strategy on small shapes; the
kernels then run on the CPU (barrier-aware emulation) and are compared with `numpy.einsum`.
"""
import itertools

import numpy as np
import pytest

from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.tile_policy import TilePolicy

SMALL_TILES = TilePolicy(
    min_tile_threads=1, shared_tiles=((32, 16, 2, 1), (16, 32, 1, 2), (16, 16, 1, 1)), shared_depth=4
)
SIZES = {"b": 2, "m": 32, "n": 16, "k": 12}


def _contraction(a_layout: str, b_layout: str, out_layout: str) -> str:
    dims = "bmnk" if "b" in out_layout else "mnk"

    def amap(layout: str) -> str:
        return f"affine_map<({', '.join(dims)}) -> ({', '.join(layout)})>"

    def tensor(layout: str) -> str:
        return f"tensor<{'x'.join(str(SIZES[d]) for d in layout)}xf32>"

    iterators = ", ".join('"reduction"' if d == "k" else '"parallel"' for d in dims)
    return f"""
func.func @f(%a: {tensor(a_layout)}, %b: {tensor(b_layout)}, %c: {tensor(out_layout)}) -> {tensor(out_layout)} {{
  %r = linalg.generic {{indexing_maps = [{amap(a_layout)}, {amap(b_layout)}, {amap(out_layout)}],
                       iterator_types = [{iterators}]}}
      ins(%a, %b : {tensor(a_layout)}, {tensor(b_layout)}) outs(%c : {tensor(out_layout)}) {{
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {tensor(out_layout)}
  return %r : {tensor(out_layout)}
}}
"""


def _assert_emulation_matches_einsum(program: CudaProgram, layouts, seed: int) -> None:
    """`f(a, b, c)` emulated on random inputs against `c + einsum(a, b)` in `layouts`."""
    a_layout, b_layout, out_layout = layouts
    rng = np.random.default_rng(seed)
    shapes = [tuple(SIZES[d] for d in layout) for layout in layouts]
    a, b, c = (rng.standard_normal(shape).astype(np.float32) for shape in shapes)
    (got,) = program.emulate("f", a, b, c)
    want = c + np.einsum(f"{a_layout},{b_layout}->{out_layout}", a, b)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


LAYOUTS = [
    (batch + a, batch + b, batch + out)
    for batch, a, b, out in itertools.product(("", "b"), ("mk", "km"), ("kn", "nk"), ("mn", "nm"))
]


@pytest.mark.parametrize("layouts", LAYOUTS, ids=lambda l: "-".join(l))
def test_shared_tiles_compute_every_contraction_layout(layouts):
    a_layout, b_layout, out_layout = layouts
    program = CudaProgram(
        _contraction(a_layout, b_layout, out_layout), features="+ptx80", policy=SMALL_TILES
    )
    assert any("shared_tile" in name for name in program.launch_configs)
    _assert_emulation_matches_einsum(program, layouts, seed=0)


SPLIT_K = TilePolicy(
    min_tile_threads=1, shared_tiles=((32, 16, 2, 1), (16, 16, 1, 1)), shared_depth=4,
    target_blocks=64, min_k_chunk=4,
)  # fmt: skip
"""k = 12 in chunks of 4 over 1 or 2 output tiles: split 3 ways (*split-k*)."""


@pytest.mark.parametrize("layouts", LAYOUTS, ids=lambda l: "-".join(l))
def test_split_k_folds_partials_and_the_initial_value_of_every_layout(layouts):
    a_layout, b_layout, out_layout = layouts
    program = CudaProgram(_contraction(a_layout, b_layout, out_layout), features="+ptx80", policy=SPLIT_K)
    strategies = [name.split("_", 2)[-1] for name in program.launch_configs]  # after a copy of c
    assert strategies[-2].startswith("shared_tile") and strategies[-2].endswith("_split3"), strategies
    assert strategies[-1] == "split_combine", strategies
    _assert_emulation_matches_einsum(program, layouts, seed=1)


def test_a_contraction_without_a_recognised_combiner_is_not_split():
    """`acc * 0.5 + a * b` folds differently in pieces: one pass over k, no partials."""
    text = _contraction("mk", "kn", "mn").replace(
        "%s = arith.addf %acc, %p : f32",
        "%h = arith.mulf %acc, %half : f32\n    %s = arith.addf %h, %p : f32",
    ).replace("^bb0(%x: f32, %y: f32, %acc: f32):", "^bb0(%x: f32, %y: f32, %acc: f32):\n    %half = arith.constant 0.5 : f32")
    program = CudaProgram(text, features="+ptx80", policy=SPLIT_K)
    strategies = [name.split("_", 2)[-1] for name in program.launch_configs]
    assert strategies[-1].startswith("shared_tile") and not any("split" in s for s in strategies), strategies
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal((SIZES[x], SIZES[y])).astype(np.float32) for x, y in ("mk", "kn", "mn"))
    (got,) = program.emulate("f", a, b, c)
    want = c.astype(np.float64)
    for k in range(SIZES["k"]):
        want = want * 0.5 + np.outer(a[:, k], b[k, :])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


NARROW_SIZES = ({"b": 2, "m": 64, "n": 10, "k": 48}, {"b": 2, "m": 6, "n": 64, "k": 48})
NARROW = TilePolicy(min_tile_threads=1, shared_depth=4, target_blocks=64, min_k_chunk=4)
"""Standard candidates need extents divisible by 16: n = 10 (or m = 6) only fits a narrow tile."""


@pytest.mark.parametrize("sizes", NARROW_SIZES, ids=["n10", "m6"])
@pytest.mark.parametrize("layouts", LAYOUTS, ids=lambda l: "-".join(l))
@pytest.mark.parametrize("split", [False, True], ids=["whole-k", "split-k"])
def test_narrow_tiles_cover_a_small_extent_whole(layouts, sizes, split, monkeypatch):
    monkeypatch.setitem(SIZES, "m", sizes["m"])
    monkeypatch.setitem(SIZES, "n", sizes["n"])
    monkeypatch.setitem(SIZES, "k", sizes["k"])
    a_layout, b_layout, out_layout = layouts
    policy = NARROW if split else TilePolicy(min_tile_threads=1, shared_depth=4, target_blocks=1)
    program = CudaProgram(_contraction(a_layout, b_layout, out_layout), features="+ptx80", policy=policy)
    strategies = [name.split("_", 2)[-1] for name in program.launch_configs]
    contraction = next(s for s in strategies if s.startswith("shared_tile"))
    assert ("_split" in contraction) == split, strategies
    _assert_emulation_matches_einsum(program, layouts, seed=4)


def test_narrow_tiles_are_off_with_the_shared_strategy_or_at_extent_zero():
    for policy in (TilePolicy(min_tile_threads=1, shared_tiles=()), TilePolicy(min_tile_threads=1, narrow_extent=0)):
        program = CudaProgram(_contraction("mk", "kn", "mn").replace("x16x", "x10x").replace("12x16", "12x10")
                              .replace("32x16", "32x10"), features="+ptx80", policy=policy)  # fmt: skip
        assert not any("shared_tile" in name for name in program.launch_configs), list(program.launch_configs)
