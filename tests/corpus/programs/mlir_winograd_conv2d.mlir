// Source: llvm/llvm-project mlir/test/Dialect/Linalg/winograd-conv2d-rewrite.mlir (commit 26fa10e9ca548e056fd95bc0e807ecec98370069), https://github.com/llvm/llvm-project/blob/26fa10e9ca548e056fd95bc0e807ecec98370069/mlir/test/Dialect/Linalg/winograd-conv2d-rewrite.mlir
// What: a 2-d NHWC/FHWC convolution written as Winograd F(4,3): linalg.winograd_filter_transform of the filter, tensor.pad + linalg.winograd_input_transform of the image, collapse_shape + linalg.batch_matmul, expand_shape, then linalg.winograd_output_transform accumulating into the padded init and an extract_slice of the valid 9x9 part. (Stage primal is n/a: MLIR 22's CPU pipeline cannot bufferize the winograd ops; the reference was checked by hand against MLIR 22 running this program after transform.structured.decompose_winograd_op, max abs difference 7e-6 in f32.)
// Adaptations: kept only @conv2d (dropped the CHECK lines); batch and input channels reduced (input 2x11x11x5 -> 1x11x11x2, filter 2x3x3x5 -> 2x3x3x2, init and result 2x9x9x2 -> 1x9x9x2, and the intermediate tensors accordingly: 6x6x5x2 -> 6x6x2x2, 6x6x3x3x2x5 -> 6x6x3x3x1x2, 36x5x2 -> 36x2x2, 36x18x5 -> 36x9x2, 36x18x2 -> 36x9x2, 6x6x3x3x2x2 -> 6x6x3x3x1x2, padded 2x14x14x5 -> 1x14x14x2 and 2x12x12x2 -> 1x12x12x2; the spatial sizes and so the 3x3 tiling kept); added the gradir entry @vjp_conv2d (autodiff.vjp wrt all three) below the marker.
// gradir-corpus: entry=conv2d wrt=0,1,2 reference=mu_winograd_conv2d inputs=signed

func.func @conv2d(%arg0: tensor<1x11x11x2xf32>, %arg1: tensor<2x3x3x2xf32>, %arg2: tensor<1x9x9x2xf32>) -> tensor<1x9x9x2xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<6x6x2x2xf32>
  %3 = linalg.winograd_filter_transform fmr(F_4_3) ins(%arg1 : tensor<2x3x3x2xf32>) outs(%2 : tensor<6x6x2x2xf32>) -> tensor<6x6x2x2xf32>
  %padded = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 3, 3, 0] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %cst : f32
  } : tensor<1x11x11x2xf32> to tensor<1x14x14x2xf32>
  %4 = tensor.empty() : tensor<6x6x3x3x1x2xf32>
  %5 = linalg.winograd_input_transform fmr(F_4_3) ins(%padded : tensor<1x14x14x2xf32>) outs(%4 : tensor<6x6x3x3x1x2xf32>) -> tensor<6x6x3x3x1x2xf32>
  %collapsed = tensor.collapse_shape %3 [[0, 1], [2], [3]] : tensor<6x6x2x2xf32> into tensor<36x2x2xf32>
  %collapsed_0 = tensor.collapse_shape %5 [[0, 1], [2, 3, 4], [5]] : tensor<6x6x3x3x1x2xf32> into tensor<36x9x2xf32>
  %6 = tensor.empty() : tensor<36x9x2xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<36x9x2xf32>) -> tensor<36x9x2xf32>
  %8 = linalg.batch_matmul ins(%collapsed_0, %collapsed : tensor<36x9x2xf32>, tensor<36x2x2xf32>) outs(%7 : tensor<36x9x2xf32>) -> tensor<36x9x2xf32>
  %expanded = tensor.expand_shape %8 [[0, 1], [2, 3, 4], [5]] output_shape [6, 6, 3, 3, 1, 2] : tensor<36x9x2xf32> into tensor<6x6x3x3x1x2xf32>
  %padded_1 = tensor.pad %arg2 low[0, 0, 0, 0] high[0, 3, 3, 0] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %cst : f32
  } : tensor<1x9x9x2xf32> to tensor<1x12x12x2xf32>
  %9 = linalg.winograd_output_transform fmr(F_4_3) ins(%expanded : tensor<6x6x3x3x1x2xf32>) outs(%padded_1 : tensor<1x12x12x2xf32>) -> tensor<1x12x12x2xf32>
  %extracted_slice = tensor.extract_slice %9[0, 0, 0, 0] [1, 9, 9, 2] [1, 1, 1, 1] : tensor<1x12x12x2xf32> to tensor<1x9x9x2xf32>
  return %extracted_slice : tensor<1x9x9x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv2d(%a0: tensor<1x11x11x2xf32>, %a1: tensor<2x3x3x2xf32>, %a2: tensor<1x9x9x2xf32>, %c0: tensor<1x9x9x2xf32>) -> (tensor<1x9x9x2xf32>, tensor<1x11x11x2xf32>, tensor<2x3x3x2xf32>, tensor<1x9x9x2xf32>) {
  %r:4 = autodiff.vjp @conv2d(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<1x11x11x2xf32>, tensor<2x3x3x2xf32>, tensor<1x9x9x2xf32>, tensor<1x9x9x2xf32>) -> (tensor<1x9x9x2xf32>, tensor<1x11x11x2xf32>, tensor<2x3x3x2xf32>, tensor<1x9x9x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x9x9x2xf32>, tensor<1x11x11x2xf32>, tensor<2x3x3x2xf32>, tensor<1x9x9x2xf32>
}
