// Rows sin((i + 1) x) for i < n, with n known only when the function runs: an elementwise
// op, a full sum and a column maximum over a run-time number of rows. On the GPU each runs
// on a grid the host sizes from the rows' buffer (gpu_backend/run_time_mapping.py).
#id = affine_map<(i, j) -> (i, j)>
#all = affine_map<(i, j) -> ()>
#columns = affine_map<(i, j) -> (j)>
func.func @run_time_rows(%x: tensor<64xf32>, %n: index) -> (f32, tensor<64xf32>) {
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %b = linalg.broadcast ins(%x : tensor<64xf32>) outs(%e : tensor<?x64xf32>) dimensions = [0]
  %e2 = tensor.empty(%n) : tensor<?x64xf32>
  %rows = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<?x64xf32>) outs(%e2 : tensor<?x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %k = arith.index_cast %i : index to i64
    %f = arith.sitofp %k : i64 to f32
    %one = arith.constant 1.0 : f32
    %g = arith.addf %f, %one : f32
    %p = arith.mulf %v, %g : f32
    %q = math.sin %p : f32
    linalg.yield %q : f32
  } -> tensor<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %z = tensor.empty() : tensor<f32>
  %zf = linalg.fill ins(%zero : f32) outs(%z : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%rows : tensor<?x64xf32>) outs(%zf : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %c = tensor.empty() : tensor<64xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%c : tensor<64xf32>) -> tensor<64xf32>
  %largest = linalg.generic {indexing_maps = [#id, #columns], iterator_types = ["reduction", "parallel"]}
      ins(%rows : tensor<?x64xf32>) outs(%cf : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.maximumf %v, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %total = tensor.extract %sum[] : tensor<f32>
  return %total, %largest : f32, tensor<64xf32>
}
