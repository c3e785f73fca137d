// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/while.mlir (commit 100fe8b5258badfa0f0c07b8fc5495cb14528935), https://github.com/EnzymeAD/Enzyme/blob/100fe8b5258badfa0f0c07b8fc5495cb14528935/enzyme/test/MLIR/ForwardMode/while.mlir
// What: scf.while adding the scalar argument x to an f64 accumulator ten times (counter < 10), starting from 10.0.
// Adaptations: removed the explicit `module {...}`, the @dwhile wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_while (autodiff.jvp, as upstream's fwddiff) and @grad_while (autodiff.grad) below the marker.
// gradir-corpus: entry=while wrt=0 reference=enzyme_while_fwd

func.func @while(%x : f64) -> f64 {
  %cst = arith.constant 10.000000e+00 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index

  %r:2 = scf.while (%arg1 = %c0, %arg2 = %cst) : (index, f64) -> (index, f64) {
    %1 = arith.cmpi slt, %arg1, %c10 : index
    scf.condition(%1) %arg1, %arg2 : index, f64
  } do {
  ^bb0(%arg1: index, %arg2: f64):
    %1 = arith.addi %arg1, %c1 : index
    %2 = arith.addf %arg2, %x : f64
    scf.yield %1, %2 : index, f64
  }
  return %r#1 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_while(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @while(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_while(%x: f64) -> f64 {
  %g = autodiff.grad @while(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
