// xDSL 0.74's linalg.transpose verifier indexed with the permutation before checking it (an
// IndexError); gradir's checks it first, with MLIR's message.
func.func @t(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %e = tensor.empty() : tensor<4x2x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) permutation = [2, 9223372036854775808, 1]
  return %t : tensor<4x2x3xf32>
}
