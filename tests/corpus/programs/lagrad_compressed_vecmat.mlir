// Source: pengmai/lagrad test/LAGrad/gmm/compressed_vecmat.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/gmm/compressed_vecmat.mlir
// What: vector times a packed strictly-lower-triangular matrix (10-vector): nested scf.for with inner lower bound iv + 1, packed index by muli/subi/divsi, read-modify-write of the carried 5-vector at the outer index.
// Adaptations: `func` -> `func.func`; removed the upstream comment lines (a note and a commented-out generic); dropped the driver @main and the print declaration (primal only, on constants); added the gradir entry @vjp_vecmat (autodiff.vjp wrt all three arguments) below the marker.
// gradir-corpus: entry=vecmat wrt=0,1,2 reference=lg_compressed_vecmat inputs=signed

func.func @vecmat(%x: tensor<5xf64>, %L: tensor<10xf64>, %vm_init: tensor<5xf64>) -> tensor<5xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cd = arith.constant 5 : index
  %out = scf.for %iv = %c0 to %cd step %c1 iter_args(%outer = %vm_init) -> tensor<5xf64> {
    %Lidx_0 = arith.muli %c2, %cd : index
    %Lidx_1 = arith.subi %Lidx_0, %iv : index
    %Lidx_2 = arith.subi %Lidx_1, %c1 : index
    %Lidx_3 = arith.muli %Lidx_2, %iv : index
    %Lidx_4 = arith.divsi %Lidx_3, %c2 : index

    %iv_plus_1 = arith.addi %iv, %c1 : index
    %outer_next = scf.for %jv = %iv_plus_1 to %cd step %c1 iter_args(%out_iter = %outer) -> (tensor<5xf64>) {
      %Lidx_5 = arith.addi %Lidx_4, %jv : index
      %Lidx = arith.subi %Lidx_5, %iv_plus_1 : index
      %0 = tensor.extract %L[%Lidx] : tensor<10xf64>
      %1 = tensor.extract %x[%jv] : tensor<5xf64>
      %2 = tensor.extract %out_iter[%iv] : tensor<5xf64>
      %3 = arith.mulf %0, %1 : f64
      %4 = arith.addf %3, %2 : f64
      %out_next = tensor.insert %4 into %out_iter[%iv] : tensor<5xf64>
      scf.yield %out_next : tensor<5xf64>
    }
    scf.yield %outer_next : tensor<5xf64>
  }
  return %out : tensor<5xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_vecmat(%x: tensor<5xf64>, %l: tensor<10xf64>, %v: tensor<5xf64>, %ct: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<10xf64>, tensor<5xf64>) {
  %r:4 = autodiff.vjp @vecmat(%x, %l, %v, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<5xf64>, tensor<10xf64>, tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<10xf64>, tensor<5xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<5xf64>, tensor<5xf64>, tensor<10xf64>, tensor<5xf64>
}
