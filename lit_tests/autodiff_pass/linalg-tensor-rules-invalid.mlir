// linalg named ops that reverse and forward mode cannot differentiate: one
// located line each.
// RUN: not autodiff-opt %s -p autodiff-reverse --split-input-file 2>&1 | filecheck %s
// RUN: not autodiff-opt %s -p autodiff-forward --split-input-file 2>&1 | filecheck %s

// A matmul whose indexing maps write C transposed: the rule knows the default
// maps and transposed A or B only. (xDSL parses `indexing_maps` in generic
// form only.)
func.func @transposed_c(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>, %c: tensor<3x3xf32>) -> tensor<3x3xf32> {
  // CHECK: linalg-tensor-rules-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'linalg.matmul' with indexing_maps other than transposed A or B is not supported
  %m = "linalg.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 2, 1>, indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>]}> ({
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }) : (tensor<3x5xf32>, tensor<5x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %m : tensor<3x3xf32>
}
func.func @vjp(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>, %c: tensor<3x3xf32>, %ct: tensor<3x3xf32>) -> tensor<3x5xf32> {
  %r, %d = autodiff.vjp @transposed_c(%a, %b, %c, %ct) {wrt = array<i64: 0>} : (tensor<3x5xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x5xf32>)
  return %d : tensor<3x5xf32>
}
func.func @jvp(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>, %c: tensor<3x3xf32>, %ta: tensor<3x5xf32>) -> tensor<3x3xf32> {
  %r, %t = autodiff.jvp @transposed_c(%a, %b, %c, %ta) {wrt = array<i64: 0>} : (tensor<3x5xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %t : tensor<3x3xf32>
}
