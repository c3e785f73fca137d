"""The kernels' numerics without a GPU: stage-2 launches run as CPU loops, compared with NumPy.

Each case is also run under tile policies that force the other mapping strategies (one thread
per output, split reductions everywhere, no register tiles, odd block sizes), so a wrong index
map or a broken reduction in any strategy shows up as a wrong number.
"""
import numpy as np
import pytest

from gpu_cases import (
    BATCH_MATMUL,
    CASES,
    FULL_REDUCTIONS,
    LOG_SUM_EXP,
    MATMUL,
    MLP,
    ROW_REDUCTIONS,
    STAGED_CONTRACTION,
    compiled,
)
from gradir.gpu_backend.tile_policy import TilePolicy

NO_SPLIT_NO_TILE = TilePolicy(target_threads=1, register_tiles=(), shared_tiles=())
SPLIT_EVERYTHING = TilePolicy(target_threads=1 << 30, min_chunk=2, max_split=64, shared_tiles=())
SMALL_BLOCKS_BIG_TILES = TilePolicy(
    block_threads=96, min_block_threads=32, register_tiles=((8, 4), (4, 8)), min_tile_threads=1,
    shared_tiles=(),
)
# shared-memory tiles without register tiles, or 2x2, staged two k at a time
SMALL_SHARED_TILES = TilePolicy(
    min_tile_threads=1, shared_tiles=((16, 16, 1, 1), (32, 32, 2, 2)), shared_depth=3
)


def _check(program, case, seed=0):
    rng = np.random.default_rng(seed)
    arguments = case.inputs(rng)
    expected = case.reference(*arguments)
    before = [a.copy() for a in arguments]
    results = program.emulate(case.entry, *arguments)
    assert len(results) == len(expected)
    for index, (got, want) in enumerate(zip(results, expected)):
        assert got.shape == np.shape(want), f"{case.name} result {index}"
        scale = max(float(np.max(np.abs(want))), 1.0)
        np.testing.assert_allclose(got, want, rtol=case.tolerance, atol=case.tolerance * scale,
                                   err_msg=f"{case.name} result {index}")
    for original, argument in zip(before, arguments):
        np.testing.assert_array_equal(original, argument, err_msg="an input was overwritten")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_default_policy_matches_numpy(case):
    _check(compiled(case), case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_one_thread_per_output_matches_numpy(case):
    program = compiled(case, policy=NO_SPLIT_NO_TILE)
    assert not any("split" in k or "tile" in k for k in program.launch_configs)
    _check(program, case)


@pytest.mark.parametrize(
    "case", [ROW_REDUCTIONS, FULL_REDUCTIONS, LOG_SUM_EXP, MATMUL, BATCH_MATMUL], ids=lambda c: c.name
)
def test_split_reductions_everywhere_match_numpy(case):
    program = compiled(case, policy=SPLIT_EVERYTHING)
    reductions = [k for k in program.launch_configs if "reduce" in k]
    assert reductions and all("split" in k for k in reductions)
    _check(program, case)


@pytest.mark.parametrize("case", [MATMUL, MLP], ids=lambda c: c.name)
def test_large_register_tiles_and_partial_blocks_match_numpy(case):
    program = compiled(case, policy=SMALL_BLOCKS_BIG_TILES)
    assert any("tile8x4" in k or "tile4x8" in k for k in program.launch_configs)
    assert all(c.block[0] <= 96 for c in program.launch_configs.values())
    _check(program, case, seed=1)


@pytest.mark.parametrize("case", [MATMUL, STAGED_CONTRACTION, MLP], ids=lambda c: c.name)
def test_contractions_staged_through_shared_memory_match_numpy(case):
    assert any("shared" in k for k in compiled(case).launch_configs)
    program = compiled(case, policy=SMALL_SHARED_TILES)
    assert any("shared_tile1x1" in k for k in program.launch_configs)
    _check(program, case, seed=2)


F64_MATMUL = """
func.func @f(%a: tensor<128x48xf64>, %b: tensor<48x128xf64>) -> tensor<128x128xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<128x128xf64>
  %z = linalg.fill ins(%zero : f64) outs(%e : tensor<128x128xf64>) -> tensor<128x128xf64>
  %c = linalg.matmul ins(%a, %b : tensor<128x48xf64>, tensor<48x128xf64>)
      outs(%z : tensor<128x128xf64>) -> tensor<128x128xf64>
  return %c : tensor<128x128xf64>
}
"""


def test_float64_matmul_in_shared_memory_tiles():
    from gradir.gpu_backend.cuda_program import CudaProgram
    from gradir.gpu_backend.ptx import assemble, ptxas_path

    program = CudaProgram(F64_MATMUL, chip="sm_80", features="+ptx80")
    (name,) = program.launch_configs
    assert "shared_tile4x2" in name  # 32x64 block tiles: 16 blocks of 256 threads
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((128, 48)), rng.standard_normal((48, 128))
    (got,) = program.emulate("f", a, b)
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)
    if ptxas_path():
        resources = assemble(program.ptx[name], "sm_80").resources[name]
        assert resources.spill_bytes == 0 and resources.shared_bytes == (32 + 64) * 16 * 8
    assert program.traffic[name].shared_bytes == (32 + 64) * 16 * 8
