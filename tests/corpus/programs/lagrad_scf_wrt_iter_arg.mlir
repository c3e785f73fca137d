// Source: pengmai/lagrad test/LAGrad/scf/wrt_iter_arg.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/wrt_iter_arg.mlir
// What: scf.for whose second iter_arg is the differentiated argument itself, updated with tensor.insert_slice while the first iter_arg accumulates.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_wrt_iter_arg (autodiff.vjp) below the marker.
// gradir-corpus: entry=wrt_iter_arg wrt=0 reference=wrt_iter_arg

func.func @wrt_iter_arg(%state_outer: tensor<2x3xf64>) -> tensor<3xf64> {
  %cst = arith.constant dense<[1., 2., 3.]> : tensor<3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %res:2 = scf.for %iv = %c0 to %c2 step %c1 iter_args(%x = %cst, %state = %state_outer) -> (tensor<3xf64>, tensor<2x3xf64>) {
    %slice = tensor.extract_slice %state[%iv, 0] [1, 3] [1, 1] : tensor<2x3xf64> to tensor<3xf64>
    %mul = arith.mulf %slice, %x : tensor<3xf64>
    %new_state = tensor.insert_slice %mul into %state[%iv, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<2x3xf64>
    %add = arith.addf %mul, %x : tensor<3xf64>
    scf.yield %add, %new_state : tensor<3xf64>, tensor<2x3xf64>
  }
  return %res#0 : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_wrt_iter_arg(%s: tensor<2x3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<2x3xf64>) {
  %r:2 = autodiff.vjp @wrt_iter_arg(%s, %ct) {wrt = array<i64: 0>} : (tensor<2x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<2x3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<2x3xf64>
}
