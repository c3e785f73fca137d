// Source: pengmai/lagrad test/LAGrad/hand/relatives_to_absolutes.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/relatives_to_absolutes.mlir
// What: ADBench Hand relatives_to_absolutes: scf.for over 22 bones carrying an uninitialised 22x4x4 tensor, i32 parent table read and compared with -1 (cmpi on i32), scf.if yielding the bone's relative or linalg.matmul of the parent's absolute (extract_slice of the carried tensor at a data-dependent offset) with it, tensor.insert_slice of the result.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [22, 4, 4]` -> `tensor.empty()`; removed the comment line and the commented-out hand-written adjoints; dropped the wrapper @lagrad_relatives_to_absolutes (lagrad.grad, wrt the relatives) and the commented-out print declaration; added the gradir entry @vjp_relatives_to_absolutes (autodiff.vjp, same wrt) below the marker.
// gradir-corpus: entry=mrelatives_to_absolutes wrt=0 reference=lg_relatives_to_absolutes inputs=lg_relatives_to_absolutes

func.func @mrelatives_to_absolutes(%relatives: tensor<22x4x4xf64>, %parents: tensor<22xi32>) -> tensor<22x4x4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n_one = arith.constant -1 : i32
  %cb = arith.constant 22 : index
  %matmul_init = arith.constant dense<0.0> : tensor<4x4xf64>
  %absolute_space = tensor.empty() : tensor<22x4x4xf64>
  %absolutes = scf.for %iv = %c0 to %cb step %c1 iter_args(%a_iter = %absolute_space) -> (tensor<22x4x4xf64>) {
    %parent_i = tensor.extract %parents[%iv] : tensor<22xi32>
    %rel_i = tensor.extract_slice %relatives[%iv, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<22x4x4xf64> to tensor<4x4xf64>
    %pred = arith.cmpi "eq", %parent_i, %n_one : i32
    %result = scf.if %pred -> tensor<4x4xf64> {
      scf.yield %rel_i : tensor<4x4xf64>
    } else {
      %parent_idx = arith.index_cast %parent_i : i32 to index
      %abs_p = tensor.extract_slice %a_iter[%parent_idx, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<22x4x4xf64> to tensor<4x4xf64>
      %abs_i = linalg.matmul ins(%abs_p, %rel_i : tensor<4x4xf64>, tensor<4x4xf64>) outs(%matmul_init : tensor<4x4xf64>) -> tensor<4x4xf64>
      scf.yield %abs_i : tensor<4x4xf64>
    }
    %a_next = tensor.insert_slice %result into %a_iter[%iv, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf64> into tensor<22x4x4xf64>
    scf.yield %a_next : tensor<22x4x4xf64>
  }
  return %absolutes : tensor<22x4x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_relatives_to_absolutes(%rel: tensor<22x4x4xf64>, %p: tensor<22xi32>, %ct: tensor<22x4x4xf64>) -> (tensor<22x4x4xf64>, tensor<22x4x4xf64>) {
  %r:2 = autodiff.vjp @mrelatives_to_absolutes(%rel, %p, %ct) {wrt = array<i64: 0>} : (tensor<22x4x4xf64>, tensor<22xi32>, tensor<22x4x4xf64>) -> (tensor<22x4x4xf64>, tensor<22x4x4xf64>)
  return %r#0, %r#1 : tensor<22x4x4xf64>, tensor<22x4x4xf64>
}
