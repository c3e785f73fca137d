// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir
// What: the batch-norm training statistics update: a sum of squared deviations of a 5-d tensor reduced over its four leading dims through the permuted map (d1, d2, d3, d4, d0), scaled and shifted, math.sqrt, and a running-value update; three results, two of them intermediate values also consumed later (multi-use producers).
// Adaptations: kept only @batchnorm_training of the file (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (12 -> 2 in every dimension: tensor<12xf32> -> tensor<2xf32>, tensor<12x12x12x12x12xf32> -> tensor<2x2x2x2x2xf32>); added the gradir entry @vjp_batchnorm_training (autodiff.vjp wrt all three arguments) below the marker.
// gradir-corpus: entry=batchnorm_training wrt=0,1,2 reference=iree_batchnorm_training inputs=signed

func.func @batchnorm_training(%10 : tensor<2xf32>, %11 : tensor<2x2x2x2x2xf32>, %12 : tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %cst = arith.constant 1.42 : f32
  %cst_1 = arith.constant 1.45 : f32
  %cst_0 = arith.constant 1.3 : f32
  %cst_2 = arith.constant 0.0 : f32
  %13 = tensor.empty() : tensor<2xf32>
  %14 = linalg.fill ins(%cst_2 : f32) outs(%13 : tensor<2xf32>) -> tensor<2xf32>
  %15 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3, d4, d0)>,
                       affine_map<(d0, d1, d2, d3, d4) -> (d0)>,
                       affine_map<(d0, d1, d2, d3, d4) -> (d0)>],
      iterator_types = ["parallel", "reduction", "reduction", "reduction", "reduction"]}
      ins(%11, %12 : tensor<2x2x2x2x2xf32>, tensor<2xf32>) outs(%14 : tensor<2xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
      %19 = arith.subf %arg1, %arg2 : f32
      %20 = arith.mulf %19, %19 : f32
      %21 = arith.addf %arg3, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<2xf32>
  %16 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%15: tensor<2xf32>) outs(%13 : tensor<2xf32>) {
    ^bb0(%arg1: f32, %arg2 : f32):
      %19 = arith.divf %arg1, %cst_1 : f32
      %20 = arith.addf %19, %cst_0 : f32
      linalg.yield %20 : f32
    } -> tensor<2xf32>
  %17 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%16 : tensor<2xf32>) outs(%13 : tensor<2xf32>) {
    ^bb0(%arg1: f32, %arg2 : f32):
      %19 = math.sqrt %arg1 : f32
      linalg.yield %19 : f32
    } -> tensor<2xf32>
  %18 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      {__internal_linalg_transform__ = "tensor_fuse_err"}
      ins(%10, %17 : tensor<2xf32>, tensor<2xf32>) outs(%13 : tensor<2xf32>)  {
    ^bb0(%arg1: f32, %arg2: f32, %arg3 : f32):
      %19 = arith.subf %arg1, %arg2 : f32
      %20 = arith.mulf %19, %cst : f32
      %21 = arith.subf %arg1, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<2xf32>
  return %16, %17, %18 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_batchnorm_training(%a: tensor<2xf32>, %x: tensor<2x2x2x2x2xf32>, %m: tensor<2xf32>, %c0: tensor<2xf32>, %c1: tensor<2xf32>, %c2: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2x2x2xf32>, tensor<2xf32>) {
  %r:6 = autodiff.vjp @batchnorm_training(%a, %x, %m, %c0, %c1, %c2) {wrt = array<i64: 0, 1, 2>} : (tensor<2xf32>, tensor<2x2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2x2x2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2x2x2xf32>, tensor<2xf32>
}
