// Source: pengmai/lagrad test/LAGrad/gmm/compressed_outer_product.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/gmm/compressed_outer_product.mlir
// What: outer product accumulated into a packed (compressed) strictly-lower-triangular 10-vector: nested scf.for whose inner lower bound is the outer induction variable + 1, the packed index computed with muli/subi/divsi, a read-modify-write (tensor.extract, add, tensor.insert) of the carried tensor at that index.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration (it only ran the primal on constants, built with `linalg.init_tensor` and the old `linalg.fill`); added the gradir entry @vjp_outer_product (autodiff.vjp wrt all three arguments, upstream differentiates nothing here) below the marker.
// gradir-corpus: entry=outer_product wrt=0,1,2 reference=lg_outer_product inputs=signed

func.func @outer_product(%x: tensor<5xf64>, %y: tensor<5xf64>, %out_init: tensor<10xf64>) -> tensor<10xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cd = arith.constant 5 : index
  %out = scf.for %iv = %c0 to %cd step %c1 iter_args(%outer = %out_init) -> tensor<10xf64> {
    %Lidx_0 = arith.muli %c2, %cd : index
    %Lidx_1 = arith.subi %Lidx_0, %iv : index
    %Lidx_2 = arith.subi %Lidx_1, %c1 : index
    %Lidx_3 = arith.muli %Lidx_2, %iv : index
    %Lidx_4 = arith.divsi %Lidx_3, %c2 : index

    %iv_plus_1 = arith.addi %iv, %c1 : index
    %outer_next = scf.for %jv = %iv_plus_1 to %cd step %c1 iter_args(%out_iter = %outer) -> (tensor<10xf64>) {
      %Lidx_5 = arith.addi %Lidx_4, %jv : index
      %Lidx = arith.subi %Lidx_5, %iv_plus_1 : index
      %0 = tensor.extract %out_iter[%Lidx] : tensor<10xf64>
      %1 = tensor.extract %x[%jv] : tensor<5xf64>
      %2 = tensor.extract %y[%iv] : tensor<5xf64>
      %3 = arith.mulf %1, %2 : f64
      %4 = arith.addf %3, %0 : f64
      %out_next = tensor.insert %4 into %out_iter[%Lidx] : tensor<10xf64>
      scf.yield %out_next : tensor<10xf64>
    }
    scf.yield %outer_next : tensor<10xf64>
  }
  return %out : tensor<10xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_outer_product(%x: tensor<5xf64>, %y: tensor<5xf64>, %o: tensor<10xf64>, %ct: tensor<10xf64>) -> (tensor<10xf64>, tensor<5xf64>, tensor<5xf64>, tensor<10xf64>) {
  %r:4 = autodiff.vjp @outer_product(%x, %y, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<5xf64>, tensor<5xf64>, tensor<10xf64>, tensor<10xf64>) -> (tensor<10xf64>, tensor<5xf64>, tensor<5xf64>, tensor<10xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<10xf64>, tensor<5xf64>, tensor<5xf64>, tensor<10xf64>
}
