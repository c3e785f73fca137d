// Source: pengmai/lagrad test/LAGrad/ifelse.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/ifelse.mlir
// What: scalar scf.if on a comparison of the two arguments (`arith.cmpf "oge"`, unparenthesised `scf.if ... -> f64`), different products per branch.
// Adaptations: kept only @ifsecondarg of the file's three functions; `func` -> `func.func`; dropped @main, @print and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_ifsecondarg (autodiff.grad) below the marker.
// gradir-corpus: entry=ifsecondarg wrt=0,1 reference=ifsecondarg

func.func @ifsecondarg(%arg0: f64, %arg1: f64) -> f64 {
  %cst = arith.constant 3.4 : f64
  %0 = arith.cmpf "oge", %arg0, %arg1 : f64
  %1 = arith.mulf %cst, %arg1 : f64
  %2 = scf.if %0 -> f64 {
    %3 = arith.mulf %arg0, %arg1: f64
    scf.yield %3 : f64
  } else {
    %3 = arith.mulf %1, %arg1 : f64
    %4 = arith.mulf %cst, %3 : f64
    scf.yield %4 : f64
  }
  %5 = arith.mulf %2, %cst : f64
  return %5 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_ifsecondarg(%a: f64, %b: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @ifsecondarg(%a, %b) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
