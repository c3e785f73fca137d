// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-tile-reduction-subf.mlir (commit 01345ea6686d5e38fa593f1a52641fb52804e311), https://github.com/llvm/llvm-project/blob/01345ea6686d5e38fa593f1a52641fb52804e311/mlir/test/Integration/Dialect/Linalg/CPU/test-tile-reduction-subf.mlir
// What: a row reduction generic whose body subtracts (`acc - x`) instead of adding, from a zero linalg.fill init.
// Adaptations: the body of upstream's @main turned into a function @reduce_subf: the constant %input became its argument (same shape); dropped the bufferization/printing tail, the print declaration and the transform schedule; added the gradir entry @vjp_reduce_subf (autodiff.vjp) below the marker.
// gradir-corpus: entry=reduce_subf wrt=0 reference=reduce_subf

func.func @reduce_subf(%input: tensor<2x8xf32>) -> tensor<2xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %empty = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%cst : f32) outs(%empty : tensor<2xf32>) -> tensor<2xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%input : tensor<2x8xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sub = arith.subf %acc, %in : f32
    linalg.yield %sub : f32
  } -> tensor<2xf32>
  return %res : tensor<2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reduce_subf(%x: tensor<2x8xf32>, %ct: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x8xf32>) {
  %r:2 = autodiff.vjp @reduce_subf(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x8xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2x8xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2x8xf32>
}
