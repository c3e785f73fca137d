// Source: pengmai/lagrad test/LAGrad/gmm/compressed_qtimesx.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/gmm/compressed_qtimesx.mlir
// What: the GMM's packed triangular mat-vec (Qtimesx without the diagonal): zero-filled accumulator, nested scf.for with inner lower bound iv + 1, packed index by muli/subi/divsi, read-modify-write of the carried 5-vector at the inner index.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [5]` -> `tensor.empty()`; old `linalg.fill(%zero, %trmv_space) : f64, tensor<5xf64> -> tensor<5xf64>` -> `linalg.fill ins(...) outs(...)`; kept only @Qtimesx (dropped the hand-written adjoint @gradQtimesx, the commented-out code and comment lines); dropped the driver @main (whose `lagrad.grad %df(...) {of = [1]}` names an undefined value) and the two print declarations; added the gradir entry @vjp_qtimesx (autodiff.vjp wrt both arguments; upstream asks for the second) below the marker.
// gradir-corpus: entry=Qtimesx wrt=0,1 reference=lg_qtimesx inputs=signed

func.func @Qtimesx(%Ltri_slice: tensor<10xf64>, %xcentered: tensor<5xf64>) -> tensor<5xf64> {
  %zero = arith.constant 0.0 : f64
  %trmv_space = tensor.empty() : tensor<5xf64>
  %trmv_init = linalg.fill ins(%zero : f64) outs(%trmv_space : tensor<5xf64>) -> tensor<5xf64>

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cd = arith.constant 5 : index
  %out_1 = scf.for %iv = %c0 to %cd step %c1 iter_args(%out_iter_i = %trmv_init) -> tensor<5xf64> {
    %Lidx_0 = arith.muli %c2, %cd : index
    %Lidx_1 = arith.subi %Lidx_0, %iv : index
    %Lidx_2 = arith.subi %Lidx_1, %c1 : index
    %Lidx_3 = arith.muli %Lidx_2, %iv : index
    %Lidx_4 = arith.divsi %Lidx_3, %c2 : index

    %iv_plus_1 = arith.addi %iv, %c1 : index
    %out_iter_i_next = scf.for %jv = %iv_plus_1 to %cd step %c1 iter_args(%out_iter = %out_iter_i) -> (tensor<5xf64>) {
      %Lidx_5 = arith.addi %Lidx_4, %jv : index
      %Lidx = arith.subi %Lidx_5, %iv_plus_1 : index
      %0 = tensor.extract %Ltri_slice[%Lidx] : tensor<10xf64>
      %1 = tensor.extract %xcentered[%iv] : tensor<5xf64>
      %2 = tensor.extract %out_iter[%jv] : tensor<5xf64>
      %3 = arith.mulf %0, %1 : f64
      %4 = arith.addf %3, %2 : f64
      %out_next = tensor.insert %4 into %out_iter[%jv] : tensor<5xf64>

      scf.yield %out_next : tensor<5xf64>
    }
    scf.yield %out_iter_i_next : tensor<5xf64>
  }
  return %out_1 : tensor<5xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_qtimesx(%l: tensor<10xf64>, %x: tensor<5xf64>, %ct: tensor<5xf64>) -> (tensor<5xf64>, tensor<10xf64>, tensor<5xf64>) {
  %r:3 = autodiff.vjp @Qtimesx(%l, %x, %ct) {wrt = array<i64: 0, 1>} : (tensor<10xf64>, tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<10xf64>, tensor<5xf64>)
  return %r#0, %r#1, %r#2 : tensor<5xf64>, tensor<10xf64>, tensor<5xf64>
}
