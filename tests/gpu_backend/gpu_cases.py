"""Hand-written linalg-on-tensors inputs for the GPU pipeline tests, with NumPy oracles.

Each case covers one mapping strategy (`gpu_mapping`): elementwise chains with broadcasting,
row reductions (split and per-thread), full reductions to 0-d, softmax and log-sum-exp (max,
subtract, exp, sum), matmul and batched matmul (register tiles), a transposed contraction
staged through shared memory, constants, and the MLP gradient
of `tests/mlir_bridge/linalg_programs.py` mixing all of them.
"""
import functools
import pathlib
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.tile_policy import TilePolicy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mlir_bridge"))
from linalg_programs import MLP_GRADIENT, mlp_gradient_reference, mlp_inputs  # noqa: E402


@dataclass(frozen=True)
class GpuCase:
    name: str
    text: str
    entry: str
    inputs: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    reference: Callable[..., tuple[np.ndarray, ...]]
    tolerance: float = 1e-5


def _normal(*shape):
    return lambda rng: rng.standard_normal(shape, dtype=np.float32)


def _normals(*shapes):
    return lambda rng: tuple(rng.standard_normal(s, dtype=np.float32) for s in shapes)


ELEMENTWISE = GpuCase(
    "elementwise",
    """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%x: tensor<64x200xf32>, %b: tensor<200xf32>) -> tensor<64x200xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<64x200xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x200xf32>, tensor<200xf32>) outs(%e : tensor<64x200xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x200xf32>
  %t = math.tanh %s : tensor<64x200xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : tensor<64x200xf32>, tensor<64x200xf32>) outs(%e : tensor<64x200xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    %r = arith.subf %m, %c : f32
    linalg.yield %r : f32
  } -> tensor<64x200xf32>
  return %y : tensor<64x200xf32>
}
""",
    "f",
    lambda rng: (_normal(64, 200)(rng), _normal(200)(rng)),
    lambda x, b: (2 * np.tanh(x + b) - x,),
)

TRANSPOSE_AND_CONSTANTS = GpuCase(
    "transpose_constants",
    """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%x: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<3x4xf32>) {
  %scale = arith.constant dense<[0.5, 1.0, 2.0, -1.0]> : tensor<4xf32>
  %ones = arith.constant dense<1.0> : tensor<3x4xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %scale : tensor<3x4xf32>, tensor<4xf32>) outs(%ones : tensor<3x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %m, %o : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  return %t, %s : tensor<4x3xf32>, tensor<3x4xf32>
}
""",
    "f",
    lambda rng: (_normal(3, 4)(rng),),
    lambda x: (x.T, x * np.array([0.5, 1.0, 2.0, -1.0], np.float32) + 1),
)

ROW_REDUCTIONS = GpuCase(
    "row_reductions",
    """
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%x: tensor<64x256xf32>, %y: tensor<64x10xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x256xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %mx = linalg.reduce ins(%y : tensor<64x10xf32>) outs(%m0 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %ec = tensor.empty() : tensor<256xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<256xf32>) -> tensor<256xf32>
  %cs = linalg.reduce ins(%x : tensor<64x256xf32>) outs(%zc : tensor<256xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %sq, %mx, %cs : tensor<64xf32>, tensor<64xf32>, tensor<256xf32>
}
""",
    "f",
    _normals((64, 256), (64, 10)),
    lambda x, y: ((x * x).sum(1), y.max(1), x.sum(0)),
    1e-4,
)

FULL_REDUCTIONS = GpuCase(
    "full_reductions",
    """
#id = affine_map<(i, j) -> (i, j)>
#scalar = affine_map<(i, j) -> ()>
func.func @f(%x: tensor<64x10xf32>, %w: tensor<3x5xf32>) -> (tensor<f32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x10xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  %mean = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%sum : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 640.0 : f32
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<f32>
  %m = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %max = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%w : tensor<3x5xf32>) outs(%m : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %mean, %max : tensor<f32>, tensor<f32>
}
""",
    "f",
    _normals((64, 10), (3, 5)),
    lambda x, w: (np.float32(x.mean()), np.float32(w.max())),
    1e-4,
)

