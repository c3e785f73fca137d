// Source: pengmai/lagrad test/LAGrad/nn/nn.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/nn/nn.mlir
// What: a 3-layer MLP (linalg.matmul, broadcast-add and ReLU generics from attribute aliases #broadcast_add/#relu2d with `arith.cmpf ogt` + select) feeding a batched cross-entropy with i32 labels (arith.index_cast) through func.call; returns a scalar f32 loss.
// Adaptations: `func` -> `func.func` (two functions); `select` -> `arith.select`; shapes reduced to keep the corpus fast (input 784x64 -> 12x4, hidden 512 -> 8, classes 10 -> 3, batch 64 -> 4; the constants %cd = 10 -> 3, %cb = 64 -> 4, %cbf = 64.0 -> 4.0 follow); dropped the hand-written wrapper @lagrad_mlp_batched (lagrad.grad {of = [2..7]}); removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_mlir_mlp_batched (autodiff.grad, same wrt) below the marker.
// gradir-corpus: entry=mlir_mlp_batched wrt=2,3,4,5,6,7 reference=mlp_batched inputs=mlp_batched

#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
#relu2d = {
  doc = "ReLU 2D",
  indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
  iterator_types = ["parallel", "parallel"]
}

func.func @batched_cross_entropy(%activations: tensor<3x4xf32>, %labels: tensor<4xi32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cd = arith.constant 3 : index
  %cb = arith.constant 4 : index
  %cbf = arith.constant 4.0 : f32
  %max_init = tensor.extract_slice %activations[0, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
  %max = scf.for %iv = %c1 to %cd step %c1 iter_args(%max_outer = %max_init) -> tensor<4xf32> {
    %max_outer_next = scf.for %bv = %c0 to %cb step %c1 iter_args(%max_it = %max_outer) -> tensor<4xf32> {
      %ai = tensor.extract %activations[%iv, %bv] : tensor<3x4xf32>
      %max_val = tensor.extract %max_it[%bv] : tensor<4xf32>
      %p = arith.cmpf ogt, %ai, %max_val : f32
      %max_val_next = arith.select %p, %ai, %max_val : f32
      %max_next = tensor.insert %max_val_next into %max_it[%bv] : tensor<4xf32>
      scf.yield %max_next : tensor<4xf32>
    }
    scf.yield %max_outer_next : tensor<4xf32>
  }

  %zerot = arith.constant dense<0.0> : tensor<3x4xf32>
  %zero2 = arith.constant dense<0.0> : tensor<4xf32>
  %exp = linalg.generic
    { indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"] }
    ins(%activations, %max : tensor<3x4xf32>, tensor<4xf32>)
    outs(%zerot : tensor<3x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %0 = arith.subf %arg0, %arg1 : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<3x4xf32>

  %total = linalg.generic
    { indexing_maps = [#map1, #map2], iterator_types = ["reduction", "parallel"] }
    ins(%exp : tensor<3x4xf32>)
    outs(%zero2 : tensor<4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %0 = arith.addf %arg0, %arg1 : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>

  %zero = arith.constant 0.0 : f32
  %cross_entropy_total = scf.for %iv = %c0 to %cb step %c1 iter_args(%ce_it = %zero) -> f32 {
    %label_i32 = tensor.extract %labels[%iv] : tensor<4xi32>
    %label = arith.index_cast %label_i32 : i32 to index
    %exp_val = tensor.extract %exp[%label, %iv] : tensor<3x4xf32>
    %total_val = tensor.extract %total[%iv] : tensor<4xf32>
    %sm_val = arith.divf %exp_val, %total_val : f32
    %ll = math.log %sm_val : f32
    %nll = arith.negf %ll : f32
    %ce_next = arith.addf %ce_it, %nll : f32
    scf.yield %ce_next : f32
  }
  %primal = arith.divf %cross_entropy_total, %cbf : f32
  return %primal : f32
}


#broadcast_add = {
  doc = "Broadcasted add",
  indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
  iterator_types = ["parallel", "parallel"]
}

func.func @mlir_mlp_batched(
  %input_t: tensor<12x4xf32>,
  %labels: tensor<4xi32>,
  %w0: tensor<8x12xf32>,
  %b0: tensor<8xf32>,
  %w1: tensor<8x8xf32>,
  %b1: tensor<8xf32>,
  %w2: tensor<3x8xf32>,
  %b2: tensor<3xf32>
) -> f32 {
  %zero = arith.constant 0.0 : f32
  %zero_0 = arith.constant dense<0.0> : tensor<8x4xf32>
  %zero_1 = arith.constant dense<0.0> : tensor<8x4xf32>
  %zero_2 = arith.constant dense<0.0> : tensor<3x4xf32>
  %h0_0 = linalg.matmul ins(%w0, %input_t : tensor<8x12xf32>, tensor<12x4xf32>) outs(%zero_0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h0_1 = linalg.generic #broadcast_add ins(%h0_0, %b0 : tensor<8x4xf32>, tensor<8xf32>) outs(%zero_0 : tensor<8x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %0 = arith.addf %arg0, %arg1 : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  %h0 = linalg.generic #relu2d ins(%h0_1 : tensor<8x4xf32>) outs(%zero_0 : tensor<8x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %p = arith.cmpf ogt, %arg0, %zero : f32
    %0 = arith.select %p, %arg0, %zero : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>

  %h1_0 = linalg.matmul ins(%w1, %h0 : tensor<8x8xf32>, tensor<8x4xf32>) outs(%zero_1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h1_1 = linalg.generic #broadcast_add ins(%h1_0, %b1 : tensor<8x4xf32>, tensor<8xf32>) outs(%zero_1 : tensor<8x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %0 = arith.addf %arg0, %arg1 : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  %h1 = linalg.generic #relu2d ins(%h1_1 : tensor<8x4xf32>) outs(%zero_1 : tensor<8x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %p = arith.cmpf ogt, %arg0, %zero : f32
    %0 = arith.select %p, %arg0, %zero : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>

  %act_0 = linalg.matmul ins(%w2, %h1 : tensor<3x8xf32>, tensor<8x4xf32>) outs(%zero_2 : tensor<3x4xf32>) -> tensor<3x4xf32>
  %act = linalg.generic #broadcast_add ins(%act_0, %b2 : tensor<3x4xf32>, tensor<3xf32>) outs(%zero_2 : tensor<3x4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %0 = arith.addf %arg0, %arg1 : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %loss = call @batched_cross_entropy(%act, %labels) : (tensor<3x4xf32>, tensor<4xi32>) -> f32
  return %loss : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_mlir_mlp_batched(%x: tensor<12x4xf32>, %labels: tensor<4xi32>, %w0: tensor<8x12xf32>, %b0: tensor<8xf32>, %w1: tensor<8x8xf32>, %b1: tensor<8xf32>, %w2: tensor<3x8xf32>, %b2: tensor<3xf32>) -> (tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) {
  %g:6 = autodiff.grad @mlir_mlp_batched(%x, %labels, %w0, %b0, %w1, %b1, %w2, %b2) {wrt = array<i64: 2, 3, 4, 5, 6, 7>} : (tensor<12x4xf32>, tensor<4xi32>, tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> (tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5 : tensor<8x12xf32>, tensor<8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>
}
