// affine.for in both modes: the rule builds the scf.for it stands for (bound
// maps expanded to arith, min/max of their results) and differentiates that.
// RUN: autodiff-opt %s -p autodiff-reverse | filecheck %s --check-prefix=REV
// RUN: autodiff-opt %s -p autodiff-forward | filecheck %s --check-prefix=FWD

// x^min(8, n) (Enzyme-MLIR's affine_for.mlir, with a symbol bound); an
// affine.apply in the body computes an index and needs no rule.
func.func @reduce(%x: f64, %n: index, %w: tensor<16xf64>) -> f64 {
  %one = arith.constant 1.0 : f64
  %p = affine.for %i = 0 to min affine_map<()[s0] -> (8, s0)>()[%n] iter_args(%acc = %one) -> (f64) {
    %k = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %wk = tensor.extract %w[%k] : tensor<16xf64>
    %m = arith.mulf %acc, %x : f64
    %next = arith.addf %m, %wk : f64
    affine.yield %next : f64
  }
  return %p : f64
}
func.func @dreduce(%x: f64, %n: index, %w: tensor<16xf64>) -> f64 {
  %g = autodiff.grad @reduce(%x, %n, %w) {wrt = array<i64: 0>} : (f64, index, tensor<16xf64>) -> f64
  return %g : f64
}
func.func @jreduce(%x: f64, %n: index, %w: tensor<16xf64>, %t: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @reduce(%x, %n, %w, %t) {wrt = array<i64: 0>} : (f64, index, tensor<16xf64>, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}
// REV-LABEL: func.func @reduce_vjp_0(
// REV-SAME:    %[[X:[^:]*]]: f64, %[[N:[^:]*]]: index, %[[W:[^:]*]]: tensor<16xf64>, %[[CT:[^:]*]]: f64)
// REV:         %[[UB:.*]] = arith.minsi %{{.*}}, %[[N]] : index
// REV:         %[[TRIPS:.*]] = arith.maxsi %[[UB]], %{{.*}} : index
// REV:         %[[EMPTY:.*]] = tensor.empty(%[[TRIPS]]) : tensor<?xf64>
// REV:         %[[P:[^,]*]], %[[STACK:[^ ]*]] = scf.for %[[I:[^ ]*]] = %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[S:[^ ]*]] = %[[EMPTY]]) -> (f64, tensor<?xf64>)
// REV:           affine.apply
// REV:           tensor.insert %[[ACC]] into %[[S]][%[[I]]] : tensor<?xf64>
// REV:           scf.yield
// REV:         } {autodiff.cache = {bytes_per_iteration = 8 : i64, values = 1 : i64}}
// REV-NOT:     affine.for
// REV:         %[[GX:[^,]*]], %[[GXS:[^ ]*]] = scf.for %{{.*}} to %[[TRIPS]] step %{{.*}} iter_args(%{{.*}} = %[[CT]], %{{.*}} = %{{.*}}) -> (f64, f64)
// REV:           tensor.extract %[[STACK]]
// REV:           autodiff.grad_of "arith.addf"
// REV:           autodiff.grad_of "arith.mulf"
// REV:         func.return %[[P]], %[[GXS]] : f64, f64

// FWD-LABEL: func.func @reduce_jvp_0(
// FWD-SAME:    %[[X:[^:]*]]: f64, %[[N:[^:]*]]: index, %[[W:[^:]*]]: tensor<16xf64>, %[[T:[^:]*]]: f64)
// FWD:         %[[UB:.*]] = arith.minsi %{{.*}}, %[[N]] : index
// FWD:         %[[Z:.*]] = autodiff.autograd_zero : f64
// FWD:         %[[P:[^,]*]], %[[TP:[^ ]*]] = scf.for %{{.*}} to %[[UB]] step %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[TACC:[^ ]*]] = %[[Z]]) -> (f64, f64)
// FWD:           %[[M:.*]] = arith.mulf %[[ACC]], %[[X]] : f64
// FWD:           arith.mulf %[[TACC]], %[[X]] : f64
// FWD:           arith.mulf %[[ACC]], %[[T]] : f64
// FWD:           scf.yield
// FWD-NOT:     affine.for
// FWD:         func.return %[[P]], %[[TP]] : f64, f64
