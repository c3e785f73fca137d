// Round trip of the elementwise ops: custom form, generic form, and back.
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s

// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>
func.func @unary(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[NEG:.*]] = autodiff.neg %[[X]] : tensor<4x8xf32>
  // GENERIC: "autodiff.neg"(%{{.*}}) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %0 = autodiff.neg %x : tensor<4x8xf32>
  // CHECK: %[[EXP:.*]] = autodiff.exp %[[NEG]] : tensor<4x8xf32>
  // GENERIC: "autodiff.exp"
  %1 = autodiff.exp %0 : tensor<4x8xf32>
  // CHECK: %[[LOG:.*]] = autodiff.log %[[EXP]] : tensor<4x8xf32>
  // GENERIC: "autodiff.log"
  %2 = autodiff.log %1 : tensor<4x8xf32>
  // CHECK: %[[SQRT:.*]] = autodiff.sqrt %[[LOG]] : tensor<4x8xf32>
  // GENERIC: "autodiff.sqrt"
  %3 = autodiff.sqrt %2 : tensor<4x8xf32>
  // CHECK: %[[RSQRT:.*]] = autodiff.rsqrt %[[SQRT]] : tensor<4x8xf32>
  // GENERIC: "autodiff.rsqrt"
  %4 = autodiff.rsqrt %3 : tensor<4x8xf32>
  // CHECK: %[[SIN:.*]] = autodiff.sin %[[RSQRT]] : tensor<4x8xf32>
  // GENERIC: "autodiff.sin"
  %5 = autodiff.sin %4 : tensor<4x8xf32>
  // CHECK: %[[COS:.*]] = autodiff.cos %[[SIN]] : tensor<4x8xf32>
  // GENERIC: "autodiff.cos"
  %6 = autodiff.cos %5 : tensor<4x8xf32>
  // CHECK: %[[TANH:.*]] = autodiff.tanh %[[COS]] : tensor<4x8xf32>
  // GENERIC: "autodiff.tanh"
  %7 = autodiff.tanh %6 : tensor<4x8xf32>
  // CHECK: %[[SIG:.*]] = autodiff.sigmoid %[[TANH]] : tensor<4x8xf32>
  // GENERIC: "autodiff.sigmoid"
  %8 = autodiff.sigmoid %7 : tensor<4x8xf32>
  // CHECK: %[[RELU:.*]] = autodiff.relu %[[SIG]] : tensor<4x8xf32>
  // GENERIC: "autodiff.relu"
  %9 = autodiff.relu %8 : tensor<4x8xf32>
  // CHECK: %[[ABS:.*]] = autodiff.abs %[[RELU]] : tensor<4x8xf32>
  // GENERIC: "autodiff.abs"
  %10 = autodiff.abs %9 : tensor<4x8xf32>
  // CHECK: %[[STOP:.*]] = autodiff.stop_gradient %[[ABS]] : tensor<4x8xf32>
  // GENERIC: "autodiff.stop_gradient"
  %11 = autodiff.stop_gradient %10 : tensor<4x8xf32>
  // CHECK: func.return %[[STOP]]
  return %11 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x8xf64>, %[[B:[^:]*]]: tensor<8xf64>, %[[C:[^:]*]]: tensor<4x1xf64>
func.func @binary(%a: tensor<4x8xf64>, %b: tensor<8xf64>, %c: tensor<4x1xf64>) -> tensor<4x8xf64> {
  // CHECK: %[[ADD:.*]] = autodiff.add %[[A]], %[[B]] : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  %0 = autodiff.add %a, %b : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // CHECK: %[[SUB:.*]] = autodiff.sub %[[C]], %[[B]] : (tensor<4x1xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.sub"
  %1 = autodiff.sub %c, %b : (tensor<4x1xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // CHECK: %[[MUL:.*]] = autodiff.mul %[[ADD]], %[[SUB]] : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.mul"
  %2 = autodiff.mul %0, %1 : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  // CHECK: %[[DIV:.*]] = autodiff.div %[[MUL]], %[[C]] : (tensor<4x8xf64>, tensor<4x1xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.div"
  %3 = autodiff.div %2, %c : (tensor<4x8xf64>, tensor<4x1xf64>) -> tensor<4x8xf64>
  // CHECK: %[[POW:.*]] = autodiff.pow %[[DIV]], %[[B]] : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.pow"
  %4 = autodiff.pow %3, %b : (tensor<4x8xf64>, tensor<8xf64>) -> tensor<4x8xf64>
  // CHECK: %[[MAX:.*]] = autodiff.maximum %[[POW]], %[[C]] : (tensor<4x8xf64>, tensor<4x1xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.maximum"
  %5 = autodiff.maximum %4, %c : (tensor<4x8xf64>, tensor<4x1xf64>) -> tensor<4x8xf64>
  // CHECK: %[[MIN:.*]] = autodiff.minimum %[[MAX]], %[[A]] : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  // GENERIC: "autodiff.minimum"
  %6 = autodiff.minimum %5, %a : (tensor<4x8xf64>, tensor<4x8xf64>) -> tensor<4x8xf64>
  return %6 : tensor<4x8xf64>
}

// Scalars (0-d tensors), f16 and bf16 are accepted too.
// CHECK-LABEL: func.func @scalars
func.func @scalars(%s: tensor<f16>, %v: tensor<3xf16>, %w: tensor<bf16>) -> tensor<3xf16> {
  // CHECK: autodiff.mul %{{.*}}, %{{.*}} : (tensor<f16>, tensor<3xf16>) -> tensor<3xf16>
  %0 = autodiff.mul %s, %v : (tensor<f16>, tensor<3xf16>) -> tensor<3xf16>
  // CHECK: autodiff.exp %{{.*}} : tensor<bf16>
  %1 = autodiff.exp %w : tensor<bf16>
  return %0 : tensor<3xf16>
}

// The generic form is always accepted as input.
// CHECK-LABEL: func.func @generic_input
func.func @generic_input(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: autodiff.tanh %{{.*}} : tensor<2x3xf32>
  %0 = "autodiff.tanh"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: autodiff.maximum %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "autodiff.maximum"(%0, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
