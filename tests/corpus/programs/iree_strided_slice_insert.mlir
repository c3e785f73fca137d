// Source: iree-org/iree tests/e2e/regression/strided_slice.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/strided_slice.mlir
// What: two strided tensor.extract_slice (strides [2, 3] and [3, 2]) added elementwise by a generic and written back by a strided tensor.insert_slice (strides [2, 3]) into a dense constant.
// Adaptations: kept only @stride_slice (dropped @issue_8825, which is another corpus program); the two index-pattern generics that build %1 (tensor<12x15>) and %3 (tensor<14x16>) from linalg.index became function arguments %1 and %3 (their %c15, %c16 and the two tensor.empty went with them), and the check.expect_eq_const was dropped: the function returns %9; element type i32 -> f32 throughout to make it differentiable (arith.addi -> arith.addf, the constant dense<42> : tensor<10x12xi32> -> dense<42.0> : tensor<10x12xf32>); added the gradir entry @vjp_stride_slice (autodiff.vjp wrt both) below the marker.
// gradir-corpus: entry=stride_slice wrt=0,1 reference=iree_strided_slice_insert inputs=signed

func.func @stride_slice(%1: tensor<12x15xf32>, %3: tensor<14x16xf32>) -> tensor<10x12xf32> {
  %4 = tensor.extract_slice %1[2, 3] [3, 3] [2, 3] : tensor<12x15xf32> to tensor<3x3xf32>
  %5 = tensor.extract_slice %3[3, 2] [3, 3] [3, 2] : tensor<14x16xf32> to tensor<3x3xf32>
  %6 = tensor.empty() : tensor<3x3xf32>
  %7 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%4, %5 : tensor<3x3xf32>, tensor<3x3xf32>)
      outs(%6 : tensor<3x3xf32>) {
    ^bb0(%b0 : f32, %b1 : f32, %b2: f32):
      %8 = arith.addf %b0, %b1 : f32
      linalg.yield %8 : f32
    } -> tensor<3x3xf32>
  %8 = arith.constant dense<42.0> : tensor<10x12xf32>
  %9 = tensor.insert_slice %7 into %8[1, 2] [3, 3] [2, 3] : tensor<3x3xf32> into tensor<10x12xf32>
  return %9 : tensor<10x12xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_stride_slice(%a: tensor<12x15xf32>, %b: tensor<14x16xf32>, %ct: tensor<10x12xf32>) -> (tensor<10x12xf32>, tensor<12x15xf32>, tensor<14x16xf32>) {
  %r:3 = autodiff.vjp @stride_slice(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<12x15xf32>, tensor<14x16xf32>, tensor<10x12xf32>) -> (tensor<10x12xf32>, tensor<12x15xf32>, tensor<14x16xf32>)
  return %r#0, %r#1, %r#2 : tensor<10x12xf32>, tensor<12x15xf32>, tensor<14x16xf32>
}
