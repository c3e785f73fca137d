"""Static buffers that cannot all be had are refused before anything runs
(`cpu_backend.memory_check`): one larger than the process may hold, or several that must be
live together. The check is a lower bound of the peak: buffers freed before the next is made
do not add up."""
import pytest

from gradir.cpu_backend.cpu_pipeline import to_buffers
from gradir.cpu_backend.memory_check import refuse_impossible_allocations
from gradir.errors import PipelineError
from gradir.mlir_bridge import new_context, to_mlir_module

KIB = 1024


def _chain(length: int) -> str:
    """`x @ y @ y @ ...`: each product a 16 KiB temporary, dead once the next is computed."""
    lines = [
        "func.func @chain(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {",
        "  %z = arith.constant 0.0 : f32",
        "  %e = tensor.empty() : tensor<64x64xf32>",
        "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>",
    ]
    previous = "%x"
    for step in range(length):
        lines.append(
            f"  %p{step} = linalg.matmul ins({previous}, %y : tensor<64x64xf32>, tensor<64x64xf32>) "
            f"outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>"
        )
        previous = f"%p{step}"
    lines += [f"  return {previous} : tensor<64x64xf32>", "}"]
    return "\n".join(lines)


BOTH_LIVE = """
func.func @both(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a = linalg.matmul ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = linalg.matmul ins(%y, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
"""


def _buffers(text: str):
    module = to_mlir_module(text, new_context())
    to_buffers(module)
    return module


def test_buffers_live_together_are_added_up():
    module = _buffers(BOTH_LIVE)
    refuse_impossible_allocations(module, 32 * KIB)
    with pytest.raises(PipelineError) as caught:
        refuse_impossible_allocations(module, 32 * KIB - 1)
    assert str(caught.value) == (
        "error: cpu-memory: @both needs at least 32 KiB at once (2 buffers live together, the largest "
        "memref<64x64xf32> of 16 KiB), more than this process can ever hold (32 KiB); it would fail when run"
    )


def test_buffers_freed_in_between_are_not():
    module = _buffers(_chain(5))  # four temporaries (the last product is the result), two at a time
    refuse_impossible_allocations(module, 32 * KIB)
    with pytest.raises(PipelineError, match="@chain needs at least 32 KiB at once .2 buffers"):
        refuse_impossible_allocations(module, 32 * KIB - 1)


def test_one_buffer_too_large_is_named_first():
    with pytest.raises(PipelineError, match=r"@both allocates a buffer memref<64x64xf32> of 16 KiB"):
        refuse_impossible_allocations(_buffers(BOTH_LIVE), 16 * KIB - 1)
