// Source: pengmai/lagrad benchmarks/trmv/trmv.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/trmv/trmv.mlir
// What: triangular matrix-vector product as LAGrad writes its packed variant: a generic whose reduction iterator comes first (d0 reduces, d1 is parallel), reading M through `(d0, d1) -> (d1, d0)`, x through `(d0)` and writing `(d1)`: M x with the loops interchanged.
// Adaptations: kept only @mtrmv_packed of the file's three functions (@mtrmv_full and @mtrmv_tri are linalg.matvec, as lagrad_matvec); instantiated n = 4; dropped the LAGrad tensor encoding `"pltri"` (packed lower-triangular, a LAGrad-only sparsity hint that changes only which gradient entries LAGrad stores) from M's type; `func` -> `func.func`; dropped the wrappers (std `constant`, `standalone.grad`, `call_indirect`); added the gradir entry @vjp_trmv_packed (autodiff.vjp, same wrt as upstream's {of = [0, 1]}) below the marker.
// gradir-corpus: entry=mtrmv_packed wrt=0,1 reference=lg_trmv_packed inputs=signed

func.func @mtrmv_packed(%M: tensor<4x4xf64>, %x: tensor<4xf64>) -> tensor<4xf64> {
  %out = arith.constant dense<0.0> : tensor<4xf64>
  %res = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>],
      iterator_types = ["reduction", "parallel"]
    }
    ins(%M, %x : tensor<4x4xf64>, tensor<4xf64>)
    outs(%out : tensor<4xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    linalg.yield %1 : f64
  } -> tensor<4xf64>
  return %res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_trmv_packed(%m: tensor<4x4xf64>, %x: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>) {
  %r:3 = autodiff.vjp @mtrmv_packed(%m, %x, %ct) {wrt = array<i64: 0, 1>} : (tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>)
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>
}
