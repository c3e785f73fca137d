// Source: pengmai/lagrad test/LAGrad/nn/batched_crossentropy.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/nn/batched_crossentropy.mlir
// What: batched softmax cross-entropy: column max by nested scf.for over tensor iter_args with tensor.extract/insert, exp generic with a broadcast map, column-sum reduction generic, loss summed by scf.for with a scalar f32 iter_arg reading labels from a tensor<2xindex>.
// Adaptations: `func` -> `func.func`; `select` -> `arith.select`; dropped the driver @main, @print_f32 and the print declaration; added the gradir entry @grad_batched_cross_entropy (autodiff.grad) below the marker.
// gradir-corpus: entry=batched_cross_entropy wrt=0 reference=batched_cross_entropy inputs=batched_cross_entropy

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @batched_cross_entropy(%activations: tensor<4x2xf32>, %labels: tensor<2xindex>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cd = arith.constant 4 : index
  %cb = arith.constant 2 : index
  %cbf = arith.constant 2.0 : f32
  %max_init = tensor.extract_slice %activations[0, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
  %max = scf.for %iv = %c1 to %cd step %c1 iter_args(%max_outer = %max_init) -> tensor<2xf32> {
    %max_outer_next = scf.for %bv = %c0 to %cb step %c1 iter_args(%max_it = %max_outer) -> tensor<2xf32> {
      %ai = tensor.extract %activations[%iv, %bv] : tensor<4x2xf32>
      %max_val = tensor.extract %max_it[%bv] : tensor<2xf32>
      %p = arith.cmpf ogt, %ai, %max_val : f32
      %max_val_next = arith.select %p, %ai, %max_val : f32
      %max_next = tensor.insert %max_val_next into %max_it[%bv] : tensor<2xf32>
      scf.yield %max_next : tensor<2xf32>
    }
    scf.yield %max_outer_next : tensor<2xf32>
  }

  %zerot = arith.constant dense<0.0> : tensor<4x2xf32>
  %zero2 = arith.constant dense<0.0> : tensor<2xf32>
  %exp = linalg.generic
    { indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"] }
    ins(%activations, %max : tensor<4x2xf32>, tensor<2xf32>)
    outs(%zerot : tensor<4x2xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %0 = arith.subf %arg0, %arg1 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<4x2xf32>

  %total = linalg.generic
    { indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"] }
    ins(%exp : tensor<4x2xf32>)
    outs(%zero2 : tensor<2xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %0 = arith.addf %arg0, %arg1 : f32
    linalg.yield %0 : f32
  } -> tensor<2xf32>

  %zero = arith.constant 0.0 : f32
  %cross_entropy_total = scf.for %iv = %c0 to %cb step %c1 iter_args(%ce_it = %zero) -> f32 {
    %label = tensor.extract %labels[%iv] : tensor<2xindex>
    %exp_val = tensor.extract %exp[%label, %iv] : tensor<4x2xf32>
    %total_val = tensor.extract %total[%iv] : tensor<2xf32>
    %sm_val = arith.divf %exp_val, %total_val : f32
    %ll = math.log %sm_val : f32
    %nll = arith.negf %ll : f32
    %ce_next = arith.addf %ce_it, %nll : f32
    scf.yield %ce_next : f32
  }
  %primal = arith.divf %cross_entropy_total, %cbf : f32
  return %primal : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_batched_cross_entropy(%a: tensor<4x2xf32>, %labels: tensor<2xindex>) -> tensor<4x2xf32> {
  %g = autodiff.grad @batched_cross_entropy(%a, %labels) {wrt = array<i64: 0>} : (tensor<4x2xf32>, tensor<2xindex>) -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}
