"""Loops every operand walks contiguously are merged (cpu_backend/collapse_dims.py)."""
import numpy as np
from mlir import ir

from gradir.cpu_backend.collapse_dims import collapse_contiguous_loops, mergeable_groups
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.mlir_bridge import run_pipeline, walk_ops


def groups_of(map_texts: list[str], kinds: list[str]) -> list[list[int]]:
    with ir.Context():
        parsed = [ir.AffineMapAttr(ir.Attribute.parse(f"affine_map<{t}>")).value for t in map_texts]
        return mergeable_groups(parsed, kinds)


def test_column_sum_merges_its_parallel_loops():
    assert groups_of(
        ["(d0, d1, d2) -> (d0, d1, d2)", "(d0, d1, d2) -> (d1, d2)"], ["reduction", "parallel", "parallel"]
    ) == [[0], [1, 2]]


def test_broadcast_operand_keeps_the_loops_it_reads_apart():
    # The second input has no d2: d1 and d2 cannot merge, d0 and d1 can.
    assert groups_of(
        ["(d0, d1, d2) -> (d0, d1, d2)", "(d0, d1, d2) -> (d0, d1)", "(d0, d1, d2) -> (d0, d1, d2)"],
        ["parallel", "parallel", "parallel"],
    ) == [[0, 1], [2]]


def test_transposed_operand_and_mixed_iterators_do_not_merge():
    assert groups_of(["(d0, d1) -> (d1, d0)", "(d0, d1) -> (d0, d1)"], ["parallel", "parallel"]) == [[0], [1]]
    assert groups_of(["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0)"], ["parallel", "reduction"]) == [[0], [1]]


PROGRAM = """
#in4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out3 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bcast = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @f(%x: tensor<30x1x5x4xf64>, %y: tensor<6x5x4xf64>, %s: tensor<6x5x1xf64>)
    -> (tensor<1x5x4xf64>, tensor<6x5x4xf64>, tensor<6x5xf64>) {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<1x5x4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<1x5x4xf64>) -> tensor<1x5x4xf64>
  %columns = linalg.generic {indexing_maps = [#in4, #out3], iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<30x1x5x4xf64>) outs(%f : tensor<1x5x4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %n = arith.negf %a : f64
    %t = arith.addf %n, %acc : f64
    linalg.yield %t : f64
  } -> tensor<1x5x4xf64>
  %e2 = tensor.empty() : tensor<6x5x4xf64>
  %scaled = linalg.generic {indexing_maps = [#bcast, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %y : tensor<6x5x1xf64>, tensor<6x5x4xf64>) outs(%e2 : tensor<6x5x4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<6x5x4xf64>
  %e3 = tensor.empty() : tensor<6x5xf64>
  %f3 = linalg.fill ins(%z : f64) outs(%e3 : tensor<6x5xf64>) -> tensor<6x5xf64>
  %rows = linalg.generic {indexing_maps = [#id3, #rows], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<6x5x4xf64>) outs(%f3 : tensor<6x5xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %q = arith.mulf %a, %a : f64
    %t = arith.addf %q, %acc : f64
    linalg.yield %t : f64
  } -> tensor<6x5xf64>
  return %columns, %scaled, %rows : tensor<1x5x4xf64>, tensor<6x5x4xf64>, tensor<6x5xf64>
}
"""


def test_merged_generics_compute_the_same_values():
    rng = np.random.default_rng(0)
    x, y, s = rng.standard_normal((30, 1, 5, 4)), rng.standard_normal((6, 5, 4)), rng.standard_normal((6, 5, 1))
    columns, scaled, rows = CpuExecutable(PROGRAM).f(x, y, s)
    np.testing.assert_allclose(columns, -x.sum(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scaled, s * y, rtol=1e-12)
    np.testing.assert_allclose(rows, (y * y).sum(axis=2), rtol=1e-12)


def test_rewrite_merges_loops_and_keeps_result_types():
    with ir.Context():
        module = ir.Module.parse(PROGRAM)
        run_pipeline(module, "linalg-fold-unit-extent-dims, canonicalize", "test")
        collapse_contiguous_loops(module)
        assert module.operation.verify()
        loop_counts = sorted(
            len(ir.ArrayAttr(op.attributes["iterator_types"])) for op in walk_ops(module, {"linalg.generic"})
        )
        # column sum: (30 | 5*4) -> 2 loops; broadcast product: (6*5 | 4) -> 2; row sum: (6*5 | 4) -> 2.
        assert loop_counts == [2, 2, 2]


PERMUTED = """
#rotated = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @g(%x: tensor<2x3x4xf64>, %y: tensor<2x3x4xf64>) -> tensor<3x4x2xf64> {
  %e = tensor.empty() : tensor<3x4x2xf64>
  %r = linalg.generic {indexing_maps = [#rotated, #rotated, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<2x3x4xf64>, tensor<2x3x4xf64>) outs(%e : tensor<3x4x2xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<3x4x2xf64>
  return %r : tensor<3x4x2xf64>
}
"""


def test_loops_merged_inside_a_permuted_operand():
    """d0 and d1 are neighbours in every map, but after d2 in the inputs: each
    operand is collapsed in its own dimension order (found by a gradcheck)."""
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    result = CpuExecutable(PERMUTED).g(x, y)
    np.testing.assert_allclose(result, np.transpose(x * y, (1, 2, 0)), rtol=1e-12)
