// Source: pengmai/lagrad test/LAGrad/scf/nested_with_slice.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/nested_with_slice.mlir
// What: GMM-like main term: outer scf.for with a scalar f64 iter_arg summing logsumexps; inner scf.for building a vector of linalg.dot results of row slices with tensor.insert.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [6]` -> `tensor.empty()`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_nested_with_slice (autodiff.grad) below the marker.
// gradir-corpus: entry=nested_with_slice wrt=0,1 reference=nested_with_slice

#id_1d = affine_map<(d0) -> (d0)>
#reduce_1d = affine_map<(d0) -> ()>

func.func @nested_with_slice(%A: tensor<10x4xf64>, %B: tensor<6x4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f64
  %mt_space = tensor.empty() : tensor<6xf64>
  %sumexp_space = arith.constant dense<0.0> : tensor<f64>
  %zerod_space = arith.constant dense<0.0> : tensor<f64>
  %final = scf.for %iv = %c0 to %c10 step %c1 iter_args(%final_iv = %zero) -> f64 {
    %main_term = scf.for %jv = %c0 to %c6 step %c1 iter_args(%mt_iter = %mt_space) -> tensor<6xf64> {
      %A_slice = tensor.extract_slice %A[%iv, 0] [1, 4] [1, 1] : tensor<10x4xf64> to tensor<4xf64>
      %B_slice = tensor.extract_slice %B[%jv, 0] [1, 4] [1, 1] : tensor<6x4xf64> to tensor<4xf64>
      %dotted = linalg.dot ins(%A_slice, %B_slice : tensor<4xf64>, tensor<4xf64>) outs(%zerod_space : tensor<f64>) -> tensor<f64>
      %dval = tensor.extract %dotted[] : tensor<f64>
      %mt_next = tensor.insert %dval into %mt_iter[%jv] : tensor<6xf64>
      scf.yield %mt_next : tensor<6xf64>
    }

    %sumexp = linalg.generic
      {
        indexing_maps = [#id_1d, #reduce_1d], iterator_types = ["reduction"]
      }
      ins(%main_term : tensor<6xf64>)
      outs(%sumexp_space : tensor<f64>) {
    ^bb0(%arg0: f64, %arg1: f64):
      %0 = math.exp %arg0 : f64
      %1 = arith.addf %0, %arg1 : f64
      linalg.yield %1 : f64
    } -> tensor<f64>
    %sumexp_v = tensor.extract %sumexp[] : tensor<f64>
    %lse = math.log %sumexp_v : f64
    %final_next = arith.addf %lse, %final_iv : f64
    scf.yield %final_next : f64
  }
  return %final : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_nested_with_slice(%a: tensor<10x4xf64>, %b: tensor<6x4xf64>) -> (tensor<10x4xf64>, tensor<6x4xf64>) {
  %g:2 = autodiff.grad @nested_with_slice(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<10x4xf64>, tensor<6x4xf64>) -> (tensor<10x4xf64>, tensor<6x4xf64>)
  return %g#0, %g#1 : tensor<10x4xf64>, tensor<6x4xf64>
}
