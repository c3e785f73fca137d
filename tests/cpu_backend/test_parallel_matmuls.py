"""Matmuls on threads: a large one shares the outer block loop of its cache blocks
(`cache_blocked_matmuls`, outer blocks enough for every thread), a mid-sized one its rows
(`contraction_rows`); no parallel loop runs inside another; the results are one thread's,
bit for bit."""
import numpy as np
import pytest
from mlir import ir

import gradir
from gradir.cpu_backend import cache_blocked_matmuls, contraction_rows, cpu_pipeline
from gradir.cpu_backend.cpu_runtime import clear_cache
from gradir.mlir_bridge import walk_ops

MATMUL = """
func.func @f(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %c = autodiff.matmul %a, %b : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %c : tensor<{m}x{n}xf32>
}}
"""


def _constant(value: ir.Value) -> int | None:
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name not in ("arith.constant", "llvm.mlir.constant"):
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def _has_ancestor(op: ir.Operation, name: str) -> bool:
    parent = op.parent
    while parent is not None:
        if parent.name == name:
            return True
        parent = parent.parent
    return False


@pytest.fixture
def regions(monkeypatch):
    """Each compile's OpenMP loops as (lower, upper, step) of their static bounds, with
    whether a region is nested in another, read right after `cpu-threads`; and how many
    matmuls were cache-blocked and row-shared with more than one thread."""
    seen = {"loops": [], "nested": 0, "blocked": 0, "shared": 0}
    run_loops_on_threads, blocked, shared = (
        cpu_pipeline.run_loops_on_threads, cpu_pipeline.cache_blocked_matmuls, cpu_pipeline.share_contraction_rows,
    )  # fmt: skip

    def spy_threads(module, threads):
        kept = run_loops_on_threads(module, threads)
        for loop in walk_ops(module, {"omp.loop_nest"}):
            seen["loops"].append(tuple(_constant(operand) for operand in loop.operands))
        seen["nested"] += sum(_has_ancestor(op, "omp.parallel") for op in walk_ops(module, {"omp.parallel"}))
        return kept

    def spy_blocked(module, threads=1):
        count = blocked(module, threads)
        seen["blocked"] += count if threads > 1 else 0
        return count

    def spy_shared(module, threads):
        count = shared(module, threads)
        seen["shared"] += count if threads > 1 else 0
        return count

    monkeypatch.setattr(cpu_pipeline, "run_loops_on_threads", spy_threads)
    monkeypatch.setattr(cpu_pipeline, "cache_blocked_matmuls", spy_blocked)
    monkeypatch.setattr(cpu_pipeline, "share_contraction_rows", spy_shared)
    clear_cache()
    yield seen
    clear_cache()


def _same_as_one_thread(source: str, shapes) -> None:
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    serial, parallel = (gradir.compile(source, num_threads=threads).f(*inputs) for threads in (1, 2))
    assert parallel.tobytes() == serial.tobytes()
    np.testing.assert_allclose(parallel, inputs[0] @ inputs[1], rtol=1e-4, atol=1e-3)


def test_a_large_matmul_shares_its_outer_block_loop(regions):
    m = n = k = 512
    blocking = cache_blocked_matmuls.choose_blocking(m, n, k, 32, threads=2)
    assert blocking.rows_outer and blocking.rows == m // 2  # one block per thread
    _same_as_one_thread(MATMUL.format(m=m, n=n, k=k), [(m, k), (k, n)])
    assert regions["blocked"] == 1 and regions["shared"] == 0  # its blocks are not shared again
    assert (0, m, blocking.rows) in regions["loops"]  # the outer block loop, on threads
    assert regions["nested"] == 0


def test_an_odd_large_matmul_shares_its_blocks_too(regions):
    m, n, k = 600, 328, 300  # rows 304 + 296: an edge block; K ends in a 44-deep slice
    _same_as_one_thread(MATMUL.format(m=m, n=n, k=k), [(m, k), (k, n)])
    rows = cache_blocked_matmuls.choose_blocking(m, n, k, 32, threads=2).rows
    assert regions["blocked"] == 1 and any(loop[1:] == (m, rows) for loop in regions["loops"])
    assert regions["nested"] == 0


def test_only_the_outer_block_loop_runs_on_threads(regions):
    """Packing a block of 1024 x 256 of A is a parallel loop large enough for threads, but
    it is nested in the block loop, which has them already."""
    m, n, k = 4096, 512, 256
    assert cache_blocked_matmuls.choose_blocking(m, n, k, 32, threads=2).rows == 1024
    _same_as_one_thread(MATMUL.format(m=m, n=n, k=k), [(m, k), (k, n)])
    assert regions["blocked"] == 1 and (0, m, 1024) in regions["loops"]
    assert regions["nested"] == 0


def test_a_mid_sized_matmul_shares_its_rows(regions):
    m, n, k = 192, 160, 128  # above contraction_rows' threshold, below the blocking's
    assert m * n * k >= contraction_rows.CONTRACTION_WORK_THRESHOLD
    assert cache_blocked_matmuls.choose_blocking(m, n, k, 32, threads=2) is None
    _same_as_one_thread(MATMUL.format(m=m, n=n, k=k), [(m, k), (k, n)])
    assert regions["blocked"] == 0 and regions["shared"] == 1
    assert regions["loops"] == [(0, 2, 1)]  # one region over 2 blocks of 96 rows (normalised)
    assert regions["nested"] == 0


def test_the_outer_blocks_are_cut_for_the_threads():
    choose = cache_blocked_matmuls.choose_blocking
    assert choose(512, 512, 512, 32).rows == 512  # one thread: one block, as before
    assert [choose(512, 512, 512, 32, threads=t).rows for t in (2, 3, 4)] == [256, 128, 128]
    assert choose(301, 1000, 500, 32, threads=16).columns == 64  # columns outer: multiples of 32
    assert choose(8192, 2048, 784, 32, threads=2).rows == 1024  # already 8 blocks
