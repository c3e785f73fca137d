"""Epilogue fusion (gpu_backend/epilogue_fusion.py): an elementwise op reading a reduction's
result is computed in the reduction's kernel, under every strategy that stores the reduction's
outputs; emulated kernels against NumPy, and the cases that must not fuse."""
import numpy as np
import pytest

from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.tile_policy import TilePolicy

M, K, N = 32, 12, 16

POLICIES = {
    "register-tiles": TilePolicy(min_tile_threads=1, shared_tiles=(), target_threads=1),
    "shared-tiles": TilePolicy(min_tile_threads=1, shared_tiles=((32, 16, 2, 1),), shared_depth=4),
    "split-k": TilePolicy(min_tile_threads=1, shared_tiles=((32, 16, 2, 1),), shared_depth=4,
                          target_blocks=64, min_k_chunk=4),
    "split-reduce": TilePolicy(target_threads=1 << 30, min_chunk=2, max_split=64, shared_tiles=()),
}  # fmt: skip
STRATEGY = {
    "register-tiles": "reduce_tile",
    "shared-tiles": "shared_tile2x1",
    "split-k": "shared_tile2x1_split3",
    "split-reduce": "split_reduce",
}
"""The strategy each policy gives the matmul (the split ones add a `split_combine` launch)."""

BIAS_RELU = """
  %e2 = tensor.empty() : tensor<32x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<32x16xf32>, tensor<16xf32>) outs(%e2 : tensor<32x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<32x16xf32>
"""


def _program(results: str, consumer: str = BIAS_RELU) -> str:
    types = ", ".join("tensor<16x32xf32>" if name == "%t" else "tensor<32x16xf32>" for name in results.split(", "))
    return f"""
func.func @f(%a: tensor<32x12xf32>, %w: tensor<12x16xf32>, %bias: tensor<16xf32>) -> ({types}) {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %filled = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<32x12xf32>, tensor<12x16xf32>) outs(%filled : tensor<32x16xf32>) -> tensor<32x16xf32>
{consumer}
  return {results} : {types}
}}
"""


def _inputs():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float32)
    w = rng.standard_normal((K, N)).astype(np.float32)
    bias = rng.standard_normal(N).astype(np.float32)
    return a, w, bias


def _strategies(program: CudaProgram) -> list[str]:
    return [name.split("_", 2)[-1] for name in program.launch_configs]


@pytest.mark.parametrize("policy", POLICIES, ids=list(POLICIES))
def test_bias_and_relu_run_in_the_matmul_kernel(policy):
    program = CudaProgram(_program("%r"), features="+ptx80", policy=POLICIES[policy])
    strategies = _strategies(program)
    assert not any("elementwise" in s for s in strategies), strategies
    assert any(s.startswith(STRATEGY[policy]) for s in strategies), strategies
    a, w, bias = _inputs()
    (got,) = program.emulate("f", a, w, bias)
    np.testing.assert_allclose(got, np.maximum(a @ w + bias, 0), rtol=1e-5, atol=1e-5)
    # the matmul's own result is never stored: its (last) kernel writes only the consumer's output
    last = list(program.traffic)[-1]
    assert program.traffic[last].bytes_written == M * N * 4


