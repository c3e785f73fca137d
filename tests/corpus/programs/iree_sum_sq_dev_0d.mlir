// Source: iree-org/iree tests/e2e/regression/associative_reordering.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/associative_reordering.mlir
// What: sum over a vector of (x - c)^2 into a 0-d tensor: a one-loop reduction generic whose second input is a 0-d tensor<f32> read through the map (d0) -> (), accumulating into a linalg.fill of -0.0.
// Adaptations: the body of @check_reordering turned into a function taking the two operands: the 384-element dense constant %0 became an argument %0 of 8 elements (tensor<384xf32> -> tensor<8xf32>), and the `util.unfoldable_constant` %1 (tensor<f32>) became argument %1; the check.expect_almost_eq_const was dropped: the function returns %4; added the gradir entry @vjp_check_reordering (autodiff.vjp wrt both) below the marker.
// gradir-corpus: entry=check_reordering wrt=0,1 reference=iree_sum_sq_dev_0d inputs=signed

#map0 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> ()>
func.func @check_reordering(%0: tensor<8xf32>, %1: tensor<f32>) -> tensor<f32> {
  %cst = arith.constant -0.000000e+00 : f32
  %2 = tensor.empty() : tensor<f32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<f32>) -> tensor<f32>
  %4 = linalg.generic {indexing_maps = [#map0, #map3, #map3], iterator_types = ["reduction"]}
    ins(%0, %1 : tensor<8xf32>, tensor<f32>) outs(%3 : tensor<f32>){
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %5 = arith.subf %arg3, %arg4 : f32
    %6 = arith.mulf %5, %5 : f32
    %7 = arith.addf %6, %arg5 : f32
    linalg.yield %7 : f32
  } -> tensor<f32>
  return %4 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_check_reordering(%x: tensor<8xf32>, %c: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<8xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @check_reordering(%x, %c, %ct) {wrt = array<i64: 0, 1>} : (tensor<8xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<8xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<8xf32>, tensor<f32>
}
