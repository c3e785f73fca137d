// Named linalg ops as a front end emits them (batch_matmul, softmax, contract, map,
// broadcast, batch_matvec, reduce with a max, dot), differentiated and lowered for the GPU:
// the gradient checks against central differences (CPU) and every kernel of the program
// and of its gradient becomes PTX for sm_90 (assembled by ptxas in named_linalg_ptxas.mlir).
// RUN: autodiff-gradcheck %s --entry attention | filecheck %s --check-prefix=GRADCHECK
// RUN: autodiff-opt %s --pipeline gpu --emit ptx | filecheck %s --check-prefix=PTX

// GRADCHECK: gradcheck of @attention (wrt [0, 1, 2, 3]): passed

// PTX: .target sm_90
// PTX: .visible .entry attention_0_
// PTX: .visible .entry attention_vjp_0_1_2_3_0_
// PTX: .visible .entry attention_grad_0_1_2_3_0_

func.func @attention(%q: tensor<2x8x16xf32>, %k: tensor<2x16x8xf32>, %v: tensor<8x16xf32>, %w: tensor<16xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.0e38 : f32
  %e288 = tensor.empty() : tensor<2x8x8xf32>
  %z288 = linalg.fill ins(%zero : f32) outs(%e288 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %k : tensor<2x8x16xf32>, tensor<2x16x8xf32>) outs(%z288 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<2x8x8xf32>) outs(%e288 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %e2816 = tensor.empty() : tensor<2x8x16xf32>
  %z2816 = linalg.fill ins(%zero : f32) outs(%e2816 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %o = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%p, %v : tensor<2x8x8xf32>, tensor<8x16xf32>) outs(%z2816 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %h = linalg.map ins(%o : tensor<2x8x16xf32>) outs(%e2816 : tensor<2x8x16xf32>)
    (%in: f32, %init: f32) {
      %sin = math.sin %in : f32
      %y = arith.mulf %sin, %in : f32
      linalg.yield %y : f32
    }
  %e216 = tensor.empty() : tensor<2x16xf32>
  %wb = linalg.broadcast ins(%w : tensor<16xf32>) outs(%e216 : tensor<2x16xf32>) dimensions = [0]
  %e28 = tensor.empty() : tensor<2x8xf32>
  %z28 = linalg.fill ins(%zero : f32) outs(%e28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.batch_matvec ins(%h, %wb : tensor<2x8x16xf32>, tensor<2x16xf32>) outs(%z28 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %low2 = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.reduce { arith.maximumf } ins(%r : tensor<2x8xf32>) outs(%low2 : tensor<2xf32>) dimensions = [1]
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%m, %m : tensor<2xf32>, tensor<2xf32>) outs(%z0 : tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}

func.func @attention_grad(%q: tensor<2x8x16xf32>, %k: tensor<2x16x8xf32>, %v: tensor<8x16xf32>, %w: tensor<16xf32>)
    -> (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<8x16xf32>, tensor<16xf32>) {
  %dq, %dk, %dv, %dw = autodiff.grad @attention(%q, %k, %v, %w)
      : (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<8x16xf32>, tensor<16xf32>)
      -> (tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<8x16xf32>, tensor<16xf32>)
  return %dq, %dk, %dv, %dw : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<8x16xf32>, tensor<16xf32>
}
