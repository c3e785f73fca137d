// Source: plaidml/mlir-generator front-ends/torch-mlir/mlir/resnet18-linalg.mlir (commit 41d994a7539dfd9847fdac6b0b941d5e2a3d0371; torch-mlir's linalg-on-tensors output of torchvision's ResNet-18), https://github.com/plaidml/mlir-generator/blob/41d994a7539dfd9847fdac6b0b941d5e2a3d0371/front-ends/torch-mlir/mlir/resnet18-linalg.mlir
// What: ResNet-18 stem: tensor.pad, strided linalg.conv_2d_nchw_fchw, cf.assert, inference batch-norm generic (captured f64 epsilon through arith.truncf, math.rsqrt), ReLU generic whose input map has a constant `(0, d1, d2, d3)` result, -FLT_MAX tensor.pad and strided linalg.pooling_nchw_max.
// Adaptations: kept the first ops of @forward up to the max pooling (%0 to %11) and returned %11; the elided weight constants used there (`opaque<"elided_large_const", "0xDEADBEEF">`) %cst_97, %cst_93, %cst_94, %cst_95, %cst_96 became function arguments of the same names; sizes reduced (image 224x224 -> 12x12, 64 channels -> 4, so the padded/conv/pool shapes follow: 18x18, 6x6, 8x8, 3x3); `linalg.init_tensor [...]` -> `tensor.empty()` (3 places); removed `module attributes {torch.debug_module_name = "ResNet"} {...}`; added the gradir entry @vjp_stem (autodiff.vjp) below the marker.
// gradir-corpus: entry=forward_stem wrt=0,1,2,3 reference=resnet_stem inputs=resnet_stem

#map0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
  func.func @forward_stem(%arg0: tensor<1x3x12x12xf32>, %cst_97: tensor<4x3x7x7xf32>, %cst_94: tensor<4xf32>, %cst_93: tensor<4xf32>, %cst_96: tensor<4xf32>, %cst_95: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
    %false = arith.constant false
    %cst_98 = arith.constant 1.000000e-05 : f64
    %cst_99 = arith.constant 0.000000e+00 : f32
    %cst_100 = arith.constant -3.40282347E+38 : f32
    %0 = tensor.empty() : tensor<1x4x6x6xf32>
    %1 = linalg.fill ins(%cst_99 : f32) outs(%0 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %2 = tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 3, 3] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_99 : f32
    } : tensor<1x3x12x12xf32> to tensor<1x3x18x18xf32>
    %3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%2, %cst_97 : tensor<1x3x18x18xf32>, tensor<4x3x7x7xf32>) outs(%1 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
    %4 = arith.cmpi eq, %false, %false : i1
    cf.assert %4, "training is not supported for now"
    %5 = linalg.generic {indexing_maps = [#map0, #map1, #map1, #map1, #map1, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %cst_94, %cst_93, %cst_96, %cst_95 : tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%3 : tensor<1x4x6x6xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32, %arg4: f32, %arg5: f32, %arg6: f32):
      %123 = arith.truncf %cst_98 : f64 to f32
      %124 = arith.addf %arg5, %123 : f32
      %125 = math.rsqrt %124 : f32
      %126 = arith.subf %arg1, %arg4 : f32
      %127 = arith.mulf %126, %125 : f32
      %128 = arith.mulf %127, %arg2 : f32
      %129 = arith.addf %128, %arg3 : f32
      linalg.yield %129 : f32
    } -> tensor<1x4x6x6xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<1x4x6x6xf32>) outs(%0 : tensor<1x4x6x6xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %123 = arith.cmpf ugt, %arg1, %cst_99 : f32
      %124 = arith.select %123, %arg1, %cst_99 : f32
      linalg.yield %124 : f32
    } -> tensor<1x4x6x6xf32>
    %7 = tensor.pad %6 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_100 : f32
    } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
    %8 = tensor.empty() : tensor<1x4x3x3xf32>
    %9 = linalg.fill ins(%cst_100 : f32) outs(%8 : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    %10 = tensor.empty() : tensor<3x3xf32>
    %11 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%7, %10 : tensor<1x4x8x8xf32>, tensor<3x3xf32>) outs(%9 : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
    return %11 : tensor<1x4x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_stem(%x: tensor<1x3x12x12xf32>, %w: tensor<4x3x7x7xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %ct: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x3x12x12xf32>, tensor<4x3x7x7xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:5 = autodiff.vjp @forward_stem(%x, %w, %g, %b, %m, %v, %ct) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<1x3x12x12xf32>, tensor<4x3x7x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x3x12x12xf32>, tensor<4x3x7x7xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<1x4x3x3xf32>, tensor<1x3x12x12xf32>, tensor<4x3x7x7xf32>, tensor<4xf32>, tensor<4xf32>
}
