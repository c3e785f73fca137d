// Spellings MLIR accepts and prints that xDSL 0.74 alone rejects: a quoted
// comparison predicate, and one result type after `->` without parentheses
// (MLIR's function-result-type). They parse to the same ops as the canonical
// spelling, which is what is printed back.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @quoted_predicates
// CHECK:         arith.cmpf olt, %{{.*}}, %{{.*}} : f64
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : i32
func.func @quoted_predicates(%a: f64, %b: f64, %i: i32, %j: i32) -> (i1, i1) {
  %c = arith.cmpf "olt", %a, %b : f64
  %d = arith.cmpi "slt", %i, %j : i32
  return %c, %d : i1, i1
}

// -----

// CHECK-LABEL: func.func @bare_result_types
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) {
// CHECK:         scf.if %{{.*}} -> (tensor<4xf64>) {
func.func @bare_result_types(%a: f64, %c: i1, %t: tensor<4xf64>) -> (f64, tensor<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %a) -> f64 {
    %n = arith.addf %acc, %a : f64
    scf.yield %n : f64
  }
  %r = scf.if %c -> tensor<4xf64> {
    scf.yield %t : tensor<4xf64>
  } else {
    scf.yield %t : tensor<4xf64>
  }
  return %s, %r : f64, tensor<4xf64>
}
