"""`tensor_stage.move_read_inits_to_inputs`: an elementwise generic that reads its
init, fused into a consumer that broadcasts its result, must not accumulate (on the
GPU too, where the LeNet gradient's loss was wrong before)."""
import numpy as np
import pytest

import gradir
from gradir.mlir_bridge import to_mlir_module, walk_ops
from gradir.mlir_bridge.tensor_stage import move_read_inits_to_inputs

# `p = init + a` (0-d, reads its init), broadcast to 4 elements and squared.
BROADCAST_OF_INIT_READ = """
func.func @f(%a: tensor<f32>, %init: tensor<f32>) -> tensor<4xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%a : tensor<f32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<4xf32>
  %q = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : tensor<f32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %q : tensor<4xf32>
}
"""


def test_the_init_becomes_an_input():
    module = to_mlir_module(BROADCAST_OF_INIT_READ)
    move_read_inits_to_inputs(module)
    producer = walk_ops(module, {"linalg.generic"})[0]
    assert len(producer.opview.inputs) == 2
    assert walk_ops(module, {"tensor.empty"})[0].result == producer.opview.outputs[0]
    module.operation.verify()


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_the_fused_broadcast_does_not_accumulate(target):
    """Fused as MLIR 22 fuses it, the consumer's loop gave (init + a) * k squared on the GPU."""
    program = gradir.compile(BROADCAST_OF_INIT_READ, target=target)
    arguments = (np.array(1.0, np.float32), np.array(2.0, np.float32))
    (result,) = program.emulate("f", *arguments) if target == "cuda" else program.call("f", *arguments)
    np.testing.assert_array_equal(result, [9.0, 9.0, 9.0, 9.0])
