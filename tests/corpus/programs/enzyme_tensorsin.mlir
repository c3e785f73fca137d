// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/tensorsin.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/tensorsin.mlir
// What: math.sin on a whole tensor (named @square upstream).
// Adaptations: removed the explicit `module {...}`, the @dsq wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_square (autodiff.jvp, as upstream's fwddiff) and @vjp_square (autodiff.vjp) below the marker.
// gradir-corpus: entry=square wrt=0 reference=tensorsin

  func.func @square(%x : tensor<2xf64>) -> tensor<2xf64> {
    %y = math.sin %x : tensor<2xf64>
    return %y : tensor<2xf64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_square(%x: tensor<2xf64>, %dx: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %r:2 = autodiff.jvp @square(%x, %dx) {wrt = array<i64: 0>} : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<2xf64>
}

func.func @vjp_square(%x: tensor<2xf64>, %ct: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %r:2 = autodiff.vjp @square(%x, %ct) {wrt = array<i64: 0>} : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<2xf64>
}
