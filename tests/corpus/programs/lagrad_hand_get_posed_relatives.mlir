// Source: pengmai/lagrad test/LAGrad/hand/get_posed_relatives.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/get_posed_relatives.mlir
// What: ADBench Hand get_posed_relatives: an scf.for over 22 bones carrying an uninitialised 22x4x4 tensor; per bone a rank-reducing extract_slice of the pose parameters, an arith.addf with a zero constant (upstream's workaround), a func.call to the private Euler-angle rotation (math.sin/cos scattered by tensor.insert into zero-filled 3x3s, two linalg.matmul), tensor.insert_slice of the rotation into a zero-filled 4x4, tensor.insert of 1.0 at [3, 3], linalg.matmul with the bone's base relative and insert_slice of the result.
// Adaptations: `func`/`func private` -> `func.func`/`func.func private`; `linalg.init_tensor [...]` -> `tensor.empty()` (5 places); old `linalg.fill(%zero, %x) : f64, T -> T` -> `linalg.fill ins(...) outs(...) -> T` (4 places); the `call` inside the scf.for -> `func.call` (MLIR 22 resolves a bare `call` only directly in a func.func body); removed the comment lines; dropped the wrappers @lagrad_tangent_get_posed_relatives (lagrad.tangent) and @lagrad_get_posed_relatives (lagrad.grad {of = [1]}); added the gradir entry @vjp_get_posed_relatives (autodiff.vjp, same wrt; gradcheck checks the jvp as upstream's lagrad.tangent) below the marker.
// gradir-corpus: entry=mget_posed_relatives wrt=1 reference=lg_get_posed_relatives inputs=signed

func.func private @meuler_angles_to_rotation_matrix(%xyz: tensor<3xf64>) -> tensor<3x3xf64> {
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

func.func @mget_posed_relatives(%base_relatives: tensor<22x4x4xf64>, %pose_params: tensor<25x3xf64>) -> tensor<22x4x4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cb = arith.constant 22 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %matmul_init = arith.constant dense<0.0> : tensor<4x4xf64>
  %zero3 = arith.constant dense<0.0> : tensor<3xf64>
  %tr_space = tensor.empty() : tensor<4x4xf64>
  %tr_init = linalg.fill ins(%zero : f64) outs(%tr_space : tensor<4x4xf64>) -> tensor<4x4xf64>
  %rel_space = tensor.empty() : tensor<22x4x4xf64>
  %relatives = scf.for %iv = %c0 to %cb step %c1 iter_args(%rel = %rel_space) -> tensor<22x4x4xf64> {
    %pose_idx = arith.addi %iv, %c3 : index
    %pose_slice_casted = tensor.extract_slice %pose_params[%pose_idx, 0] [1, 3] [1, 1] : tensor<25x3xf64> to tensor<3xf64>

    %pose_slice = arith.addf %pose_slice_casted, %zero3 : tensor<3xf64>

    %R = func.call @meuler_angles_to_rotation_matrix(%pose_slice) : (tensor<3xf64>) -> tensor<3x3xf64>
    %tr_0 = tensor.insert_slice %R into %tr_init[0, 0] [3, 3] [1, 1] : tensor<3x3xf64> into tensor<4x4xf64>
    %tr = tensor.insert %one into %tr_0[%c3, %c3] : tensor<4x4xf64>
    %base_slice = tensor.extract_slice %base_relatives[%iv, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<22x4x4xf64> to tensor<4x4xf64>
    %rel_slice = linalg.matmul ins(%tr, %base_slice : tensor<4x4xf64>, tensor<4x4xf64>) outs(%matmul_init : tensor<4x4xf64>) -> tensor<4x4xf64>

    %rel_next = tensor.insert_slice %rel_slice into %rel[%iv, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf64> into tensor<22x4x4xf64>
    scf.yield %rel_next : tensor<22x4x4xf64>
  }
  return %relatives : tensor<22x4x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_get_posed_relatives(%br: tensor<22x4x4xf64>, %pp: tensor<25x3xf64>, %ct: tensor<22x4x4xf64>) -> (tensor<22x4x4xf64>, tensor<25x3xf64>) {
  %r:2 = autodiff.vjp @mget_posed_relatives(%br, %pp, %ct) {wrt = array<i64: 1>} : (tensor<22x4x4xf64>, tensor<25x3xf64>, tensor<22x4x4xf64>) -> (tensor<22x4x4xf64>, tensor<25x3xf64>)
  return %r#0, %r#1 : tensor<22x4x4xf64>, tensor<25x3xf64>
}
