// MLIR 22's convolution and pooling ops in MLIR's custom form (attributes in
// front, strides/dilations optional, as tensor or vector attributes) print
// back the same, and their generic form (with the body) reads back to it.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @conv_nhwc
// CHECK:         linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%{{.*}} : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
// GENERIC-LABEL: sym_name = "conv_nhwc"
// GENERIC:         "linalg.conv_2d_nhwc_hwcf"(%{{.*}}, %{{.*}}, %{{.*}}) <{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// GENERIC-NEXT:      %[[M:.*]] = "arith.mulf"
// GENERIC-NEXT:      "arith.addf"(%{{.*}}, %[[M]])
func.func @conv_nhwc(%x: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

// No strides or dilations (1 each); batchless conv_2d has none at all.
// CHECK-LABEL: func.func @defaults
// CHECK:         linalg.conv_2d_nchw_fchw ins(%{{.*}}, %{{.*}} : tensor<2x3x6x6xf64>, tensor<4x3x3x3xf64>) outs(%{{.*}} : tensor<2x4x4x4xf64>) -> tensor<2x4x4x4xf64>
// CHECK:         linalg.conv_2d ins(%{{.*}}, %{{.*}} : tensor<5x6xf64>, tensor<2x3xf64>) outs(%{{.*}} : tensor<4x4xf64>) -> tensor<4x4xf64>
func.func @defaults(%x: tensor<2x3x6x6xf64>, %w: tensor<4x3x3x3xf64>, %o: tensor<2x4x4x4xf64>, %a: tensor<5x6xf64>, %k: tensor<2x3xf64>, %p: tensor<4x4xf64>) -> (tensor<2x4x4x4xf64>, tensor<4x4xf64>) {
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x3x6x6xf64>, tensor<4x3x3x3xf64>) outs(%o : tensor<2x4x4x4xf64>) -> tensor<2x4x4x4xf64>
  %s = linalg.conv_2d ins(%a, %k : tensor<5x6xf64>, tensor<2x3xf64>) outs(%p : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %r, %s : tensor<2x4x4x4xf64>, tensor<4x4xf64>
}

// -----

// Depthwise and pooling ops; vector-typed strides as torch-mlir writes them.
// CHECK-LABEL: func.func @depthwise_and_pooling
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(
// CHECK:         linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x2x8x8xf32>, tensor<2x2xf32>)
// CHECK:         linalg.pooling_nhwc_sum ins(
// CHECK:         linalg.pooling_ndhwc_min {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>} ins(
// GENERIC-LABEL: sym_name = "depthwise_and_pooling"
// GENERIC:         "linalg.pooling_nchw_max"
// GENERIC-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// GENERIC-NEXT:      "arith.maximumf"(%[[OUT]], %[[IN]])
func.func @depthwise_and_pooling(%x: tensor<1x9x9x2xf32>, %w: tensor<3x3x2xf32>, %o: tensor<1x4x5x2xf32>,
                                 %y: tensor<1x2x8x8xf32>, %win: tensor<2x2xf32>, %p: tensor<1x2x4x4xf32>,
                                 %q: tensor<1x8x7x2xf32>, %s: tensor<1x2x2x3x3xf32>, %win3: tensor<1x2x2xf32>, %m: tensor<1x2x1x2x3xf32>)
    -> (tensor<1x4x5x2xf32>, tensor<1x2x4x4xf32>, tensor<1x7x6x2xf32>, tensor<1x2x1x2x3xf32>) {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
         ins(%x, %w : tensor<1x9x9x2xf32>, tensor<3x3x2xf32>) outs(%o : tensor<1x4x5x2xf32>) -> tensor<1x4x5x2xf32>
  %1 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
         ins(%y, %win : tensor<1x2x8x8xf32>, tensor<2x2xf32>) outs(%p : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e = tensor.empty() : tensor<1x7x6x2xf32>
  %2 = linalg.pooling_nhwc_sum ins(%q, %win : tensor<1x8x7x2xf32>, tensor<2x2xf32>) outs(%e : tensor<1x7x6x2xf32>) -> tensor<1x7x6x2xf32>
  %3 = linalg.pooling_ndhwc_min {dilations = dense<1> : tensor<3xi64>, strides = dense<1> : tensor<3xi64>}
         ins(%s, %win3 : tensor<1x2x2x3x3xf32>, tensor<1x2x2xf32>) outs(%m : tensor<1x2x1x2x3xf32>) -> tensor<1x2x1x2x3xf32>
  return %0, %1, %2, %3 : tensor<1x4x5x2xf32>, tensor<1x2x4x4xf32>, tensor<1x7x6x2xf32>, tensor<1x2x1x2x3xf32>
}

// -----

// MLIR's generic form of a named op (as `mlir-opt --mlir-print-op-generic`
// writes it, memoized maps included) reads back to the custom form.
// CHECK-LABEL: func.func @from_mlir_generic
// CHECK:         linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} ins(
func.func @from_mlir_generic(%x: tensor<1x5x2xf32>, %w: tensor<3x2x4xf32>, %o: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  %r = "linalg.conv_1d_nwc_wcf"(%x, %w, %o) <{dilations = dense<1> : tensor<1xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<1xi64>}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  }) {linalg.memoized_indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]} : (tensor<1x5x2xf32>, tensor<3x2x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}
