// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/custom_rule_tensor.mlir (commit 5b82b8bdaaa4800b53a16cf7cf3e9bee9934e8f1), https://github.com/EnzymeAD/Enzyme/blob/5b82b8bdaaa4800b53a16cf7cf3e9bee9934e8f1/enzyme/test/MLIR/ReverseMode/custom_rule_tensor.mlir
// What: an scf.for of three iterations whose tensor<4xf64> state is multiplied elementwise by a loop-invariant tensor through a call of a private function: x * a^3.
// Adaptations: kept only the third split (the loop; dropped the first two splits and the CHECK lines); dropped the enzyme.custom_reverse_rule @mul_rule (Enzyme's own dialect, whose reverse deliberately doubles the x cotangent to show it is used) and the {enzyme.custom_rule = @mul_rule} attribute of @mul, so the corpus checks the true derivative of the primal; removed the explicit `module {...}` and the @main wrapper (enzyme.autodiff); added the gradir entry @vjp_outer (autodiff.vjp wrt both, as upstream's activities) below the marker.
// gradir-corpus: entry=outer wrt=0,1 reference=em_custom_rule_tensor_loop inputs=signed

  func.func private @mul(%a: tensor<4xf64>, %x: tensor<4xf64>) -> tensor<4xf64> {
    %y = arith.mulf %a, %x : tensor<4xf64>
    return %y : tensor<4xf64>
  }

  func.func @outer(%a: tensor<4xf64>, %x: tensor<4xf64>) -> tensor<4xf64> {
    %lb = arith.constant 0 : index
    %ub = arith.constant 3 : index
    %step = arith.constant 1 : index
    %r = scf.for %iv = %lb to %ub step %step iter_args(%xi = %x) -> (tensor<4xf64>) {
      %y = func.call @mul(%a, %xi) : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
      scf.yield %y : tensor<4xf64>
    }
    return %r : tensor<4xf64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_outer(%a: tensor<4xf64>, %x: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %r:3 = autodiff.vjp @outer(%a, %x, %ct) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}
