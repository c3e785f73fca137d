// Source: pengmai/lagrad test/LAGrad/scf/fortensor.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/fortensor.mlir
// What: scf.for filling a vector iter_arg with tensor.insert of a full-reduction generic's extracted value.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_fortensor (autodiff.vjp) below the marker.
// gradir-corpus: entry=fortensor wrt=0,1 reference=fortensor

func.func @fortensor(%A : tensor<4x4xf64>, %b_space : tensor<4xf64>) -> tensor<4xf64> {
  %out = arith.constant dense<0.0> : tensor<f64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %res = scf.for %iv = %c0 to %c4 step %c1 iter_args(%t_iter = %b_space) -> (tensor<4xf64>) {
    %0 = linalg.generic
      {
        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
        iterator_types = ["reduction", "reduction"]
      }
      ins(%A : tensor<4x4xf64>)
      outs(%out : tensor<f64>) {
    ^bb0(%arg2: f64, %arg3: f64):
      %1 = arith.addf %arg2, %arg3 : f64
      linalg.yield %1 : f64
    } -> tensor<f64>
    %1 = tensor.extract %0[] : tensor<f64>
    %t_next = tensor.insert %1 into %t_iter[%iv] : tensor<4xf64>
    scf.yield %t_next : tensor<4xf64>
  }
  return %res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_fortensor(%a: tensor<4x4xf64>, %b: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>) {
  %r:3 = autodiff.vjp @fortensor(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>)
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>
}
