"""Hand-written linalg-on-tensors programs with NumPy oracles, inputs of both backends' tests
(tests/cpu_backend, tests/gpu_backend) and of bench/gpu_static.py.

They are written the way `convert-autodiff-to-linalg` lowers: broadcasting in
indexing maps, reductions into `linalg.fill`ed inits, transposes as generics.
"""
import numpy as np

# Gradient of the mean softmax cross-entropy of a 784-256-10 ReLU MLP, batch 64,
# as reverse mode lowers it: forward, then transposes and matmuls backwards.
MLP_GRADIENT = """
#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>
#swap = affine_map<(i, j) -> (j, i)>
func.func @mlp_grad(%x: tensor<64x784xf32>, %w1: tensor<784x256xf32>, %b1: tensor<256xf32>,
                    %w2: tensor<256x10xf32>, %b2: tensor<10xf32>, %onehot: tensor<64x10xf32>)
    -> (tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inv_batch = arith.constant 0.015625 : f32
  %e_h = tensor.empty() : tensor<64x256xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<64x256xf32>) -> tensor<64x256xf32>
  %xw1 = linalg.matmul ins(%x, %w1 : tensor<64x784xf32>, tensor<784x256xf32>)
      outs(%z_h : tensor<64x256xf32>) -> tensor<64x256xf32>
  %pre = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xw1, %b1 : tensor<64x256xf32>, tensor<256xf32>) outs(%e_h : tensor<64x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%pre : tensor<64x256xf32>) outs(%e_h : tensor<64x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %e_l = tensor.empty() : tensor<64x10xf32>
  %z_l = linalg.fill ins(%zero : f32) outs(%e_l : tensor<64x10xf32>) -> tensor<64x10xf32>
  %hw2 = linalg.matmul ins(%h, %w2 : tensor<64x256xf32>, tensor<256x10xf32>)
      outs(%z_l : tensor<64x10xf32>) -> tensor<64x10xf32>
  %logits = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%hw2, %b2 : tensor<64x10xf32>, tensor<10xf32>) outs(%e_l : tensor<64x10xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  %e_r = tensor.empty() : tensor<64xf32>
  %m_init = linalg.fill ins(%ninf : f32) outs(%e_r : tensor<64xf32>) -> tensor<64xf32>
  %rowmax = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<64x10xf32>) outs(%m_init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %shifted = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%logits, %rowmax : tensor<64x10xf32>, tensor<64xf32>) outs(%e_l : tensor<64x10xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %s = arith.subf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  %expd = math.exp %shifted : tensor<64x10xf32>
  %s_init = linalg.fill ins(%zero : f32) outs(%e_r : tensor<64xf32>) -> tensor<64xf32>
  %sumexp = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["parallel", "reduction"]}
      ins(%expd : tensor<64x10xf32>) outs(%s_init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %logsum = math.log %sumexp : tensor<64xf32>
  %logp = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %logsum : tensor<64x10xf32>, tensor<64xf32>) outs(%e_l : tensor<64x10xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %s = arith.subf %a, %l : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  %e_0 = tensor.empty() : tensor<f32>
  %l_init = linalg.fill ins(%zero : f32) outs(%e_0 : tensor<f32>) -> tensor<f32>
  %nll = linalg.generic {indexing_maps = [#id2, #id2, affine_map<(i, j) -> ()>],
                         iterator_types = ["reduction", "reduction"]}
      ins(%onehot, %logp : tensor<64x10xf32>, tensor<64x10xf32>) outs(%l_init : tensor<f32>) {
  ^bb0(%t: f32, %lp: f32, %acc: f32):
    %p = arith.mulf %t, %lp : f32
    %s = arith.subf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%nll : tensor<f32>) outs(%e_0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %inv_batch : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %dlogits = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%logp, %onehot : tensor<64x10xf32>, tensor<64x10xf32>) outs(%e_l : tensor<64x10xf32>) {
  ^bb0(%lp: f32, %t: f32, %o: f32):
    %p = math.exp %lp : f32
    %d = arith.subf %p, %t : f32
    %s = arith.mulf %d, %inv_batch : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>
  %e_ht = tensor.empty() : tensor<256x64xf32>
  %ht = linalg.generic {indexing_maps = [#swap, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x256xf32>) outs(%e_ht : tensor<256x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<256x64xf32>
  %e_w2 = tensor.empty() : tensor<256x10xf32>
  %z_w2 = linalg.fill ins(%zero : f32) outs(%e_w2 : tensor<256x10xf32>) -> tensor<256x10xf32>
  %dw2 = linalg.matmul ins(%ht, %dlogits : tensor<256x64xf32>, tensor<64x10xf32>)
      outs(%z_w2 : tensor<256x10xf32>) -> tensor<256x10xf32>
  %e_b2 = tensor.empty() : tensor<10xf32>
  %z_b2 = linalg.fill ins(%zero : f32) outs(%e_b2 : tensor<10xf32>) -> tensor<10xf32>
  %db2 = linalg.reduce ins(%dlogits : tensor<64x10xf32>) outs(%z_b2 : tensor<10xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e_w2t = tensor.empty() : tensor<10x256xf32>
  %w2t = linalg.transpose ins(%w2 : tensor<256x10xf32>) outs(%e_w2t : tensor<10x256xf32>) permutation = [1, 0]
  %dh = linalg.matmul ins(%dlogits, %w2t : tensor<64x10xf32>, tensor<10x256xf32>)
      outs(%z_h : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dpre = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%dh, %pre : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e_h : tensor<64x256xf32>) {
  ^bb0(%g: f32, %p: f32, %o: f32):
    %pos = arith.cmpf ogt, %p, %zero : f32
    %r = arith.select %pos, %g, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %e_xt = tensor.empty() : tensor<784x64xf32>
  %xt = linalg.transpose ins(%x : tensor<64x784xf32>) outs(%e_xt : tensor<784x64xf32>) permutation = [1, 0]
  %e_w1 = tensor.empty() : tensor<784x256xf32>
  %z_w1 = linalg.fill ins(%zero : f32) outs(%e_w1 : tensor<784x256xf32>) -> tensor<784x256xf32>
  %dw1 = linalg.matmul ins(%xt, %dpre : tensor<784x64xf32>, tensor<64x256xf32>)
      outs(%z_w1 : tensor<784x256xf32>) -> tensor<784x256xf32>
  %e_b1 = tensor.empty() : tensor<256xf32>
  %z_b1 = linalg.fill ins(%zero : f32) outs(%e_b1 : tensor<256xf32>) -> tensor<256xf32>
  %db1 = linalg.reduce ins(%dpre : tensor<64x256xf32>) outs(%z_b1 : tensor<256xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %loss, %dw1, %db1, %dw2, %db2
      : tensor<f32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>
}
"""


