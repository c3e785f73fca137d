// A quoted predicate must still name a predicate.
// RUN: not autodiff-opt %s 2>&1 | filecheck %s

// CHECK: mlir_spelling_invalid.mlir:6:{{[0-9]+}}: error: {{.*}}
func.func @bad(%a: f64, %b: f64) -> i1 {
  %c = arith.cmpf "not a predicate", %a, %b : f64
  return %c : i1
}
