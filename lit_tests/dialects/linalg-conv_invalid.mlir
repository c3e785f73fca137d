// Verifier messages of the convolution and pooling ops.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @too_few_strides(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error@+1 {{strides must hold 2 i64 values, got dense<1> : tensor<1xi64>}}
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<1xi64>} ins(%x, %w : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// -----

func.func @zero_dilation(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error@+1 {{dilations must be positive, got [1, 0]}}
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 0]> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// -----

func.func @input_too_small(%x: tensor<1x4x5x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error@+1 {{inferred input/output operand #0 has shape's dimension #1 to be greater than or equal to 5, but found 4}}
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x4x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// -----

func.func @channels_differ(%x: tensor<1x5x5x3xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error@+1 {{inferred input/output operand #1 has shape's dimension #2 to be 3, but found 2}}
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x5x3xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// -----

func.func @wrong_rank(%x: tensor<5x5x2xf32>, %w: tensor<3x3x2x4xf32>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  // expected-error@+1 {{the input must be a rank-4 tensor or memref, got tensor<5x5x2xf32>}}
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<5x5x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}

// -----

func.func @batchless_has_no_strides(%a: tensor<5x6xf32>, %k: tensor<2x3xf32>, %p: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'linalg.conv_2d' has no strides}}
  %r = linalg.conv_2d {strides = dense<1> : tensor<2xi64>} ins(%a, %k : tensor<5x6xf32>, tensor<2x3xf32>) outs(%p : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

func.func @mixed_kinds(%x: tensor<1x5x2xi8>, %w: tensor<3x2x4xf32>, %o: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {
  // expected-error@+1 {{element types must be all floats or all integers, got i8, f32, f32}}
  %r = linalg.conv_1d_nwc_wcf ins(%x, %w : tensor<1x5x2xi8>, tensor<3x2x4xf32>) outs(%o : tensor<1x3x4xf32>) -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}

// -----

func.func @wrong_body(%x: tensor<1x5x2xf32>, %w: tensor<3xf32>, %o: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  // expected-error@+1 {{its body must compute what 'linalg.pooling_nwc_max' denotes (arith.maximumf, linalg.yield), got arith.addf, linalg.yield}}
  %r = "linalg.pooling_nwc_max"(%x, %w, %o) <{operandSegmentSizes = array<i32: 2, 1>}> ({
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %c, %a : f32
    linalg.yield %s : f32
  }) : (tensor<1x5x2xf32>, tensor<3xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %r : tensor<1x3x2xf32>
}

// -----

func.func @two_outputs(%x: tensor<1x5x2xf32>, %w: tensor<3xf32>, %o: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  // expected-error@+1 {{expects 2 inputs (the input and the window) and 1 output, got 1 and 2}}
  %r:2 = linalg.pooling_nwc_sum ins(%x : tensor<1x5x2xf32>) outs(%o, %o : tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<1x3x2xf32>)
  return %r#0 : tensor<1x3x2xf32>
}
