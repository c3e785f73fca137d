// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/branch-self-recursive.mlir (commit 71c09be114be63c3acd015eba60c955714f7e8c0), https://github.com/EnzymeAD/Enzyme/blob/71c09be114be63c3acd015eba60c955714f7e8c0/enzyme/test/MLIR/ForwardMode/branch-self-recursive.mlir
// What: a block that branches back to itself while x < y (named @infinite upstream: it never ends where x < y) and returns its argument + 1, the argument being x.
// Adaptations: removed the explicit `module {...}`, the @dsq wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_infinite (autodiff.jvp, as upstream's fwddiff) and @grad_infinite (autodiff.grad) below the marker. Inputs with x >= y (`inputs=descending`), where the loop ends.
// gradir-corpus: entry=infinite wrt=0,1 reference=enzyme_branch_self_recursive inputs=descending

  func.func @infinite(%x : f64, %y : f64) -> f64 {
    cf.br ^bb1(%x: f64)

  ^bb1(%r: f64):
    %c1 = arith.constant 1.0 : f64
    %sum = arith.addf %r, %c1 : f64
    %c = arith.cmpf ult, %x, %y : f64
    cf.cond_br %c, ^bb1(%r : f64), ^bb2

   ^bb2:
    return %sum : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_infinite(%x: f64, %y: f64, %dx: f64, %dy: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @infinite(%x, %y, %dx, %dy) {wrt = array<i64: 0, 1>} : (f64, f64, f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_infinite(%x: f64, %y: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @infinite(%x, %y) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
