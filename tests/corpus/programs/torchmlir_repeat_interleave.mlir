// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `RepeatInterleaveSelfIntModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `x.repeat_interleave(2, 1)`: a broadcast generic into a 4-d tensor and collapse_shape.
// Adaptations: input 3x4x5 -> 2x3x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_repeat_interleave inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<2x3x2xf32>) -> tensor<2x6x2xf32> {
    %0 = tensor.empty() : tensor<2x3x2x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3x2xf32>) outs(%0 : tensor<2x3x2x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x2x2xf32>
    %collapsed = tensor.collapse_shape %1 [[0], [1, 2], [3]] : tensor<2x3x2x2xf32> into tensor<2x6x2xf32>
    return %collapsed : tensor<2x6x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x2xf32>, %ct0: tensor<2x6x2xf32>) -> (tensor<2x6x2xf32>, tensor<2x3x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<2x3x2xf32>, tensor<2x6x2xf32>) -> (tensor<2x6x2xf32>, tensor<2x3x2xf32>)
  return %r#0, %r#1 : tensor<2x6x2xf32>, tensor<2x3x2xf32>
}
