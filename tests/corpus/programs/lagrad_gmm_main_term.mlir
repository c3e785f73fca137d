// Source: pengmai/lagrad test/LAGrad/gmm/main_term.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/gmm/main_term.mlir
// What: the GMM main term (no log-Wishart prior, no alphas normaliser): exp/sum preprocessing generics, nested scf.for (f64 iter_arg over points, tensor iter_arg over components) with rank-reducing extract_slice, tensor-level subf/mulf/addf, linalg.matvec carrying a `library_call` attribute, a squared-norm generic, tensor.insert of the component term, then a max reduction (cmpf + select) seeding a 0-d tensor by tensor.insert and a logsumexp generic capturing the extracted max; returns a scalar; declared `func private`.
// Adaptations: `func private` -> `func.func private`; `linalg.init_tensor [...]` -> `tensor.empty()` (3 places); `select` -> `arith.select`; removed the comment lines and `// no predecessors` block comments; dropped the driver @main (lagrad.grad {of = [0, 1, 2, 3]} on constant data) and the print declaration; added the gradir entry @grad_main_term (autodiff.grad, same wrt) below the marker.
// gradir-corpus: entry=main_term wrt=0,1,2,3 reference=lg_gmm_main_term inputs=lg_gmm_main_term

#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map9 = affine_map<(d0) -> (d0)>
#map11 = affine_map<(d0) -> ()>

