// Source: pengmai/lagrad benchmarks/nn/lagrad_nn.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/nn/lagrad_nn.mlir
// What: a 3-layer f32 MLP evaluated example by example: an scf.for over the batch with a scalar f32 loss iter_arg, rank-reducing extract_slice of the input row, linalg.matvec, tensor arith.addf of the bias, ReLU generics from the attribute alias #relu (cmpf ogt + select against a captured 0.0), an i32 label read and index_cast, and a func.call (inside the loop) to @cross_entropy(tensor, index) whose max is a scalar scf.for with select, softmax generics capturing the max and the sum; returns the mean loss.
// Adaptations: kept only @cross_entropy and @mlir_mlp of the file (the batched pair @batched_cross_entropy/@mlir_mlp_batched is already in the corpus as lagrad_nn_mlp, from test/LAGrad/nn/nn.mlir); shapes reduced to keep the corpus fast (input 64x784 -> 4x12, hidden 512 -> 8, classes 10 -> 3; the constants %cd = 10 -> 3, %cb = 64 -> 4, 64.0 -> 4.0 and the slice size 784 -> 12 follow); `func` -> `func.func` (2 functions); `select` -> `arith.select` (3 places); the `call` inside the scf.for -> `func.call` (1 place; MLIR 22 resolves a bare `call` only directly in a func.func body); dropped the attribute alias #broadcast_add (used only by the dropped @mlir_mlp_batched; #map1, #map2 and #relu2d kept, now unused); removed the comment lines; dropped the print declarations and the wrappers @lagrad_mlp/@lagrad_mlp_batched (lagrad.grad {of = [2, 3, 4, 5, 6, 7]}); added the gradir entry @grad_mlp (autodiff.grad, same wrt) below the marker.
// gradir-corpus: entry=mlir_mlp wrt=2,3,4,5,6,7 reference=lg_mlp_loop inputs=lg_mlp_loop

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
#relu = {doc = "ReLU", indexing_maps = [#map, #map], iterator_types = ["parallel"]}
#relu2d = {
  doc = "ReLU 2D",
  indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
  iterator_types = ["parallel", "parallel"]
}

func.func @cross_entropy(%activations: tensor<3xf32>, %label: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cd = arith.constant 3 : index
  %max_init = tensor.extract %activations[%c0] : tensor<3xf32>
  %max = scf.for %iv = %c1 to %cd step %c1 iter_args(%max_it = %max_init) -> f32 {
    %ai = tensor.extract %activations[%iv] : tensor<3xf32>
    %p = arith.cmpf ogt, %ai, %max_it : f32
    %max_next = arith.select %p, %ai, %max_it : f32
    scf.yield %max_next : f32
  }
  %zerot = arith.constant dense<0.0> : tensor<3xf32>

  %exp = linalg.generic
    {
      indexing_maps = [#map, #map],
      iterator_types = ["parallel"]
    }
    ins(%activations : tensor<3xf32>)
    outs(%zerot : tensor<3xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %0 = arith.subf %arg0, %max : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<3xf32>

  %zero = arith.constant 0.0 : f32
  %sum = scf.for %iv = %c0 to %cd step %c1 iter_args(%sum_it = %zero) -> (f32) {
    %exp_i = tensor.extract %exp[%iv] : tensor<3xf32>
    %sum_next = arith.addf %sum_it, %exp_i : f32
    scf.yield %sum_next : f32
  }

  %cross_entropy = linalg.generic
    {
      indexing_maps = [#map, #map],
      iterator_types = ["parallel"]
    }
    ins(%exp : tensor<3xf32>)
    outs(%zerot : tensor<3xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %0 = arith.divf %arg0, %sum : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %probability = tensor.extract %cross_entropy[%label] : tensor<3xf32>
  %logprob = math.log %probability : f32
  %nlogprob = arith.negf %logprob : f32
  return %nlogprob : f32
}

func.func @mlir_mlp(
  %input: tensor<4x12xf32>,
  %labels: tensor<4xi32>,
  %w0: tensor<8x12xf32>,
  %b0: tensor<8xf32>,
  %w1: tensor<8x8xf32>,
  %b1: tensor<8xf32>,
  %w2: tensor<3x8xf32>,
  %b2: tensor<3xf32>
) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cb = arith.constant 4 : index
  %zero_h = arith.constant dense<0.0> : tensor<8xf32>
  %zero_o = arith.constant dense<0.0> : tensor<3xf32>
  %loss = scf.for %bv = %c0 to %cb step %c1 iter_args(%loss_it = %zero) -> f32 {
    %input_slice = tensor.extract_slice %input[%bv, 0] [1, 12] [1, 1] : tensor<4x12xf32> to tensor<12xf32>
    %h0_0 = linalg.matvec ins(%w0, %input_slice : tensor<8x12xf32>, tensor<12xf32>) outs(%zero_h : tensor<8xf32>) -> tensor<8xf32>
    %h0_1 = arith.addf %h0_0, %b0 : tensor<8xf32>
    %h0 = linalg.generic #relu ins(%h0_1 : tensor<8xf32>) outs(%zero_h : tensor<8xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %p = arith.cmpf ogt, %arg0, %zero : f32
      %0 = arith.select %p, %arg0, %zero : f32
      linalg.yield %0 : f32
    } -> tensor<8xf32>

    %h1_0 = linalg.matvec ins(%w1, %h0 : tensor<8x8xf32>, tensor<8xf32>) outs(%zero_h : tensor<8xf32>) -> tensor<8xf32>
    %h1_1 = arith.addf %h1_0, %b1 : tensor<8xf32>
    %h1 = linalg.generic #relu ins(%h1_1 : tensor<8xf32>) outs(%zero_h : tensor<8xf32>) {
    ^bb0(%arg0: f32, %arg1: f32):
      %p = arith.cmpf ogt, %arg0, %zero : f32
      %0 = arith.select %p, %arg0, %zero : f32
      linalg.yield %0 : f32
    } -> tensor<8xf32>

    %activations_0 = linalg.matvec ins(%w2, %h1 : tensor<3x8xf32>, tensor<8xf32>) outs(%zero_o : tensor<3xf32>) -> tensor<3xf32>
    %activations = arith.addf %activations_0, %b2 : tensor<3xf32>
    %label = tensor.extract %labels[%bv] : tensor<4xi32>
    %l_idx = arith.index_cast %label : i32 to index
    %nll = func.call @cross_entropy(%activations, %l_idx) : (tensor<3xf32>, index) -> f32
    %loss_next = arith.addf %loss_it, %nll : f32
    scf.yield %loss_next : f32
  }
  %batch_size = arith.constant 4.0 : f32
  %avg_loss = arith.divf %loss, %batch_size : f32
  return %avg_loss : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_mlp(%x: tensor<4x12xf32>, %labels: tensor<4xi32>, %w0: tensor<8x12xf32>, %b0: tensor<8xf32>, %w1: tensor<8x8xf32>, %b1: tensor<8xf32>, %w2: tensor<3x8xf32>, %b2: tensor<3xf32>) -> (tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) {
  %g:6 = autodiff.grad @mlir_mlp(%x, %labels, %w0, %b0, %w1, %b1, %w2, %b2) {wrt = array<i64: 2, 3, 4, 5, 6, 7>} : (tensor<4x12xf32>, tensor<4xi32>, tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> (tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5 : tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>
}
