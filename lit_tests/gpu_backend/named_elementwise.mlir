// MLIR 22's named elementwise ops (erf, tanh, rsqrt, square, reciprocal, div, powf, abs,
// negf, floor) in one program as a front end emits them (an erf GELU, a tanh GELU, an
// RMS norm), differentiated and lowered for the GPU: the gradient checks against central
// differences (CPU) and every kernel of the program and of its gradient becomes PTX.
// RUN: autodiff-gradcheck %s --entry gelus | filecheck %s --check-prefix=GRADCHECK
// RUN: autodiff-opt %s --pipeline gpu --emit ptx | filecheck %s --check-prefix=PTX

// GRADCHECK: gradcheck of @gelus (wrt [0, 1]): passed

// PTX: .target sm_90
// PTX: .visible .entry gelus_0_
// PTX: .visible .entry gelus_vjp_0_1_0_
// PTX: .visible .entry gelus_grad_0_1_0_

func.func @gelus(%x: tensor<4x16xf32>, %g: tensor<4x16xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %half = arith.constant dense<0.5> : tensor<4x16xf32>
  %one = arith.constant dense<1.0> : tensor<4x16xf32>
  %root_half = arith.constant dense<0.70710678> : tensor<4x16xf32>
  // erf GELU: x / 2 * (1 + erf(x / sqrt 2))
  %xs = linalg.mul ins(%x, %root_half : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %erf = linalg.erf ins(%xs : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %erf1 = linalg.add ins(%erf, %one : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %xh = linalg.mul ins(%x, %half : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %gelu = linalg.mul ins(%xh, %erf1 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // tanh GELU of the gate, its cube as powf(|g|, 3) * sign: here |g| ** 3 / 10
  %ag = linalg.abs ins(%g : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %three = arith.constant dense<3.0> : tensor<4x16xf32>
  %cube = linalg.powf ins(%ag, %three : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %ten = arith.constant dense<10.0> : tensor<4x16xf32>
  %tenth = linalg.div ins(%cube, %ten : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %inner = linalg.add ins(%g, %tenth : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %th = linalg.tanh ins(%inner : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %gated = linalg.mul ins(%gelu, %th : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // RMS norm over rows: gated * rsqrt(mean(gated^2) + 1)
  %sq = linalg.square ins(%gated : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %ss = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
  %ssb = linalg.broadcast ins(%ss : tensor<4xf32>) outs(%e : tensor<4x16xf32>) dimensions = [1]
  %eps = linalg.add ins(%ssb, %one : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %inv = linalg.rsqrt ins(%eps : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %normed = linalg.mul ins(%gated, %inv : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // a reciprocal and a negation, and a floor that adds no derivative
  %shift = linalg.add ins(%normed, %three : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %rec = linalg.reciprocal ins(%shift : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %neg = linalg.negf ins(%rec : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %fl = linalg.floor ins(%ten : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %out = linalg.mul ins(%neg, %fl : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce { arith.addf } ins(%out : tensor<4x16xf32>) outs(%z0 : tensor<f32>) dimensions = [0, 1]
  return %loss : tensor<f32>
}

func.func @gelus_grad(%x: tensor<4x16xf32>, %g: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %dx, %dg = autodiff.grad @gelus(%x, %g) : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>)
  return %dx, %dg : tensor<4x16xf32>, tensor<4x16xf32>
}
