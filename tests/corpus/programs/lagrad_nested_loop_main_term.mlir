// Source: pengmai/lagrad benchmarks/mlir/templates/nested_loop_lagrad.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/mlir/templates/nested_loop_lagrad.mlir
// What: one scf.for over k pairing row j of A with row j of B by linalg.dot (rank-reducing extract_slice of both), tensor.insert into a zero-filled k-vector, then logsumexp by a reduction generic into a 0-d constant, extract and log; returns a scalar.
// Adaptations: upstream is a Jinja template: instantiated with n = 4, k = 3, d = 2; `func` -> `func.func`; `linalg.init_tensor [k]` -> `tensor.empty()`; old `linalg.fill(...)` -> `linalg.fill ins(...) outs(...)`; kept only @lg_main_term (@lg_nested_loop is lagrad_nested_loop; @lg_loop dropped) and dropped the map aliases only the other functions use; dropped the wrappers (std `constant`, `standalone.grad {of = [0]}`, `call_indirect`); added the gradir entry @grad_main_term (autodiff.grad wrt both arguments; upstream asks for the first) below the marker.
// gradir-corpus: entry=lg_main_term wrt=0,1 reference=lg_nested_main_term inputs=signed

func.func @lg_main_term(%A: tensor<4x2xf64>, %B: tensor<3x2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %mt_space = tensor.empty() : tensor<3xf64>
  %mt_init = linalg.fill ins(%zero : f64) outs(%mt_space : tensor<3xf64>) -> tensor<3xf64>
  %zerod_space = arith.constant dense<0.0> : tensor<f64>
  %main_term = scf.for %jv = %c0 to %ck step %c1 iter_args(%mt_iter = %mt_init) -> tensor<3xf64> {
    %A_slice = tensor.extract_slice %A[%jv, 0] [1, 2] [1, 1] : tensor<4x2xf64> to tensor<2xf64>
    %B_slice = tensor.extract_slice %B[%jv, 0] [1, 2] [1, 1] : tensor<3x2xf64> to tensor<2xf64>
    %dotted = linalg.dot ins(%A_slice, %B_slice : tensor<2xf64>, tensor<2xf64>) outs(%zerod_space : tensor<f64>) -> tensor<f64>
    %dval = tensor.extract %dotted[] : tensor<f64>
    %mt_next = tensor.insert %dval into %mt_iter[%jv] : tensor<3xf64>
    scf.yield %mt_next : tensor<3xf64>
  }

  %sumexp = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]
    }
    ins(%main_term : tensor<3xf64>)
    outs(%zerod_space : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = math.exp %arg0 : f64
    %1 = arith.addf %0, %arg1 : f64
    linalg.yield %1 : f64
  } -> tensor<f64>
  %sumexp_v = tensor.extract %sumexp[] : tensor<f64>
  %lse = math.log %sumexp_v : f64
  return %lse : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main_term(%a: tensor<4x2xf64>, %b: tensor<3x2xf64>) -> (tensor<4x2xf64>, tensor<3x2xf64>) {
  %g:2 = autodiff.grad @lg_main_term(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4x2xf64>, tensor<3x2xf64>) -> (tensor<4x2xf64>, tensor<3x2xf64>)
  return %g#0, %g#1 : tensor<4x2xf64>, tensor<3x2xf64>
}
