// linalg named ops that reverse and forward mode cannot differentiate: one
// located line each.
// RUN: autodiff-opt %s -p autodiff-reverse --split-input-file --verify-diagnostics | filecheck %s --check-prefixes=CHECK,REVERSE
// RUN: autodiff-opt %s -p autodiff-forward --split-input-file --verify-diagnostics | filecheck %s --check-prefixes=CHECK,FORWARD

// A linalg.map whose body reinterprets the bits of a value that carries a
// derivative: the op is differentiated as its linalg.generic, whose rule
// refuses the bitcast (the error names the op as written).
func.func @map_bitcast(%x: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg-tensor-rules-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'linalg.map' (as a linalg.generic): its body bitcasts a value that carries a derivative
  %r = linalg.map ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>)
    (%in: f32, %out: f32) {
      %bits = arith.bitcast %in : f32 to i32
      %y = arith.bitcast %bits : i32 to f32
      linalg.yield %y : f32
    }
  return %r : tensor<4xf32>
}
func.func @vjp(%x: tensor<4xf32>, %init: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @map_bitcast(%x, %init, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
func.func @jvp(%x: tensor<4xf32>, %init: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.jvp @map_bitcast(%x, %init, %t) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
