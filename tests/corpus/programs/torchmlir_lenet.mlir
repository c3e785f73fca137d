// Source: pytorch/tutorials beginner_source/blitz/neural_networks_tutorial.py (commit 06dc97785c47755b8d5bca167ad3cfc2ee8a04c1; its `Net`, LeNet-5), https://github.com/pytorch/tutorials/blob/06dc97785c47755b8d5bca167ad3cfc2ee8a04c1/beginner_source/blitz/neural_networks_tutorial.py, trained with the loss of pytorch/examples mnist/main.py (commit f15fac72e01158bcb704dded7c7e511f7a712a5f; `F.log_softmax` then `F.nll_loss(output, target)` in `train`), https://github.com/pytorch/examples/blob/f15fac72e01158bcb704dded7c7e511f7a712a5f/mnist/main.py
// What: a LeNet-5 training loss in the form torch-mlir's linalg-on-tensors lowering gives it: tensor.pad, linalg.conv_2d_nchw_fchw into a bias broadcast generic, ReLU as `cmpf ugt` + select generics, linalg.pooling_nchw_max into a -FLT_MAX fill with an empty window, tensor.collapse_shape, linalg.transpose + linalg.matmul + bias generics, log-softmax generics (max, subtract, exp, sum, log) and the NLL loss as a generic gathering logp[i, label[i]] with tensor.extract at integer labels (ignore_index -100), mean over the counted labels.
// Adaptations: the upstream source is the PyTorch program, not MLIR: this text is written by hand (examples/cnn/lenet.py at batch 4) in the form of torch-mlir's lowering, not produced by torch-mlir; the model's input is 28x28 MNIST padded by 2 in conv1 (`padding=2`; the tutorial's net expects 32x32 images); log-softmax and the NLL loss of mnist/main.py follow fc3 (the tutorial returns the logits and uses MSELoss); batch 4 (mnist/main.py: 64); the ten parameters are function arguments (torch-mlir inlines them as constants); the maximum log-softmax subtracts is a one-result reduction generic with arith.maximumf (torch-mlir's lowering of aten.amax) where torch-mlir's decomposition of log-softmax writes a two-result max/argmax generic, which xDSL 0.74 cannot parse; added the gradir entry @lenet_grad (autodiff.grad) below the marker.
// gradir-corpus: entry=lenet wrt=2,3,4,5,6,7,8,9,10,11 reference=lenet_nll_loss inputs=lenet

