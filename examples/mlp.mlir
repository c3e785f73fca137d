// A two-hidden-layer MLP classifier (relu, then tanh) with a log_softmax
// cross-entropy loss, and its gradient with respect to every weight and bias.
// Batch 8, 16 features, hidden 32 and 24, 10 classes; `labels` is one-hot.

func.func @mlp_loss(%x: tensor<8x16xf32>, %labels: tensor<8x10xf32>,
                    %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                    %w2: tensor<32x24xf32>, %b2: tensor<24xf32>,
                    %w3: tensor<24x10xf32>, %b3: tensor<10xf32>) -> tensor<f32> {
  %h1 = autodiff.matmul %x, %w1 : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %z1 = autodiff.add %h1, %b1 : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %a1 = autodiff.relu %z1 : tensor<8x32xf32>
  %h2 = autodiff.matmul %a1, %w2 : (tensor<8x32xf32>, tensor<32x24xf32>) -> tensor<8x24xf32>
  %z2 = autodiff.add %h2, %b2 : (tensor<8x24xf32>, tensor<24xf32>) -> tensor<8x24xf32>
  %a2 = autodiff.tanh %z2 : tensor<8x24xf32>
  %h3 = autodiff.matmul %a2, %w3 : (tensor<8x24xf32>, tensor<24x10xf32>) -> tensor<8x10xf32>
  %logits = autodiff.add %h3, %b3 : (tensor<8x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %logp = autodiff.log_softmax %logits {dim = 1 : i64} : tensor<8x10xf32>
  %picked = autodiff.mul %logp, %labels : (tensor<8x10xf32>, tensor<8x10xf32>) -> tensor<8x10xf32>
  %per_example = autodiff.sum %picked {dims = array<i64: 1>} : tensor<8x10xf32> -> tensor<8xf32>
  %mean = autodiff.mean %per_example : tensor<8xf32> -> tensor<f32>
  %loss = autodiff.neg %mean : tensor<f32>
  return %loss : tensor<f32>
}

func.func @mlp_grad(%x: tensor<8x16xf32>, %labels: tensor<8x10xf32>,
                    %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                    %w2: tensor<32x24xf32>, %b2: tensor<24xf32>,
                    %w3: tensor<24x10xf32>, %b3: tensor<10xf32>)
    -> (tensor<16x32xf32>, tensor<32xf32>, tensor<32x24xf32>, tensor<24xf32>, tensor<24x10xf32>, tensor<10xf32>) {
  %g:6 = autodiff.grad @mlp_loss(%x, %labels, %w1, %b1, %w2, %b2, %w3, %b3) {wrt = array<i64: 2, 3, 4, 5, 6, 7>}
      : (tensor<8x16xf32>, tensor<8x10xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x24xf32>, tensor<24xf32>, tensor<24x10xf32>, tensor<10xf32>)
      -> (tensor<16x32xf32>, tensor<32xf32>, tensor<32x24xf32>, tensor<24xf32>, tensor<24x10xf32>, tensor<10xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5 : tensor<16x32xf32>, tensor<32xf32>, tensor<32x24xf32>, tensor<24xf32>, tensor<24x10xf32>, tensor<10xf32>
}
