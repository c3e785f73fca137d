// Source: iree-org/iree tests/e2e/math/generate.py (commit b48a5955575cf8924ffc191f3b0804976e5738b9; the program is the text its generate_binary_float_op prints for op "atan2", type "f32", an entry of tests/e2e/math/math_ops_llvm-cpu.json), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/math/generate.py
// What: math.atan2 applied elementwise by a two-input linalg.generic over 1-d f32 tensors (IREE's generated e2e test of the op).
// Adaptations: the two `util.unfoldable_constant`s %input_x and %input_y (the generated grid of input pairs) became the function arguments of the same names, of 4 elements each (the shapes follow: tensor<4xf32>); the signature `() -> ()` became `(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>` and the check.expect_almost_eq_const against the Python-computed values (with its atol/rtol) was replaced by `return %result`; added the gradir entry @vjp_test_atan2_f32 (autodiff.vjp) below the marker.
// gradir-corpus: entry=test_atan2_f32 wrt=0,1 reference=iree_math_atan2 inputs=signed

func.func @test_atan2_f32(%input_x: tensor<4xf32>, %input_y: tensor<4xf32>) -> tensor<4xf32> {
  %result_empty = tensor.empty() : tensor<4xf32>
  %result = linalg.generic {indexing_maps = [
      affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>,
      affine_map<(d0) -> (d0)>
    ], iterator_types = ["parallel"]}
    ins(%input_x, %input_y : tensor<4xf32>, tensor<4xf32>) outs(%result_empty : tensor<4xf32>) {
  ^bb0(%in_x: f32, %in_y : f32, %out: f32):
    %result = math.atan2 %in_x, %in_y : f32
    linalg.yield %result : f32
  } -> tensor<4xf32>
  return %result : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_test_atan2_f32(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = autodiff.vjp @test_atan2_f32(%x, %y, %ct) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