#map = affine_map<(d0, d1, d2, d3) -> (d1)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0) -> ()>
#map7 = affine_map<() -> ()>
  func.func @lenet(%x: tensor<4x1x28x28xf32>, %labels: tensor<4xi64>, %w1: tensor<6x1x5x5xf32>, %b1: tensor<6xf32>, %w2: tensor<16x6x5x5xf32>, %b2: tensor<16xf32>, %w3: tensor<120x400xf32>, %b3: tensor<120xf32>, %w4: tensor<84x120xf32>, %b4: tensor<84xf32>, %w5: tensor<10x84xf32>, %b5: tensor<10xf32>) -> tensor<f32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant -3.40282347E+38 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %c-100_i64 = arith.constant -100 : i64
    %padded_1 = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2] {
    ^bb0(%arg20: index, %arg21: index, %arg22: index, %arg23: index):
      tensor.yield %cst : f32
    } : tensor<4x1x28x28xf32> to tensor<4x1x32x32xf32>
    %empty_1 = tensor.empty() : tensor<4x6x28x28xf32>
    %bias_1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<6xf32>) outs(%empty_1 : tensor<4x6x28x28xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x6x28x28xf32>
    %conv_1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_1, %w1 : tensor<4x1x32x32xf32>, tensor<6x1x5x5xf32>) outs(%bias_1 : tensor<4x6x28x28xf32>) -> tensor<4x6x28x28xf32>
    %relu_1 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv_1 : tensor<4x6x28x28xf32>) outs(%empty_1 : tensor<4x6x28x28xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.cmpf ugt, %in, %cst : f32
      %s = arith.select %r, %in, %cst : f32
      linalg.yield %s : f32
    } -> tensor<4x6x28x28xf32>
    %pool_empty_1 = tensor.empty() : tensor<4x6x14x14xf32>
    %pool_init_1 = linalg.fill ins(%cst_0 : f32) outs(%pool_empty_1 : tensor<4x6x14x14xf32>) -> tensor<4x6x14x14xf32>
    %window_1 = tensor.empty() : tensor<2x2xf32>
    %pool_1 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu_1, %window_1 : tensor<4x6x28x28xf32>, tensor<2x2xf32>) outs(%pool_init_1 : tensor<4x6x14x14xf32>) -> tensor<4x6x14x14xf32>
    %empty_2 = tensor.empty() : tensor<4x16x10x10xf32>
    %bias_2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<16xf32>) outs(%empty_2 : tensor<4x16x10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x16x10x10xf32>
    %conv_2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pool_1, %w2 : tensor<4x6x14x14xf32>, tensor<16x6x5x5xf32>) outs(%bias_2 : tensor<4x16x10x10xf32>) -> tensor<4x16x10x10xf32>
    %relu_2 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv_2 : tensor<4x16x10x10xf32>) outs(%empty_2 : tensor<4x16x10x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.cmpf ugt, %in, %cst : f32
      %s = arith.select %r, %in, %cst : f32
      linalg.yield %s : f32
    } -> tensor<4x16x10x10xf32>
    %pool_empty_2 = tensor.empty() : tensor<4x16x5x5xf32>
    %pool_init_2 = linalg.fill ins(%cst_0 : f32) outs(%pool_empty_2 : tensor<4x16x5x5xf32>) -> tensor<4x16x5x5xf32>
    %window_2 = tensor.empty() : tensor<2x2xf32>
    %pool_2 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu_2, %window_2 : tensor<4x16x10x10xf32>, tensor<2x2xf32>) outs(%pool_init_2 : tensor<4x16x5x5xf32>) -> tensor<4x16x5x5xf32>
    %flat = tensor.collapse_shape %pool_2 [[0], [1, 2, 3]] : tensor<4x16x5x5xf32> into tensor<4x400xf32>
    %t_empty_3 = tensor.empty() : tensor<400x120xf32>
    %transposed_3 = linalg.transpose ins(%w3 : tensor<120x400xf32>) outs(%t_empty_3 : tensor<400x120xf32>) permutation = [1, 0]
    %mm_empty_3 = tensor.empty() : tensor<4x120xf32>
    %mm_init_3 = linalg.fill ins(%cst : f32) outs(%mm_empty_3 : tensor<4x120xf32>) -> tensor<4x120xf32>
    %mm_3 = linalg.matmul ins(%flat, %transposed_3 : tensor<4x400xf32>, tensor<400x120xf32>) outs(%mm_init_3 : tensor<4x120xf32>) -> tensor<4x120xf32>
    %linear_3 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%mm_3, %b3 : tensor<4x120xf32>, tensor<120xf32>) outs(%mm_empty_3 : tensor<4x120xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<4x120xf32>
    %hidden_3 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%linear_3 : tensor<4x120xf32>) outs(%mm_empty_3 : tensor<4x120xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.cmpf ugt, %in, %cst : f32
      %s = arith.select %r, %in, %cst : f32
      linalg.yield %s : f32
    } -> tensor<4x120xf32>
    %t_empty_4 = tensor.empty() : tensor<120x84xf32>
    %transposed_4 = linalg.transpose ins(%w4 : tensor<84x120xf32>) outs(%t_empty_4 : tensor<120x84xf32>) permutation = [1, 0]
    %mm_empty_4 = tensor.empty() : tensor<4x84xf32>
    %mm_init_4 = linalg.fill ins(%cst : f32) outs(%mm_empty_4 : tensor<4x84xf32>) -> tensor<4x84xf32>
    %mm_4 = linalg.matmul ins(%hidden_3, %transposed_4 : tensor<4x120xf32>, tensor<120x84xf32>) outs(%mm_init_4 : tensor<4x84xf32>) -> tensor<4x84xf32>
    %linear_4 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%mm_4, %b4 : tensor<4x84xf32>, tensor<84xf32>) outs(%mm_empty_4 : tensor<4x84xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<4x84xf32>
    %hidden_4 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%linear_4 : tensor<4x84xf32>) outs(%mm_empty_4 : tensor<4x84xf32>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.cmpf ugt, %in, %cst : f32
      %s = arith.select %r, %in, %cst : f32
      linalg.yield %s : f32
    } -> tensor<4x84xf32>
    %t_empty_5 = tensor.empty() : tensor<84x10xf32>
    %transposed_5 = linalg.transpose ins(%w5 : tensor<10x84xf32>) outs(%t_empty_5 : tensor<84x10xf32>) permutation = [1, 0]
    %mm_empty_5 = tensor.empty() : tensor<4x10xf32>
    %mm_init_5 = linalg.fill ins(%cst : f32) outs(%mm_empty_5 : tensor<4x10xf32>) -> tensor<4x10xf32>
    %mm_5 = linalg.matmul ins(%hidden_4, %transposed_5 : tensor<4x84xf32>, tensor<84x10xf32>) outs(%mm_init_5 : tensor<4x10xf32>) -> tensor<4x10xf32>
    %linear_5 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%mm_5, %b5 : tensor<4x10xf32>, tensor<10xf32>) outs(%mm_empty_5 : tensor<4x10xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    } -> tensor<4x10xf32>
    %max_empty = tensor.empty() : tensor<4xf32>
    %max_init = linalg.fill ins(%cst_0 : f32) outs(%max_empty : tensor<4xf32>) -> tensor<4xf32>
    %max = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "reduction"]} ins(%linear_5 : tensor<4x10xf32>) outs(%max_init : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %out : f32
      linalg.yield %m : f32
    } -> tensor<4xf32>
    %ls_empty = tensor.empty() : tensor<4x10xf32>
    %shifted = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel"]} ins(%linear_5, %max : tensor<4x10xf32>, tensor<4xf32>) outs(%ls_empty : tensor<4x10xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %d = arith.subf %in, %in_0 : f32
      linalg.yield %d : f32
    } -> tensor<4x10xf32>
    %exp = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%shifted : tensor<4x10xf32>) outs(%ls_empty : tensor<4x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    } -> tensor<4x10xf32>
    %sum_init = linalg.fill ins(%cst : f32) outs(%max_empty : tensor<4xf32>) -> tensor<4xf32>
    %sum = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x10xf32>) outs(%sum_init : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    %logp = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel"]} ins(%shifted, %sum : tensor<4x10xf32>, tensor<4xf32>) outs(%ls_empty : tensor<4x10xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %l = math.log %in_0 : f32
      %d = arith.subf %in, %l : f32
      linalg.yield %d : f32
    } -> tensor<4x10xf32>
    %picked = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%labels : tensor<4xi64>) outs(%max_empty : tensor<4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %i = linalg.index 0 : index
      %c = arith.index_cast %in : i64 to index
      %v = tensor.extract %logp[%i, %c] : tensor<4x10xf32>
      %keep = arith.cmpi ne, %in, %c-100_i64 : i64
      %n = arith.negf %v : f32
      %r = arith.select %keep, %n, %cst : f32
      linalg.yield %r : f32
    } -> tensor<4xf32>
    %loss_empty = tensor.empty() : tensor<f32>
    %loss_init = linalg.fill ins(%cst : f32) outs(%loss_empty : tensor<f32>) -> tensor<f32>
    %total = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction"]} ins(%picked : tensor<4xf32>) outs(%loss_init : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    %count = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["reduction"]} ins(%labels : tensor<4xi64>) outs(%loss_init : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %keep = arith.cmpi ne, %in, %c-100_i64 : i64
      %one = arith.select %keep, %cst_1, %cst : f32
      %s = arith.addf %one, %out : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    %loss = linalg.generic {indexing_maps = [#map7, #map7, #map7], iterator_types = []} ins(%total, %count : tensor<f32>, tensor<f32>) outs(%loss_empty : tensor<f32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %q = arith.divf %in, %in_0 : f32
      linalg.yield %q : f32
    } -> tensor<f32>
    return %loss : tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @lenet_grad(%x: tensor<4x1x28x28xf32>, %labels: tensor<4xi64>, %w1: tensor<6x1x5x5xf32>, %b1: tensor<6xf32>, %w2: tensor<16x6x5x5xf32>, %b2: tensor<16xf32>, %w3: tensor<120x400xf32>, %b3: tensor<120xf32>, %w4: tensor<84x120xf32>, %b4: tensor<84xf32>, %w5: tensor<10x84xf32>, %b5: tensor<10xf32>) -> (tensor<6x1x5x5xf32>, tensor<6xf32>, tensor<16x6x5x5xf32>, tensor<16xf32>, tensor<120x400xf32>, tensor<120xf32>, tensor<84x120xf32>, tensor<84xf32>, tensor<10x84xf32>, tensor<10xf32>) {
  %g:10 = autodiff.grad @lenet(%x, %labels, %w1, %b1, %w2, %b2, %w3, %b3, %w4, %b4, %w5, %b5) {wrt = array<i64: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>} : (tensor<4x1x28x28xf32>, tensor<4xi64>, tensor<6x1x5x5xf32>, tensor<6xf32>, tensor<16x6x5x5xf32>, tensor<16xf32>, tensor<120x400xf32>, tensor<120xf32>, tensor<84x120xf32>, tensor<84xf32>, tensor<10x84xf32>, tensor<10xf32>) -> (tensor<6x1x5x5xf32>, tensor<6xf32>, tensor<16x6x5x5xf32>, tensor<16xf32>, tensor<120x400xf32>, tensor<120xf32>, tensor<84x120xf32>, tensor<84xf32>, tensor<10x84xf32>, tensor<10xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8, %g#9 : tensor<6x1x5x5xf32>, tensor<6xf32>, tensor<16x6x5x5xf32>, tensor<16xf32>, tensor<120x400xf32>, tensor<120xf32>, tensor<84x120xf32>, tensor<84xf32>, tensor<10x84xf32>, tensor<10xf32>
}
