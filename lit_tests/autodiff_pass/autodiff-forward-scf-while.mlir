// Forward mode through scf.while: one more `before` argument per active
// `before` argument, one more forwarded value / `after` argument / result per
// active `after` argument; each region gets the tangent code of its ops.
// RUN: autodiff-opt %s -p autodiff-forward | filecheck %s

// `before` forwards sin(a), so the `after` arguments differ from the `before`
// ones; the counter gets no tangent; x is read inside `after` from outside.
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
func.func @jwhile(%x: f64, %n: index, %t: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @while(%x, %n, %t) {wrt = array<i64: 0>} : (f64, index, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}
// CHECK-LABEL: func.func @while_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: f64, %[[N:[^:]*]]: index, %[[T:[^:]*]]: f64)
// CHECK:         %{{.*}}, %[[R:[^,]*]], %[[TR:[^ ]*]] = scf.while (%[[I:[^ ]*]] = %{{.*}}, %[[A:[^ ]*]] = %[[X]], %[[TA:[^ ]*]] = %[[T]]) : (index, f64, f64) -> (index, f64, f64) {
// CHECK:           %[[S:.*]] = math.sin %[[A]] : f64
// CHECK:           %[[COS:.*]] = math.cos %[[A]] : f64
// CHECK:           %[[TS:.*]] = arith.mulf %[[TA]], %[[COS]] : f64
// CHECK:           scf.condition(%{{.*}}) %[[I]], %[[S]], %[[TS]] : index, f64, f64
// CHECK:         } do {
// CHECK:         ^bb0(%{{.*}}: index, %[[B:[^:]*]]: f64, %[[TB:[^:]*]]: f64):
// CHECK:           %[[M:.*]] = arith.mulf %[[B]], %[[X]] : f64
// CHECK:           %[[TM1:.*]] = arith.mulf %[[TB]], %[[X]] : f64
// CHECK:           %[[TM2:.*]] = arith.mulf %[[B]], %[[T]] : f64
// CHECK:           %[[TM:.*]] = arith.addf %[[TM1]], %[[TM2]] : f64
// CHECK:           scf.yield %{{.*}}, %[[M]], %[[TM]] : index, f64, f64
// CHECK:         }
// CHECK:         func.return %[[R]], %[[TR]] : f64, f64

// A tensor state whose condition reads it.
func.func @converge(%x: tensor<3xf64>) -> tensor<3xf64> {
  %bound = arith.constant 10.0 : f64
  %r = scf.while (%h = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %s = autodiff.sum %h : tensor<3xf64> -> tensor<f64>
    %total = tensor.extract %s[] : tensor<f64>
    %go = arith.cmpf olt, %total, %bound : f64
    scf.condition(%go) %h : tensor<3xf64>
  } do {
  ^bb0(%g: tensor<3xf64>):
    %e = autodiff.exp %g : tensor<3xf64>
    scf.yield %e : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func @jconverge(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %r:2 = autodiff.jvp @converge(%x, %t) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>
}
// CHECK-LABEL: func.func @converge_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[T:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[R:[^,]*]], %[[TR:[^ ]*]] = scf.while (%[[H:[^ ]*]] = %[[X]], %[[TH:[^ ]*]] = %[[T]]) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
// CHECK:           scf.condition(%{{.*}}) %[[H]], %[[TH]] : tensor<3xf64>, tensor<3xf64>
// CHECK:         } do {
// CHECK:         ^bb0(%[[G:[^:]*]]: tensor<3xf64>, %[[TG:[^:]*]]: tensor<3xf64>):
// CHECK:           %[[E:.*]] = autodiff.exp %[[G]]
// CHECK:           %[[TE:.*]] = autodiff.mul %[[TG]], %[[E]]
// CHECK:           scf.yield %[[E]], %[[TE]] : tensor<3xf64>, tensor<3xf64>
// CHECK:         func.return %[[R]], %[[TR]]
