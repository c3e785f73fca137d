// Source: pengmai/lagrad benchmarks/mlir/templates/gmm_adbench_lagrad.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/mlir/templates/gmm_adbench_lagrad.mlir
// What: the ADBench GMM objective (full L) written loop-free after ADBench's PyTorch version: math.exp/math.log on whole tensors, broadcasting generics over n x k x d (centering, a 4-d-iteration reduction for L x, the squared Q x + L x), a row max by a generic with an scf.if in its body and a zero init (so max(0, row max): the logsumexp stays exact, its gradient through the max must cancel), tensor-level arith on 0-d tensors, generics capturing the f64 gamma and sitofp of the i64 m; returns a 0-d tensor.
// Adaptations: upstream is a Jinja template: instantiated with k = 3, d = 3, n = 5 (`dense<{{n}}.>` -> `dense<5.>`); `func` -> `func.func`; removed the comment lines (a file header naming ADBench's PyTorch source, section notes, commented-out printing); dropped the print declaration and the wrapper @lagrad_gmm_full (std `constant`, `standalone.grad {of = [0, 1, 2, 3]}`, `call_indirect`); added the gradir entry @grad_gmm (autodiff.grad, same wrt) below the marker.
// gradir-corpus: entry=lagrad_gmm_objective_full wrt=0,1,2,3 reference=gmm_full inputs=gmm_full

#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>

