// Source: pengmai/lagrad test/LAGrad/kernels/vecmat.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/kernels/vecmat.mlir
// What: the named op linalg.vecmat (f32 row vector times matrix).
// Adaptations: `func` -> `func.func`; std `constant dense<...>` -> `arith.constant dense<...>`; removed the commented-out code (a hand-written adjoint and alternative wrappers); dropped the wrapper @grad_vecmat (std `constant`, `standalone.grad {of = [0]}`, `call_indirect`); added the gradir entry @vjp_vecmat (autodiff.vjp wrt both arguments; upstream's active wrapper asks for the first, a commented-out one for the second) below the marker.
// gradir-corpus: entry=vecmat wrt=0,1 reference=lg_vecmat inputs=signed

func.func @vecmat(%x : tensor<3xf32>, %M : tensor<3x4xf32>) -> tensor<4xf32> {
  %shape = arith.constant dense<0.0> : tensor<4xf32>
  %res = linalg.vecmat ins(%x, %M : tensor<3xf32>, tensor<3x4xf32>) outs(%shape : tensor<4xf32>) -> tensor<4xf32>
  return %res : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_vecmat(%x: tensor<3xf32>, %m: tensor<3x4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  %r:3 = autodiff.vjp @vecmat(%x, %m, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>
}
