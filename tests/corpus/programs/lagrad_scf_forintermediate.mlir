// Source: pengmai/lagrad test/LAGrad/scf/forintermediate.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/forintermediate.mlir
// What: scf.for over rows with an scf.if on the induction variable (`arith.cmpi "eq"`) that either copies a row or multiplies it with the previous result; rows written back with tensor.insert_slice.
// Adaptations: kept only @forint (dropped the hand-written @mygrad_forint); `func` -> `func.func`; `linalg.init_tensor [2, 4]` -> `tensor.empty()`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_forint (autodiff.vjp) below the marker.
// gradir-corpus: entry=forint wrt=0 reference=forint

func.func @forint(%A: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t_init = tensor.empty() : tensor<2x4xf64>
  %res = scf.for %iv = %c0 to %c2 step %c1 iter_args(%t = %t_init) -> tensor<2x4xf64> {
    %A_slice = tensor.extract_slice %A[%iv, 0] [1, 4] [1, 1] : tensor<2x4xf64> to tensor<4xf64>
    %pred = arith.cmpi "eq", %iv, %c0 : index
    %t_slice = scf.if %pred -> tensor<4xf64> {
      scf.yield %A_slice : tensor<4xf64>
    } else {
      %t_prev = tensor.extract_slice %t[0, 0] [1, 4] [1, 1] : tensor<2x4xf64> to tensor<4xf64>
      %t_0 = arith.mulf %t_prev, %A_slice : tensor<4xf64>
      scf.yield %t_0 : tensor<4xf64>
    }
    %t_next = tensor.insert_slice %t_slice into %t[%iv, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<2x4xf64>
    scf.yield %t_next : tensor<2x4xf64>
  }
  return %res : tensor<2x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_forint(%a: tensor<2x4xf64>, %ct: tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>) {
  %r:2 = autodiff.vjp @forint(%a, %ct) {wrt = array<i64: 0>} : (tensor<2x4xf64>, tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
  return %r#0, %r#1 : tensor<2x4xf64>, tensor<2x4xf64>
}
