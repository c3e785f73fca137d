// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReduceMinKeepDimReturnBoth`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.min(a, 1, keepdim=True)` returning values and indices: one two-result reduction generic (arith.minimumf, cmpf olt + select of linalg.index into an i64 output), expand_shape to keepdim.
// Adaptations: input 3x4x5 -> 2x4x3 (signed values instead of the upstream [-10, -5)); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x4x3 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_min_keepdim_both inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
  func.func @main(%arg0: tensor<2x4x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x1x3xi64>) {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0x7F800000 : f32
    %0 = tensor.empty() : tensor<2x3xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<2x3xi64>) -> tensor<2x3xi64>
    %2 = tensor.empty() : tensor<2x3xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<2x4x3xf32>) outs(%3, %1 : tensor<2x3xf32>, tensor<2x3xi64>) {
    ^bb0(%in: f32, %out: f32, %out_1: i64):
      %5 = linalg.index 1 : index
      %6 = arith.index_cast %5 : index to i64
      %7 = arith.minimumf %in, %out : f32
      %8 = arith.cmpf olt, %in, %out : f32
      %9 = arith.select %8, %6, %out_1 : i64
      linalg.yield %7, %9 : f32, i64
    } -> (tensor<2x3xf32>, tensor<2x3xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1], [2]] output_shape [2, 1, 3] : tensor<2x3xf32> into tensor<2x1x3xf32>
    %expanded_0 = tensor.expand_shape %4#1 [[0, 1], [2]] output_shape [2, 1, 3] : tensor<2x3xi64> into tensor<2x1x3xi64>
    return %expanded, %expanded_0 : tensor<2x1x3xf32>, tensor<2x1x3xi64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x4x3xf32>, %ct0: tensor<2x1x3xf32>, %ct1: tensor<2x1x3xi64>) -> (tensor<2x1x3xf32>, tensor<2x1x3xi64>, tensor<2x4x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %ct0, %ct1) {wrt = array<i64: 0>} : (tensor<2x4x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xi64>) -> (tensor<2x1x3xf32>, tensor<2x1x3xi64>, tensor<2x4x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x1x3xf32>, tensor<2x1x3xi64>, tensor<2x4x3xf32>
}
