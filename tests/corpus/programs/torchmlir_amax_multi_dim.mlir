// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReduceAmaxMultiDim`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.amax(a, (0, 2))`: two chained two-result max/argmax reduction generics (arith.maximumf, cmpf ogt + select of linalg.index), the first over dim 2, the second over dim 0 with a `(d0, d1) -> (d1)` output map; only the values are returned.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x4 (upstream 3x4x5; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_amax_0_2 inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
  func.func @main(%arg0: tensor<2x3x4xf32>) -> tensor<3xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %0 = tensor.empty() : tensor<2x3xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<2x3xi64>) -> tensor<2x3xi64>
    %2 = tensor.empty() : tensor<2x3xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%3, %1 : tensor<2x3xf32>, tensor<2x3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_0: i64):
      %10 = linalg.index 2 : index
      %11 = arith.index_cast %10 : index to i64
      %12 = arith.maximumf %in, %out : f32
      %13 = arith.cmpf ogt, %in, %out : f32
      %14 = arith.select %13, %11, %out_0 : i64
      linalg.yield %12, %14 : f32, i64
    } -> (tensor<2x3xf32>, tensor<2x3xi64>)
    %5 = tensor.empty() : tensor<3xi64>
    %6 = linalg.fill ins(%c0_i64 : i64) outs(%5 : tensor<3xi64>) -> tensor<3xi64>
    %7 = tensor.empty() : tensor<3xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<3xf32>) -> tensor<3xf32>
    %9:2 = linalg.generic {indexing_maps = [#map2, #map3, #map3], iterator_types = ["reduction", "parallel"]} ins(%4#0 : tensor<2x3xf32>) outs(%8, %6 : tensor<3xf32>, tensor<3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_0: i64):
      %10 = linalg.index 0 : index
      %11 = arith.index_cast %10 : index to i64
      %12 = arith.maximumf %in, %out : f32
      %13 = arith.cmpf ogt, %in, %out : f32
      %14 = arith.select %13, %11, %out_0 : i64
      linalg.yield %12, %14 : f32, i64
    } -> (tensor<3xf32>, tensor<3xi64>)
    return %9#0 : tensor<3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %ct0: tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<2x3x4xf32>
}
