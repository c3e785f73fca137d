// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-pad-tensor.mlir (commit 34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4), https://github.com/llvm/llvm-project/blob/34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4/mlir/test/Dialect/Linalg/generalize-pad-tensor.mlir
// What: tensor.pad whose low and high padding amounts (dimensions 2 and 3) are a run-time index argument, so the result has dynamic dimensions; zero padding value. (Stage primal is n/a: the runner writes the dynamic result type of its @__corpus_primal wrapper with the negative dynamic-size sentinel, which MLIR cannot parse; the values are still checked against the reference in stage reference.)
// Adaptations: kept only @generalize_pad_tensor_dynamic_shape (dropped the CHECK lines and the other function); the input's dynamic dimensions made static (tensor<4x?x2x?xf32> -> tensor<4x2x2x3xf32>, so the result tensor<4x?x?x?xf32> becomes tensor<4x2x?x?xf32>: its padded dimensions stay dynamic); added the gradir entry @vjp_generalize_pad_tensor_dynamic_shape (autodiff.vjp wrt the input; the padding amount 1 comes from the input generator) below the marker.
// gradir-corpus: entry=generalize_pad_tensor_dynamic_shape wrt=0 reference=mu_pad_dynamic_amount inputs=mu_pad_amount_one

func.func @generalize_pad_tensor_dynamic_shape(%arg0: tensor<4x2x2x3xf32>, %arg1: index) -> tensor<4x2x?x?xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %out = tensor.pad %arg0 low[%c0, %c0, %arg1, %c0] high[%c0, %c0, %c0, %arg1]  {
  ^bb0(%gen_arg1: index, %gen_arg2: index, %gen_arg3: index, %gen_arg4: index):
    tensor.yield %cst : f32
  } : tensor<4x2x2x3xf32> to tensor<4x2x?x?xf32>
  return %out : tensor<4x2x?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_generalize_pad_tensor_dynamic_shape(%a0: tensor<4x2x2x3xf32>, %a1: index, %c0: tensor<4x2x?x?xf32>) -> (tensor<4x2x?x?xf32>, tensor<4x2x2x3xf32>) {
  %r:2 = autodiff.vjp @generalize_pad_tensor_dynamic_shape(%a0, %a1, %c0) {wrt = array<i64: 0>} : (tensor<4x2x2x3xf32>, index, tensor<4x2x?x?xf32>) -> (tensor<4x2x?x?xf32>, tensor<4x2x2x3xf32>)
  return %r#0, %r#1 : tensor<4x2x?x?xf32>, tensor<4x2x2x3xf32>
}