def mlp_inputs(seed: int = 0) -> tuple[np.ndarray, ...]:
    """x, w1, b1, w2, b2, one-hot labels for MLP_GRADIENT."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 784), dtype=np.float32)
    w1 = rng.standard_normal((784, 256), dtype=np.float32) * np.float32(0.05)
    b1 = rng.standard_normal(256, dtype=np.float32) * np.float32(0.1)
    w2 = rng.standard_normal((256, 10), dtype=np.float32) * np.float32(0.1)
    b2 = rng.standard_normal(10, dtype=np.float32) * np.float32(0.1)
    onehot = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]
    return x, w1, b1, w2, b2, onehot


def mlp_gradient_reference(x, w1, b1, w2, b2, onehot) -> tuple[np.ndarray, ...]:
    """Loss and (dw1, db1, dw2, db2) by hand-written backpropagation in float64."""
    x, w1, b1, w2, b2, onehot = (np.asarray(a, np.float64) for a in (x, w1, b1, w2, b2, onehot))
    batch = x.shape[0]
    pre = x @ w1 + b1
    h = np.maximum(pre, 0.0)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probabilities = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -(onehot * log_probabilities).sum() / batch
    dlogits = (np.exp(log_probabilities) - onehot) / batch
    dpre = (dlogits @ w2.T) * (pre > 0)
    return loss, x.T @ dpre, dpre.sum(axis=0), h.T @ dlogits, dlogits.sum(axis=0)
