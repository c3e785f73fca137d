// Round trip of matmul, transpose, reshape, broadcast_to, sum_to_size, reductions, softmax, select.
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s

// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<8x3xf32>, %[[BA:[^:]*]]: tensor<2x4x8xf32>, %[[BB:[^:]*]]: tensor<2x8x3xf32>
func.func @linear(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x3xf32>) -> tensor<2x4x3xf32> {
  // CHECK: %[[MM:.*]] = autodiff.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // GENERIC: "autodiff.matmul"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %0 = autodiff.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // CHECK: %[[BMM:.*]] = autodiff.matmul %[[BA]], %[[BB]] : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  %1 = autodiff.matmul %ba, %bb : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  // CHECK: autodiff.transpose %[[MM]] {permutation = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  // GENERIC: "autodiff.transpose"(%{{.*}}) <{permutation = array<i64: 1, 0>}> : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %2 = autodiff.transpose %0 {permutation = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  // CHECK: autodiff.transpose %[[BMM]] {permutation = array<i64: 2, 0, 1>} : tensor<2x4x3xf32> -> tensor<3x2x4xf32>
  %3 = autodiff.transpose %1 {permutation = array<i64: 2, 0, 1>} : tensor<2x4x3xf32> -> tensor<3x2x4xf32>
  // CHECK: return %[[BMM]]
  return %1 : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @shapes(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf64>, %[[V:[^:]*]]: tensor<4xf64>
func.func @shapes(%x: tensor<2x3x4xf64>, %v: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: %[[R:.*]] = autodiff.reshape %[[X]] : tensor<2x3x4xf64> -> tensor<6x4xf64>
  // GENERIC: "autodiff.reshape"(%{{.*}}) : (tensor<2x3x4xf64>) -> tensor<6x4xf64>
  %0 = autodiff.reshape %x : tensor<2x3x4xf64> -> tensor<6x4xf64>
  // CHECK: autodiff.reshape %[[R]] : tensor<6x4xf64> -> tensor<24xf64>
  %1 = autodiff.reshape %0 : tensor<6x4xf64> -> tensor<24xf64>
  // CHECK: %[[BC:.*]] = autodiff.broadcast_to %[[V]] : tensor<4xf64> -> tensor<2x3x4xf64>
  // GENERIC: "autodiff.broadcast_to"(%{{.*}}) : (tensor<4xf64>) -> tensor<2x3x4xf64>
  %2 = autodiff.broadcast_to %v : tensor<4xf64> -> tensor<2x3x4xf64>
  // CHECK: autodiff.sum_to_size %[[BC]] : tensor<2x3x4xf64> -> tensor<4xf64>
  // GENERIC: "autodiff.sum_to_size"(%{{.*}}) : (tensor<2x3x4xf64>) -> tensor<4xf64>
  %3 = autodiff.sum_to_size %2 : tensor<2x3x4xf64> -> tensor<4xf64>
  // CHECK: autodiff.sum_to_size %[[X]] : tensor<2x3x4xf64> -> tensor<1x3x1xf64>
  %4 = autodiff.sum_to_size %x : tensor<2x3x4xf64> -> tensor<1x3x1xf64>
  // CHECK: autodiff.broadcast_to %{{.*}} : tensor<1x3x1xf64> -> tensor<5x2x3x4xf64>
  %5 = autodiff.broadcast_to %4 : tensor<1x3x1xf64> -> tensor<5x2x3x4xf64>
  return %3 : tensor<4xf64>
}

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  // CHECK: autodiff.sum %[[X]] {dims = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // GENERIC: "autodiff.sum"(%{{.*}}) <{dims = array<i64: 1>, keepdim = false}> : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %0 = autodiff.sum %x {dims = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>
  // CHECK: autodiff.sum %[[X]] {dims = array<i64: 0, 2>, keepdim = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // GENERIC: "autodiff.sum"(%{{.*}}) <{dims = array<i64: 0, 2>, keepdim = true}>
  %1 = autodiff.sum %x {dims = array<i64: 0, 2>, keepdim = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  // CHECK: autodiff.mean %[[X]] {dims = array<i64: 2>, keepdim = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // GENERIC: "autodiff.mean"
  %2 = autodiff.mean %x {dims = array<i64: 2>, keepdim = true} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: autodiff.max %[[X]] {dims = array<i64: 0>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
  // GENERIC: "autodiff.max"
  %3 = autodiff.max %x {dims = array<i64: 0>} : tensor<2x3x4xf32> -> tensor<3x4xf32>
  // Without dims, every dimension is reduced.
  // CHECK: %[[ALL:.*]] = autodiff.sum %[[X]] : tensor<2x3x4xf32> -> tensor<f32>
  %4 = autodiff.sum %x : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK: autodiff.mean %[[X]] {keepdim = true} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %5 = autodiff.mean %x {keepdim = true} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  // CHECK: return %[[ALL]]
  return %4 : tensor<f32>
}

// CHECK-LABEL: func.func @softmax_select(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x5xf32>, %[[C:[^:]*]]: tensor<4x1xi1>, %[[Y:[^:]*]]: tensor<5xf32>
func.func @softmax_select(%x: tensor<4x5xf32>, %c: tensor<4x1xi1>, %y: tensor<5xf32>) -> tensor<4x5xf32> {
  // CHECK: autodiff.softmax %[[X]] {dim = 1 : i64} : tensor<4x5xf32>
  // GENERIC: "autodiff.softmax"(%{{.*}}) <{dim = 1 : i64}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %0 = autodiff.softmax %x {dim = 1 : i64} : tensor<4x5xf32>
  // CHECK: autodiff.log_softmax %[[X]] {dim = 0 : i64} : tensor<4x5xf32>
  // GENERIC: "autodiff.log_softmax"(%{{.*}}) <{dim = 0 : i64}>
  %1 = autodiff.log_softmax %x {dim = 0 : i64} : tensor<4x5xf32>
  // CHECK: %[[SEL:.*]] = autodiff.select %[[C]], %[[X]], %[[Y]] : (tensor<4x1xi1>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  // GENERIC: "autodiff.select"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x1xi1>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %2 = autodiff.select %c, %x, %y : (tensor<4x1xi1>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  // CHECK: return %[[SEL]]
  return %2 : tensor<4x5xf32>
}

// Properties may be written in the generic form's attribute dictionary too.
// CHECK-LABEL: func.func @generic_attribute_spelling
func.func @generic_attribute_spelling(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: autodiff.sum %{{.*}} {dims = array<i64: 1>} : tensor<2x3xf32> -> tensor<2xf32>
  %0 = "autodiff.sum"(%x) {dims = array<i64: 1>, keepdim = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: autodiff.softmax %{{.*}} {dim = 1 : i64} : tensor<2x3xf32>
  %1 = "autodiff.softmax"(%x) <{dim = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2xf32>
}
