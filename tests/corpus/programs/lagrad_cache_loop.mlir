// Source: pengmai/lagrad benchmarks/mlir/templates/cache_loop.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/mlir/templates/cache_loop.mlir
// What: a parent-table recurrence (the shape of Hand's relatives_to_absolutes on rows): scf.for carrying an uninitialised n x d tensor, i32 parent read and index_cast, scf.if on `parent == -1` (cmpi on index) yielding the argument's row or the elementwise product of that row with the parent's row read back from the carried tensor at a data-dependent offset, tensor.insert_slice of the row.
// Adaptations: upstream is a Jinja template: instantiated with n = 5, d = 3; `func` -> `func.func`; `linalg.init_tensor [n, d]` -> `tensor.empty()`; kept only @cache_loop (dropped the hand-written adjoint @manual_cache_loop and a commented-out wrapper); added the gradir entry @vjp_cache_loop (autodiff.vjp wrt %A) below the marker.
// gradir-corpus: entry=cache_loop wrt=0 reference=lg_cache_loop inputs=lg_cache_loop

func.func @cache_loop(%A: tensor<5x3xf64>, %parents: tensor<5xi32>) -> tensor<5x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cneg1 = arith.constant -1 : index
  %cn = arith.constant 5 : index
  %res_init = tensor.empty() : tensor<5x3xf64>
  %res = scf.for %iv = %c0 to %cn step %c1 iter_args(%res_it = %res_init) -> tensor<5x3xf64> {
    %parent_i = tensor.extract %parents[%iv] : tensor<5xi32>
    %parent_idx = arith.index_cast %parent_i : i32 to index
    %pred = arith.cmpi "eq", %parent_idx, %cneg1 : index
    %A_slice = tensor.extract_slice %A[%iv, 0] [1, 3] [1, 1] : tensor<5x3xf64> to tensor<3xf64>
    %row_it = scf.if %pred -> tensor<3xf64> {
      scf.yield %A_slice : tensor<3xf64>
    } else {
      %parent_row = tensor.extract_slice %res_it[%parent_idx, 0] [1, 3] [1, 1] : tensor<5x3xf64> to tensor<3xf64>
      %0 = arith.mulf %parent_row, %A_slice : tensor<3xf64>
      scf.yield %0 : tensor<3xf64>
    }
    %res_next = tensor.insert_slice %row_it into %res_it[%iv, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<5x3xf64>
    scf.yield %res_next : tensor<5x3xf64>
  }
  return %res : tensor<5x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_cache_loop(%a: tensor<5x3xf64>, %p: tensor<5xi32>, %ct: tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<5x3xf64>) {
  %r:2 = autodiff.vjp @cache_loop(%a, %p, %ct) {wrt = array<i64: 0>} : (tensor<5x3xf64>, tensor<5xi32>, tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<5x3xf64>)
  return %r#0, %r#1 : tensor<5x3xf64>, tensor<5x3xf64>
}
