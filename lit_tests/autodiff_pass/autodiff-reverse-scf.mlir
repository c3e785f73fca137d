// Reverse mode through scf.for and scf.if.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse | filecheck %s
// RUN: autodiff-opt %s --split-input-file -p 'autodiff-reverse{checkpoint-every=2}' | filecheck %s --check-prefix=CKPT

// A loop: the forward loop pushes the state (read by mul's gradient) and tanh's
// result (read by tanh's gradient) onto stacks; the reverse loop runs the
// iterations backwards reading them, carries the state's gradient and sums the
// loop-invariant weight's gradient in an iteration argument.
func.func @loop(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %a = autodiff.mul %acc, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t = autodiff.tanh %a : tensor<3xf32>
    scf.yield %t : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @dloop(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %g:2 = autodiff.grad @loop(%x, %w) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %g#0, %g#1 : tensor<3xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @loop_vjp_0_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>, %[[W:[^:]*]]: tensor<3xf32>, %[[CT:[^:]*]]: tensor<f32>)
// CHECK:         %[[EMPTY1:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[EMPTY2:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[Y:[^,]*]], %[[STATES:[^,]*]], %[[TANHS:[^ ]*]] = scf.for %[[I:[^ ]*]] = %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[X]], %[[S1:[^ ]*]] = %[[EMPTY1]], %[[S2:[^ ]*]] = %[[EMPTY2]]) -> (tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           %[[A:.*]] = autodiff.mul %[[ACC]], %[[W]]
// CHECK:           %[[T:.*]] = autodiff.tanh %[[A]]
// CHECK:           %[[P1:.*]] = tensor.insert_slice %[[ACC]] into %[[S1]][%{{.*}}, 0] [1, 3] [1, 1]
// CHECK:           %[[P2:.*]] = tensor.insert_slice %[[T]] into %[[S2]][%{{.*}}, 0] [1, 3] [1, 1]
// CHECK:           scf.yield %[[T]], %[[P1]], %[[P2]]
// CHECK:         } {autodiff.cache = {bytes = 96 : i64, values = 2 : i64}}
// CHECK:         %[[SEED:.*]] = autodiff.grad_of "autodiff.sum"(%[[CT]])
// CHECK:         %[[ZERO:.*]] = autodiff.autograd_zero : tensor<3xf32>
// CHECK:         %[[GX:[^,]*]], %[[GW:[^ ]*]] = scf.for %[[J:[^ ]*]] = %{{.*}} iter_args(%[[G:[^ ]*]] = %[[SEED]], %[[GACC:[^ ]*]] = %[[ZERO]])
// CHECK:           %[[K:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK-DAG:       %[[STATE:.*]] = tensor.extract_slice %[[STATES]][%[[K]], 0] [1, 3] [1, 1]
// CHECK-DAG:       %[[TANH:.*]] = tensor.extract_slice %[[TANHS]][%[[K]], 0] [1, 3] [1, 1]
// CHECK:           autodiff.grad_of "autodiff.tanh"(%[[G]])
// CHECK:             autodiff.mul %[[TANH]], %[[TANH]]
// CHECK:           %[[GSTATE:[^,]*]], %[[GWI:[^ ]*]] = autodiff.grad_of "autodiff.mul"
// CHECK:             autodiff.mul %{{.*}}, %[[W]]
// CHECK:             autodiff.mul %{{.*}}, %[[STATE]]
// CHECK:           %[[SUM:.*]] = autodiff.autograd_add %[[GACC]], %[[GWI]]
// CHECK:           scf.yield %[[GSTATE]], %[[SUM]]
// CHECK:         func.return %{{.*}}, %[[GX]], %[[GW]]

// With checkpoint-every=2 the forward loop saves only its state, at the first
// iteration of each segment (3 entries: 2 segments and a scratch entry), and
// the reverse loop over segments recomputes each with a caching copy.
// CKPT-LABEL: func.func @loop_vjp_0_1(
// CKPT:         scf.for
// CKPT:           arith.remui
// CKPT:           arith.select
// CKPT:           tensor.insert_slice %{{.*}} into %{{.*}} [1, 3] [1, 1] : tensor<3xf32> into tensor<3x3xf32>
// CKPT:         } {autodiff.cache = {bytes = 36 : i64, values = 1 : i64}}
// CKPT:         scf.for
// CKPT:           tensor.extract_slice %{{.*}} : tensor<3x3xf32> to tensor<3xf32>
// CKPT:           scf.for
// CKPT:           } {autodiff.cache = {bytes = 48 : i64, values = 2 : i64}}
// CKPT:           scf.for

// -----

// A branch: the reverse is an scf.if on the same condition; the taken branch
// recomputes its forward values and reverses them, the other passes the
// gradient through.
func.func @branch(%x: tensor<3xf32>, %c: i1) -> tensor<f32> {
  %y = scf.if %c -> (tensor<3xf32>) {
    %e = autodiff.exp %x : tensor<3xf32>
    scf.yield %e : tensor<3xf32>
  } else {
    scf.yield %x : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @dbranch(%x: tensor<3xf32>, %c: i1) -> tensor<3xf32> {
  %g = autodiff.grad @branch(%x, %c) {wrt = array<i64: 0>} : (tensor<3xf32>, i1) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
// CHECK-LABEL: func.func @branch_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>, %[[C:[^:]*]]: i1, %[[CT:[^:]*]]: tensor<f32>)
// CHECK:         %[[SEED:.*]] = autodiff.grad_of "autodiff.sum"(%[[CT]])
// CHECK:         %[[G:.*]] = scf.if %[[C]] -> (tensor<3xf32>) {
// CHECK:           %[[E:.*]] = autodiff.exp %[[X]]
// CHECK:           %[[GE:.*]] = autodiff.grad_of "autodiff.exp"(%[[SEED]])
// CHECK:             autodiff.mul %{{.*}}, %[[E]]
// CHECK:           scf.yield %[[GE]]
// CHECK:         } else {
// CHECK:           scf.yield %[[SEED]]
// CHECK:         }
// CHECK:         func.return %{{.*}}, %[[G]]

// -----

// A float loop state that never meets a differentiated argument (a decay factor
// updated by an op with no rule) is inactive across iterations: neither cached
// nor carried by the reverse loop. Only the decay (read by mul's gradient of
// the state) and sin's input are cached; the state itself is not (its gradient
// would only serve the decay's).
func.func @decay(%x: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d0 = arith.constant dense<0.5> : tensor<3xf32>
  %y:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x, %d = %d0) -> (tensor<3xf32>, tensor<3xf32>) {
    %a = autodiff.mul %acc, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s = autodiff.sin %a : tensor<3xf32>
    %dn = "test.op"(%d) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %s, %dn : tensor<3xf32>, tensor<3xf32>
  }
  %r = autodiff.sum %y#0 : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @ddecay(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = autodiff.grad @decay(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
// CHECK-LABEL: func.func @decay_vjp_0(
// CHECK:         %[[EMPTY1:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         %[[EMPTY2:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[D:[^ ]*]] = %{{.*}}, %[[S1:[^ ]*]] = %[[EMPTY1]], %[[S2:[^ ]*]] = %[[EMPTY2]]) -> (tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:           %[[A:.*]] = autodiff.mul %[[ACC]], %[[D]]
// CHECK:           tensor.insert_slice %[[D]] into %[[S1]]
// CHECK:           tensor.insert_slice %[[A]] into %[[S2]]
// CHECK:         } {autodiff.cache = {bytes = 96 : i64, values = 2 : i64}}
// CHECK:         scf.for %{{.*}} iter_args(%{{[^ ]*}} = %{{[^ ]*}}) -> (tensor<3xf32>)
// CHECK-NOT:       test.op
// CHECK:           autodiff.grad_of "autodiff.sin"
// CHECK:           autodiff.grad_of "autodiff.mul"
// CHECK:         func.return

// -----

// A function returning a cached loop's result directly: the rule rebuilds the
// loop with its stack as one more result, and the vjp returns the new loop's
// result (it used to return the erased loop's, a value of no function).
func.func @returned(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %t = autodiff.tanh %a : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func @dreturned(%x: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %r:2 = autodiff.vjp @returned(%x, %ct) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>
}
// CHECK-LABEL: func.func @returned_vjp_0(
// CHECK:         %[[R:[^,]*]], %[[STACK:[^ ]*]] = scf.for
// CHECK:         } {autodiff.cache = {bytes = 48 : i64, values = 1 : i64}}
// CHECK:         %[[G:.*]] = scf.for
// CHECK:           tensor.extract_slice %[[STACK]]
// CHECK:         func.return %[[R]], %[[G]] : tensor<3xf64>, tensor<3xf64>

// -----

// A float scalar state: its stacks are vectors (`tensor.insert` at the
// iteration, `tensor.extract` back), the loop-invariant scalar weight's
// gradient is summed in a scalar iteration argument of the reverse loop.
func.func @scalar_loop(%x: f64, %w: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> f64 {
    %m = arith.mulf %a, %w : f64
    %s = math.sin %m : f64
    scf.yield %s : f64
  }
  return %y : f64
}
func.func @dscalar_loop(%x: f64, %w: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @scalar_loop(%x, %w) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
// CHECK-LABEL: func.func @scalar_loop_vjp_0_1(
// CHECK-SAME:    %[[X:[^:]*]]: f64, %[[W:[^:]*]]: f64, %[[CT:[^:]*]]: f64)
// CHECK:         %[[Y:[^,]*]], %[[AS:[^,]*]], %[[MS:[^ ]*]] = scf.for %{{.*}} iter_args(%[[A:[^ ]*]] = %[[X]], %[[S1:[^ ]*]] = %{{.*}}, %[[S2:[^ ]*]] = %{{.*}}) -> (f64, tensor<4xf64>, tensor<4xf64>)
// CHECK:           %[[M:.*]] = arith.mulf %[[A]], %[[W]] : f64
// CHECK:           tensor.insert %[[A]] into %[[S1]][%{{.*}}] : tensor<4xf64>
// CHECK:           tensor.insert %[[M]] into %[[S2]][%{{.*}}] : tensor<4xf64>
// CHECK:         } {autodiff.cache = {bytes = 64 : i64, values = 2 : i64}}
// CHECK:         %[[ZERO:.*]] = autodiff.autograd_zero : f64
// CHECK:         %[[GX:[^,]*]], %[[GW:[^ ]*]] = scf.for %{{.*}} iter_args(%[[G:[^ ]*]] = %[[CT]], %[[GACC:[^ ]*]] = %[[ZERO]]) -> (f64, f64)
// CHECK:           %[[AK:.*]] = tensor.extract %[[AS]][%{{.*}}] : tensor<4xf64>
// CHECK:           %[[MK:.*]] = tensor.extract %[[MS]][%{{.*}}] : tensor<4xf64>
// CHECK:           autodiff.grad_of "math.sin"(%[[G]])
// CHECK:             math.cos %[[MK]]
// CHECK:           %{{.*}}, %[[GWI:[^ ]*]] = autodiff.grad_of "arith.mulf"
// CHECK:             arith.mulf %{{.*}}, %[[AK]]
// CHECK:           autodiff.autograd_add %[[GACC]], %[[GWI]] : f64
// CHECK:         func.return %[[Y]], %[[GX]], %[[GW]] : f64, f64, f64

// -----

// An active scalar read inside a branch from outside (the branch reads x, which
// is not its operand): the reverse scf.if yields x's gradient, zero in the
// branch that does not read it.
func.func @captured_scalar(%x: f64, %c: i1) -> f64 {
  %r = scf.if %c -> (f64) {
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  } else {
    %two = arith.constant 2.0 : f64
    scf.yield %two : f64
  }
  return %r : f64
}
func.func @dcaptured_scalar(%x: f64, %c: i1) -> f64 {
  %g = autodiff.grad @captured_scalar(%x, %c) {wrt = array<i64: 0>} : (f64, i1) -> f64
  return %g : f64
}
// CHECK-LABEL: func.func @captured_scalar_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: f64, %[[C:[^:]*]]: i1, %[[CT:[^:]*]]: f64)
// CHECK:         %[[R:.*]] = scf.if %[[C]] -> (f64) {
// CHECK:         %[[G:.*]] = scf.if %[[C]] -> (f64) {
// CHECK:           %[[GA:[^,]*]], %[[GB:[^ ]*]] = autodiff.grad_of "arith.mulf"(%[[CT]])
// CHECK:           %[[SUM:.*]] = autodiff.autograd_add %[[GA]], %[[GB]] : f64
// CHECK:           scf.yield %[[SUM]] : f64
// CHECK:         } else {
// CHECK:           %[[Z:.*]] = autodiff.autograd_zero : f64
// CHECK:           scf.yield %[[Z]] : f64
// CHECK:         }
// CHECK:         func.return %[[R]], %[[G]] : f64, f64

// -----

// Bounds known only at run time: the trip count max(ub - lb, 0) / step is
// computed before the loop and sizes the stacks (tensor<?x3xf32>), which
// record their bytes per iteration; the reverse loop runs that many times.
func.func @dynamic(%x: tensor<3xf32>, %n: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %a = autodiff.tanh %acc : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @ddynamic(%x: tensor<3xf32>, %n: index) -> tensor<3xf32> {
  %g = autodiff.grad @dynamic(%x, %n) : (tensor<3xf32>, index) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
// CHECK-LABEL: func.func @dynamic_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>, %[[N:[^:]*]]: index, %[[CT:[^:]*]]: tensor<f32>)
// CHECK:         %[[SPAN:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[SPAN]]) : tensor<?x3xf32>
// CHECK:         %{{.*}}, %[[TANHS:[^ ]*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[X]], %[[S:[^ ]*]] = %[[EMPTY]]) -> (tensor<3xf32>, tensor<?x3xf32>)
// CHECK:           tensor.insert_slice %{{.*}} into %[[S]][%{{.*}}, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<?x3xf32>
// CHECK:         } {autodiff.cache = {bytes_per_iteration = 12 : i64, values = 1 : i64}}
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[SPAN]] step
// CHECK:           tensor.extract_slice %[[TANHS]][%{{.*}}, 0] [1, 3] [1, 1] : tensor<?x3xf32> to tensor<3xf32>
// CKPT-LABEL: func.func @dynamic_vjp_0(
// CKPT:         %[[SPAN:.*]] = arith.maxsi
// CKPT:         %[[SEGMENTS:.*]] = arith.divui
// CKPT:         %[[SAVED:.*]] = arith.addi %[[SEGMENTS]]
// CKPT:         tensor.empty(%[[SAVED]]) : tensor<?x3xf32>
// CKPT:         } {autodiff.cache = {bytes_per_iteration = 12 : i64, values = 1 : i64}}
// CKPT:         scf.for %{{.*}} = %{{.*}} to %[[SEGMENTS]] step
// CKPT:           arith.minui
// CKPT:           tensor.empty() : tensor<2x3xf32>
// CKPT:           } {autodiff.cache = {bytes = 24 : i64, values = 1 : i64}}

// -----

// A weight read after the loop too: the reversed loop's sum of its gradient starts
// from the gradient it already has, and a reversed loop nested in it sums into the
// outer loop's running sum, which the outer loop yields as it is (no sum from zero
// added to the running one afterwards, a whole weight's size per outer iteration).
func.func @running_sum(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%outer = %x) -> (tensor<3xf32>) {
    %z = scf.for %j = %c0 to %c2 step %c1 iter_args(%inner = %outer) -> (tensor<3xf32>) {
      %a = autodiff.mul %inner, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %t = autodiff.tanh %a : tensor<3xf32>
      scf.yield %t : tensor<3xf32>
    }
    scf.yield %z : tensor<3xf32>
  }
  %b = autodiff.mul %y, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = autodiff.sum %b : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @drunning_sum(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  %g = autodiff.grad @running_sum(%x, %w) {wrt = array<i64: 1>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
// CHECK-LABEL: func.func @running_sum_vjp_1(
// CHECK:         %[[GY:[^,]*]], %[[GW_AFTER:[^ ]*]] = autodiff.grad_of "autodiff.mul"
// CHECK:         %{{.*}}, %[[GW:[^ ]*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[GY]], %[[OUTER_SUM:[^ ]*]] = %[[GW_AFTER]])
// CHECK:           %[[GZ:[^,]*]], %[[INNER_RESULT:[^ ]*]] = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[INNER_SUM:[^ ]*]] = %[[OUTER_SUM]])
// CHECK:             %{{.*}}, %[[GWI:[^ ]*]] = autodiff.grad_of "autodiff.mul"
// CHECK:             %[[SUM:.*]] = autodiff.autograd_add %[[INNER_SUM]], %[[GWI]]
// CHECK:             scf.yield %{{.*}}, %[[SUM]]
// CHECK:           scf.yield %[[GZ]], %[[INNER_RESULT]]
// CHECK:         func.return %{{.*}}, %[[GW]]
