// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `VarMeanCorrectionModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py
// What: `aten.var_mean(x, [1, 2], correction=2, keepdim)`: two results, the mean and the variance with correction 2, from sum reductions into `(d0, 0, 0)` outputs and f64 squared deviations.
// Adaptations: input 3x4x7 -> 3x4x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x5 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_var_mean_correction inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
  func.func @main(%arg0: tensor<3x4x5xf32>) -> (tensor<3x1x1xf32>, tensor<3x1x1xf32>) {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.800000e+01 : f64
    %cst_2 = arith.constant 2.000000e+01 : f64
    %cst_3 = arith.constant 2.000000e+01 : f32
    %0 = tensor.empty() : tensor<3x4x5xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f32, %out: f64):
      %15 = arith.extf %in : f32 to f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %2 = tensor.empty() : tensor<3x1x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<3x1x1xf64>) -> tensor<3x1x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "reduction"]} ins(%1 : tensor<3x4x5xf64>) outs(%3 : tensor<3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.addf %in, %out : f64
      linalg.yield %15 : f64
    } -> tensor<3x1x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<3x1x1xf64>) outs(%2 : tensor<3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.divf %in, %cst_2 : f64
      linalg.yield %15 : f64
    } -> tensor<3x1x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<3x4x5xf64>, tensor<3x1x1xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %15 = arith.subf %in, %in_4 : f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<3x4x5xf64>, tensor<3x4x5xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_4: f64, %out: f64):
      %15 = arith.mulf %in, %in_4 : f64
      linalg.yield %15 : f64
    } -> tensor<3x4x5xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "reduction"]} ins(%7 : tensor<3x4x5xf64>) outs(%3 : tensor<3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.addf %in, %out : f64
      linalg.yield %15 : f64
    } -> tensor<3x1x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<3x1x1xf64>) outs(%2 : tensor<3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %15 = arith.divf %in, %cst_1 : f64
      linalg.yield %15 : f64
    } -> tensor<3x1x1xf64>
    %10 = tensor.empty() : tensor<3x1x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<3x1x1xf64>) outs(%10 : tensor<3x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %15 = arith.truncf %in : f64 to f32
      linalg.yield %15 : f32
    } -> tensor<3x1x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<3x1x1xf32>) -> tensor<3x1x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%12 : tensor<3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.addf %in, %out : f32
      linalg.yield %15 : f32
    } -> tensor<3x1x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<3x1x1xf32>) outs(%10 : tensor<3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.divf %in, %cst_3 : f32
      linalg.yield %15 : f32
    } -> tensor<3x1x1xf32>
    return %11, %14 : tensor<3x1x1xf32>, tensor<3x1x1xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x5xf32>, %ct0: tensor<3x1x1xf32>, %ct1: tensor<3x1x1xf32>) -> (tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x4x5xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %ct0, %ct1) {wrt = array<i64: 0>} : (tensor<3x4x5xf32>, tensor<3x1x1xf32>, tensor<3x1x1xf32>) -> (tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x4x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x1x1xf32>, tensor<3x1x1xf32>, tensor<3x4x5xf32>
}
