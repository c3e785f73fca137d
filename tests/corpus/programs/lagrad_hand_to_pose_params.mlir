// Source: pengmai/lagrad test/LAGrad/hand/to_pose_params.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/to_pose_params.mlir
// What: ADBench Hand to_pose_params: two scf.for loops scattering theta elements into a 25x3 matrix with tensor.insert at computed indices, the second loop carrying two index iter_args besides the tensor.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [25, 3]` -> `tensor.empty()`; old `linalg.fill(%zero, %space) : f64, tensor<25x3xf64> -> tensor<25x3xf64>` -> `linalg.fill ins(...) outs(...) -> tensor<25x3xf64>`; dropped the driver @main and the two lagrad wrappers (lagrad.tangent, lagrad.grad); added the gradir entries @vjp_to_pose_params (autodiff.vjp) and @jvp_to_pose_params (autodiff.jvp, as upstream's lagrad.tangent) below the marker.
// gradir-corpus: entry=mto_pose_params wrt=0 reference=to_pose_params

func.func @mto_pose_params(%theta: tensor<26xf64>) -> tensor<25x3xf64> {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %ones = arith.constant dense<1.0> : tensor<3xf64>
  %pose_params_space = tensor.empty() : tensor<25x3xf64>
  %pose_params_init = linalg.fill ins(%zero : f64) outs(%pose_params_space : tensor<25x3xf64>) -> tensor<25x3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %pp_1 = scf.for %iv = %c0 to %c3 step %c1 iter_args(%ppiv = %pose_params_init) -> (tensor<25x3xf64>) {
    %th0 = tensor.extract %theta[%iv] : tensor<26xf64>
    %th3_idx = arith.addi %iv, %c3 : index
    %th1 = tensor.extract %theta[%th3_idx] : tensor<26xf64>
    %ppiv_0 = tensor.insert %th0 into %ppiv[%c0, %iv] : tensor<25x3xf64>
    %ppiv_1 = tensor.insert %one into %ppiv_0[%c1, %iv] : tensor<25x3xf64>
    %ppiv_2 = tensor.insert %th1 into %ppiv_1[%c2, %iv] : tensor<25x3xf64>
    scf.yield %ppiv_2 : tensor<25x3xf64>
  }

  %i_theta_start = arith.constant 6 : index
  %i_pose = arith.constant 5 : index
  %pp_2:3 = scf.for %iv = %c0 to %c5 step %c1 iter_args(%ppiv = %pp_1, %i_theta = %i_theta_start, %i_pp = %i_pose) -> (tensor<25x3xf64>, index, index) {
    %th0 = tensor.extract %theta[%i_theta] : tensor<26xf64>
    %it_1 = arith.addi %i_theta, %c1 : index
    %th1 = tensor.extract %theta[%it_1] : tensor<26xf64>
    %it_2 = arith.addi %it_1, %c1 : index
    %th2 = tensor.extract %theta[%it_2] : tensor<26xf64>
    %it_3 = arith.addi %it_2, %c1 : index
    %th3 = tensor.extract %theta[%it_3] : tensor<26xf64>
    %it_4 = arith.addi %it_3, %c1 : index

    %ppiv_0 = tensor.insert %th0 into %ppiv[%i_pp, %c0] : tensor<25x3xf64>
    %ppiv_1 = tensor.insert %th1 into %ppiv_0[%i_pp, %c1] : tensor<25x3xf64>
    %ip_1 = arith.addi %i_pp, %c1 : index
    %ppiv_2 = tensor.insert %th2 into %ppiv_1[%ip_1, %c0] : tensor<25x3xf64>
    %ip_2 = arith.addi %ip_1, %c1 : index
    %ppiv_3 = tensor.insert %th3 into %ppiv_2[%ip_2, %c0] : tensor<25x3xf64>

    %ip_3 = arith.addi %ip_2, %c2 : index
    scf.yield %ppiv_3, %it_4, %ip_3 : tensor<25x3xf64>, index, index
  }

  return %pp_2#0 : tensor<25x3xf64>
}


// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_to_pose_params(%theta: tensor<26xf64>, %ct: tensor<25x3xf64>) -> (tensor<25x3xf64>, tensor<26xf64>) {
  %r:2 = autodiff.vjp @mto_pose_params(%theta, %ct) {wrt = array<i64: 0>} : (tensor<26xf64>, tensor<25x3xf64>) -> (tensor<25x3xf64>, tensor<26xf64>)
  return %r#0, %r#1 : tensor<25x3xf64>, tensor<26xf64>
}

func.func @jvp_to_pose_params(%theta: tensor<26xf64>, %dtheta: tensor<26xf64>) -> (tensor<25x3xf64>, tensor<25x3xf64>) {
  %r:2 = autodiff.jvp @mto_pose_params(%theta, %dtheta) {wrt = array<i64: 0>} : (tensor<26xf64>, tensor<26xf64>) -> (tensor<25x3xf64>, tensor<25x3xf64>)
  return %r#0, %r#1 : tensor<25x3xf64>, tensor<25x3xf64>
}
