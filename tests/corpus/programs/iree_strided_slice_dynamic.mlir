// Source: iree-org/iree tests/e2e/regression/strided_slice.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/strided_slice.mlir
// What: a frontend-style slice x[2:] with clamped bounds computed at run time (tensor.dim, i64 index_cast, cmpi/select clamping, subi) giving a dynamic tensor.extract_slice, scaled by 3 (arith.sitofp of an i64 constant inside the generic body) and tensor.cast back to a static shape.
// Adaptations: kept only @issue_8825 (dropped @stride_slice, which is integer); the constant %arg0 (`arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>`) became the function argument %arg0, and the check.expect_almost_eq_const was dropped: the function returns %17; added the gradir entry @vjp_issue_8825 (autodiff.vjp) below the marker.
// gradir-corpus: entry=issue_8825 wrt=0 reference=iree_strided_slice_dynamic inputs=signed

#map = affine_map<(d0) -> (d0)>
func.func @issue_8825(%arg0: tensor<4xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %c3_i64 = arith.constant 3 : i64
  %c2_i64 = arith.constant 2 : i64
  %0 = tensor.dim %arg0, %c0 : tensor<4xf32>
  %1 = arith.index_cast %0 : index to i64
  %2 = arith.addi %c2_i64, %1 : i64
  %3 = arith.cmpi sge, %c2_i64, %c0_i64 : i64
  %4 = arith.select %3, %c2_i64, %2 : i64
  %5 = arith.cmpi slt, %4, %c0_i64 : i64
  %6 = arith.select %5, %c0_i64, %4 : i64
  %7 = arith.cmpi sgt, %6, %1 : i64
  %8 = arith.select %7, %1, %6 : i64
  %9 = arith.index_cast %8 : i64 to index
  %10 = arith.cmpi sge, %0, %9 : index
  %11 = arith.select %10, %0, %9 : index
  %12 = arith.subi %11, %9 : index
  %13 = tensor.extract_slice %arg0[%9] [%12] [1] : tensor<4xf32> to tensor<?xf32>
  %14 = tensor.empty(%12) : tensor<?xf32>
  %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%13 : tensor<?xf32>) outs(%14 : tensor<?xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %16 = arith.sitofp %c3_i64 : i64 to f32
      %17 = arith.mulf %arg1, %16 : f32
      linalg.yield %17 : f32
    } -> tensor<?xf32>
  %17 = tensor.cast %16 : tensor<?xf32> to tensor<2xf32>
  return %17 : tensor<2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_issue_8825(%x: tensor<4xf32>, %ct: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>) {
  %r:2 = autodiff.vjp @issue_8825(%x, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<4xf32>
}
