// Standard ops reverse mode cannot differentiate: one located line each.
// RUN: autodiff-opt %s -p autodiff-reverse --split-input-file --verify-diagnostics | filecheck %s

#rows = affine_map<(i, j) -> (i, j)>
// A call inside the body is inlined to be differentiated: a declaration has no body.
func.func private @opaque(f32) -> f32
func.func @atan(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%u: f32, %o: f32):
    // CHECK: standard-rules-invalid.mlir:[[# @LINE + 1]]:5: error: @opaque, called in a linalg.generic body, has no body in this module: gradir differentiates such a call by inlining the function
    %a = func.call @opaque(%u) : (f32) -> f32
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @g(%x: tensor<3x4xf32>, %ct: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r, %d = autodiff.vjp @atan(%x, %ct) : (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return %d : tensor<3x4xf32>
}

// -----

// A tensor with an encoding (LAGrad marks packed triangular matrices "pltri"): the
// rules build plain tensors, so its gradient would not have its type.
// CHECK: standard-rules-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' takes as argument 0 tensor<2xf64, "pltri">, a tensor with an encoding: gradir differentiates tensors without one (drop the encoding; a sparse tensor is not supported)
func.func @encoded_argument(%m: tensor<2xf64, "pltri">) -> tensor<f64> {
  %z = arith.constant dense<0.0> : tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%m : tensor<2xf64, "pltri">) outs(%z : tensor<f64>) {
  ^bb0(%a: f64, %b: f64):
    %p = arith.mulf %a, %a : f64
    %s = arith.addf %p, %b : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}
func.func @g(%m: tensor<2xf64, "pltri">) -> tensor<2xf64, "pltri"> {
  %d = autodiff.grad @encoded_argument(%m) : (tensor<2xf64, "pltri">) -> tensor<2xf64, "pltri">
  return %d : tensor<2xf64, "pltri">
}

// -----

func.func @encoded_value(%x: tensor<2xf64>) -> tensor<2xf64> {
  // CHECK: standard-rules-invalid.mlir:[[# @LINE + 1]]:3: error: 'tensor.cast' produces tensor<2xf64, "pltri">, a tensor with an encoding
  %m = tensor.cast %x : tensor<2xf64> to tensor<2xf64, "pltri">
  %p = arith.mulf %m, %m : tensor<2xf64, "pltri">
  %r = tensor.cast %p : tensor<2xf64, "pltri"> to tensor<2xf64>
  return %r : tensor<2xf64>
}
func.func @v(%x: tensor<2xf64>, %t: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %y, %d = autodiff.vjp @encoded_value(%x, %t) : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %y, %d : tensor<2xf64>, tensor<2xf64>
}
