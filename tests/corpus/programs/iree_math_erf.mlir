// Source: iree-org/iree tests/e2e/math/generate.py (commit b48a5955575cf8924ffc191f3b0804976e5738b9; the program is the text its generate_unary_float_op prints for op "erf", type "f32", an entry of tests/e2e/math/math_ops_llvm-cpu.json), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/math/generate.py
// What: math.erf applied elementwise by a one-input linalg.generic over a 1-d f32 tensor (IREE's generated e2e test of the op).
// Adaptations: the `util.unfoldable_constant` %input (the generated grid of input values in the op's domain, tensor<128xf32> or so) became the function argument %input of 4 elements (the shapes follow: tensor<4xf32>); the signature `() -> ()` became `(tensor<4xf32>) -> tensor<4xf32>` and the check.expect_almost_eq_const against the Python-computed values (with its atol/rtol) was replaced by `return %result`; added the gradir entry @vjp_test_erf_f32 (autodiff.vjp) below the marker.
// gradir-corpus: entry=test_erf_f32 wrt=0 reference=iree_math_erf inputs=signed

func.func @test_erf_f32(%input: tensor<4xf32>) -> tensor<4xf32> {
  %result_empty = tensor.empty() : tensor<4xf32>
  %result = linalg.generic {indexing_maps = [
      affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>
    ], iterator_types = ["parallel"]}
    ins(%input : tensor<4xf32>) outs(%result_empty : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %result = math.erf %in : f32
    linalg.yield %result : f32
  } -> tensor<4xf32>
  return %result : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_test_erf_f32(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = autodiff.vjp @test_erf_f32(%x, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
