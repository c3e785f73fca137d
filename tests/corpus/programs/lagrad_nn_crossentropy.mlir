// Source: pengmai/lagrad test/LAGrad/nn/crossentropy.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/nn/crossentropy.mlir
// What: softmax cross-entropy of one activation vector against an index label: max by scf.for with a scalar iter_arg, exp generic capturing the max, sum by scf.for, normalising generic capturing the sum, tensor.extract at the dynamic label.
// Adaptations: `func` -> `func.func`; `select` -> `arith.select`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_cross_entropy (autodiff.grad) below the marker.
// gradir-corpus: entry=cross_entropy wrt=0 reference=cross_entropy inputs=cross_entropy

#map = affine_map<(d0) -> (d0)>

func.func @cross_entropy(%activations: tensor<4xf64>, %label: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cd = arith.constant 4 : index
  %max_init = tensor.extract %activations[%c0] : tensor<4xf64>
  %max = scf.for %iv = %c1 to %cd step %c1 iter_args(%max_it = %max_init) -> f64 {
    %ai = tensor.extract %activations[%iv] : tensor<4xf64>
    %p = arith.cmpf ogt, %ai, %max_it : f64
    %max_next = arith.select %p, %ai, %max_it : f64
    scf.yield %max_next : f64
  }
  %zerot = arith.constant dense<0.0> : tensor<4xf64>

  %exp = linalg.generic
    {
      indexing_maps = [#map, #map],
      iterator_types = ["parallel"]
    }
    ins(%activations : tensor<4xf64>)
    outs(%zerot : tensor<4xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.subf %arg0, %max : f64
    %1 = math.exp %0 : f64
    linalg.yield %1 : f64
  } -> tensor<4xf64>

  %zero = arith.constant 0.0 : f64
  %sum = scf.for %iv = %c0 to %cd step %c1 iter_args(%sum_it = %zero) -> (f64) {
    %exp_i = tensor.extract %exp[%iv] : tensor<4xf64>
    %sum_next = arith.addf %sum_it, %exp_i : f64
    scf.yield %sum_next : f64
  }

  %cross_entropy = linalg.generic
    {
      indexing_maps = [#map, #map],
      iterator_types = ["parallel"]
    }
    ins(%exp : tensor<4xf64>)
    outs(%zerot : tensor<4xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.divf %arg0, %sum : f64
    linalg.yield %0 : f64
  } -> tensor<4xf64>
  %probability = tensor.extract %cross_entropy[%label] : tensor<4xf64>
  %logprob = math.log %probability : f64
  %nlogprob = arith.negf %logprob : f64
  return %nlogprob : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_cross_entropy(%a: tensor<4xf64>, %label: index) -> tensor<4xf64> {
  %g = autodiff.grad @cross_entropy(%a, %label) {wrt = array<i64: 0>} : (tensor<4xf64>, index) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
