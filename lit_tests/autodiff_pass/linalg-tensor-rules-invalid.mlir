// linalg named ops that reverse and forward mode cannot differentiate: one
// located line each.
// RUN: not autodiff-opt %s -p autodiff-reverse --split-input-file 2>&1 | filecheck %s
// RUN: not autodiff-opt %s -p autodiff-forward --split-input-file 2>&1 | filecheck %s

// A linalg.map whose body branches on a value that carries a derivative: the
// op is differentiated as its linalg.generic, whose rule refuses region ops in
// a body by name (the error names the op as written).
func.func @map_branch(%x: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: linalg-tensor-rules-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'linalg.map' (as a linalg.generic): its body's 'scf.if' has no derivative rule
  %r = linalg.map ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>)
    (%in: f32, %out: f32) {
      %zero = arith.constant 0.0 : f32
      %positive = arith.cmpf ogt, %in, %zero : f32
      %y = scf.if %positive -> (f32) {
        %s = arith.mulf %in, %in : f32
        scf.yield %s : f32
      } else {
        scf.yield %in : f32
      }
      linalg.yield %y : f32
    }
  return %r : tensor<4xf32>
}
func.func @vjp(%x: tensor<4xf32>, %init: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @map_branch(%x, %init, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
func.func @jvp(%x: tensor<4xf32>, %init: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.jvp @map_branch(%x, %init, %t) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
