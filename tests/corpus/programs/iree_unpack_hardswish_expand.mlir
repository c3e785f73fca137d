// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/dispatch_region_formation_preprocessing.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/dispatch_region_formation_preprocessing.mlir
// What: linalg.unpack (outer_dims_perm, 2-d tiles) of a packed tensor, a bias add and hard-swish (x * min(max(x + 3, 0), 6) / 6 with arith.minimumf/maximumf against constants) in one generic, then tensor.expand_shape of the rows.
// Adaptations: kept only @fix_issue_16835 of the file with its #map/#map1 aliases (dropped the RUN/CHECK lines, the comments and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (the packed input 49x6x16x16 -> 2x3x2x2 with inner_tiles [16, 16] -> [2, 2], the unpacked 784x96 -> 4x6, the bias 96 -> 6, the result 28x28x96 -> 2x2x6 with output_shape [28, 28, 96] -> [2, 2, 6]); added the gradir entry @vjp_fix_issue_16835 (autodiff.vjp wrt both) below the marker.
// gradir-corpus: entry=fix_issue_16835 wrt=0,1 reference=iree_unpack_hardswish_expand inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @fix_issue_16835(%arg0: tensor<2x3x2x2xf32>, %arg1: tensor<6xf32>) -> tensor<2x2x6xf32> {
  %cst = arith.constant 3.000000e+00 : f32
  %cst_0 = arith.constant 6.000000e+00 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %cst_2 = arith.constant 0.166666672 : f32
  %0 = tensor.empty() : tensor<4x6xf32>
  %1 = tensor.empty() : tensor<4x6xf32>
  %unpack = linalg.unpack %arg0 outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %0 : tensor<2x3x2x2xf32> -> tensor<4x6xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%unpack, %arg1 : tensor<4x6xf32>, tensor<6xf32>) outs(%1 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %3 = arith.addf %in, %in_3 : f32
    %4 = arith.addf %3, %cst : f32
    %5 = arith.minimumf %4, %cst_0 : f32
    %6 = arith.maximumf %5, %cst_1 : f32
    %7 = arith.mulf %3, %6 : f32
    %8 = arith.mulf %7, %cst_2 : f32
    linalg.yield %8 : f32
  } -> tensor<4x6xf32>
  %expanded = tensor.expand_shape %2 [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  return %expanded : tensor<2x2x6xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_fix_issue_16835(%a: tensor<2x3x2x2xf32>, %b: tensor<6xf32>, %ct: tensor<2x2x6xf32>) -> (tensor<2x2x6xf32>, tensor<2x3x2x2xf32>, tensor<6xf32>) {
  %r:3 = autodiff.vjp @fix_issue_16835(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<2x3x2x2xf32>, tensor<6xf32>, tensor<2x2x6xf32>) -> (tensor<2x2x6xf32>, tensor<2x3x2x2xf32>, tensor<6xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x2x6xf32>, tensor<2x3x2x2xf32>, tensor<6xf32>
}