func.func private @main_term(
  %alphas: tensor<4xf64>,
  %means: tensor<4x2xf64>,
  %Qs: tensor<4x2xf64>,
  %Ls: tensor<4x2x2xf64>,
  %x: tensor<10x2xf64>
) -> f64 {
  %zero = arith.constant 0.0 : f64
  %Qdiags_space = tensor.empty() : tensor<4x2xf64>
  %sum_qs_space = arith.constant dense<0.0> : tensor<4xf64>
  %len_d_zero = arith.constant dense<0.0> : tensor<2xf64>
  %main_term_space = tensor.empty() : tensor<4xf64>
  %zerod_tensor = arith.constant dense<0.0> : tensor<f64>
  %max_space = tensor.empty() : tensor<f64>

  %Qdiags = linalg.generic
    {indexing_maps = [#map0, #map0], iterator_types = ["parallel", "parallel"]}
    ins(%Qs : tensor<4x2xf64>)
    outs(%Qdiags_space : tensor<4x2xf64>) {
  ^bb0(%arg7: f64, %arg8: f64):
    %39 = math.exp %arg7 : f64
    linalg.yield %39 : f64
  } -> tensor<4x2xf64>

  %sum_qs = linalg.generic
    {indexing_maps = [#map0, #map1], iterator_types = ["parallel", "reduction"]}
    ins(%Qs : tensor<4x2xf64>)
    outs(%sum_qs_space : tensor<4xf64>) {
  ^bb0(%arg7: f64, %arg8: f64):
    %39 = arith.addf %arg7, %arg8 : f64
    linalg.yield %39 : f64
  } -> tensor<4xf64>

  %half = arith.constant 0.5 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 10 : index
  %ck = arith.constant 4 : index
  %cd = arith.constant 2 : index
  %slse = scf.for %ix = %c0 to %cn step %c1 iter_args(%slse_iv = %zero) -> f64 {
    %main_term = scf.for %ik = %c0 to %ck step %c1 iter_args(%mt_iter = %main_term_space) -> tensor<4xf64> {
      %x_slice = tensor.extract_slice %x[%ix, 0] [1, 2] [1, 1] : tensor<10x2xf64> to tensor<2xf64>
      %means_slice = tensor.extract_slice %means[%ik, 0] [1, 2] [1, 1] : tensor<4x2xf64> to tensor<2xf64>
      %xcentered = arith.subf %x_slice, %means_slice : tensor<2xf64>

      %Qdiags_slice = tensor.extract_slice %Qdiags[%ik, 0] [1, 2] [1, 1] : tensor<4x2xf64> to tensor<2xf64>
      %Ltri_slice = tensor.extract_slice %Ls[%ik, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<4x2x2xf64> to tensor<2x2xf64>

      %Qxcentered_0 = arith.mulf %Qdiags_slice, %xcentered : tensor<2xf64>

      %matvec_1 = linalg.matvec {library_call = "dmatvec"} ins(%Ltri_slice, %xcentered : tensor<2x2xf64>, tensor<2xf64>) outs(%len_d_zero : tensor<2xf64>) -> tensor<2xf64>
      %Qxcentered = arith.addf %Qxcentered_0, %matvec_1 : tensor<2xf64>
      %msqnorm_0 = arith.mulf %Qxcentered, %Qxcentered : tensor<2xf64>
      %msqnorm_t = linalg.generic {indexing_maps = [#map9, #map11], iterator_types = ["reduction"]} ins(%msqnorm_0 : tensor<2xf64>) outs(%zerod_tensor : tensor<f64>) {
      ^bb0(%arg0: f64, %arg1: f64):
        %1 = arith.addf %arg0, %arg1 : f64
        linalg.yield %1 : f64
      } -> tensor<f64>
      %msqnorm = tensor.extract %msqnorm_t[] : tensor<f64>
      %hmsqnorm = arith.mulf %msqnorm, %half : f64
      %a_ik = tensor.extract %alphas[%ik] : tensor<4xf64>
      %q_ik = tensor.extract %sum_qs[%ik] : tensor<4xf64>
      %sum_aq = arith.addf %a_ik, %q_ik : f64
      %main_term_ik = arith.subf %sum_aq, %hmsqnorm : f64
      %main_term_next = tensor.insert %main_term_ik into %mt_iter[%ik] : tensor<4xf64>
      scf.yield %main_term_next : tensor<4xf64>
    }

    %max_init_val = tensor.extract %main_term[%c0] : tensor<4xf64>
    %max_init = tensor.insert %max_init_val into %max_space[] : tensor<f64>

    %max_t = linalg.generic
      {indexing_maps = [#map9, #map11], iterator_types = ["reduction"]}
      ins(%main_term : tensor<4xf64>)
      outs(%max_init : tensor<f64>) {
    ^bb0(%arg0: f64, %arg1: f64):
      %p = arith.cmpf "ogt", %arg0, %arg1 : f64
      %next = arith.select %p, %arg0, %arg1 : f64
      linalg.yield %next : f64
    } -> tensor<f64>

    %max = tensor.extract %max_t[] : tensor<f64>
    %se_noadd_t = linalg.generic
      {indexing_maps = [#map9, #map11], iterator_types = ["reduction"]}
      ins(%main_term : tensor<4xf64>)
      outs(%zerod_tensor : tensor<f64>) {
    ^bb0(%arg0: f64, %arg1: f64):
      %0 = arith.subf %arg0, %max : f64
      %1 = math.exp %0 : f64
      %2 = arith.addf %1, %arg1 : f64
      linalg.yield %2 : f64
    } -> tensor<f64>
    %se_noadd = tensor.extract %se_noadd_t[] : tensor<f64>
    %lse_noadd = math.log %se_noadd : f64
    %lse = arith.addf %lse_noadd, %max : f64
    %slse_next = arith.addf %slse_iv, %lse : f64
    scf.yield %slse_next : f64
  }
  return %slse : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main_term(%alphas: tensor<4xf64>, %means: tensor<4x2xf64>, %Qs: tensor<4x2xf64>, %Ls: tensor<4x2x2xf64>, %x: tensor<10x2xf64>) -> (tensor<4xf64>, tensor<4x2xf64>, tensor<4x2xf64>, tensor<4x2x2xf64>) {
  %g:4 = autodiff.grad @main_term(%alphas, %means, %Qs, %Ls, %x) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<4xf64>, tensor<4x2xf64>, tensor<4x2xf64>, tensor<4x2x2xf64>, tensor<10x2xf64>) -> (tensor<4xf64>, tensor<4x2xf64>, tensor<4x2xf64>, tensor<4x2x2xf64>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<4xf64>, tensor<4x2xf64>, tensor<4x2xf64>, tensor<4x2x2xf64>
}
