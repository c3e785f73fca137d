// autodiff-check-numerics: after each op that computes floats, a check of its result
// (a sum of x - x, NaN exactly when an element is NaN or Inf; only then a reduction that
// tells which), asserted at the op's location; a public function's float arguments first.
// An op of a backward is named by its grad_of's forward op, located there.
// RUN: autodiff-opt %s -p autodiff-reverse,autodiff-specialize-zero,autodiff-check-numerics --print-debuginfo | filecheck %s
// RUN: autodiff-opt %s --pipeline grad | filecheck %s --check-prefix=OFF

func.func @f(%x: tensor<3xf64>, %n: tensor<3xi32>) -> tensor<f64> {
  %r = autodiff.sqrt %x : tensor<3xf64>
  %s = autodiff.sum %r : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @df(%x: tensor<3xf64>, %n: tensor<3xi32>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x, %n) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xi32>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
// CHECK-LABEL: func.func @f(
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%x : tensor<3xf64>) outs(%{{.*}} : tensor<f64>)
// CHECK:           arith.subf
// CHECK:           arith.addf
// CHECK:         arith.cmpf ord
// CHECK:         scf.if
// CHECK:         cf.assert %{{.*}}, "a NaN in argument 0 of @f" loc("{{.*}}autodiff-check-numerics.mlir":8:1)
// CHECK:         cf.assert %{{.*}}, "an Inf in argument 0 of @f" loc("{{.*}}autodiff-check-numerics.mlir":8:1)
// CHECK-NOT:     argument 1 of @f
// CHECK:         %r = autodiff.sqrt
// CHECK:         cf.assert %{{.*}}, "a NaN in the result of 'autodiff.sqrt'" loc("{{.*}}":9:3)
// CHECK:         %s = autodiff.sum
// CHECK:         cf.assert %{{.*}}, "an Inf in the result of 'autodiff.sum'" loc("{{.*}}":10:3)
// CHECK-LABEL: func.func @f_vjp_0(
// CHECK:         autodiff.grad_of "autodiff.sqrt"
// CHECK:           autodiff.div
// CHECK:           cf.assert %{{.*}}, "an Inf in the backward of 'autodiff.sqrt' (the result of its 'autodiff.div')" loc("{{.*}}":9:3)
// CHECK:           autodiff.yield
// CHECK:         } loc("{{.*}}":9:3)

// OFF-NOT: cf.assert
