// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/scf_if.mlir (commit 00db5a1edfe212cd7395c166c2cbd638ec719221), https://github.com/EnzymeAD/Enzyme/blob/00db5a1edfe212cd7395c166c2cbd638ec719221/enzyme/test/MLIR/ReverseMode/scf_if.mlir
// What: nested scalar scf.if on two i1 arguments: x*x, or cos(x) + x, or 4 + x.
// Adaptations: kept only @nested_if of the split file (dropped @dnested_if with its enzyme.autodiff call, the second split and the CHECK lines); added the gradir entry @grad_nested_if (autodiff.grad wrt %arg0, as upstream's activity) below the marker.
// gradir-corpus: entry=nested_if wrt=0 reference=enzyme_nested_if inputs=enzyme_nested_if

func.func @nested_if(%arg0: f64, %arg1: i1, %arg2: i1) -> f64 {
  %cst = arith.constant 4.000000e+00 : f64
  %0 = scf.if %arg1 -> (f64) {
    %1 = arith.mulf %arg0, %arg0 : f64
    scf.yield %1 : f64
  } else {
    %1 = scf.if %arg2 -> (f64) {
      %3 = math.cos %arg0 : f64
      scf.yield %3 : f64
    } else {
      scf.yield %cst : f64
    }
    %2 = arith.addf %1, %arg0 : f64
    scf.yield %2 : f64
  }
  return %0 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_nested_if(%x: f64, %a: i1, %b: i1) -> f64 {
  %g = autodiff.grad @nested_if(%x, %a, %b) {wrt = array<i64: 0>} : (f64, i1, i1) -> f64
  return %g : f64
}
