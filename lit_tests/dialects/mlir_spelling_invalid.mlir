// A quoted predicate must still name a predicate.
// RUN: not autodiff-opt %s 2>&1 | filecheck %s

// CHECK: mlir_spelling_invalid.mlir:6:{{[0-9]+}}: error: {{.*}}
func.func @bad(%a: f64, %b: f64) -> i1 {
  %c = arith.cmpf "not a predicate", %a, %b : f64
  return %c : i1
}

// -----

// A pad whose static result size is not the padded size (2 + 2 + 1 = 5, not 6).
// RUN: not autodiff-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=PAD
// PAD: error: {{.*}}result dimension 1 is 6, but the padded size is 2 + 2 + 1
func.func @bad_pad(%x: tensor<1x2xf32>, %v: f32) -> tensor<1x6xf32> {
  %p = tensor.pad %x low[0, 2] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<1x2xf32> to tensor<1x6xf32>
  return %p : tensor<1x6xf32>
}

// -----

// An elementwise select needs a condition of the result's shape.
// RUN: not autodiff-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=SELECT
// SELECT: error: {{.*}}the condition must be an i1, or a tensor of i1 of the result's shape (tensor<4xf32>); got tensor<3xi1>
func.func @bad_select(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.select %c, %a, %b : tensor<3xi1>, tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A comparison of tensors gives a tensor of i1 of their shape.
// RUN: not autodiff-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=COMPARE
// COMPARE: error: {{.*}}comparing tensor<4xf32> gives tensor<4xi1>, not i1
func.func @bad_compare(%a: tensor<4xf32>) -> i1 {
  %c = "arith.cmpf"(%a, %a) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> i1
  return %c : i1
}
