// A reduction whose combiner has no parallel adjoint is differentiated as the sequential
// fold it is (rules/generic_fold.py): an scf.for nest recomputes it keeping the
// accumulator each point read, and a nest visiting the points in reverse runs the body's
// scalar adjoint at each one.
// RUN: autodiff-opt %s -p autodiff-reverse | filecheck %s

// acc' = acc * acc + x: the accumulator is read twice.
func.func @square_fold(%x: tensor<3x4xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
      iterator_types = ["reduction", "reduction"]} ins(%x : tensor<3x4xf32>) outs(%init : tensor<f32>) {
  ^bb0(%u: f32, %acc: f32):
    %sq = arith.mulf %acc, %acc : f32
    %n = arith.addf %sq, %u : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
func.func @g(%x: tensor<3x4xf32>, %init: tensor<f32>) -> (tensor<3x4xf32>, tensor<f32>) {
  %d:2 = autodiff.grad @square_fold(%x, %init) : (tensor<3x4xf32>, tensor<f32>) -> (tensor<3x4xf32>, tensor<f32>)
  return %d#0, %d#1 : tensor<3x4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @square_fold_vjp_0_1
// The forward nest: the accumulator before each point, kept over the iteration space.
// CHECK:      %[[STATES:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[STATES]]) -> (tensor<f32>, tensor<3x4xf32>)
// CHECK:        scf.for
// CHECK:          tensor.insert %{{.*}} into %{{.*}}[%[[I]], %{{.*}}] : tensor<3x4xf32>
// The backward nest: the point (2 - i, 3 - j), the state read there, the adjoint of the body.
// CHECK:      scf.for %[[BI:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:        scf.for %[[BJ:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:          %[[RI:.*]] = arith.subi %{{.*}}, %[[BI]] : index
// CHECK:          %[[RJ:.*]] = arith.subi %{{.*}}, %[[BJ]] : index
// CHECK:          tensor.extract %{{.*}}[%[[RI]], %[[RJ]]] : tensor<3x4xf32>
// CHECK:          arith.mulf
// CHECK:          tensor.insert %{{.*}} into %{{.*}}[%[[RI]], %[[RJ]]] : tensor<3x4xf32>
// CHECK-NOT:  linalg.generic
