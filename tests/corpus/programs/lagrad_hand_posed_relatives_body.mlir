// Source: pengmai/lagrad test/LAGrad/hand/get_posed_relatives_body.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/get_posed_relatives_body.mlir
// What: the body of Hand's get_posed_relatives for one bone: a call to the Euler-angle rotation (attributes {pure = true}; sin/cos scattered by tensor.insert into zero-filled 3x3s, two linalg.matmul), tensor.insert_slice of the rotation into a zero-filled 4x4, tensor.insert of 1.0 at [3, 3], linalg.matmul with the base relative.
// Adaptations: `func` -> `func.func` (two functions); `linalg.init_tensor [...]` -> `tensor.empty()` (4 places); old `linalg.fill(...)` -> `linalg.fill ins(...) outs(...)` (4 places); removed the comment lines (commented-out printing); dropped the driver @main (lagrad.grad wrt the first argument) and the print declaration; added the gradir entry @vjp_pr_body (autodiff.vjp wrt both arguments) below the marker.
// gradir-corpus: entry=pr_body wrt=0,1 reference=lg_pr_body inputs=signed

func.func @meuler_angles_to_rotation_matrix(%xyz: tensor<3xf64>) -> tensor<3x3xf64> attributes {pure = true} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %tx = tensor.extract %xyz[%c0] : tensor<3xf64>
  %ty = tensor.extract %xyz[%c2] : tensor<3xf64>
  %tz = tensor.extract %xyz[%c1] : tensor<3xf64>

  %Rx_0 = tensor.empty() : tensor<3x3xf64>
  %Rx_1 = linalg.fill ins(%zero : f64) outs(%Rx_0 : tensor<3x3xf64>) -> tensor<3x3xf64>
  %cos_tx = math.cos %tx : f64
  %Rx_2 = tensor.insert %cos_tx into %Rx_1[%c1, %c1] : tensor<3x3xf64>
  %sin_tx = math.sin %tx : f64
  %Rx_3 = tensor.insert %sin_tx into %Rx_2[%c1, %c2] : tensor<3x3xf64>
  %nsin_tx = arith.negf %sin_tx : f64
  %Rx_4 = tensor.insert %nsin_tx into %Rx_3[%c2, %c1] : tensor<3x3xf64>
  %Rx_5 = tensor.insert %cos_tx into %Rx_4[%c2, %c2] : tensor<3x3xf64>
  %Rx = tensor.insert %one into %Rx_5[%c0, %c0] : tensor<3x3xf64>

  %Ry_0 = tensor.empty() : tensor<3x3xf64>
  %Ry_1 = linalg.fill ins(%zero : f64) outs(%Ry_0 : tensor<3x3xf64>) -> tensor<3x3xf64>
  %cos_ty = math.cos %ty : f64
  %Ry_2 = tensor.insert %cos_ty into %Ry_1[%c0, %c0] : tensor<3x3xf64>
  %sin_ty = math.sin %ty : f64
  %Ry_3 = tensor.insert %sin_ty into %Ry_2[%c0, %c2] : tensor<3x3xf64>
  %nsin_ty = arith.negf %sin_ty : f64
  %Ry_4 = tensor.insert %nsin_ty into %Ry_3[%c2, %c0] : tensor<3x3xf64>
  %Ry_5 = tensor.insert %cos_ty into %Ry_4[%c2, %c2] : tensor<3x3xf64>
  %Ry = tensor.insert %one into %Ry_5[%c1, %c1] : tensor<3x3xf64>

  %Rz_0 = tensor.empty() : tensor<3x3xf64>
  %Rz_1 = linalg.fill ins(%zero : f64) outs(%Rz_0 : tensor<3x3xf64>) -> tensor<3x3xf64>
  %cos_tz = math.cos %tz : f64
  %Rz_2 = tensor.insert %cos_tz into %Rz_1[%c0, %c0] : tensor<3x3xf64>
  %sin_tz = math.sin %tz : f64
  %Rz_3 = tensor.insert %sin_tz into %Rz_2[%c0, %c1] : tensor<3x3xf64>
  %nsin_tz = arith.negf %sin_tz : f64
  %Rz_4 = tensor.insert %nsin_tz into %Rz_3[%c1, %c0] : tensor<3x3xf64>
  %Rz_5 = tensor.insert %cos_tz into %Rz_4[%c1, %c1] : tensor<3x3xf64>
  %Rz = tensor.insert %one into %Rz_5[%c2, %c2] : tensor<3x3xf64>

  %R_init = arith.constant dense<0.0> : tensor<3x3xf64>
  %R_0 = linalg.matmul ins(%Ry, %Rz : tensor<3x3xf64>, tensor<3x3xf64>) outs(%R_init : tensor<3x3xf64>) -> tensor<3x3xf64>
  %R = linalg.matmul ins(%Rx, %R_0 : tensor<3x3xf64>, tensor<3x3xf64>) outs(%R_init : tensor<3x3xf64>) -> tensor<3x3xf64>
  return %R : tensor<3x3xf64>
}

func.func @pr_body(%pose_params: tensor<3xf64>, %base_relatives: tensor<4x4xf64>) -> tensor<4x4xf64> {
  %matmul_init = arith.constant dense<0.0> : tensor<4x4xf64>
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %c3 = arith.constant 3 : index
  %tr_space = tensor.empty() : tensor<4x4xf64>
  %tr_init = linalg.fill ins(%zero : f64) outs(%tr_space : tensor<4x4xf64>) -> tensor<4x4xf64>

  %R = call @meuler_angles_to_rotation_matrix(%pose_params) : (tensor<3xf64>) -> tensor<3x3xf64>
  %tr_0 = tensor.insert_slice %R into %tr_init[0, 0] [3, 3] [1, 1] : tensor<3x3xf64> into tensor<4x4xf64>
  %tr = tensor.insert %one into %tr_0[%c3, %c3] : tensor<4x4xf64>
  %rel_slice = linalg.matmul ins(%tr, %base_relatives : tensor<4x4xf64>, tensor<4x4xf64>) outs(%matmul_init : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %rel_slice : tensor<4x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pr_body(%pp: tensor<3xf64>, %br: tensor<4x4xf64>, %ct: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<3xf64>, tensor<4x4xf64>) {
  %r:3 = autodiff.vjp @pr_body(%pp, %br, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf64>, tensor<4x4xf64>, tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<3xf64>, tensor<4x4xf64>)
  return %r#0, %r#1, %r#2 : tensor<4x4xf64>, tensor<3xf64>, tensor<4x4xf64>
}
