// Source: libxsmm/tpp-mlir test/Passes/tile-and-fuse-mlp-named-op.mlir (commit bac688f966c9cc4402d6b3e3f64d4cf2635f616a), https://github.com/libxsmm/tpp-mlir/blob/bac688f966c9cc4402d6b3e3f64d4cf2635f616a/test/Passes/tile-and-fuse-mlp-named-op.mlir
// What: a blocked MLP layer in named ops: linalg.transpose of the packed weights (permutation [0, 1, 3, 2]), linalg.mmt4d accumulating into the output argument, linalg.broadcast of a 2-d bias (dimensions [0, 2]), linalg.add and linalg.max against a zero fill, the last two also with the output argument as their (overwritten) outs.
// Adaptations: kept only @mlp (dropped the RUN and CHECK lines); element type bf16 -> f32; sizes reduced (activations 32x64x4x4 -> 2x3x2x2, weights 128x64x4x4 -> 2x3x2x2, bias 128x4 -> 2x2, output 32x128x4x4 -> 2x2x2x2); added the gradir entry @vjp_mlp (autodiff.vjp wrt all four arguments) below the marker.
// gradir-corpus: entry=mlp wrt=0,1,2,3 reference=tpp_mlp_mmt4d inputs=signed

func.func @mlp(%arg0: tensor<2x3x2x2xf32>, %arg1: tensor<2x3x2x2xf32>, %arg2: tensor<2x2xf32>, %arg3: tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32> {
    %0 = tensor.empty() : tensor<2x3x2x2xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<2x3x2x2xf32>) outs(%0 : tensor<2x3x2x2xf32>) permutation = [0, 1, 3, 2]
    %1 = linalg.mmt4d ins(%arg0, %transposed : tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) outs(%arg3 : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
    %2 = tensor.empty() : tensor<2x2x2x2xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<2x2xf32>) outs(%2 : tensor<2x2x2x2xf32>) dimensions = [0, 2]
    %3 = linalg.add ins(%broadcasted, %1 : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>) outs(%arg3 : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %4 = tensor.empty() : tensor<2x2x2x2xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
    %6 = linalg.max ins(%3, %5 : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>) outs(%arg3 : tensor<2x2x2x2xf32>) -> tensor<2x2x2x2xf32>
    return %6 : tensor<2x2x2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_mlp(%a0: tensor<2x3x2x2xf32>, %a1: tensor<2x3x2x2xf32>, %a2: tensor<2x2xf32>, %a3: tensor<2x2x2x2xf32>, %c0: tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x2x2x2xf32>) {
  %r:5 = autodiff.vjp @mlp(%a0, %a1, %a2, %a3, %c0) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x2x2x2xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x2x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>, tensor<2x2x2x2xf32>
}
