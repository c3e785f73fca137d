// Source: plaidml/mlir-generator front-ends/torch-mlir/mlir/resnet18-linalg.mlir (commit 41d994a7539dfd9847fdac6b0b941d5e2a3d0371; torch-mlir's linalg-on-tensors output of torchvision's ResNet-18), https://github.com/plaidml/mlir-generator/blob/41d994a7539dfd9847fdac6b0b941d5e2a3d0371/front-ends/torch-mlir/mlir/resnet18-linalg.mlir
// What: ResNet-18 head: global average pooling as linalg.pooling_nchw_sum with a window tensor from tensor.empty, a divide generic capturing a constant, tensor.collapse_shape, then the classifier: bias broadcast and weight transpose generics and linalg.matmul.
// Adaptations: kept the ops %112 to %122 of @forward as a function of the last block's output %111 and returned %122; the elided constants used there (`opaque<"elided_large_const", "0xDEADBEEF">`) %cst (bias) and %cst_0 (weight) became function arguments of the same names, and the definitions of %cst_99 and %cst_101 were kept; sizes reduced (512 channels -> 4, 7x7 -> 3x3, 1000 classes -> 5), so %cst_101, the pooling window size 49.0, became 9.0; `linalg.init_tensor [...]` -> `tensor.empty()` (4 places); removed `module attributes {torch.debug_module_name = "ResNet"} {...}`; added the gradir entry @vjp_head (autodiff.vjp) below the marker.
// gradir-corpus: entry=forward_head wrt=0,1,2 reference=resnet_head inputs=signed

#map0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d1, d0)>
  func.func @forward_head(%111: tensor<1x4x3x3xf32>, %cst_0: tensor<5x4xf32>, %cst: tensor<5xf32>) -> tensor<1x5xf32> {
    %cst_99 = arith.constant 0.000000e+00 : f32
    %cst_101 = arith.constant 9.000000e+00 : f32
    %112 = tensor.empty() : tensor<1x4x1x1xf32>
    %113 = linalg.fill ins(%cst_99 : f32) outs(%112 : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    %114 = tensor.empty() : tensor<3x3xf32>
    %115 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%111, %114 : tensor<1x4x3x3xf32>, tensor<3x3xf32>) outs(%113 : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
    %116 = linalg.generic {indexing_maps = [#map0, #map0], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%115 : tensor<1x4x1x1xf32>) outs(%112 : tensor<1x4x1x1xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      %123 = arith.divf %arg1, %cst_101 : f32
      linalg.yield %123 : f32
    } -> tensor<1x4x1x1xf32>
    %117 = tensor.collapse_shape %116 [[0], [1, 2, 3]] : tensor<1x4x1x1xf32> into tensor<1x4xf32>
    %118 = tensor.empty() : tensor<1x5xf32>
    %119 = tensor.empty() : tensor<4x5xf32>
    %120 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst : tensor<5xf32>) outs(%118 : tensor<1x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      linalg.yield %arg1 : f32
    } -> tensor<1x5xf32>
    %121 = linalg.generic {indexing_maps = [#map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_0 : tensor<5x4xf32>) outs(%119 : tensor<4x5xf32>) {
    ^bb0(%arg1: f32, %arg2: f32):
      linalg.yield %arg1 : f32
    } -> tensor<4x5xf32>
    %122 = linalg.matmul ins(%117, %121 : tensor<1x4xf32>, tensor<4x5xf32>) outs(%120 : tensor<1x5xf32>) -> tensor<1x5xf32>
    return %122 : tensor<1x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_head(%x: tensor<1x4x3x3xf32>, %w: tensor<5x4xf32>, %b: tensor<5xf32>, %ct: tensor<1x5xf32>) -> (tensor<1x5xf32>, tensor<1x4x3x3xf32>, tensor<5x4xf32>, tensor<5xf32>) {
  %r:4 = autodiff.vjp @forward_head(%x, %w, %b, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x4x3x3xf32>, tensor<5x4xf32>, tensor<5xf32>, tensor<1x5xf32>) -> (tensor<1x5xf32>, tensor<1x4x3x3xf32>, tensor<5x4xf32>, tensor<5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x5xf32>, tensor<1x4x3x3xf32>, tensor<5x4xf32>, tensor<5xf32>
}
