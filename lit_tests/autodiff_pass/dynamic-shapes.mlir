// Reverse mode over tensors of dynamic shape: what the rules build takes its sizes from the
// op's own values (tensor.dim), so the generated functions keep the dynamic types.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse | filecheck %s
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-lower-grad-of,convert-autodiff-to-linalg | filecheck %s --check-prefix=LOWERED

// An extract_slice of run-time size: its gradient is inserted into a zero tensor as long as
// the source, whose size is read from the source.
func.func @tail(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %m = arith.subi %n, %c1 : index
  %s = tensor.extract_slice %x[1, 0] [%m, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
func.func @vjp(%x: tensor<?x4xf32>, %ct: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r, %dx = autodiff.vjp @tail(%x, %ct) : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
  return %dx : tensor<?x4xf32>
}
// CHECK-LABEL: func.func @tail_vjp_0(%x: tensor<?x4xf32>, %cotangent: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>)
// CHECK:         %[[M:.*]] = arith.subi
// CHECK:         autodiff.grad_of "tensor.extract_slice"(%cotangent) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<?x4xf32>):
// CHECK:           %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK-NEXT:      %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK:           %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x4xf32>)
// CHECK-NEXT:      %[[I:.*]] = tensor.insert_slice %[[G]] into %[[Z]][1, 0] [%[[M]], 4] [1, 1]
// CHECK-NEXT:      autodiff.yield %[[I]] : tensor<?x4xf32>

// -----

// A branch that does not read %x gives it a zero of %x's run-time size, autograd_zero(%n);
// lowered, that is tensor.empty(%n) filled with zeros.
func.func @pick(%x: tensor<?xf32>, %y: tensor<?xf32>, %c: i1) -> tensor<?xf32> {
  %r = scf.if %c -> (tensor<?xf32>) {
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %y : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
func.func @vjp(%x: tensor<?xf32>, %y: tensor<?xf32>, %c: i1, %ct: tensor<?xf32>) -> tensor<?xf32> {
  %r, %dx = autodiff.vjp @pick(%x, %y, %c, %ct) {wrt = array<i64: 0>} : (tensor<?xf32>, tensor<?xf32>, i1, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  return %dx : tensor<?xf32>
}
// CHECK-LABEL: func.func @pick_vjp_0(
// CHECK:         %{{[0-9]+}} = scf.if %c -> (tensor<?xf32>) {
// CHECK-NEXT:      scf.yield %cotangent : tensor<?xf32>
// CHECK-NEXT:    } else {
// CHECK:           %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?xf32>
// CHECK-NEXT:      %[[Z:.*]] = autodiff.autograd_zero(%[[N]]) : tensor<?xf32>
// CHECK-NEXT:      scf.yield %[[Z]] : tensor<?xf32>
// LOWERED-LABEL: func.func @pick_vjp_0(
// LOWERED:         } else {
// LOWERED:           %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?xf32>
// LOWERED:           %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// LOWERED-NEXT:      %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?xf32>)
// LOWERED-NEXT:      scf.yield %[[Z]] : tensor<?xf32>

// -----

// A loop whose backward reads its state of dynamic shape every iteration: the state is
// stacked at the extents of its initial value, tensor<3x?xf64> made before the loop, with a
// run-time check that each entry has them; the reverse loop reads entries at those extents.
#id = affine_map<(d0) -> (d0)>
func.func @scaled(%x: tensor<?xf64>, %w: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %e = tensor.empty(%n) : tensor<?xf64>
    %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %w : tensor<?xf64>, tensor<?xf64>) outs(%e : tensor<?xf64>) {
    ^bb0(%u: f64, %v: f64, %o: f64):
      %p = arith.mulf %u, %v : f64
      linalg.yield %p : f64
    } -> tensor<?xf64>
    scf.yield %y : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
func.func @vjp(%x: tensor<?xf64>, %w: tensor<?xf64>, %c: tensor<?xf64>) -> tensor<?xf64> {
  %r, %dw = autodiff.vjp @scaled(%x, %w, %c) {wrt = array<i64: 1>} : (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  return %dw : tensor<?xf64>
}
// CHECK-LABEL: func.func @scaled_vjp_1(
// CHECK:         %[[N:[0-9]+]] = tensor.dim %x, %{{.*}} : tensor<?xf64>
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf64>
// CHECK-NEXT:    %{{.*}}, %[[STACK:.*]] = scf.for %[[I:.*]] = {{.*}} iter_args(%[[A:.*]] = %x, %[[S:.*]] = %[[EMPTY]]) -> (tensor<?xf64>, tensor<3x?xf64>) {
// CHECK:           %[[LEN:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf64>
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      %[[EXTENT:.*]] = tensor.dim %[[S]], %{{.*}} : tensor<3x?xf64>
// CHECK-NEXT:      %[[SAME:.*]] = arith.cmpi eq, %[[LEN]], %[[EXTENT]] : index
// CHECK-NEXT:      cf.assert %[[SAME]], "a loop state of dynamic shape whose extents change between iterations (scf.for): the cache of its reverse holds one extent"
// CHECK-NEXT:      %[[PUSHED:.*]] = tensor.insert_slice %[[A]] into %[[S]][%[[I]], 0] [1, %[[LEN]]] [1, 1] : tensor<?xf64> into tensor<3x?xf64>
// CHECK-NEXT:      scf.yield %{{.*}}, %[[PUSHED]] : tensor<?xf64>, tensor<3x?xf64>
// CHECK-NEXT:    } {autodiff.cache = {values = 1 : i64}}
// CHECK:         scf.for
// CHECK:           %[[READ_LEN:.*]] = tensor.dim %[[STACK]], %{{.*}} : tensor<3x?xf64>
// CHECK-NEXT:      tensor.extract_slice %[[STACK]][%{{.*}}, 0] [1, %[[READ_LEN]]] [1, 1] : tensor<3x?xf64> to tensor<?xf64>

// -----

// A value of dynamic shape the backward reads, computed in the body (%s, a slice whose size
// grows every trip): no stack made before the loop has extents for it, so the reverse loop
// recomputes it from the iteration's cached state; only the state is stacked.
#id = affine_map<(d0) -> (d0)>
func.func @growing(%w: tensor<5xf64>) -> tensor<5xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %w) -> (tensor<5xf64>) {
    %n = arith.addi %i, %c1 : index
    %s = tensor.extract_slice %a[0] [%n] [1] : tensor<5xf64> to tensor<?xf64>
    %e = tensor.empty(%n) : tensor<?xf64>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%s : tensor<?xf64>) outs(%e : tensor<?xf64>) {
    ^bb0(%u: f64, %o: f64):
      %p = math.sin %u : f64
      linalg.yield %p : f64
    } -> tensor<?xf64>
    %z = tensor.insert_slice %y into %a[0] [%n] [1] : tensor<?xf64> into tensor<5xf64>
    scf.yield %z : tensor<5xf64>
  }
  return %r : tensor<5xf64>
}
func.func @growing_vjp_entry(%w: tensor<5xf64>, %c: tensor<5xf64>) -> tensor<5xf64> {
  %r, %dw = autodiff.vjp @growing(%w, %c) {wrt = array<i64: 0>} : (tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>)
  return %dw : tensor<5xf64>
}
// CHECK-LABEL: func.func @growing_vjp_0(
// CHECK:         %{{.*}}, %[[STACK:.*]] = scf.for {{.*}} -> (tensor<5xf64>, tensor<5x5xf64>) {
// CHECK:         } {autodiff.cache = {bytes = 200 : i64, values = 1 : i64}}
// CHECK:         scf.for
// CHECK:           %[[STATE:.*]] = tensor.extract_slice %[[STACK]][%{{.*}}, 0] [1, 5] [1, 1] : tensor<5x5xf64> to tensor<5xf64>
// CHECK-NEXT:      %[[N:.*]] = arith.addi
// CHECK-NEXT:      tensor.extract_slice %[[STATE]][0] [%[[N]]] [1] : tensor<5xf64> to tensor<?xf64>
