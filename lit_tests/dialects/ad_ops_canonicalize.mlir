// `autograd_add` with a zero side is its other side, a sum with a gradient
// that is zero outside one slice is a sum on that slice, and a sum with a branch's
// gradient is a sum in each branch: the op's canonicalization patterns, which autodiff-specialize-zero (the first) and convert-autodiff-to-linalg
// (both) use too.
// RUN: autodiff-opt %s -p canonicalize | filecheck %s

// CHECK-LABEL: func.func @zero_sides(
// CHECK-SAME:    %[[G:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = autodiff.autograd_add %[[G]], %[[G]] : tensor<4xf32>
// CHECK-NEXT:    return %[[G]], %[[G]], %[[S]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @zero_sides(%g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = autodiff.autograd_zero : tensor<4xf32>
  %left = autodiff.autograd_add %z, %g : tensor<4xf32>
  %right = autodiff.autograd_add %g, %z : tensor<4xf32>
  %both = autodiff.autograd_add %g, %g : tensor<4xf32>
  return %left, %right, %both : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @zero_plus_zero(
// CHECK-NEXT:    %[[Z:.*]] = autodiff.autograd_zero : tensor<2x3xf32>
// CHECK-NEXT:    return %[[Z]] : tensor<2x3xf32>
func.func @zero_plus_zero() -> tensor<2x3xf32> {
  %z = autodiff.autograd_zero : tensor<2x3xf32>
  %s = autodiff.autograd_add %z, %z : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// A gradient that is zero outside one slice (the backward of `extract_slice`) is
// added on that slice only: the accumulator is updated in place, at the slice's
// cost rather than the whole tensor's (a reversed loop reading one row per iteration).
// CHECK-LABEL: func.func @slice_into_zero(
// CHECK-SAME:    %[[ACC:[^:]*]]: tensor<25x10xf64>, %[[G:[^:]*]]: tensor<10xf64>, %[[I:[^:]*]]: index
// CHECK-NEXT:    %[[PART:.*]] = tensor.extract_slice %[[ACC]][%[[I]], 0] [1, 10] [1, 1] : tensor<25x10xf64> to tensor<10xf64>
// CHECK-NEXT:    %[[SUM:.*]] = autodiff.autograd_add %[[PART]], %[[G]] : tensor<10xf64>
// CHECK-NEXT:    %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[I]], 0] [1, 10] [1, 1] : tensor<10xf64> into tensor<25x10xf64>
// CHECK-NEXT:    return %[[NEW]] : tensor<25x10xf64>
func.func @slice_into_zero(%acc: tensor<25x10xf64>, %g: tensor<10xf64>, %i: index) -> tensor<25x10xf64> {
  %zero = arith.constant dense<0.0> : tensor<25x10xf64>
  %sparse = tensor.insert_slice %g into %zero[%i, 0] [1, 10] [1, 1] : tensor<10xf64> into tensor<25x10xf64>
  %sum = autodiff.autograd_add %acc, %sparse : tensor<25x10xf64>
  return %sum : tensor<25x10xf64>
}

// The same for one element (the backward of `tensor.extract`), on either side of the sum.
// CHECK-LABEL: func.func @element_into_zero(
// CHECK-SAME:    %[[ACC:[^:]*]]: tensor<25xf64>, %[[S:[^:]*]]: f64, %[[I:[^:]*]]: index
// CHECK-NEXT:    %[[OLD:.*]] = tensor.extract %[[ACC]][%[[I]]] : tensor<25xf64>
// CHECK-NEXT:    %[[SUM:.*]] = autodiff.autograd_add %[[OLD]], %[[S]] : f64
// CHECK-NEXT:    %[[NEW:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[I]]] : tensor<25xf64>
// CHECK-NEXT:    return %[[NEW]] : tensor<25xf64>
func.func @element_into_zero(%acc: tensor<25xf64>, %s: f64, %i: index) -> tensor<25xf64> {
  %zero = arith.constant dense<0.0> : tensor<25xf64>
  %sparse = tensor.insert %s into %zero[%i] : tensor<25xf64>
  %sum = autodiff.autograd_add %sparse, %acc : tensor<25xf64>
  return %sum : tensor<25xf64>
}

// A slice inserted into anything but a zero is a dense gradient: the sum stays whole.
// CHECK-LABEL: func.func @slice_into_data(
// CHECK:         %[[DENSE:.*]] = tensor.insert_slice
// CHECK-NEXT:    %[[SUM:.*]] = autodiff.autograd_add %{{.*}}, %[[DENSE]] : tensor<4x3xf64>
// CHECK-NEXT:    return %[[SUM]] : tensor<4x3xf64>
func.func @slice_into_data(%acc: tensor<4x3xf64>, %other: tensor<4x3xf64>, %g: tensor<3xf64>) -> tensor<4x3xf64> {
  %dense = tensor.insert_slice %g into %other[1, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<4x3xf64>
  %sum = autodiff.autograd_add %acc, %dense : tensor<4x3xf64>
  return %sum : tensor<4x3xf64>
}

// A sum with a branch's gradient moves into the branches (the reverse of a branch
// that reads one element: a one-hot gradient on one side, a zero on the other). There
// the zero side folds and the one-hot side is a sum on its element: the reversed loop
// of a scatter pays one element per iteration, not the whole tensor.
// CHECK-LABEL: func.func @branch_into_sum(
// CHECK-SAME:    %[[ACC:[^:]*]]: tensor<25xf64>, %[[S:[^:]*]]: f64, %[[I:[^:]*]]: index, %[[C:[^:]*]]: i1
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (tensor<25xf64>) {
// CHECK-NEXT:      %[[OLD:.*]] = tensor.extract %[[ACC]][%[[I]]] : tensor<25xf64>
// CHECK-NEXT:      %[[SUM:.*]] = autodiff.autograd_add %[[OLD]], %[[S]] : f64
// CHECK-NEXT:      %[[NEW:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[I]]] : tensor<25xf64>
// CHECK-NEXT:      scf.yield %[[NEW]] : tensor<25xf64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[ACC]] : tensor<25xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]] : tensor<25xf64>
func.func @branch_into_sum(%acc: tensor<25xf64>, %s: f64, %i: index, %c: i1) -> tensor<25xf64> {
  %zero = autodiff.autograd_zero : tensor<25xf64>
  %branch = scf.if %c -> (tensor<25xf64>) {
    %z = arith.constant dense<0.0> : tensor<25xf64>
    %sparse = tensor.insert %s into %z[%i] : tensor<25xf64>
    scf.yield %sparse : tensor<25xf64>
  } else {
    scf.yield %zero : tensor<25xf64>
  }
  %sum = autodiff.autograd_add %acc, %branch : tensor<25xf64>
  return %sum : tensor<25xf64>
}

// Not moved: a branch result read twice, a sum in a loop after the branch (it would
// run once instead of once per iteration), an accumulator defined after the branch.
// CHECK-LABEL: func.func @branch_not_moved(
// CHECK-SAME:    %{{[^:]*}}: tensor<25xf64>, %[[G:[^:]*]]: tensor<25xf64>
// CHECK:         %[[B:.*]] = scf.if
// CHECK:         autodiff.autograd_add %{{.*}}, %[[B]]
// CHECK:         autodiff.autograd_add %{{.*}}, %[[B]]
// CHECK:         %[[L:.*]] = scf.if
// CHECK:         scf.for
// CHECK-NEXT:      autodiff.autograd_add %[[G]], %[[L]]
// CHECK:         %[[A:.*]] = scf.if
// CHECK:         %[[LATER:.*]] = autodiff.autograd_add %{{.*}}, %{{.*}} : tensor<25xf64>
// CHECK-NEXT:    autodiff.autograd_add %[[LATER]], %[[A]]
func.func @branch_not_moved(%acc: tensor<25xf64>, %g: tensor<25xf64>, %c: i1, %n: index) -> (tensor<25xf64>, tensor<25xf64>, tensor<25xf64>, tensor<25xf64>) {
  %twice = scf.if %c -> (tensor<25xf64>) {
    scf.yield %g : tensor<25xf64>
  } else {
    scf.yield %acc : tensor<25xf64>
  }
  %s1 = autodiff.autograd_add %acc, %twice : tensor<25xf64>
  %s2 = autodiff.autograd_add %g, %twice : tensor<25xf64>
  %looped = scf.if %c -> (tensor<25xf64>) {
    scf.yield %g : tensor<25xf64>
  } else {
    scf.yield %acc : tensor<25xf64>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s3 = scf.for %k = %c0 to %n step %c1 iter_args(%a = %acc) -> (tensor<25xf64>) {
    %step = autodiff.autograd_add %g, %looped : tensor<25xf64>
    %next = autodiff.autograd_add %a, %step : tensor<25xf64>
    scf.yield %next : tensor<25xf64>
  }
  %after = scf.if %c -> (tensor<25xf64>) {
    scf.yield %g : tensor<25xf64>
  } else {
    scf.yield %acc : tensor<25xf64>
  }
  %later = autodiff.autograd_add %g, %g : tensor<25xf64>
  %s4 = autodiff.autograd_add %later, %after : tensor<25xf64>
  return %s1, %s2, %s3, %s4 : tensor<25xf64>, tensor<25xf64>, tensor<25xf64>, tensor<25xf64>
}
