// autodiff-vmap: one batched function per (callee, in_axes, out_axes, size); batched values
// carry the batch dimension first. A matmul whose rhs is batched becomes a batched matmul
// (after lowering: one linalg.generic with the batch as a parallel dimension), never a loop
// over the batch; a batched lhs against an unbatched matrix is one [B*M,K]x[K,N] product.
// RUN: autodiff-opt %s -p autodiff-vmap | filecheck %s
// RUN: autodiff-opt %s --pipeline linalg | filecheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_vmap_0_n_to_0_x5(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<5x3x4xf64>, %[[X:[^:]*]]: tensor<2x3xf64>) -> tensor<5x2x4xf64>
// CHECK-SAME:    autodiff.batched = {of = @f, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64}
// CHECK:         %[[XB:.*]] = autodiff.broadcast_to %[[X]] : tensor<2x3xf64> -> tensor<5x2x3xf64>
// CHECK:         %[[Y:.*]] = autodiff.matmul %[[XB]], %[[W]] : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
// CHECK:         %[[T:.*]] = autodiff.tanh %[[Y]] : tensor<5x2x4xf64>
// CHECK:         func.return %[[T]]

// The same callee batched at another axis is another function; the batch dimension is
// moved first on entry and to out_axes on exit.
// CHECK-LABEL: func.func @f_vmap_n_1_to_2_x7(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x4xf64>, %[[X:[^:]*]]: tensor<2x7x3xf64>) -> tensor<2x4x7xf64>
// CHECK:         %[[XT:.*]] = autodiff.transpose %[[X]] {permutation = array<i64: 1, 0, 2>} : tensor<2x7x3xf64> -> tensor<7x2x3xf64>
// CHECK:         %[[XF:.*]] = autodiff.reshape %[[XT]] : tensor<7x2x3xf64> -> tensor<14x3xf64>
// CHECK:         %[[Y:.*]] = autodiff.matmul %[[XF]], %[[W]] : (tensor<14x3xf64>, tensor<3x4xf64>) -> tensor<14x4xf64>
// CHECK:         %[[YB:.*]] = autodiff.reshape %[[Y]] : tensor<14x4xf64> -> tensor<7x2x4xf64>
// CHECK:         %[[T:.*]] = autodiff.tanh %[[YB]] : tensor<7x2x4xf64>
// CHECK:         %[[O:.*]] = autodiff.transpose %[[T]] {permutation = array<i64: 1, 2, 0>} : tensor<7x2x4xf64> -> tensor<2x4x7xf64>
// CHECK:         func.return %[[O]]

// K = 1 (a per-example weight gradient x^T g): an outer product, one broadcasting multiply.
// CHECK-LABEL: func.func @outer_vmap_0_0_to_0_x5(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<5x3x1xf64>, %[[B:[^:]*]]: tensor<5x1x4xf64>)
// CHECK-NEXT:    %[[P:.*]] = autodiff.mul %[[A]], %[[B]] : (tensor<5x3x1xf64>, tensor<5x1x4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT:    func.return %[[P]]

// Two vmaps of one (callee, axes, size) share the function.
// CHECK-LABEL: func.func @main(
// CHECK:         func.call @f_vmap_0_n_to_0_x5(
// CHECK:         func.call @f_vmap_0_n_to_0_x5(
// CHECK:         func.call @f_vmap_n_1_to_2_x7(
// CHECK-NOT:     autodiff.vmap

// LINALG-LABEL: func.func @f_vmap_0_n_to_0_x5(
// LINALG-NOT:    scf.for
// LINALG:        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// LINALG-SAME:     ins(%{{.*}}, %{{.*}} : tensor<5x2x3xf64>, tensor<5x3x4xf64>) outs(%{{.*}} : tensor<5x2x4xf64>)
// LINALG-NOT:    scf.for
// LINALG:        func.return

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = autodiff.tanh %y : tensor<2x4xf64>
  return %t : tensor<2x4xf64>
}
func.func @outer(%a: tensor<3x1xf64>, %b: tensor<1x4xf64>) -> tensor<3x4xf64> {
  %p = autodiff.matmul %a, %b : (tensor<3x1xf64>, tensor<1x4xf64>) -> tensor<3x4xf64>
  return %p : tensor<3x4xf64>
}
func.func @main_outer(%as: tensor<5x3x1xf64>, %bs: tensor<5x1x4xf64>) -> tensor<5x3x4xf64> {
  %r = autodiff.vmap @outer(%as, %bs) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x3x1xf64>, tensor<5x1x4xf64>) -> tensor<5x3x4xf64>
  return %r : tensor<5x3x4xf64>
}
func.func @main(%ws: tensor<5x3x4xf64>, %x: tensor<2x3xf64>, %w: tensor<3x4xf64>, %xs: tensor<2x7x3xf64>) -> (tensor<5x2x4xf64>, tensor<5x2x4xf64>, tensor<2x4x7xf64>) {
  %a = autodiff.vmap @f(%ws, %x) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x3x4xf64>, tensor<2x3xf64>) -> tensor<5x2x4xf64>
  %b = autodiff.vmap @f(%ws, %x) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x3x4xf64>, tensor<2x3xf64>) -> tensor<5x2x4xf64>
  %c = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 1>, out_axes = array<i64: 2>, size = 7 : i64} : (tensor<3x4xf64>, tensor<2x7x3xf64>) -> tensor<2x4x7xf64>
  return %a, %b, %c : tensor<5x2x4xf64>, tensor<5x2x4xf64>, tensor<2x4x7xf64>
}
