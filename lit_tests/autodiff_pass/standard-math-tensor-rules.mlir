// Rules added for MLIR 22's math ops and tensor ops, in the IR they generate:
// a math op with no autodiff op (cosh) emitted as itself on a tensor; a zero
// derivative (floor) giving no gradient at all; an integer exponent (fpowi)
// inside a generic body; the gradient of tensor.gather adding slices back.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-forward | filecheck %s
// RUN: autodiff-opt %s --split-input-file --pipeline grad | filecheck %s --check-prefix=CLEAN

func.func @sinh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.sinh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @vjp_sinh(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @sinh(%x, %ct) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
// CHECK-LABEL: func.func @sinh_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// CHECK:         autodiff.grad_of "math.sinh"(%[[CT]])
// CHECK:         ^bb0(%[[G:.*]]: tensor<4xf32>):
// CHECK:           %[[C:.*]] = math.cosh %[[X]] : tensor<4xf32>
// CHECK:           %[[D:.*]] = autodiff.mul %[[G]], %[[C]]
// CHECK:           autodiff.yield %[[D]]

// -----

func.func @floor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.floor %x : tensor<4xf32>
  %z = arith.mulf %y, %x : tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func @vjp_floor(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @floor(%x, %ct) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
// x's gradient is grad * floor(x) from the product alone: floor gives none.
// CHECK-LABEL: func.func @floor_vjp_0(
// CHECK:         autodiff.grad_of "math.floor"(%{{.*}}) : (tensor<4xf32>) -> () {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<4xf32>):
// CHECK-NEXT:      autodiff.yield{{$}}
// After cleanup the empty grad_of is gone, with the product gradient it read (y is
// never differentiated), and nothing is added to the product's.
// CLEAN-LABEL: func.func @floor_vjp_0(
// CLEAN:         %[[Y:.*]] = math.floor
// CLEAN:         {{^ +}}%[[D:[0-9a-z_]+]] = autodiff.grad_of "arith.mulf"(
// CLEAN:           autodiff.mul %{{.*}}, %[[Y]]
// CLEAN-NOT:     grad_of
// CLEAN-NOT:     autodiff.autograd_add
// CLEAN:         func.return %{{.*}}, %[[D]]

// -----

#id = affine_map<(i) -> (i)>
func.func @fpowi(%x: tensor<4xf32>, %n: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %n : tensor<4xf32>, tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %k: i32, %o: f32):
    %p = math.fpowi %a, %k : f32, i32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @jvp_fpowi(%x: tensor<4xf32>, %n: tensor<4xi32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.jvp @fpowi(%x, %n, %t) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
// The tangent is select(n == 0, 0, n * x^(n-1)) * t, x^(n-1) by fpowi itself.
// CHECK-LABEL: func.func @fpowi_jvp_0(
// CHECK:         ^bb0(%[[A:.*]]: f32, %[[K:.*]]: i32, %[[T:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:           %[[P:.*]] = math.fpowi %[[A]], %[[K]] : f32, i32
// CHECK:           %[[NF:.*]] = arith.sitofp %[[K]] : i32 to f32
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[IS0:.*]] = arith.cmpf oeq, %[[NF]], %[[ZERO]] : f32
// CHECK:           %[[M1:.*]] = arith.constant -1 : i32
// CHECK:           %[[KM1:.*]] = arith.addi %[[K]], %[[M1]] : i32
// CHECK:           %[[POW:.*]] = math.fpowi %[[A]], %[[KM1]] : f32, i32
// CHECK:           %[[NP:.*]] = arith.mulf %[[NF]], %[[POW]] : f32
// CHECK:           %[[DER:.*]] = arith.select %[[IS0]], %[[ZERO]], %[[NP]] : f32
// CHECK:           %[[TAN:.*]] = arith.mulf %[[T]], %[[DER]] : f32
// CHECK:           linalg.yield %[[P]], %[[TAN]] : f32, f32

// -----

func.func @gather(%x: tensor<4x3xf32>, %i: tensor<5x1xindex>) -> tensor<5x1x3xf32> {
  %g = tensor.gather %x[%i] gather_dims([0]) : (tensor<4x3xf32>, tensor<5x1xindex>) -> tensor<5x1x3xf32>
  return %g : tensor<5x1x3xf32>
}
func.func @vjp_gather(%x: tensor<4x3xf32>, %i: tensor<5x1xindex>, %ct: tensor<5x1x3xf32>) -> tensor<4x3xf32> {
  %r, %d = autodiff.vjp @gather(%x, %i, %ct) {wrt = array<i64: 0>} : (tensor<4x3xf32>, tensor<5x1xindex>, tensor<5x1x3xf32>) -> (tensor<5x1x3xf32>, tensor<4x3xf32>)
  return %d : tensor<4x3xf32>
}
// Over the source's dims (parallel) and the 5 gathered rows (reduction): row
// r's gradient sums every slice whose coordinate is r.
// CHECK-LABEL: func.func @gather_vjp_0(
// CHECK:         autodiff.grad_of "tensor.gather"
// CHECK:           %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, 0, d1)>, affine_map<(d0, d1, d2) -> (d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        outs(%[[Z]] : tensor<4x3xf32>)
// CHECK:           ^bb0(%[[G:.*]]: f32, %[[C:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:             %[[ROW:.*]] = linalg.index 0 : index
// CHECK:             %[[HIT:.*]] = arith.cmpi eq, %[[C]], %[[ROW]] : index
// CHECK:             %[[PICK:.*]] = arith.select %[[HIT]], %[[G]], %{{.*}} : f32
// CHECK:             %[[SUM:.*]] = arith.addf %[[PICK]], %[[ACC]] : f32
// CHECK:             linalg.yield %[[SUM]] : f32
