// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/if1.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/if1.mlir
// What: scalar scf.if on an i1 argument with two results: (x*x) * 2 or (x+x) * 10 (named @square upstream).
// Adaptations: removed the explicit `module {...}`, the @dsq wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_square (autodiff.jvp, as upstream's fwddiff) and @grad_square (autodiff.grad) below the marker.
// gradir-corpus: entry=square wrt=0 reference=enzyme_if1 inputs=enzyme_if1

  func.func @square(%x : f64, %c : i1) -> f64 {
    %c2 = arith.constant 2.000000e+00 : f64
    %c10 = arith.constant 10.000000e+00 : f64
    %r:2 = scf.if %c -> (f64, f64) {
       %mul = arith.mulf %x, %x : f64
       scf.yield %mul, %c2 : f64, f64
    } else {
       %add = arith.addf %x, %x : f64
       scf.yield %add, %c10 : f64, f64
    }
    %res = arith.mulf %r#0, %r#1 : f64
    return %res : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_square(%x: f64, %c: i1, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @square(%x, %c, %dx) {wrt = array<i64: 0>} : (f64, i1, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_square(%x: f64, %c: i1) -> f64 {
  %g = autodiff.grad @square(%x, %c) {wrt = array<i64: 0>} : (f64, i1) -> f64
  return %g : f64
}
