// Source: iree-org/iree tests/e2e/regression/softmax.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/softmax.mlir
// What: softmax over the last dimension of a dynamically shaped 3-d tensor, as TOSA lowers it to linalg: an arith.maximumf reduction from -FLT_MAX, subtract-broadcast, exp, sum reduction, reciprocal (divf 1/x) and a broadcast multiply; result tensor.cast to a static shape.
// Adaptations: kept only @softmax_dynamic (dropped @softmax and the header comment with the TOSA source); the `flow.tensor.dynamic_constant` input %cst_3 became the function argument of the same name, and the check.expect_almost_eq against %cst_2 (and %cst_2 itself) was dropped: the function returns %result; sizes reduced (12x128x128 -> 2x3x4, so the tensor.cast target -> tensor<2x3x4xf32>); added the gradir entry @vjp_softmax_dynamic (autodiff.vjp) below the marker.
// gradir-corpus: entry=softmax_dynamic wrt=0 reference=iree_softmax_last inputs=iree_dyn_2x3x4

func.func @softmax_dynamic(%cst_3: tensor<?x?x?xf32>) -> tensor<2x3x4xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant -3.40282347E+38 : f32
  %c_0_index = arith.constant 0 : index
  %c_1_index = arith.constant 1 : index
  %c_2_index = arith.constant 2 : index
  %dim_0 = tensor.dim %cst_3, %c_0_index : tensor<?x?x?xf32>
  %dim_1 = tensor.dim %cst_3, %c_1_index : tensor<?x?x?xf32>
  %dim_2 = tensor.dim %cst_3, %c_2_index : tensor<?x?x?xf32>
  %1 = tensor.empty(%dim_0, %dim_1) : tensor<?x?xf32>
  %2 = linalg.fill ins(%cst_1 : f32) outs(%1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%cst_3 : tensor<?x?x?xf32>) outs(%2 : tensor<?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.maximumf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?xf32>
  %4 = tensor.empty(%dim_0, %dim_1, %dim_2) : tensor<?x?x?xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_3, %3 : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%4 : tensor<?x?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %11 = arith.subf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?x?xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<?x?x?xf32>) outs(%4 : tensor<?x?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = math.exp %arg0 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?x?xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<?x?x?xf32>) outs(%7 : tensor<?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.addf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?xf32>
  %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<?x?xf32>) outs(%1 : tensor<?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %11 = arith.divf %cst, %arg0 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?xf32>
  %10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<?x?x?xf32>, tensor<?x?xf32>) outs(%4 : tensor<?x?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %11 = arith.mulf %arg0, %arg1 : f32
    linalg.yield %11 : f32
  } -> tensor<?x?x?xf32>
  %result = tensor.cast %10 : tensor<?x?x?xf32> to tensor<2x3x4xf32>
  return %result : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_softmax_dynamic(%x: tensor<?x?x?xf32>, %ct: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<?x?x?xf32>) {
  %r:2 = autodiff.vjp @softmax_dynamic(%x, %ct) {wrt = array<i64: 0>} : (tensor<?x?x?xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<?x?x?xf32>)
  return %r#0, %r#1 : tensor<2x3x4xf32>, tensor<?x?x?xf32>
}
