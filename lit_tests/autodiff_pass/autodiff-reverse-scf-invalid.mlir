// What reverse mode cannot do with loops is a one-line error at the loop.
// RUN: autodiff-opt %s -p autodiff-reverse,autodiff-forward --split-input-file --verify-diagnostics | filecheck %s
// RUN: not autodiff-opt %S/../../examples/standard/rnn.mlir -p 'autodiff-reverse{checkpoint-every=-1}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: error: autodiff-reverse: checkpoint-every must be >= 0, got -1

// An op without a rule inside a loop body is located at that op.
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    // CHECK: autodiff-reverse-scf-invalid.mlir:[[# @LINE + 1]]:5: error: differentiation of 'test.op' is not supported
    %a = "test.op"(%acc) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = autodiff.grad @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Found by the mutation fuzzer: a branch that yields nothing (xDSL 0.74 does not
// verify scf.if's yields).
func.func @branch(%x: tensor<3xf32>, %c: i1) -> tensor<f32> {
  // CHECK: autodiff-reverse-scf-invalid.mlir:[[# @LINE + 1]]:3: error: 'scf.if' must end each region with scf.yield of its 1 result(s)
  %y = scf.if %c -> (tensor<3xf32>) {
    %e = autodiff.exp %x : tensor<3xf32>
    scf.yield %e : tensor<3xf32>
  } else {
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @dbranch(%x: tensor<3xf32>, %c: i1) -> tensor<3xf32> {
  %g = autodiff.grad @branch(%x, %c) {wrt = array<i64: 0>} : (tensor<3xf32>, i1) -> tensor<3xf32>
  return %g : tensor<3xf32>
}

// -----

// Found by the mutation fuzzer: a callee whose body has no terminator.
// CHECK: autodiff-reverse-scf-invalid.mlir:[[# @LINE + 1]]:1: error: cannot differentiate @empty: its body does not end with func.return
func.func @empty(%x: tensor<4xf32>) -> tensor<f32> {
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @empty(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Memrefs are not differentiable values: a value that depends on x stored into
// one would lose its derivative (affine.load of a memref is only a constant).
func.func @through_memory(%x: f64, %buffer: memref<4xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %y = affine.for %i = 0 to 4 iter_args(%acc = %zero) -> (f64) {
    %b = affine.load %buffer[%i] : memref<4xf64>
    %m = arith.mulf %b, %x : f64
    // CHECK: autodiff-reverse-scf-invalid.mlir:[[# @LINE + 1]]:5: error: 'affine.store' writes %m, which carries a derivative, to memory: gradir differentiates values (tensors and scalars), not memory
    affine.store %m, %buffer[%i] : memref<4xf64>
    %s = arith.addf %acc, %m : f64
    affine.yield %s : f64
  }
  return %y : f64
}
func.func @dthrough_memory(%x: f64, %buffer: memref<4xf64>) -> f64 {
  %g = autodiff.grad @through_memory(%x, %buffer) {wrt = array<i64: 0>} : (f64, memref<4xf64>) -> f64
  return %g : f64
}

