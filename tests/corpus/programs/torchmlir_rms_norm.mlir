// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `RMSNormModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: `aten.rms_norm` over the last three dims (1x2x4) with weight and eps 0.5: square, sum reduction to a `(d0, d1, 0, 0, 0)` output, divide, add eps, rsqrt, and broadcast multiplies including size-1 dims.
// Adaptations: batch 8x9 -> 2x3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x3x1x2x4, weight 1x2x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_rms_norm inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
  func.func @main(%arg0: tensor<2x3x1x2x4xf32>, %arg1: tensor<1x2x4xf32>) -> tensor<2x3x1x2x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 8.000000e+00 : f32
    %cst_1 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<2x3x1x2x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %arg0 : tensor<2x3x1x2x4xf32>, tensor<2x3x1x2x4xf32>) outs(%0 : tensor<2x3x1x2x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x2x4xf32>
    %2 = tensor.empty() : tensor<2x3x1x1x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x3x1x1x1xf32>) -> tensor<2x3x1x1x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%1 : tensor<2x3x1x2x4xf32>) outs(%3 : tensor<2x3x1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x1x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<2x3x1x1x1xf32>) outs(%2 : tensor<2x3x1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.divf %in, %cst_0 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x1x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<2x3x1x1x1xf32>) outs(%2 : tensor<2x3x1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %cst_1 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%6 : tensor<2x3x1x1x1xf32>) outs(%2 : tensor<2x3x1x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.rsqrt %in : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x1x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %7 : tensor<2x3x1x2x4xf32>, tensor<2x3x1x1x1xf32>) outs(%0 : tensor<2x3x1x2x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x2x4xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%8, %arg1 : tensor<2x3x1x2x4xf32>, tensor<1x2x4xf32>) outs(%0 : tensor<2x3x1x2x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x1x2x4xf32>
    return %9 : tensor<2x3x1x2x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x1x2x4xf32>, %a1: tensor<1x2x4xf32>, %ct0: tensor<2x3x1x2x4xf32>) -> (tensor<2x3x1x2x4xf32>, tensor<2x3x1x2x4xf32>, tensor<1x2x4xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<2x3x1x2x4xf32>, tensor<1x2x4xf32>, tensor<2x3x1x2x4xf32>) -> (tensor<2x3x1x2x4xf32>, tensor<2x3x1x2x4xf32>, tensor<1x2x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x1x2x4xf32>, tensor<2x3x1x2x4xf32>, tensor<1x2x4xf32>
}
