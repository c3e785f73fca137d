// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `PixelShuffleModuleStaticRank4Float32`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.pixel_shuffle(x, 3)`: tensor.expand_shape, linalg.transpose with a 6-d permutation and tensor.collapse_shape.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x18x2x2 (the upstream shape); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_pixel_shuffle inputs=signed

  func.func @main(%arg0: tensor<3x18x2x2xf32>) -> tensor<3x2x6x6xf32> {
    %expanded = tensor.expand_shape %arg0 [[0], [1, 2, 3], [4], [5]] output_shape [3, 2, 3, 3, 2, 2] : tensor<3x18x2x2xf32> into tensor<3x2x3x3x2x2xf32>
    %0 = tensor.empty() : tensor<3x2x2x3x2x3xf32>
    %transposed = linalg.transpose ins(%expanded : tensor<3x2x3x3x2x2xf32>) outs(%0 : tensor<3x2x2x3x2x3xf32>) permutation = [0, 1, 4, 2, 5, 3] 
    %collapsed = tensor.collapse_shape %transposed [[0], [1], [2, 3], [4, 5]] : tensor<3x2x2x3x2x3xf32> into tensor<3x2x6x6xf32>
    return %collapsed : tensor<3x2x6x6xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x18x2x2xf32>, %ct0: tensor<3x2x6x6xf32>) -> (tensor<3x2x6x6xf32>, tensor<3x18x2x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x18x2x2xf32>, tensor<3x2x6x6xf32>) -> (tensor<3x2x6x6xf32>, tensor<3x18x2x2xf32>)
  return %r#0, %r#1 : tensor<3x2x6x6xf32>, tensor<3x18x2x2xf32>
}
