// Verifier messages of grad_of, yield, autograd_add and autograd_zero.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%g: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad_of' op body yields 1 values but the op has 2 results
  %a, %b = autodiff.grad_of "autodiff.mul" (%g) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%d: tensor<4xf32>):
    autodiff.yield %d : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%g: tensor<4xf32>, %h: tensor<4xf64>) {
  // CHECK: error: 'autodiff.grad_of' op yielded types (tensor<4xf64>) do not match the result types (tensor<4xf32>)
  %a = autodiff.grad_of "autodiff.exp" (%g) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%d: tensor<4xf32>):
    autodiff.yield %h : tensor<4xf64>
  }
  return
}

// -----

func.func @f(%g: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad_of' op body arguments (tensor<3xf32>) must match the operands (tensor<4xf32>)
  %a = autodiff.grad_of "autodiff.exp" (%g) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%d: tensor<3xf32>):
    autodiff.yield %g : tensor<4xf32>
  }
  return
}

// -----

func.func @f(%g: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad_of' op body must end with 'autodiff.yield'
  %a = autodiff.grad_of "autodiff.exp" (%g) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%d: tensor<4xf32>):
    func.return
  }
  return
}

// -----

func.func @f(%g: tensor<4xf32>) {
  // CHECK: error: 'autodiff.yield' op expects parent op 'autodiff.grad_of'
  "autodiff.yield"(%g) : (tensor<4xf32>) -> ()
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // CHECK: error: 'autodiff.autograd_add' op attribute tensor<4xf32> expected from variable 'T', but got tensor<3xf32>
  %0 = "autodiff.autograd_add"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f() {
  // CHECK: error: 'autodiff.autograd_zero' op result must have a float element type (f16, bf16, f32 or f64), got tensor<4xi64>
  %0 = autodiff.autograd_zero : tensor<4xi64>
  return
}

// -----

func.func @f(%a: tensor<4xi32>) {
  // CHECK: error: 'autodiff.autograd_add' op operand must have a float element type (f16, bf16, f32 or f64), got tensor<4xi32>
  %0 = autodiff.autograd_add %a, %a : tensor<4xi32>
  return
}

// -----

func.func @f() {
  // CHECK: error: 'autodiff.autograd_zero' op result must be a ranked tensor, got i32
  %0 = autodiff.autograd_zero : i32
  return
}

// -----

func.func @f(%n: index) {
  // CHECK: error: 'autodiff.autograd_zero' op takes one size per dynamic dimension of tensor<?x4xf32>: 1 expected, 0 given
  %0 = autodiff.autograd_zero : tensor<?x4xf32>
  return
}
