// Reverse mode through scf.while: a counting copy (only what the condition
// needs, plus a counter) gives the trip count N; then the first `before` and an
// scf.for running `after` then `before` N times replace the loop, and that
// scf.for is reversed like any loop with run-time bounds.
// RUN: autodiff-opt %s -p autodiff-reverse | filecheck %s
// RUN: autodiff-opt %s -p 'autodiff-reverse{checkpoint-every=2}' | filecheck %s --check-prefix=CKPT

func.func @while(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, f64) -> (index, f64) {
    %go = arith.cmpi slt, %i, %n : index
    %s = math.sin %a : f64
    scf.condition(%go) %i, %s : index, f64
  } do {
  ^bb0(%j: index, %b: f64):
    %next = arith.addi %j, %c1 : index
    %m = arith.mulf %b, %x : f64
    scf.yield %next, %m : index, f64
  }
  return %r#1 : f64
}
func.func @dwhile(%x: f64, %n: index) -> f64 {
  %g = autodiff.grad @while(%x, %n) {wrt = array<i64: 0>} : (f64, index) -> f64
  return %g : f64
}
// CHECK-LABEL: func.func @while_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: f64, %[[N:[^:]*]]: index, %[[CT:[^:]*]]: f64)
// The counting copy: the index state the condition reads and the counter.
// CHECK:         %{{.*}}, %[[TRIPS:[^ ]*]] = scf.while (%[[I:[^ ]*]] = %{{.*}}, %[[K:[^ ]*]] = %{{.*}}) : (index, index) -> (index, index) {
// CHECK-NOT:       math.sin
// CHECK:           arith.cmpi slt, %[[I]], %[[N]] : index
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK-NOT:       arith.mulf
// CHECK:           scf.yield
// CHECK:         }
// The first `before`, then the counted loop caching what the backward reads.
// CHECK:         %[[S0:.*]] = math.sin %[[X]] : f64
// CHECK:         %[[CAP:.*]] = arith.maxsi %[[TRIPS]]
// CHECK:         tensor.empty(%[[CAP]]) : tensor<?xf64>
// CHECK:         %{{.*}}, %[[R:[^,]*]], %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[TRIPS]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[B:[^ ]*]] = %[[S0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (index, f64, tensor<?xf64>, tensor<?xf64>)
// CHECK:           %[[M:.*]] = arith.mulf %[[B]], %[[X]] : f64
// CHECK:           math.sin %[[M]] : f64
// CHECK:           tensor.insert %[[B]]
// CHECK:           tensor.insert %[[M]]
// CHECK:         } {autodiff.cache = {bytes_per_iteration = 16 : i64, values = 2 : i64}}
// The reverse loop from N-1 down to 0, then the first `before` reversed.
// CHECK:         %[[GB:[^,]*]], %[[GX:[^ ]*]] = scf.for %{{.*}} = %{{.*}} to %[[CAP]] step %{{.*}} iter_args(%{{.*}} = %[[CT]], %{{.*}} = %{{.*}}) -> (f64, f64)
// CHECK:           autodiff.grad_of "math.sin"
// CHECK:           autodiff.grad_of "arith.mulf"
// CHECK:         }
// CHECK:         math.sin %[[X]]
// CHECK:         %[[G0:.*]] = autodiff.grad_of "math.sin"(%[[GB]])
// CHECK:         %[[G:.*]] = autodiff.autograd_add %[[GX]], %[[G0]] : f64
// CHECK:         func.return %[[R]], %[[G]] : f64, f64

// With checkpointing, the counted loop saves its state every 2 iterations.
// CKPT-LABEL: func.func @while_vjp_0(
// CKPT:         scf.while
// CKPT:         scf.for
// CKPT:           arith.remui
// CKPT:         } {autodiff.cache = {bytes_per_iteration = 16 : i64, values = 2 : i64}}
// CKPT:         scf.for
// CKPT:           scf.for
// CKPT:           } {autodiff.cache = {bytes = 32 : i64, values = 2 : i64}}
