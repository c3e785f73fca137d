// Source: plaidml/mlir-generator front-ends/torch-mlir/mlir/resnet18-linalg.mlir (commit 41d994a7539dfd9847fdac6b0b941d5e2a3d0371; torch-mlir's linalg-on-tensors output of torchvision's ResNet-18), https://github.com/plaidml/mlir-generator/blob/41d994a7539dfd9847fdac6b0b941d5e2a3d0371/front-ends/torch-mlir/mlir/resnet18-linalg.mlir
// What: the first ResNet-18 basic block: two (zero tensor.pad, 3x3 linalg.conv_2d_nchw_fchw, cf.assert, batch-norm generic) stages with a ReLU between, the residual add as a generic with two constant-index maps `(0, d1, d2, d3)`, and a final ReLU.
// Adaptations: kept the ops %12 to %22 of @forward as a function of the block input %11 and returned %22; the elided weight constants used there (`opaque<"elided_large_const", "0xDEADBEEF">`) %cst_92, %cst_88 .. %cst_91, %cst_87, %cst_83 .. %cst_86 became function arguments of the same names, and the defining ops of %false, %4 (its `arith.cmpi`), %cst_98, %cst_99 and %8 were kept; sizes reduced (56x56 -> 5x5, 64 channels -> 4); `linalg.init_tensor [...]` -> `tensor.empty()`; removed `module attributes {torch.debug_module_name = "ResNet"} {...}`; added the gradir entry @vjp_block (autodiff.vjp) below the marker.
// gradir-corpus: entry=forward_block wrt=0,1,2,3,6,7,8 reference=resnet_block inputs=resnet_block

#map0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
  func.func @forward_block(%11: tensor<1x4x5x5xf32>, %cst_92: tensor<4x4x3x3xf32>, %cst_89: tensor<4xf32>, %cst_88: tensor<4xf32>, %cst_91: tensor<4xf32>, %cst_90: tensor<4xf32>, %cst_87: tensor<4x4x3x3xf32>, %cst_84: tensor<4xf32>, %cst_83: tensor<4xf32>, %cst_86: tensor<4xf32>, %cst_85: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
    %false = arith.constant false
    %cst_98 = arith.constant 1.000000e-05 : f64
    %cst_99 = arith.constant 0.000000e+00 : f32
    %4 = arith.cmpi eq, %false, %false : i1
    %8 = tensor.empty() : tensor<1x4x5x5xf32>
    %12 = linalg.fill ins(%cst_99 : f32) outs(%8 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
    %13 = tensor.pad %11 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_99 : f32
    } : tensor<1x4x5x5xf32> to tensor<1x4x7x7xf32>
    %14 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%13, %cst_92 : tensor<1x4x7x7xf32>, tensor<4x4x3x3xf32>) outs(%12 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
    cf.assert %4, "training is not supported for now"
    %15 = linalg.generic {indexing_maps = [#map0, #map1, #map1, #map1, #map1, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14, %cst_89, %cst_88, %cst_91, %cst_90 : tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%14 : tensor<1x4x5x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32, %arg5: f32, %arg6: f32):
      %123 = arith.truncf %cst_98 : f64 to f32
      %124 = arith.addf %arg5, %123 : f32
      %125 = math.rsqrt %124 : f32
      %126 = arith.subf %arg1, %arg4 : f32
      %127 = arith.mulf %126, %125 : f32
      %128 = arith.mulf %127, %arg2 : f32
      %129 = arith.addf %128, %arg3 : f32
      linalg.yield %129 : f32
    } -> tensor<1x4x5x5xf32>
    %16 = linalg.generic {indexing_maps = [#map2, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x4x5x5xf32>) outs(%8 : tensor<1x4x5x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %123 = arith.cmpf ugt, %arg1, %cst_99 : f32
      %124 = arith.select %123, %arg1, %cst_99 : f32
      linalg.yield %124 : f32
    } -> tensor<1x4x5x5xf32>
    %17 = linalg.fill ins(%cst_99 : f32) outs(%8 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
    %18 = tensor.pad %16 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_99 : f32
    } : tensor<1x4x5x5xf32> to tensor<1x4x7x7xf32>
    %19 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%18, %cst_87 : tensor<1x4x7x7xf32>, tensor<4x4x3x3xf32>) outs(%17 : tensor<1x4x5x5xf32>) -> tensor<1x4x5x5xf32>
    cf.assert %4, "training is not supported for now"
    %20 = linalg.generic {indexing_maps = [#map0, #map1, #map1, #map1, #map1, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %cst_84, %cst_83, %cst_86, %cst_85 : tensor<1x4x5x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%19 : tensor<1x4x5x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32, %arg5: f32, %arg6: f32):
      %123 = arith.truncf %cst_98 : f64 to f32
      %124 = arith.addf %arg5, %123 : f32
      %125 = math.rsqrt %124 : f32
      %126 = arith.subf %arg1, %arg4 : f32
      %127 = arith.mulf %126, %125 : f32
      %128 = arith.mulf %127, %arg2 : f32
      %129 = arith.addf %128, %arg3 : f32
      linalg.yield %129 : f32
    } -> tensor<1x4x5x5xf32>
    %21 = linalg.generic {indexing_maps = [#map2, #map2, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %11 : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>) outs(%8 : tensor<1x4x5x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
      %123 = arith.addf %arg1, %arg2 : f32
      linalg.yield %123 : f32
    } -> tensor<1x4x5x5xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<1x4x5x5xf32>) outs(%8 : tensor<1x4x5x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %123 = arith.cmpf ugt, %arg1, %cst_99 : f32
      %124 = arith.select %123, %arg1, %cst_99 : f32
      linalg.yield %124 : f32
    } -> tensor<1x4x5x5xf32>
    return %22 : tensor<1x4x5x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_block(%x: tensor<1x4x5x5xf32>, %w1: tensor<4x4x3x3xf32>, %g1: tensor<4xf32>, %b1: tensor<4xf32>, %m1: tensor<4xf32>, %v1: tensor<4xf32>, %w2: tensor<4x4x3x3xf32>, %g2: tensor<4xf32>, %b2: tensor<4xf32>, %m2: tensor<4xf32>, %v2: tensor<4xf32>, %ct: tensor<1x4x5x5xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:8 = autodiff.vjp @forward_block(%x, %w1, %g1, %b1, %m1, %v1, %w2, %g2, %b2, %m2, %v2, %ct) {wrt = array<i64: 0, 1, 2, 3, 6, 7, 8>} : (tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4x5x5xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}
