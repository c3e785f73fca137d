// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `RepeatModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `x.repeat([2, 1, 3, 4])`: expand_shape, one broadcast generic into a 6-d tensor and collapse_shape.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x1x2 (the upstream shape); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_repeat inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
  func.func @main(%arg0: tensor<3x1x2xf32>) -> tensor<2x3x3x8xf32> {
    %expanded = tensor.expand_shape %arg0 [[0, 1], [2], [3, 4]] output_shape [1, 3, 1, 1, 2] : tensor<3x1x2xf32> into tensor<1x3x1x1x2xf32>
    %0 = tensor.empty() : tensor<2x3x3x4x2xf32>
    %collapsed = tensor.collapse_shape %expanded [[0, 1, 2, 3], [4]] : tensor<1x3x1x1x2xf32> into tensor<3x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<3x2xf32>) outs(%0 : tensor<2x3x3x4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x3x4x2xf32>
    %collapsed_0 = tensor.collapse_shape %1 [[0], [1], [2], [3, 4]] : tensor<2x3x3x4x2xf32> into tensor<2x3x3x8xf32>
    return %collapsed_0 : tensor<2x3x3x8xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x1x2xf32>, %ct0: tensor<2x3x3x8xf32>) -> (tensor<2x3x3x8xf32>, tensor<3x1x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x1x2xf32>, tensor<2x3x3x8xf32>) -> (tensor<2x3x3x8xf32>, tensor<3x1x2xf32>)
  return %r#0, %r#1 : tensor<2x3x3x8xf32>, tensor<3x1x2xf32>
}
