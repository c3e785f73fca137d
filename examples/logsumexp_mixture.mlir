// Negative log-likelihood of an isotropic Gaussian mixture, written with a
// numerically stable log-sum-exp (subtract the max), and its gradient with
// respect to the means and the mixture logits. n = 6 points, k = 3 components, d = 2.

func.func @mixture_nll(%x: tensor<6x2xf64>, %means: tensor<3x2xf64>, %logits: tensor<3xf64>) -> tensor<f64> {
  %half = arith.constant dense<-5.000000e-01> : tensor<f64>
  %n = arith.constant dense<6.000000e+00> : tensor<f64>
  %xs = autodiff.reshape %x : tensor<6x2xf64> -> tensor<6x1x2xf64>
  %diff = autodiff.sub %xs, %means : (tensor<6x1x2xf64>, tensor<3x2xf64>) -> tensor<6x3x2xf64>
  %sq = autodiff.mul %diff, %diff : (tensor<6x3x2xf64>, tensor<6x3x2xf64>) -> tensor<6x3x2xf64>
  %dist = autodiff.sum %sq {dims = array<i64: 2>} : tensor<6x3x2xf64> -> tensor<6x3xf64>
  %scaled = autodiff.mul %dist, %half : (tensor<6x3xf64>, tensor<f64>) -> tensor<6x3xf64>
  %a = autodiff.add %scaled, %logits : (tensor<6x3xf64>, tensor<3xf64>) -> tensor<6x3xf64>
  // log-sum-exp over the components, per point
  %m = autodiff.max %a {dims = array<i64: 1>, keepdim = true} : tensor<6x3xf64> -> tensor<6x1xf64>
  %shifted = autodiff.sub %a, %m : (tensor<6x3xf64>, tensor<6x1xf64>) -> tensor<6x3xf64>
  %e = autodiff.exp %shifted : tensor<6x3xf64>
  %s = autodiff.sum %e {dims = array<i64: 1>, keepdim = true} : tensor<6x3xf64> -> tensor<6x1xf64>
  %l = autodiff.log %s : tensor<6x1xf64>
  %lse = autodiff.add %l, %m : (tensor<6x1xf64>, tensor<6x1xf64>) -> tensor<6x1xf64>
  %total = autodiff.sum %lse : tensor<6x1xf64> -> tensor<f64>
  // normaliser: n * log-sum-exp(logits)
  %lm = autodiff.max %logits {keepdim = true} : tensor<3xf64> -> tensor<1xf64>
  %ls = autodiff.sub %logits, %lm : (tensor<3xf64>, tensor<1xf64>) -> tensor<3xf64>
  %le = autodiff.exp %ls : tensor<3xf64>
  %lsum = autodiff.sum %le : tensor<3xf64> -> tensor<f64>
  %llog = autodiff.log %lsum : tensor<f64>
  %lmax = autodiff.reshape %lm : tensor<1xf64> -> tensor<f64>
  %norm1 = autodiff.add %llog, %lmax : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %norm = autodiff.mul %norm1, %n : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %ll = autodiff.sub %total, %norm : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %nll = autodiff.neg %ll : tensor<f64>
  return %nll : tensor<f64>
}

func.func @mixture_grad(%x: tensor<6x2xf64>, %means: tensor<3x2xf64>, %logits: tensor<3xf64>) -> (tensor<3x2xf64>, tensor<3xf64>) {
  %g:2 = autodiff.grad @mixture_nll(%x, %means, %logits) {wrt = array<i64: 1, 2>}
      : (tensor<6x2xf64>, tensor<3x2xf64>, tensor<3xf64>) -> (tensor<3x2xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3x2xf64>, tensor<3xf64>
}
