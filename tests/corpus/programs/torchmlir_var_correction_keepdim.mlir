// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `VarCorrectionKeepDimModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/stats.py
// What: `aten.var(x, [0, 1], correction=None, keepdim)`: sum and mean generics, squared deviations in f64 (extf/truncf) reduced into a `(0, 0, d2)` output and divided by N - 1.
// Adaptations: input 3x4x7 -> 3x4x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x5 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_var_correction_keepdim inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, 0, d2)>
  func.func @main(%arg0: tensor<3x4x5xf32>) -> tensor<1x1x5xf32> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.100000e+01 : f64
    %cst_1 = arith.constant 1.200000e+01 : f64
    %0 = tensor.empty() : tensor<3x4x5xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f32, %out: f64):
      %12 = arith.extf %in : f32 to f64
      linalg.yield %12 : f64
    } -> tensor<3x4x5xf64>
    %2 = tensor.empty() : tensor<1x1x5xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<1x1x5xf64>) -> tensor<1x1x5xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%1 : tensor<3x4x5xf64>) outs(%3 : tensor<1x1x5xf64>) {
    ^bb0(%in: f64, %out: f64):
      %12 = arith.addf %in, %out : f64
      linalg.yield %12 : f64
    } -> tensor<1x1x5xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x1x5xf64>) outs(%2 : tensor<1x1x5xf64>) {
    ^bb0(%in: f64, %out: f64):
      %12 = arith.divf %in, %cst_1 : f64
      linalg.yield %12 : f64
    } -> tensor<1x1x5xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<3x4x5xf64>, tensor<1x1x5xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_2: f64, %out: f64):
      %12 = arith.subf %in, %in_2 : f64
      linalg.yield %12 : f64
    } -> tensor<3x4x5xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<3x4x5xf64>, tensor<3x4x5xf64>) outs(%0 : tensor<3x4x5xf64>) {
    ^bb0(%in: f64, %in_2: f64, %out: f64):
      %12 = arith.mulf %in, %in_2 : f64
      linalg.yield %12 : f64
    } -> tensor<3x4x5xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%7 : tensor<3x4x5xf64>) outs(%3 : tensor<1x1x5xf64>) {
    ^bb0(%in: f64, %out: f64):
      %12 = arith.addf %in, %out : f64
      linalg.yield %12 : f64
    } -> tensor<1x1x5xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<1x1x5xf64>) outs(%2 : tensor<1x1x5xf64>) {
    ^bb0(%in: f64, %out: f64):
      %12 = arith.divf %in, %cst_0 : f64
      linalg.yield %12 : f64
    } -> tensor<1x1x5xf64>
    %10 = tensor.empty() : tensor<1x1x5xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<1x1x5xf64>) outs(%10 : tensor<1x1x5xf32>) {
    ^bb0(%in: f64, %out: f32):
      %12 = arith.truncf %in : f64 to f32
      linalg.yield %12 : f32
    } -> tensor<1x1x5xf32>
    return %11 : tensor<1x1x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x5xf32>, %ct0: tensor<1x1x5xf32>) -> (tensor<1x1x5xf32>, tensor<3x4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4x5xf32>, tensor<1x1x5xf32>) -> (tensor<1x1x5xf32>, tensor<3x4x5xf32>)
  return %r#0, %r#1 : tensor<1x1x5xf32>, tensor<3x4x5xf32>
}
