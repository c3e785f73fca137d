// gradir's `dce`: xDSL's dead-code elimination in one backward sweep over
// structured code, which also erases unused linalg ops on tensors (MLIR does;
// xDSL cannot see that they are pure). Ops with effects stay.
// RUN: autodiff-opt %s -p dce | filecheck %s

func.func @f(%x: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
  %e = autodiff.exp %x : tensor<4xf32>
  %unused = autodiff.sin %e : tensor<4xf32>
  %init = tensor.empty() : tensor<4xf32>
  %dead = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%m : memref<4xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %g = autodiff.grad_of "autodiff.exp"(%e) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%grad: tensor<4xf32>):
    %n = autodiff.neg %grad : tensor<4xf32>
    autodiff.yield %n : tensor<4xf32>
  }
  %k = autodiff.grad_of "autodiff.neg"(%e) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%grad: tensor<4xf32>):
    %unused_inner = autodiff.exp %grad : tensor<4xf32>
    %n = autodiff.neg %grad : tensor<4xf32>
    autodiff.yield %n : tensor<4xf32>
  }
  return %k : tensor<4xf32>
}
// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[M:[^:]*]]: memref<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = autodiff.exp %[[X]]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[M]] : memref<4xf32>) outs(%[[M]] : memref<4xf32>)
// CHECK:         %[[K:.*]] = autodiff.grad_of "autodiff.neg"(%[[E]])
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %[[N:.*]] = autodiff.neg %[[G]]
// CHECK-NEXT:      autodiff.yield %[[N]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[K]]
// CHECK-NOT:     autodiff.sin
// CHECK-NOT:     tensor.empty
