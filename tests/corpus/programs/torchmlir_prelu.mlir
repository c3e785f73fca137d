// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwisePreluStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.prelu` with a 1-element slope on a 5-d tensor: a generic broadcasting the slope with a constant map, cmpf + select between x and slope * x.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x3x2x2x1 (upstream 5x4x3x2x1), weight 1; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_prelu inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (0, 0, 0, 0, d4)>
  func.func @main(%arg0: tensor<2x3x2x2x1xf32>, %arg1: tensor<1xf32>) -> tensor<2x3x2x2x1xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg1 [[0, 1, 2, 3, 4]] output_shape [1, 1, 1, 1, 1] : tensor<1xf32> into tensor<1x1x1x1x1xf32>
    %0 = tensor.empty() : tensor<2x3x2x2x1xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3x2x2x1xf32>) outs(%0 : tensor<2x3x2x2x1xi1>) {
    ^bb0(%in: f32, %out: i1):
      %5 = arith.cmpf ogt, %in, %cst : f32
      linalg.yield %5 : i1
    } -> tensor<2x3x2x2x1xi1>
    %2 = tensor.empty() : tensor<2x3x2x2x1xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %arg0 : tensor<1x1x1x1x1xf32>, tensor<2x3x2x2x1xf32>) outs(%2 : tensor<2x3x2x2x1xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<2x3x2x2x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%1, %arg0, %3 : tensor<2x3x2x2x1xi1>, tensor<2x3x2x2x1xf32>, tensor<2x3x2x2x1xf32>) outs(%2 : tensor<2x3x2x2x1xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %5 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %5 : f32
    } -> tensor<2x3x2x2x1xf32>
    return %4 : tensor<2x3x2x2x1xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x2x2x1xf32>, %a1: tensor<1xf32>, %ct0: tensor<2x3x2x2x1xf32>) -> (tensor<2x3x2x2x1xf32>, tensor<2x3x2x2x1xf32>, tensor<1xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<2x3x2x2x1xf32>, tensor<1xf32>, tensor<2x3x2x2x1xf32>) -> (tensor<2x3x2x2x1xf32>, tensor<2x3x2x2x1xf32>, tensor<1xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x2x2x1xf32>, tensor<2x3x2x2x1xf32>, tensor<1xf32>
}
