// A recurrent network: h_{t+1} = tanh(x_t Wx + h_t Wh + b), 20 steps over a
// sequence, loss = sum(h_T^2). Written with scf.for over tensor.extract_slice.
func.func @rnn_loss(%xs: tensor<20x4x8xf32>, %h0: tensor<4x16xf32>, %wx: tensor<8x16xf32>,
                    %wh: tensor<16x16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %h = scf.for %t = %c0 to %c20 step %c1 iter_args(%hc = %h0) -> (tensor<4x16xf32>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<20x4x8xf32> to tensor<4x8xf32>
    %xw = autodiff.matmul %x, %wx : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %hw = autodiff.matmul %hc, %wh : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %s = autodiff.add %xw, %hw : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %sb = autodiff.add %s, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    %hn = autodiff.tanh %sb : tensor<4x16xf32>
    scf.yield %hn : tensor<4x16xf32>
  }
  %sq = autodiff.mul %h, %h : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %loss = autodiff.sum %sq : tensor<4x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
