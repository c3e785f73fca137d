// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/multiret.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/multiret.mlir
// What: three results of three types, x*x (f64), y*y (i32, inactive) and z*z (f32).
// Adaptations: removed the RUN/CHECK lines, the explicit `module {...}` and the @dsquare/@dsquare2 wrappers (enzyme.autodiff); added the gradir entry @vjp_square (autodiff.vjp wrt %x and %z, as upstream's activities; the i32 result gets a cotangent operand like the others) below the marker.
// gradir-corpus: entry=square wrt=0,2 reference=em_multiret_mixed

  func.func @square(%x: f64, %y : i32, %z : f32) -> (f64, i32, f32) {
    %x2 = arith.mulf %x, %x : f64
    %y2 = arith.muli %y, %y : i32
    %z2 = arith.mulf %z, %z : f32
    return %x2, %y2, %z2 : f64, i32, f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_square(%x: f64, %y: i32, %z: f32, %dx: f64, %dy: i32, %dz: f32) -> (f64, i32, f32, f64, f32) {
  %r:5 = autodiff.vjp @square(%x, %y, %z, %dx, %dy, %dz) {wrt = array<i64: 0, 2>} : (f64, i32, f32, f64, i32, f32) -> (f64, i32, f32, f64, f32)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : f64, i32, f32, f64, f32
}
