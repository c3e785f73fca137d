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

// -----

// A linalg.generic whose attribute dictionary is an alias (LAGrad's tests
// write `linalg.generic #trait`) and whose two results follow `->` in
// parentheses, as MLIR prints several results.
// CHECK-LABEL: func.func @generic_spellings
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK:         } -> (tensor<2xf32>, tensor<2xi64>)
#max_and_index = {
  indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
  iterator_types = ["parallel", "reduction"]
}
func.func @generic_spellings(%x: tensor<2x3xf32>, %m: tensor<2xf32>, %i: tensor<2xi64>) -> (tensor<2xf32>, tensor<2xi64>) {
  %r:2 = linalg.generic #max_and_index ins(%x : tensor<2x3xf32>) outs(%m, %i : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%a: f32, %b: f32, %c: i64):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %a, %b : f32
    %v = arith.select %gt, %a, %b : f32
    %j = arith.select %gt, %ki, %c : i64
    linalg.yield %v, %j : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi64>
}

// -----

// MLIR's sparse elements literal (LAGrad's hand tracking writes an identity so),
// read as the dense literal it stands for; one value for all indices is a splat.
// CHECK-LABEL: func.func @sparse_literals
// CHECK:         arith.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf64>
// CHECK:         arith.constant dense<{{\[}}[0, 5], [-2, 0]]> : tensor<2x2xi32>
// CHECK:         arith.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00]> : tensor<3xf32>
func.func @sparse_literals() -> (tensor<2x2xf64>, tensor<2x2xi32>, tensor<3xf32>) {
  %eye = arith.constant sparse<[[0, 0], [1, 1]], 1.0> : tensor<2x2xf64>
  %b = arith.constant sparse<[[0, 1], [1, 0]], [5, -2]> : tensor<2x2xi32>
  %c = arith.constant sparse<2, 2.500000e+00> : tensor<3xf32>
  return %eye, %b, %c : tensor<2x2xf64>, tensor<2x2xi32>, tensor<3xf32>
}

// -----

// memref.cast's custom form (xDSL 0.74 has only the generic one), and tensor.pad by
// amounts given as values into a static result (xDSL's verifier wanted dynamic sizes).
// CHECK-LABEL: func.func @cast_and_pad
// CHECK:         memref.cast %{{.*}} : memref<2xf64> to memref<?xf64>
// CHECK:         tensor.pad %{{.*}} low[%{{.*}}, 2] high[%{{.*}}, %{{.*}}]
// CHECK:         } : tensor<1x2xf32> to tensor<1x5xf32>
func.func @cast_and_pad(%x: tensor<1x2xf32>, %v: f32) -> (memref<?xf64>, tensor<1x5xf32>) {
  %u = memref.alloc() : memref<2xf64>
  %cast = memref.cast %u : memref<2xf64> to memref<?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tensor.pad %x low[%c0, 2] high[%c0, %c1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<1x2xf32> to tensor<1x5xf32>
  return %cast, %p : memref<?xf64>, tensor<1x5xf32>
}

// -----

// Comparisons of whole tensors give tensors of i1, and an elementwise select takes one
// (the condition's type comes first).
// CHECK-LABEL: func.func @select_per_element
// CHECK:         %[[C:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK:         %[[S:.*]] = arith.select %[[C]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK:         arith.select %{{.*}}, %[[S]], %{{.*}} : tensor<4xf32>
func.func @select_per_element(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %d: i1) -> (tensor<4xf32>, tensor<4xi1>) {
  %c = arith.cmpf ogt, %a, %b : tensor<4xf32>
  %k = arith.cmpi "slt", %i, %i : tensor<4xi32>
  %s = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  %t = arith.select %d, %s, %b : tensor<4xf32>
  return %t, %k : tensor<4xf32>, tensor<4xi1>
}

// -----

// Semi-affine maps: `*`, `floordiv`, `ceildiv` and `mod` by a symbol (MLIR's
// one-shot-bufferize integration test sizes a buffer by `(d1 - d0) ceildiv s0`).
// CHECK-LABEL: func.func @semi_affine
// CHECK:         affine.apply affine_map<(d0, d1)[s0] -> (((d1 + (d0 * -1)) ceildiv s0))> (%{{.*}}, %{{.*}})[%{{.*}}]
// CHECK:         affine.apply affine_map<(d0)[s0] -> ((d0 floordiv s0))> (%{{.*}})[%{{.*}}]
// CHECK:         affine.apply affine_map<(d0)[s0, s1] -> ((d0 mod (s1 + 1)))> (%{{.*}})[%{{.*}}, %{{.*}}]
// CHECK:         affine.apply affine_map<(d0)[s0] -> ((d0 * s0))> (%{{.*}})[%{{.*}}]
// CHECK:         affine.apply affine_map<(d0)[s0] -> ((d0 * s0))> (%{{.*}})[%{{.*}}]
#ceil = affine_map<(d0, d1)[s0] -> ((d1 - d0) ceildiv s0)>
func.func @semi_affine(%i: index, %j: index, %s: index, %t: index) -> (index, index, index, index, index) {
  %a = affine.apply #ceil(%i, %j)[%s]
  %b = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%i)[%s]
  %e = affine.apply affine_map<(d0)[s0, s1] -> (d0 mod (s1 + 1))>(%i)[%s, %t]
  %c = affine.apply affine_map<(d0)[s0] -> (d0 * s0)>(%i)[%s]
  %d = affine.apply affine_map<(d0)[s0] -> (s0 * d0)>(%i)[%s]
  return %a, %b, %e, %c, %d : index, index, index, index, index
}
