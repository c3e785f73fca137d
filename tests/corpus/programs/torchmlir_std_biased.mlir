// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `StdDimBiasedModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py
// What: `aten.std(dim=(0, 2), unbiased=False)`: the mean and squared-deviation reductions over two non-adjacent dims in f64 (extf/truncf), a divide and math.sqrt.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x5 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_std_biased inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, d1, 0)>
#map2 = affine_map<(d0, d1, d2) -> (d1)>
#map3 = affine_map<(d0) -> (d0)>
  func.func @main(%arg0: tensor<3x4x5xf32>) -> tensor<4xf32> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.500000e+01 : f64
    %0 = tensor.empty() : tensor<3x4x5xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f32, %out: f64):
      %15 = arith.extf %in : f32 to f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %2 = tensor.empty() : tensor<1x4x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<1x4x1xf64>) -> tensor<1x4x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "reduction"]} ins(%1 : tensor<3x4x5xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.addf %in, %out : f64
      linalg.yield %15 : f64
    } -> tensor<1x4x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x4x1xf64>) outs(%2 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.divf %in, %cst_0 : f64
      linalg.yield %15 : f64
    } -> tensor<1x4x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<3x4x5xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %15 = arith.subf %in, %in_1 : f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<3x4x5xf64>, tensor<3x4x5xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %15 = arith.mulf %in, %in_1 : f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %8 = tensor.empty() : tensor<4xf64>
    %9 = linalg.fill ins(%cst : f64) outs(%8 : tensor<4xf64>) -> tensor<4xf64>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["reduction", "parallel", "reduction"]} ins(%7 : tensor<3x4x5xf64>) outs(%9 : tensor<4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.addf %in, %out : f64
      linalg.yield %15 : f64
    } -> tensor<4xf64>
    %11 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%10 : tensor<4xf64>) outs(%8 : tensor<4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.divf %in, %cst_0 : f64
      linalg.yield %15 : f64
    } -> tensor<4xf64>
    %12 = tensor.empty() : tensor<4xf32>
    %13 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%11 : tensor<4xf64>) outs(%12 : tensor<4xf32>) {
    ^bb0(%in: f64, %out: f32):
      %15 = arith.truncf %in : f64 to f32
      linalg.yield %15 : f32
    } -> tensor<4xf32>
    %14 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%13 : tensor<4xf32>) outs(%12 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.sqrt %in : f32
      linalg.yield %15 : f32
    } -> tensor<4xf32>
    return %14 : tensor<4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x5xf32>, %ct0: tensor<4xf32>) -> (tensor<4xf32>, tensor<3x4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4x5xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<3x4x5xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<3x4x5xf32>
}
