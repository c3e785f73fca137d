// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/multiret2.mlir (commit 1b5a6d58408febc114278f73546018960cc5a47c), https://github.com/EnzymeAD/Enzyme/blob/1b5a6d58408febc114278f73546018960cc5a47c/enzyme/test/MLIR/ReverseMode/multiret2.mlir
// What: a scalar f64 chain through private callees, one with four results and one with two (sum and product), called several times (@helper four times inside @inner_1arg_4ret).
// Adaptations: removed the RUN/CHECK lines, the explicit `module {...}` and the @test wrapper (enzyme.autodiff); added the gradir entry @grad_outer (autodiff.grad) below the marker.
// gradir-corpus: entry=outer_to_diff wrt=0 reference=em_multiret2 inputs=signed

  func.func private @helper(%x: f64) -> f64 {
    %c = arith.constant 1.5 : f64
    %r = arith.mulf %x, %c : f64
    return %r : f64
  }

  func.func private @inner_1arg_4ret(%arg0: f64) -> (f64, f64, f64, f64) {
    %cst2 = arith.constant 2.0 : f64
    %cst3 = arith.constant 3.0 : f64
    %cst4 = arith.constant 4.0 : f64
    %cst5 = arith.constant 5.0 : f64
    %h1 = func.call @helper(%arg0) : (f64) -> f64
    %a = arith.mulf %h1, %cst2 : f64
    %h2 = func.call @helper(%a) : (f64) -> f64
    %b = arith.mulf %h2, %cst3 : f64
    %h3 = func.call @helper(%b) : (f64) -> f64
    %c = arith.addf %h3, %cst4 : f64
    %h4 = func.call @helper(%c) : (f64) -> f64
    %d = arith.mulf %h4, %cst5 : f64
    return %a, %b, %c, %d : f64, f64, f64, f64
  }

  func.func private @helper2(%x: f64, %y: f64) -> (f64, f64) {
    %sum = arith.addf %x, %y : f64
    %prod = arith.mulf %x, %y : f64
    return %sum, %prod : f64, f64
  }

  func.func @outer_to_diff(%arg0: f64) -> f64 {
    %prep = func.call @helper(%arg0) : (f64) -> f64
    %results:4 = func.call @inner_1arg_4ret(%prep) : (f64) -> (f64, f64, f64, f64)
    %h:2 = func.call @helper2(%results#0, %results#1) : (f64, f64) -> (f64, f64)
    %sum1 = arith.addf %h#0, %h#1 : f64
    %sum2 = arith.addf %sum1, %results#2 : f64
    %sum3 = arith.addf %sum2, %results#3 : f64
    return %sum3 : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_outer(%x: f64) -> f64 {
  %g = autodiff.grad @outer_to_diff(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
