// A numerically stable log-sum-exp over rows, summed: max and sum written
// with linalg.reduce, the shift with linalg.broadcast, the rest with
// arith/math on whole tensors.
func.func @logsumexp(%x: tensor<6x5xf32>) -> tensor<f32> {
  %lowest = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %e6 = tensor.empty() : tensor<6xf32>
  %init_max = linalg.fill ins(%lowest : f32) outs(%e6 : tensor<6xf32>) -> tensor<6xf32>
  %m = linalg.reduce ins(%x : tensor<6x5xf32>) outs(%init_max : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %e65 = tensor.empty() : tensor<6x5xf32>
  %mb = linalg.broadcast ins(%m : tensor<6xf32>) outs(%e65 : tensor<6x5xf32>) dimensions = [1]
  %d = arith.subf %x, %mb : tensor<6x5xf32>
  %ex = math.exp %d : tensor<6x5xf32>
  %init_sum = linalg.fill ins(%zero : f32) outs(%e6 : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.reduce ins(%ex : tensor<6x5xf32>) outs(%init_sum : tensor<6xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %l = math.log %s : tensor<6xf32>
  %lse = arith.addf %l, %m : tensor<6xf32>
  %e0 = tensor.empty() : tensor<f32>
  %init_total = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %total = linalg.reduce ins(%lse : tensor<6xf32>) outs(%init_total : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %total : tensor<f32>
}
