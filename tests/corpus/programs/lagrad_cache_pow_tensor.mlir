// Source: pengmai/lagrad test/LAGrad/cache/pow_tensor.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/cache/pow_tensor.mlir
// What: elementwise x^i of a 4-vector by an scf.for whose trip count is an index argument, carrying the product tensor (a loop whose per-iteration values must be cached for the reverse pass).
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [4]` -> `tensor.empty()`; old `linalg.fill(%one, %p_space) : f64, tensor<4xf64> -> tensor<4xf64>` -> `linalg.fill ins(...) outs(...) -> tensor<4xf64>`; removed the commented-out hand-written adjoint and other comment lines; dropped the driver @main and the print declaration; added the gradir entry @vjp_pow (autodiff.vjp wrt %x, as upstream's lagrad.grad) below the marker.
// gradir-corpus: entry=pow wrt=0 reference=lg_pow_tensor inputs=lg_pow4

func.func @pow(%x: tensor<4xf64>, %i: index) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %p_space = tensor.empty() : tensor<4xf64>
  %p_init = linalg.fill ins(%one : f64) outs(%p_space : tensor<4xf64>) -> tensor<4xf64>
  %res = scf.for %iv = %c0 to %i step %c1 iter_args(%p = %p_init) -> tensor<4xf64> {
    %1 = arith.mulf %p, %x : tensor<4xf64>
    scf.yield %1 : tensor<4xf64>
  }
  return %res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pow(%x: tensor<4xf64>, %i: index, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @pow(%x, %i, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, index, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4xf64>
}