func.func @lagrad_gmm_objective_full(
  %alphas: tensor<3xf64>,
  %means: tensor<3x3xf64>,
  %Qs: tensor<3x3xf64>,
  %Ls: tensor<3x3x3xf64>,
  %x: tensor<5x3xf64>,
  %wishart_gamma: f64,
  %wishart_m: i64
) -> tensor<f64> {
  %Qdiags = math.exp %Qs : tensor<3x3xf64>

  %sum_q_space = arith.constant dense<0.0> : tensor<3xf64>
  %sum_qs = linalg.generic
    {
      indexing_maps = [#map0, #map1],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%Qs: tensor<3x3xf64>)
    outs(%sum_q_space: tensor<3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.addf %arg0, %arg1 : f64
    linalg.yield %0 : f64
  } -> tensor<3xf64>

  %xcentered_shape = arith.constant dense<0.0> : tensor<5x3x3xf64>
  %xcentered = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1, d2) -> (d0, d2)>,
        affine_map<(d0, d1, d2) -> (d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>
      ],
      iterator_types = ["parallel", "parallel", "parallel"]
    }
    ins(%x, %means : tensor<5x3xf64>, tensor<3x3xf64>)
    outs(%xcentered_shape : tensor<5x3x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.subf %arg0, %arg1 : f64
    linalg.yield %0 : f64
  } -> tensor<5x3x3xf64>

  %Lxcentered_intermediate_shape = arith.constant dense<0.0> : tensor<5x3x3xf64>
  %Lxcentered_intermediate = linalg.generic
    {
      indexing_maps = [
        affine_map<(n, k, d1, d2) -> (k, d1, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d1)>
      ],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
    }
    ins(
      %Ls, %xcentered :
      tensor<3x3x3xf64>,
      tensor<5x3x3xf64>
    )
    outs(%Lxcentered_intermediate_shape: tensor<5x3x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    linalg.yield %1 : f64
  } -> tensor<5x3x3xf64>

  %Lxcentered_shape = arith.constant dense<0.0> : tensor<5x3x3xf64>
  %Lxcentered = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1, d2) -> (d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>
      ],
      iterator_types = ["parallel", "parallel", "parallel"]
    }
    ins(
      %Qdiags, %xcentered, %Lxcentered_intermediate :
      tensor<3x3xf64>,
      tensor<5x3x3xf64>,
      tensor<5x3x3xf64>
    )
    outs(%Lxcentered_shape : tensor<5x3x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    %2 = arith.mulf %1, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<5x3x3xf64>

  %sqsum_Lxcentered_shape = arith.constant dense<0.0> : tensor<5x3xf64>
  %sqsum_Lxcentered = linalg.generic
    {indexing_maps = [
      affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
      affine_map<(d0, d1, d2) -> (d0, d1)>
    ],
    iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%Lxcentered : tensor<5x3x3xf64>)
    outs(%sqsum_Lxcentered_shape : tensor<5x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.addf %arg0, %arg1 : f64
    linalg.yield %0 : f64
  } -> tensor<5x3xf64>

  %alphasPlusSumQs = arith.addf %alphas, %sum_qs : tensor<3xf64>

  %inner_term_shape = arith.constant dense<0.0> : tensor<5x3xf64>
  %half = arith.constant 0.5 : f64
  %inner_term = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1) -> (d1)>,
        affine_map<(d0, d1) -> (d0, d1)>,
        affine_map<(d0, d1) -> (d0, d1)>
      ],
      iterator_types = ["parallel", "parallel"]
    }
    ins(%alphasPlusSumQs, %sqsum_Lxcentered : tensor<3xf64>, tensor<5x3xf64>)
    outs(%inner_term_shape : tensor<5x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.mulf %arg1, %half : f64
    %1 = arith.subf %arg0, %0 : f64
    linalg.yield %1 : f64
  } -> tensor<5x3xf64>

  %max_init = arith.constant dense<0.0> : tensor<5xf64>
  %max = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%inner_term : tensor<5x3xf64>)
    outs(%max_init : tensor<5xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.cmpf "ogt", %arg0, %arg1 : f64
    %1 = scf.if %0 -> f64 {
      scf.yield %arg0 : f64
    } else {
      scf.yield %arg1 : f64
    }
    linalg.yield %1 : f64
  } -> tensor<5xf64>
  

  %lse_init = arith.constant dense<0.0> : tensor<5xf64>
  %lse_intermediate = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1) -> (d0, d1)>,
        affine_map<(d0, d1) -> (d0)>,
        affine_map<(d0, d1) -> (d0)>
      ],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%inner_term, %max : tensor<5x3xf64>, tensor<5xf64>)
    outs(%lse_init : tensor<5xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.subf %arg0, %arg1 : f64
    %1 = math.exp %0 : f64
    %2 = arith.addf %1, %arg2 : f64
    linalg.yield %2 : f64
  } -> tensor<5xf64>
  %lse_before_add = math.log %lse_intermediate : tensor<5xf64>
  %lse = arith.addf %lse_before_add, %max : tensor<5xf64>

  %slse_init = arith.constant dense<0.0> : tensor<f64>
  %slse = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0) -> (d0)>,
        affine_map<(d0) -> ()>
      ],
      iterator_types = ["reduction"]
    }
    ins(%lse : tensor<5xf64>)
    outs(%slse_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.addf %arg0, %arg1 : f64
    linalg.yield %0 : f64
  } -> tensor<f64>

  %Qdiags_summed_init = arith.constant dense<0.0> : tensor<3xf64>
  %Qdiags_summed = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1) -> (d0, d1)>,
        affine_map<(d0, d1) -> (d0)>
      ],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%Qdiags : tensor<3x3xf64>)
    outs(%Qdiags_summed_init : tensor<3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.mulf %arg0, %arg0 : f64
    %1 = arith.addf %0, %arg1 : f64
    linalg.yield %1 : f64
  } -> tensor<3xf64>

  %L_sq_summed_init = arith.constant dense<0.0> : tensor<3xf64>
  %L_sq_summed = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0)>
      ],
      iterator_types = ["parallel", "reduction", "reduction"]
    }
    ins(%Ls : tensor<3x3x3xf64>)
    outs(%L_sq_summed_init : tensor<3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.mulf %arg0, %arg0 : f64
    %1 = arith.addf %0, %arg1 : f64
    linalg.yield %1 : f64
  } -> tensor<3xf64>
  %Qdiags_Lsq_summed = arith.addf %Qdiags_summed, %L_sq_summed : tensor<3xf64>

  %wishart_out_init = arith.constant dense<0.0> : tensor<f64>
  %wishart_out_1 = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0) -> (d0)>,
        affine_map<(d0) -> ()>
      ],
      iterator_types = ["reduction"]
    }
    ins(%Qdiags_Lsq_summed : tensor<3xf64>)
    outs(%wishart_out_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.mulf %half, %wishart_gamma : f64
    %1 = arith.mulf %0, %wishart_gamma : f64
    %2 = arith.mulf %1, %arg0 : f64
    %3 = arith.addf %2, %arg1 : f64
    linalg.yield %3 : f64
  } -> tensor<f64>

  %wishart_sum_qs_init = arith.constant dense<0.0> : tensor<f64>
  %wishart_sum_qs = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]
    }
    ins(%sum_qs : tensor<3xf64>)
    outs(%wishart_sum_qs_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.sitofp %wishart_m : i64 to f64
    %1 = arith.mulf %0, %arg0 : f64
    %2 = arith.addf %1, %arg1 : f64
    linalg.yield %2 : f64
  } -> tensor<f64>

  %wishart_out = arith.subf %wishart_out_1, %wishart_sum_qs : tensor<f64>

  %sumexp_alphas_init = arith.constant dense<0.0> : tensor<f64>
  %sumexp_alphas = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]
    }
    ins(%alphas : tensor<3xf64>)
    outs(%sumexp_alphas_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = math.exp %arg0 : f64
    %1 = arith.addf %0, %arg1 : f64
    linalg.yield %1 : f64
  } -> tensor<f64>
  %logsumexp_alphas = math.log %sumexp_alphas : tensor<f64>

  %n_tensor = arith.constant dense<5.> : tensor<f64>
  %n_logsumexp_alphas = arith.mulf %n_tensor, %logsumexp_alphas : tensor<f64>

  %final_0 = arith.subf %slse, %n_logsumexp_alphas : tensor<f64>
  %final_1 = arith.addf %final_0, %wishart_out : tensor<f64>
  return %final_1 : tensor<f64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_gmm(%alphas: tensor<3xf64>, %means: tensor<3x3xf64>, %Qs: tensor<3x3xf64>, %Ls: tensor<3x3x3xf64>, %x: tensor<5x3xf64>, %gamma: f64, %m: i64) -> (tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3x3xf64>) {
  %g:4 = autodiff.grad @lagrad_gmm_objective_full(%alphas, %means, %Qs, %Ls, %x, %gamma, %m) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3x3xf64>, tensor<5x3xf64>, f64, i64) -> (tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3x3xf64>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3x3xf64>
}
