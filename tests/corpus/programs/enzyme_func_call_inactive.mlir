// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/func.mlir (commit 060f995fa25ede94e9832756f82887909ffc4c08), https://github.com/EnzymeAD/Enzyme/blob/060f995fa25ede94e9832756f82887909ffc4c08/enzyme/test/MLIR/ReverseMode/func.mlir
// What: x*x through a call, plus the f32 result of a second callee that takes (f32, i32) and returns constants (f32, i32), its i32 result unused.
// Adaptations: removed the RUN/CHECK lines (upstream differentiates with --enzyme-wrap, no entry op in the file) and the explicit `module {...}`; added the gradir entry @grad_main (autodiff.grad, as upstream's argTys=enzyme_active) below the marker.
// gradir-corpus: entry=main wrt=0 reference=em_square_plus_42 inputs=signed

    func.func @square(%arg0: f32) -> f32 {
        %0 = arith.mulf %arg0, %arg0 : f32
        return %0 : f32
    }

    func.func @inactive(%arg0: f32, %arg1: i32) -> (f32, i32) {
        %0 = arith.constant 42.0 : f32
        %1 = arith.constant 42 : i32
        return %0, %1 : f32, i32
    }

    func.func @main(%arg0: f32) -> f32 {
        %0 = func.call @square(%arg0) : (f32) -> f32
        %1 = arith.constant 10 : i32
        %2:2 = func.call @inactive(%arg0, %1) : (f32, i32) -> (f32, i32)
        %3 = arith.addf %0, %2#0 : f32
        return %3 : f32
    }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%x: f32) -> f32 {
  %g = autodiff.grad @main(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
