// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `TriuModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.triu(x, 1)`: index tensors built by generics from linalg.index and arith.index_cast, expand_shape, an integer compare generic and an arith.select between x and 0.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 4x5 (the upstream shape); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_triu inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<5xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<5xi64>) {
    ^bb0(%out: i64):
      %10 = linalg.index 0 : index
      %11 = arith.index_cast %10 : index to i64
      linalg.yield %11 : i64
    } -> tensor<5xi64>
    %expanded = tensor.expand_shape %1 [[0, 1]] output_shape [1, 5] : tensor<5xi64> into tensor<1x5xi64>
    %2 = tensor.empty() : tensor<4xi64>
    %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%2 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %10 = linalg.index 0 : index
      %11 = arith.index_cast %10 : index to i64
      linalg.yield %11 : i64
    } -> tensor<4xi64>
    %expanded_0 = tensor.expand_shape %3 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %4 = tensor.empty() : tensor<4x5xi64>
    %5 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<1x5xi64>, tensor<4x1xi64>) outs(%4 : tensor<4x5xi64>) {
    ^bb0(%in: i64, %in_1: i64, %out: i64):
      %10 = arith.subi %in, %in_1 : i64
      linalg.yield %10 : i64
    } -> tensor<4x5xi64>
    %6 = tensor.empty() : tensor<4x5xi1>
    %7 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4x5xi64>) outs(%6 : tensor<4x5xi1>) {
    ^bb0(%in: i64, %out: i1):
      %10 = arith.cmpi sge, %in, %c1_i64 : i64
      linalg.yield %10 : i1
    } -> tensor<4x5xi1>
    %8 = tensor.empty() : tensor<4x5xf32>
    %9 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel"]} ins(%7, %arg0, %cst : tensor<4x5xi1>, tensor<4x5xf32>, tensor<f32>) outs(%8 : tensor<4x5xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %10 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<4x5xf32>
    return %9 : tensor<4x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x5xf32>, %ct0: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
  return %r#0, %r#1 : tensor<4x5xf32>, tensor<4x5xf32>
}
