// Source: pengmai/lagrad test/LAGrad/lstm/lstm_model.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/lstm/lstm_model.mlir
// What: one ADBench LSTM cell: rank-reducing extract_slice of the four gate weights and biases, four elementwise generics (three calling a private scalar @msigmoid from the generic body, one math.tanh), a 5-operand generic for the new cell and a generic for the new hidden state; returns the hidden state.
// Adaptations: `func`/`func private` -> `func.func`/`func.func private`; the `call`s inside the generic bodies -> `func.call` (3 places; MLIR 22 resolves a bare `call` only directly in a func.func body); dropped the wrapper @lagrad_lstm_model (lagrad.grad {of = [0, 1, 2, 3, 4]}) and the commented-out driver; added the gradir entry @vjp_lstm_model (autodiff.vjp, same wrt) below the marker.
// gradir-corpus: entry=lstm_model wrt=0,1,2,3,4 reference=lg_lstm_model inputs=lstm

#map = affine_map<(d0) -> (d0)>

func.func private @msigmoid(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %nx = arith.negf %x : f64
  %exp = math.exp %nx : f64
  %denom = arith.addf %one, %exp : f64
  %frac = arith.divf %one, %denom : f64
  return %frac : f64
}

func.func @lstm_model(%weight: tensor<4x14xf64>, %bias: tensor<4x14xf64>, %hidden: tensor<14xf64>, %cell: tensor<14xf64>, %input: tensor<14xf64>) -> tensor<14xf64> {
  %zero_b = arith.constant dense<0.0> : tensor<14xf64>
  %fweight = tensor.extract_slice %weight[0, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %iweight = tensor.extract_slice %weight[1, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %oweight = tensor.extract_slice %weight[2, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %cweight = tensor.extract_slice %weight[3, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %fbias   = tensor.extract_slice %bias  [0, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %ibias   = tensor.extract_slice %bias  [1, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %obias   = tensor.extract_slice %bias  [2, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %cbias   = tensor.extract_slice %bias  [3, 0] [1, 14] [1, 1] : tensor<4x14xf64> to tensor<14xf64>
  %forget = linalg.generic
    {
      indexing_maps = [#map, #map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%input, %fweight, %fbias : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>)
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    %2 = func.call @msigmoid(%1) : (f64) -> f64
    linalg.yield %2 : f64
  } -> tensor<14xf64>
  %ingate = linalg.generic
    {
      indexing_maps = [#map, #map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%hidden, %iweight, %ibias : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>)
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    %2 = func.call @msigmoid(%1) : (f64) -> f64
    linalg.yield %2 : f64
  } -> tensor<14xf64>
  %outgate = linalg.generic
    {
      indexing_maps = [#map, #map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%input, %oweight, %obias : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>)
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    %2 = func.call @msigmoid(%1) : (f64) -> f64
    linalg.yield %2 : f64
  } -> tensor<14xf64>
  %change = linalg.generic
    {
      indexing_maps = [#map, #map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%hidden, %cweight, %cbias : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>)
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    %2 = math.tanh %1 : f64
    linalg.yield %2 : f64
  } -> tensor<14xf64>

  %cell_new = linalg.generic
    {
      indexing_maps = [#map, #map, #map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(
      %cell,
      %forget,
      %ingate,
      %change : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>
    )
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64, %arg4: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.mulf %arg2, %arg3 : f64
    %2 = arith.addf %0, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<14xf64>

  %hidden_next = linalg.generic
    {
      indexing_maps = [#map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%outgate, %cell_new : tensor<14xf64>, tensor<14xf64>)
    outs(%zero_b : tensor<14xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = math.tanh %arg1 : f64
    %1 = arith.mulf %arg0, %0 : f64
    linalg.yield %1 : f64
  } -> tensor<14xf64>

  return %hidden_next : tensor<14xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_lstm_model(%w: tensor<4x14xf64>, %b: tensor<4x14xf64>, %h: tensor<14xf64>, %c: tensor<14xf64>, %x: tensor<14xf64>, %ct: tensor<14xf64>) -> (tensor<14xf64>, tensor<4x14xf64>, tensor<4x14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) {
  %r:6 = autodiff.vjp @lstm_model(%w, %b, %h, %c, %x, %ct) {wrt = array<i64: 0, 1, 2, 3, 4>} : (tensor<4x14xf64>, tensor<4x14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) -> (tensor<14xf64>, tensor<4x14xf64>, tensor<4x14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<14xf64>, tensor<4x14xf64>, tensor<4x14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>
}
