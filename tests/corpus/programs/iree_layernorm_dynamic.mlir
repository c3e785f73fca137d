// Source: iree-org/iree tests/e2e/regression/layernorm.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/layernorm.mlir
// What: layer normalization (gamma 1, beta 0) lowered from TOSA to linalg on dynamic shapes: row-sum reduction generic, reciprocal of the row count, tensor.collapse_shape of tensor<?x1xf32>, centring, sum-of-squares reduction, and a 4-input generic with math.rsqrt; tensor.empty/tensor.dim sized by the input, result tensor.cast to a static shape.
// Adaptations: kept only @layernorm_dynamic (dropped @layernorm, the header comment with the TOSA source); the three `flow.tensor.dynamic_constant` inputs (%cst_4 x, %cst_3 row count, %cst_2 epsilon) became the function arguments of the same names, and the check.expect_almost_eq against %cst_1 (and %cst_1 itself) was dropped: the function returns %result; sizes reduced (128x384 -> 3x4, so the tensor.cast target tensor<128x384xf32> -> tensor<3x4xf32>); added the gradir entry @vjp_layernorm_dynamic (autodiff.vjp wrt all three arguments) below the marker.
// gradir-corpus: entry=layernorm_dynamic wrt=0,1,2 reference=iree_layernorm_dynamic inputs=iree_layernorm_dynamic

func.func @layernorm_dynamic(%cst_4: tensor<?x?xf32>, %cst_3: tensor<?x1xf32>, %cst_2: tensor<?x1xf32>) -> tensor<3x4xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c_0_index = arith.constant 0 : index
  %c_1_index = arith.constant 1 : index
  %dim_0 = tensor.dim %cst_4, %c_0_index : tensor<?x?xf32>
  %dim_1 = tensor.dim %cst_4, %c_1_index : tensor<?x?xf32>
  %2 = tensor.empty(%dim_0) : tensor<?xf32>
  %3 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<?xf32>) -> tensor<?xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%cst_4 : tensor<?x?xf32>) outs(%3 : tensor<?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %15 = arith.addf %arg0, %arg1 : f32
    linalg.yield %15 : f32
  } -> tensor<?xf32>
  %5 = tensor.empty(%dim_0) : tensor<?x1xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cst_3 : tensor<?x1xf32>) outs(%5 : tensor<?x1xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %15 = arith.divf %cst, %arg0 : f32
    linalg.yield %15 : f32
  } -> tensor<?x1xf32>
  %7 = tensor.collapse_shape %6 [[0, 1]] : tensor<?x1xf32> into tensor<?xf32>
  %8 = tensor.empty(%dim_0, %dim_1) : tensor<?x?xf32>
  %9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cst_4, %4, %7 : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%8 : tensor<?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32):
    %15 = arith.mulf %arg1, %arg2 : f32
    %16 = arith.subf %arg0, %15 : f32
    linalg.yield %16 : f32
  } -> tensor<?x?xf32>
  %10 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<?xf32>) -> tensor<?xf32>
  %11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%9 : tensor<?x?xf32>) outs(%10 : tensor<?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %15 = arith.mulf %arg0, %arg0 : f32
    %16 = arith.addf %15, %arg1 : f32
    linalg.yield %16 : f32
  } -> tensor<?xf32>
  %13 = tensor.collapse_shape %cst_2 [[0, 1]] : tensor<?x1xf32> into tensor<?xf32>
  %14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%9, %11, %7, %13 : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%8 : tensor<?x?xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32):
    %15 = arith.mulf %arg1, %arg2 : f32
    %16 = arith.addf %15, %arg3 : f32
    %17 = math.rsqrt %16 : f32
    %18 = arith.mulf %arg0, %17 : f32
    linalg.yield %18 : f32
  } -> tensor<?x?xf32>
  %result = tensor.cast %14 : tensor<?x?xf32> to tensor<3x4xf32>
  return %result : tensor<3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_layernorm_dynamic(%x: tensor<?x?xf32>, %n: tensor<?x1xf32>, %e: tensor<?x1xf32>, %ct: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %r:4 = autodiff.vjp @layernorm_dynamic(%x, %n, %e, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x4xf32>, tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}
