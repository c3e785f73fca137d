// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/arith.mlir (commit 0e0d4e8c20f91b8381b5a4311bc36024a3172774), https://github.com/EnzymeAD/Enzyme/blob/0e0d4e8c20f91b8381b5a4311bc36024a3172774/enzyme/test/MLIR/ReverseMode/arith.mlir
// What: scalar arith.select on an i1 argument between two f64 arguments.
// Adaptations: kept only @select of the split file (dropped its enzyme.autodiff wrapper @dselect, the other splits and the CHECK lines); added the gradir entry @vjp_select (autodiff.vjp wrt %a and %b; the condition is constant, as upstream's enzyme_const) below the marker.
// gradir-corpus: entry=select wrt=1,2 reference=em_select inputs=em_cond_true

func.func @select(%c: i1, %a: f64, %b: f64) -> f64 {
  %res = arith.select %c, %a, %b : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_select(%c: i1, %a: f64, %b: f64, %ct: f64) -> (f64, f64, f64) {
  %r:3 = autodiff.vjp @select(%c, %a, %b, %ct) {wrt = array<i64: 1, 2>} : (i1, f64, f64, f64) -> (f64, f64, f64)
  return %r#0, %r#1, %r#2 : f64, f64, f64
}
