// `autograd_add` with a zero side is its other side, and a sum with a gradient
// that is zero outside one slice is a sum on that slice: the op's canonicalization
// patterns, which autodiff-specialize-zero (the first) and convert-autodiff-to-linalg
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
