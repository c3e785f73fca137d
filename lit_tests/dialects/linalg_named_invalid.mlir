// Verifier messages of the named linalg ops of MLIR 22 (MLIR's own words), one located
// line each; MLIR 22's parser aborts on the last one (a reduce with more inputs than inits).
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.elementwise' op kind 'add' takes 2 inputs, got 1
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%a : tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.elementwise' op kind 'div_unsigned' does not apply to f32
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<div_unsigned> ins(%a, %b : tensor<3xf32>, tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.softmax' op incorrect dimension specified
  %0 = linalg.softmax dimension(5) ins(%a : tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.map' op expects number of operands to match the arity of mapper, but got: 2 and 1
  %0 = linalg.map ins(%a : tensor<3xf32>) outs(%c : tensor<3xf32>)
    (%in: f32) {
      linalg.yield %in : f32
    }
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.matmul' op Unexpected dim expression in map result.
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<3xf32>, %b: tensor<4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.contract' op 'indexing_maps' do not specify a contracting dimension
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<3xf32>, tensor<4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.batch_matmul' op Invalid output map result dimension.
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>] ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

func.func @f(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.div' op takes 2 inputs, got 1
  %0 = linalg.div ins(%a : tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.div_unsigned' op takes integers, got f32
  %0 = linalg.div_unsigned ins(%a, %a : tensor<3xf32>, tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<3xi32>, %c: tensor<3xi32>) -> tensor<3xi32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.tanh' op takes floats, got i32
  %0 = linalg.tanh ins(%a : tensor<3xi32>) outs(%c : tensor<3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @f(%a: tensor<3xf16>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.abs' op input #0 has element type f16, expected the init's f32
  %0 = linalg.abs ins(%a : tensor<3xf16>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A generic form whose body is not the op's: the rules read the name, not the body.
func.func @f(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.tanh' op its body must compute what 'linalg.tanh' denotes (math.tanh, linalg.yield), got math.sin, linalg.yield
  %0 = "linalg.tanh"(%a, %c) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32, %y: f32):
    %s = "math.sin"(%x) : (f32) -> f32
    "linalg.yield"(%s) : (f32) -> ()
  }) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.batch_reduce_matmul' op Invalid output map result dimension.
  %0 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>] ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%a: tensor<3x2x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.batch_reduce_matmul' op Invalid batch dimension expression.
  %0 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%a, %b : tensor<3x2x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.batch_reduce_matmul' op expects 2 dims, but got (3).
  %0 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @f(%a: tensor<5x4xf32>, %d: tensor<3x4x2xf32>) -> tensor<3x4x2xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op invalid tile factor or output size provided. Only full tiles are supported when padding_value is not set
  %0 = linalg.pack %a inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<5x4xf32> -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

func.func @f(%a: tensor<5x4xf32>, %p: f32, %d: tensor<4x4x2xf32>) -> tensor<4x4x2xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op expected 'tensor<3x4x2xf32>' for the packed domain value, got 'tensor<4x4x2xf32>'
  %0 = linalg.pack %a padding_value(%p : f32) inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<5x4xf32> -> tensor<4x4x2xf32>
  return %0 : tensor<4x4x2xf32>
}

// -----

func.func @f(%s: tensor<3x4x2xf32>, %d: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.unpack' op expected 'tensor<2x4x2xf32>' for the packed domain value, got 'tensor<3x4x2xf32>'
  %0 = linalg.unpack %s inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<3x4x2xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<4x4xf32>, %d: tensor<2x4x2xf32>) -> tensor<2x4x2xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op invalid outer_dims_perm vector
  %0 = linalg.pack %a outer_dims_perm = [0, 0] inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<4x4xf32> -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}

// -----

// A tile size given as a value makes the packed shape dynamic (MLIR: `tensor<2x4x?xf32>`).
func.func @f(%a: tensor<4x4xf32>, %d: tensor<2x4x2xf32>, %t: index) -> tensor<2x4x2xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:61: error: 'linalg.pack' with a tile size given as a value is not supported: it makes the packed shape dynamic, and gradir's tensors are statically shaped
  %0 = linalg.pack %a inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<4x4xf32> -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}

// -----

func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.quantized_matmul' op expects 4 inputs (A, B and their zero points) and 1 output, got 2 and 1
  %0 = linalg.quantized_matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %z: tensor<3xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.quantized_matmul' op input #2 (a zero point) must be a scalar, got tensor<3xf32>
  %0 = linalg.quantized_matmul ins(%a, %b, %z, %z : tensor<3x5xf32>, tensor<5x4xf32>, tensor<3xf32>, tensor<3xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<2x2xf32>, %o: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pooling_nhwc_max_unsigned' op takes integers (unsigned max/min), got f32, f32, f32
  %0 = linalg.pooling_nhwc_max_unsigned ins(%x, %w : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// -----

func.func @f(%x: tensor<1x4x4x2xi8>, %w: tensor<3x3x2x4xi8>, %o: tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.conv_2d_nhwc_hwcf_q' op expects 4 inputs (the input, the filter and their zero points) and 1 output, got 2 and 1
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%x, %w : tensor<1x4x4x2xi8>, tensor<3x3x2x4xi8>) outs(%o : tensor<1x2x2x4xi32>) -> tensor<1x2x2x4xi32>
  return %0 : tensor<1x2x2x4xi32>
}

// -----

func.func @f(%lo: f32, %seed: i32, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.fill_rng_2d' op expects min, max and seed of types f64, f64, i32, got f32, f32, i32
  %0 = linalg.fill_rng_2d ins(%lo, %lo, %seed : f32, f32, i32) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg_named_invalid.mlir:[[# @LINE + 1]]:3: error: Variadic operands have different sizes: [2, 1]
  %0 = linalg.reduce ins(%a, %b : tensor<3x4xf32>, tensor<3x4xf32>) outs(%c : tensor<4xf32>) dimensions = [0]
    (%in: f32, %in_0: f32, %init: f32) {
      %p = arith.mulf %in, %in_0 : f32
      %s = arith.addf %p, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}
