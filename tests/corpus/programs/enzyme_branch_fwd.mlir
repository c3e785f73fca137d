// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/branch.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/branch.mlir
// What: a cf.cond_br on x < y into one block with x or y as its argument: min(x, y) written with branches between blocks (named @square upstream).
// Adaptations: removed the explicit `module {...}`, the @dsq wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_square (autodiff.jvp, as upstream's fwddiff) and @grad_square (autodiff.grad) below the marker.
// gradir-corpus: entry=square wrt=0,1 reference=enzyme_branch

  func.func @square(%x : f64, %y : f64) -> f64 {
    %c = arith.cmpf ult, %x, %y : f64
    cf.cond_br %c, ^blk2(%x : f64), ^blk2(%y : f64)

   ^blk2(%r : f64):
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_square(%x: f64, %y: f64, %dx: f64, %dy: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @square(%x, %y, %dx, %dy) {wrt = array<i64: 0, 1>} : (f64, f64, f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_square(%x: f64, %y: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @square(%x, %y) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
