// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `EinsumStaticContractRhsModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py
// What: `einsum("abc,bc->a")`: collapse/expand_shape into a linalg.batch_matmul with a unit batch.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x5 and 4x5 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_einsum_contract_rhs inputs=signed

  func.func @main(%arg0: tensor<3x4x5xf32>, %arg1: tensor<4x5xf32>) -> tensor<3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg1 [[0], [1, 2]] output_shape [4, 5, 1] : tensor<4x5xf32> into tensor<4x5x1xf32>
    %collapsed = tensor.collapse_shape %arg0 [[0], [1, 2]] : tensor<3x4x5xf32> into tensor<3x20xf32>
    %expanded_0 = tensor.expand_shape %collapsed [[0, 1], [2]] output_shape [1, 3, 20] : tensor<3x20xf32> into tensor<1x3x20xf32>
    %collapsed_1 = tensor.collapse_shape %expanded [[0, 1], [2]] : tensor<4x5x1xf32> into tensor<20x1xf32>
    %expanded_2 = tensor.expand_shape %collapsed_1 [[0, 1], [2]] output_shape [1, 20, 1] : tensor<20x1xf32> into tensor<1x20x1xf32>
    %0 = tensor.empty() : tensor<1x3x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
    %2 = linalg.batch_matmul ins(%expanded_0, %expanded_2 : tensor<1x3x20xf32>, tensor<1x20x1xf32>) outs(%1 : tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
    %collapsed_3 = tensor.collapse_shape %2 [[0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
    return %collapsed_3 : tensor<3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x5xf32>, %a1: tensor<4x5xf32>, %ct0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4x5xf32>, tensor<4x5xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<3x4x5xf32>, tensor<4x5xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4x5xf32>, tensor<4x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3x4x5xf32>, tensor<4x5xf32>
}