SOFTMAX = GpuCase(
    "softmax",
    """
func.func @f(%x: tensor<64x10xf32>) -> tensor<64x10xf32> {
  %e = tensor.empty() : tensor<64x10xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<64x10xf32>) outs(%e : tensor<64x10xf32>)
      -> tensor<64x10xf32>
  return %s : tensor<64x10xf32>
}
""",
    "f",
    lambda rng: (_normal(64, 10)(rng) * np.float32(4),),
    lambda x: (np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True),),
)

LOG_SUM_EXP = GpuCase(
    "log_sum_exp",
    """
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (i)>
func.func @f(%x: tensor<32x512xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<32xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x512xf32>) outs(%m0 : tensor<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#id, #col, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<32x512xf32>, tensor<32xf32>) outs(%s0 : tensor<32xf32>) {
  ^bb0(%a: f32, %mx: f32, %acc: f32):
    %d = arith.subf %a, %mx : f32
    %p = math.exp %d : f32
    %r = arith.addf %p, %acc : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%s, %m : tensor<32xf32>, tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %mx: f32, %o: f32):
    %g = math.log %a : f32
    %r = arith.addf %g, %mx : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %l : tensor<32xf32>
}
""",
    "f",
    lambda rng: (_normal(32, 512)(rng) * np.float32(3),),
    lambda x: (np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1),),
    1e-5,
)

MATMUL = GpuCase(
    "matmul",
    """
func.func @f(%a: tensor<64x784xf32>, %b: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x784xf32>, tensor<784x256xf32>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %c : tensor<64x256xf32>
}
""",
    "f",
    _normals((64, 784), (784, 256)),
    lambda a, b: (a @ b,),
    1e-4,
)

BATCH_MATMUL = GpuCase(
    "batch_matmul",
    """
func.func @f(%a: tensor<4x32x48xf32>, %b: tensor<4x48x40xf32>, %c: tensor<4x32x40xf32>)
    -> tensor<4x32x40xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x48xf32>, tensor<4x48x40xf32>)
      outs(%c : tensor<4x32x40xf32>) -> tensor<4x32x40xf32>
  return %r : tensor<4x32x40xf32>
}
""",
    "f",
    _normals((4, 32, 48), (4, 48, 40), (4, 32, 40)),
    lambda a, b, c: (a @ b + c,),
    1e-4,
)

# A contraction that is not a plain matmul: A stored k-major (transposed), a per-output weight
# read from global memory inside the body, k = 40 (chunks of 10), and 640-element A/B tiles
# that 256 threads stage in three rounds, the last one partial.
STAGED_CONTRACTION = GpuCase(
    "staged_contraction",
    """
#a = affine_map<(b, m, n, k) -> (b, k, m)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#w = affine_map<(b, m, n, k) -> (m, n)>
#o = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @f(%a: tensor<4x40x128xf32>, %b: tensor<4x40x128xf32>, %w: tensor<128x128xf32>,
             %c: tensor<4x128x128xf32>) -> tensor<4x128x128xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #w, #o],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b, %w : tensor<4x40x128xf32>, tensor<4x40x128xf32>, tensor<128x128xf32>)
      outs(%c : tensor<4x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %v: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %v : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x128x128xf32>
  return %r : tensor<4x128x128xf32>
}
""",
    "f",
    _normals((4, 40, 128), (4, 40, 128), (128, 128), (4, 128, 128)),
    lambda a, b, w, c: (c + np.einsum("bkm,bkn->bmn", a, b) * w,),
    1e-4,
)

MLP = GpuCase(
    "mlp_gradient",
    MLP_GRADIENT,
    "mlp_grad",
    lambda rng: mlp_inputs(int(rng.integers(1 << 16))),
    lambda *args: tuple(np.asarray(r, np.float32) for r in mlp_gradient_reference(*args)),
    1e-4,
)

CASES = [
    ELEMENTWISE,
    TRANSPOSE_AND_CONSTANTS,
    ROW_REDUCTIONS,
    FULL_REDUCTIONS,
    SOFTMAX,
    LOG_SUM_EXP,
    MATMUL,
    BATCH_MATMUL,
    STAGED_CONTRACTION,
    MLP,
]


@functools.lru_cache(maxsize=None)
def compiled(case: GpuCase, chip: str = "sm_90", policy: TilePolicy | None = None) -> CudaProgram:
    """The case compiled once per test session (for each chip and policy)."""
    return CudaProgram(case.text, chip=chip, features="+ptx80", policy=policy)
