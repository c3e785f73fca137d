// Source: llvm/llvm-project mlir/test/Dialect/Linalg/named-ops.mlir (commit 03464b2ca766d6d8d3ee5768553e1add0d3e3230), https://github.com/llvm/llvm-project/blob/03464b2ca766d6d8d3ee5768553e1add0d3e3230/mlir/test/Dialect/Linalg/named-ops.mlir
// What: linalg.powf (the named elementwise power, both operands differentiated) on 3-d tensors.
// Adaptations: kept only @powf_tensor of the split file (dropped the CHECK lines and the other splits); shapes reduced (4x8x16 -> 2x3x4); added the gradir entry @vjp_powf_tensor (autodiff.vjp) below the marker.
// gradir-corpus: entry=powf_tensor wrt=0,1 reference=mu_powf inputs=pos

func.func @powf_tensor(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tensor.empty() : tensor<2x3x4xf32>
  %1 = linalg.powf ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_powf_tensor(%a0: tensor<2x3x4xf32>, %a1: tensor<2x3x4xf32>, %c0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:3 = autodiff.vjp @powf_tensor(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
