// Source: iree-org/iree tests/e2e/regression/libm_linking.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/libm_linking.mlir
// What: math.tanh applied directly to a 0-d tensor value (elementwise math on a tensor type, no linalg).
// Adaptations: kept only @tanh of the file (dropped the RUN/CHECK lines, the file comments and @ceil, @floor, @exp2; the comment inside @tanh kept); added the gradir entry @vjp_tanh (autodiff.vjp) below the marker.
// gradir-corpus: entry=tanh wrt=0 reference=iree_math_tanh_on_tensor inputs=signed

func.func @tanh(%input : tensor<f32>) -> (tensor<f32>) {
  // May introduce llvm.intr.fma (fmaf) during lowering
  %result = math.tanh %input : tensor<f32>
  return %result : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_tanh(%x: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %r:2 = autodiff.vjp @tanh(%x, %ct) {wrt = array<i64: 0>} : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
