// A linalg.generic loop marked "parallel" that an output's indexing map does not use:
// several of its iterations write each element of that output (an accumulation, or a
// last write), which MLIR 22's verifier accepts but leaves undefined, since parallel
// iterations run in any order. gradir refuses it where it is written: differentiated as
// marked (elementwise) its gradient was silently wrong, and the CPU backend crashed on it.
// A loop marked "reduction", or one every output's map uses, verifies.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: linalg-generic_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.generic' op loop 1 is "parallel" but the indexing map of output 0, affine_map<(d0, d1) -> (d0)>, does not use it: several of its iterations write each element of that output, which MLIR leaves undefined; mark the loop "reduction" if the body accumulates
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.mulf %acc, %x : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// -----

// The second output is written once per (i, j); the first, by every j.
func.func @f(%a: tensor<3x4xf64>, %x: tensor<3xf64>, %y: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<3x4xf64>) {
  // CHECK: error: 'linalg.generic' op loop 1 is "parallel" but the indexing map of output 0, affine_map<(d0, d1) -> (d0)>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<3x4xf64>) outs(%x, %y : tensor<3xf64>, tensor<3x4xf64>) {
  ^bb0(%v: f64, %o: f64, %p: f64):
    linalg.yield %v, %v : f64, f64
  } -> (tensor<3xf64>, tensor<3x4xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3x4xf64>
}

// -----

// A 0-d output of a parallel loop.
func.func @f(%a: tensor<4xf64>, %init: tensor<f64>) -> tensor<f64> {
  // CHECK: error: 'linalg.generic' op loop 0 is "parallel" but the indexing map of output 0, affine_map<(d0) -> ()>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["parallel"]} ins(%a : tensor<4xf64>) outs(%init : tensor<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.mulf %acc, %x : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}

// -----

// Marked "reduction", the same body verifies: it is the product along j.
// CHECK-NOT: error
func.func @f(%a: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.mulf %acc, %x : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}
