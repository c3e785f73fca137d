// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SelectScatterStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py
// What: `aten.select_scatter(x, src, dim=1, index=0)`: expand_shape of src, a generic comparing linalg.index with the index (cmpi + select between the broadcast src and x).
// Adaptations: x 6x8x5 -> 2x3x4 and src 6x5 -> 2x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x3x4, src 2x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_select_scatter inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (0, d1, 0)>
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4xf32>) -> tensor<2x3x4xf32> {
    %c0_i64 = arith.constant 0 : i64
    %0 = tensor.empty() : tensor<3xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %7 = linalg.index 0 : index
      %8 = arith.index_cast %7 : index to i64
      linalg.yield %8 : i64
    } -> tensor<3xi64>
    %expanded = tensor.expand_shape %1 [[0, 1, 2]] output_shape [1, 3, 1] : tensor<3xi64> into tensor<1x3x1xi64>
    %2 = tensor.empty() : tensor<1x3x1xi1>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded : tensor<1x3x1xi64>) outs(%2 : tensor<1x3x1xi1>) {
    ^bb0(%in: i64, %out: i1):
      %7 = arith.cmpi eq, %in, %c0_i64 : i64
      linalg.yield %7 : i1
    } -> tensor<1x3x1xi1>
    %4 = tensor.empty() : tensor<2x3x4xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x4xf32>) outs(%4 : tensor<2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x4xf32>
    %6 = linalg.generic {indexing_maps = [#map3, #map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %5, %arg0 : tensor<1x3x1xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%4 : tensor<2x3x4xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %7 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %7 : f32
    } -> tensor<2x3x4xf32>
    return %6 : tensor<2x3x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<2x4xf32>, %ct0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x4xf32>
}
