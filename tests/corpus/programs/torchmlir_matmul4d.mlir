// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Matmul4dStatic`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py
// What: `torch.matmul` of two 4-d tensors: collapse_shape of the two batch dims, linalg.batch_matmul, expand_shape back.
// Adaptations: 4x5x6x7 and 4x5x7x6 -> 2x3x2x4 and 2x3x4x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x2x4, 2x3x4x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_matmul4d inputs=signed

  func.func @main(%arg0: tensor<2x3x2x4xf32>, %arg1: tensor<2x3x4x2xf32>) -> tensor<2x3x2x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2], [3]] : tensor<2x3x2x4xf32> into tensor<6x2x4xf32>
    %collapsed_0 = tensor.collapse_shape %arg1 [[0, 1], [2], [3]] : tensor<2x3x4x2xf32> into tensor<6x4x2xf32>
    %0 = tensor.empty() : tensor<6x2x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
    %2 = linalg.batch_matmul ins(%collapsed, %collapsed_0 : tensor<6x2x4xf32>, tensor<6x4x2xf32>) outs(%1 : tensor<6x2x2xf32>) -> tensor<6x2x2xf32>
    %expanded = tensor.expand_shape %2 [[0, 1], [2], [3]] output_shape [2, 3, 2, 2] : tensor<6x2x2xf32> into tensor<2x3x2x2xf32>
    return %expanded : tensor<2x3x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x2x4xf32>, %a1: tensor<2x3x4x2xf32>, %ct0: tensor<2x3x2x2xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x4xf32>, tensor<2x3x4x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<2x3x2x4xf32>, tensor<2x3x4x2xf32>, tensor<2x3x2x2xf32>) -> (tensor<2x3x2x2xf32>, tensor<2x3x2x4xf32>, tensor<2x3x4x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x2x2xf32>, tensor<2x3x2x4xf32>, tensor<2x3x4x2xf32>
}
