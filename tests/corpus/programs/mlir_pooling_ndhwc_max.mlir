// Source: llvm/llvm-project mlir/test/Dialect/Linalg/named-ops.mlir (commit 03464b2ca766d6d8d3ee5768553e1add0d3e3230), https://github.com/llvm/llvm-project/blob/03464b2ca766d6d8d3ee5768553e1add0d3e3230/mlir/test/Dialect/Linalg/named-ops.mlir
// What: linalg.pooling_ndhwc_max (3-d max pooling, 3x3x3 window given by a shape-only operand) into a zero-filled init.
// Adaptations: kept only @pooling_ndhwc_max_tensor of the split file (dropped the CHECK lines and the other splits); shapes kept (input 1x4x4x4x1, window 3x3x3, result 1x2x2x2x1); added the gradir entry @vjp_pooling_ndhwc_max_tensor (autodiff.vjp wrt the input) below the marker.
// gradir-corpus: entry=pooling_ndhwc_max_tensor wrt=0 reference=mu_pooling_ndhwc_max

func.func @pooling_ndhwc_max_tensor(%input: tensor<1x4x4x4x1xf32>) -> tensor<1x2x2x2x1xf32> {
  %fake = tensor.empty() : tensor<3x3x3xf32>
  %init = tensor.empty() : tensor<1x2x2x2x1xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %fill = linalg.fill ins(%cst : f32) outs(%init : tensor<1x2x2x2x1xf32>) -> tensor<1x2x2x2x1xf32>
  %res = linalg.pooling_ndhwc_max {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
    ins(%input, %fake: tensor<1x4x4x4x1xf32>, tensor<3x3x3xf32>)
    outs(%fill: tensor<1x2x2x2x1xf32>) -> tensor<1x2x2x2x1xf32>
  return %res : tensor<1x2x2x2x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pooling_ndhwc_max_tensor(%a0: tensor<1x4x4x4x1xf32>, %c0: tensor<1x2x2x2x1xf32>) -> (tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>) {
  %r:2 = autodiff.vjp @pooling_ndhwc_max_tensor(%a0, %c0) {wrt = array<i64: 0>} : (tensor<1x4x4x4x1xf32>, tensor<1x2x2x2x1xf32>) -> (tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>)
  return %r#0, %r#1 : tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>
}
