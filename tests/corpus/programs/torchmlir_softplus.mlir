// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SoftplusModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.softplus` (beta 1, threshold 20): math.exp and math.log1p generics, an i1 mask generic (cmpf ogt against 20) and a select generic between x and log1p(exp(x)).
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x3 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_softplus inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %cst = arith.constant 2.000000e+01 : f32
    %0 = tensor.empty() : tensor<3x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x3xf32>) outs(%0 : tensor<3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.exp %in : f32
      linalg.yield %6 : f32
    } -> tensor<3x3xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<3x3xf32>) outs(%0 : tensor<3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.log1p %in : f32
      linalg.yield %6 : f32
    } -> tensor<3x3xf32>
    %3 = tensor.empty() : tensor<3x3xi1>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x3xf32>) outs(%3 : tensor<3x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %6 = arith.cmpf ogt, %in, %cst : f32
      linalg.yield %6 : i1
    } -> tensor<3x3xi1>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg0, %2 : tensor<3x3xi1>, tensor<3x3xf32>, tensor<3x3xf32>) outs(%0 : tensor<3x3xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %6 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %6 : f32
    } -> tensor<3x3xf32>
    return %5 : tensor<3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3xf32>, %ct0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<3x3xf32>
}
