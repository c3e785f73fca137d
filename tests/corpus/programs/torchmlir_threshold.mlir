// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/threshold.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Threshold2dFloatModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/threshold.py
// What: `aten.threshold(x, 0.5, 2)`: an i1 mask generic (extf to f64, cmpf ole against 0.5) and a select generic between a 0-d constant tensor (`()` map) and x.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 4x5 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_threshold inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant dense<2.000000e+00> : tensor<f32>
    %cst_0 = arith.constant 5.000000e-01 : f64
    %0 = tensor.empty() : tensor<4x5xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x5xf32>) outs(%0 : tensor<4x5xi1>) {
    ^bb0(%in: f32, %out: i1):
      %4 = arith.extf %in : f32 to f64
      %5 = arith.cmpf ole, %4, %cst_0 : f64
      linalg.yield %5 : i1
    } -> tensor<4x5xi1>
    %2 = tensor.empty() : tensor<4x5xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %cst, %arg0 : tensor<4x5xi1>, tensor<f32>, tensor<4x5xf32>) outs(%2 : tensor<4x5xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %4 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %4 : f32
    } -> tensor<4x5xf32>
    return %3 : tensor<4x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x5xf32>, %ct0: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
  return %r#0, %r#1 : tensor<4x5xf32>, tensor<4x5xf32>
}