@pytest.mark.parametrize("policy", POLICIES, ids=list(POLICIES))
def test_a_result_read_elsewhere_is_stored_as_well(policy):
    """Returning the matmul too: its kernel stores both it and the consumer's output."""
    program = CudaProgram(_program("%mm, %r"), features="+ptx80", policy=POLICIES[policy])
    assert not any("elementwise" in s for s in _strategies(program)), _strategies(program)
    a, w, bias = _inputs()
    mm, relu = program.emulate("f", a, w, bias)
    np.testing.assert_allclose(mm, a @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(relu, np.maximum(a @ w + bias, 0), rtol=1e-5, atol=1e-5)
    last = list(program.traffic)[-1]
    assert program.traffic[last].bytes_written == 2 * M * N * 4


TRANSPOSED = """
  %e2 = tensor.empty() : tensor<16x32xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j, i)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x16xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
"""


def test_a_consumer_reading_the_result_through_another_map_is_its_own_kernel():
    """One consumer point per result element is what the epilogue computes: a transposing
    consumer is left to its own kernel (and still right)."""
    program = CudaProgram(_program("%t", TRANSPOSED), features="+ptx80", policy=POLICIES["register-tiles"])
    assert _strategies(program)[-1] == "elementwise", _strategies(program)
    a, w, bias = _inputs()
    (got,) = program.emulate("f", a, w, bias)
    np.testing.assert_allclose(got, np.maximum(a @ w, 0).T, rtol=1e-5, atol=1e-5)


def test_the_mlp_gradient_loses_its_relu_kernels():
    """The MLP 784-256-10 gradient (batch 64): bias+ReLU after x W1 and the ReLU mask after
    dz W2^T run in their matmuls' kernels, 16 kernels where there were 19, and its numbers
    are the CPU's."""
    import gradir

    source = MLP.format(batch=64)
    gpu, cpu = gradir.compile(source, target="cuda"), gradir.compile(source, target="cpu")
    kernels = gpu.kernels_of("mlp_grad")
    assert len(kernels) == 16 and sum("elementwise" in k for k in kernels) == 2, kernels
    rng = np.random.default_rng(5)
    shapes = [(64, 784), (64, 10), (784, 256), (256,), (256, 10), (10,)]
    arguments = [rng.uniform(-1, 1, s).astype(np.float32) * (0.05 if i == 2 else 1) for i, s in enumerate(shapes)]
    arguments[1] = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)]
    for got, want in zip(gpu.emulate("mlp_grad", *arguments), cpu.call("mlp_grad", *arguments), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * float(np.max(np.abs(want))))


MLP = """
func.func @mlp_loss(%x: tensor<{batch}x784xf32>, %labels: tensor<{batch}x10xf32>, %w1: tensor<784x256xf32>,
                    %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> tensor<f32> {{
  %h = autodiff.matmul %x, %w1 : (tensor<{batch}x784xf32>, tensor<784x256xf32>) -> tensor<{batch}x256xf32>
  %z = autodiff.add %h, %b1 : (tensor<{batch}x256xf32>, tensor<256xf32>) -> tensor<{batch}x256xf32>
  %a = autodiff.relu %z : tensor<{batch}x256xf32>
  %o = autodiff.matmul %a, %w2 : (tensor<{batch}x256xf32>, tensor<256x10xf32>) -> tensor<{batch}x10xf32>
  %logits = autodiff.add %o, %b2 : (tensor<{batch}x10xf32>, tensor<10xf32>) -> tensor<{batch}x10xf32>
  %logp = autodiff.log_softmax %logits {{dim = 1 : i64}} : tensor<{batch}x10xf32>
  %picked = autodiff.mul %logp, %labels : (tensor<{batch}x10xf32>, tensor<{batch}x10xf32>) -> tensor<{batch}x10xf32>
  %per_example = autodiff.sum %picked {{dims = array<i64: 1>}} : tensor<{batch}x10xf32> -> tensor<{batch}xf32>
  %mean = autodiff.mean %per_example : tensor<{batch}xf32> -> tensor<f32>
  %loss = autodiff.neg %mean : tensor<f32>
  return %loss : tensor<f32>
}}
func.func @mlp_grad(%x: tensor<{batch}x784xf32>, %labels: tensor<{batch}x10xf32>, %w1: tensor<784x256xf32>,
                    %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>)
    -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>) {{
  %g:4 = autodiff.grad @mlp_loss(%x, %labels, %w1, %b1, %w2, %b2) {{wrt = array<i64: 2, 3, 4, 5>}}
      : (tensor<{batch}x784xf32>, tensor<{batch}x10xf32>, tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>,
         tensor<10xf32>) -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>
}}
"""
