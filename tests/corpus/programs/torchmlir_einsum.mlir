// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `EinsumStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py
// What: `einsum("bqe,ked,btd->bqtk")` of three tensors: linalg.transpose, expand/collapse_shape and two linalg.batch_matmul with zero fills.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x2x4, 5x4x6, 3x7x6 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_einsum inputs=signed

  func.func @main(%arg0: tensor<3x2x4xf32>, %arg1: tensor<5x4x6xf32>, %arg2: tensor<3x7x6xf32>) -> tensor<3x2x7x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg1 [[0], [1], [2, 3, 4, 5]] output_shape [5, 4, 6, 1, 1, 1] : tensor<5x4x6xf32> into tensor<5x4x6x1x1x1xf32>
    %expanded_0 = tensor.expand_shape %arg2 [[0], [1], [2, 3, 4, 5]] output_shape [3, 7, 6, 1, 1, 1] : tensor<3x7x6xf32> into tensor<3x7x6x1x1x1xf32>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<3x2x4xf32> into tensor<6x4xf32>
    %expanded_1 = tensor.expand_shape %collapsed [[0, 1], [2]] output_shape [1, 6, 4] : tensor<6x4xf32> into tensor<1x6x4xf32>
    %0 = tensor.empty() : tensor<4x1x5x6x1x1xf32>
    %transposed = linalg.transpose ins(%expanded : tensor<5x4x6x1x1x1xf32>) outs(%0 : tensor<4x1x5x6x1x1xf32>) permutation = [1, 5, 0, 2, 3, 4] 
    %collapsed_2 = tensor.collapse_shape %transposed [[0], [1, 2, 3, 4, 5]] : tensor<4x1x5x6x1x1xf32> into tensor<4x30xf32>
    %expanded_3 = tensor.expand_shape %collapsed_2 [[0, 1], [2]] output_shape [1, 4, 30] : tensor<4x30xf32> into tensor<1x4x30xf32>
    %1 = tensor.empty() : tensor<1x6x30xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x6x30xf32>) -> tensor<1x6x30xf32>
    %3 = linalg.batch_matmul ins(%expanded_1, %expanded_3 : tensor<1x6x4xf32>, tensor<1x4x30xf32>) outs(%2 : tensor<1x6x30xf32>) -> tensor<1x6x30xf32>
    %collapsed_4 = tensor.collapse_shape %3 [[0, 1], [2]] : tensor<1x6x30xf32> into tensor<6x30xf32>
    %expanded_5 = tensor.expand_shape %collapsed_4 [[0, 1], [2, 3, 4, 5]] output_shape [3, 2, 1, 1, 5, 6] : tensor<6x30xf32> into tensor<3x2x1x1x5x6xf32>
    %4 = tensor.empty() : tensor<3x2x5x6x1x1xf32>
    %transposed_6 = linalg.transpose ins(%expanded_5 : tensor<3x2x1x1x5x6xf32>) outs(%4 : tensor<3x2x5x6x1x1xf32>) permutation = [0, 1, 4, 5, 3, 2] 
    %collapsed_7 = tensor.collapse_shape %transposed_6 [[0], [1, 2], [3, 4, 5]] : tensor<3x2x5x6x1x1xf32> into tensor<3x10x6xf32>
    %5 = tensor.empty() : tensor<3x6x7x1x1x1xf32>
    %transposed_8 = linalg.transpose ins(%expanded_0 : tensor<3x7x6x1x1x1xf32>) outs(%5 : tensor<3x6x7x1x1x1xf32>) permutation = [0, 2, 1, 5, 3, 4] 
    %collapsed_9 = tensor.collapse_shape %transposed_8 [[0], [1], [2, 3, 4, 5]] : tensor<3x6x7x1x1x1xf32> into tensor<3x6x7xf32>
    %6 = tensor.empty() : tensor<3x10x7xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<3x10x7xf32>) -> tensor<3x10x7xf32>
    %8 = linalg.batch_matmul ins(%collapsed_7, %collapsed_9 : tensor<3x10x6xf32>, tensor<3x6x7xf32>) outs(%7 : tensor<3x10x7xf32>) -> tensor<3x10x7xf32>
    %expanded_10 = tensor.expand_shape %8 [[0], [1, 2], [3, 4, 5]] output_shape [3, 2, 5, 1, 7, 1] : tensor<3x10x7xf32> into tensor<3x2x5x1x7x1xf32>
    %9 = tensor.empty() : tensor<3x2x7x5x1x1xf32>
    %transposed_11 = linalg.transpose ins(%expanded_10 : tensor<3x2x5x1x7x1xf32>) outs(%9 : tensor<3x2x7x5x1x1xf32>) permutation = [0, 1, 4, 2, 3, 5] 
    %collapsed_12 = tensor.collapse_shape %transposed_11 [[0], [1], [2], [3, 4, 5]] : tensor<3x2x7x5x1x1xf32> into tensor<3x2x7x5xf32>
    return %collapsed_12 : tensor<3x2x7x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x2x4xf32>, %a1: tensor<5x4x6xf32>, %a2: tensor<3x7x6xf32>, %ct0: tensor<3x2x7x5xf32>) -> (tensor<3x2x7x5xf32>, tensor<3x2x4xf32>, tensor<5x4x6xf32>, tensor<3x7x6xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<3x2x4xf32>, tensor<5x4x6xf32>, tensor<3x7x6xf32>, tensor<3x2x7x5xf32>) -> (tensor<3x2x7x5xf32>, tensor<3x2x4xf32>, tensor<5x4x6xf32>, tensor<3x7x6xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x2x7x5xf32>, tensor<3x2x4xf32>, tensor<5x4x6xf32>, tensor<3x7x6xf32>
}
