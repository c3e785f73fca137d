"""Windowed inputs are sliced to what their windows reach before unit loops are dropped
(cpu_backend/tight_windows.py): a strided convolution one output column wide over an input
with a column no window reads was refused ("inferred input/output operand #1 has shape's
dimension #0 to be 3, but found 2"; found by tests/property/named_programs.py, seed 6).
With a dynamic batch the same op could not be checked when compiled, and the run-time
checks refused every call ("dimension #1 of input/output operand #1 is incompatible with
inferred dimension size"; named_programs.py's dynamic seed 8)."""

import numpy as np
from gradir.cpu_backend.conv_matmuls import GENERALIZE_SCHEDULE
from gradir.cpu_backend.tight_windows import tighten_windowed_inputs
from gradir.mlir_bridge import apply_schedule, walk_ops
from mlir import ir

import gradir

# Width 3, a window 2 wide, stride 2: one output column, the input's last column unread.
# The pooling has the same shape of window on its own input.
PROGRAM = """
func.func @f(%x: tensor<2x5x3x2xf32>, %w: tensor<2x2x2x3xf32>, %p: tensor<1x4x3x2xf32>)
    -> (tensor<2x2x1x3xf32>, tensor<1x2x1x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x1x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2x1x3xf32>) -> tensor<2x2x1x3xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<2x5x3x2xf32>, tensor<2x2x2x3xf32>) outs(%init : tensor<2x2x1x3xf32>) -> tensor<2x2x1x3xf32>
  %low = arith.constant -10.0 : f32
  %pe = tensor.empty() : tensor<1x2x1x2xf32>
  %pinit = linalg.fill ins(%low : f32) outs(%pe : tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %window : tensor<1x4x3x2xf32>, tensor<2x2xf32>) outs(%pinit : tensor<1x2x1x2xf32>) -> tensor<1x2x1x2xf32>
  return %conv, %pool : tensor<2x2x1x3xf32>, tensor<1x2x1x2xf32>
}
"""


def windows(x: np.ndarray, size: int, stride: int) -> np.ndarray:
    """[N, OH, OW, size, size, C]: the square windows of an NHWC input."""
    _, h, w, _ = x.shape
    oh, ow = (h - size) // stride + 1, (w - size) // stride + 1
    return np.stack(
        [np.stack([x[:, i * stride : i * stride + size, j * stride : j * stride + size] for j in range(ow)], 1)
         for i in range(oh)], 1,
    )  # fmt: skip


def inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [
        rng.uniform(-1, 1, (2, 5, 3, 2)),
        rng.uniform(-1, 1, (2, 2, 2, 3)),
        rng.permutation(24).reshape(1, 4, 3, 2) / 8,
    ]


def test_a_one_column_strided_window_runs_and_matches_numpy():
    x, w, p = inputs()
    conv, pool = gradir.compile(PROGRAM, opt_level=0).f(
        x.astype(np.float32), w.astype(np.float32), p.astype(np.float32)
    )
    np.testing.assert_allclose(conv, np.einsum("nijhwc,hwcf->nijf", windows(x, 2, 2), w), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pool, windows(p, 2, 2).max(axis=(3, 4)), rtol=1e-6)


def test_its_derivatives_match_central_differences():
    result = gradir.gradcheck(PROGRAM, "f", inputs())
    assert result.ok, result.report()


DYNAMIC_BATCH = (
    PROGRAM.replace("tensor<2x5x3x2xf32>", "tensor<?x5x3x2xf32>")
    .replace("tensor<2x2x1x3xf32>", "tensor<?x2x1x3xf32>")
    .replace("%e = tensor.empty() :", "%c0 = arith.constant 0 : index\n  %n = tensor.dim %x, %c0 : tensor<?x5x3x2xf32>\n"
             "  %e = tensor.empty(%n) :")
)  # fmt: skip


def test_with_a_dynamic_batch_it_runs_at_every_batch_size():
    exe = gradir.compile(DYNAMIC_BATCH, opt_level=0)
    rng = np.random.default_rng(7)
    _, w, p = inputs()
    for batch in (1, 2, 3):
        x = rng.uniform(-1, 1, (batch, 5, 3, 2))
        conv, pool = exe.f(x.astype(np.float32), w.astype(np.float32), p.astype(np.float32))
        expected = np.einsum("nijhwc,hwcf->nijf", windows(x, 2, 2), w)
        np.testing.assert_allclose(conv, expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(pool, windows(p, 2, 2).max(axis=(3, 4)), rtol=1e-6)


def test_with_a_dynamic_batch_its_derivatives_match_central_differences():
    result = gradir.gradcheck(DYNAMIC_BATCH, "f", inputs())
    assert result.ok, result.report()


def test_only_inputs_wider_than_their_windows_reach_are_sliced():
    """The convolution's input loses its unread column; a tight input (width 4: windows at
    0 and 2 reach column 3) is left as it is."""
    for width, sliced in ((3, 1), (4, 0)):
        text = f"""
func.func @f(%x: tensor<1x3x{width}x1xf32>, %w: tensor<1x2x1x1xf32>, %o: tensor<1x2x{width // 2}x1xf32>) -> tensor<1x2x{width // 2}x1xf32> {{
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}}
    ins(%x, %w : tensor<1x3x{width}x1xf32>, tensor<1x2x1x1xf32>) outs(%o : tensor<1x2x{width // 2}x1xf32>) -> tensor<1x2x{width // 2}x1xf32>
  return %r : tensor<1x2x{width // 2}x1xf32>
}}"""
        with ir.Context() as context, ir.Location.unknown():
            module = ir.Module.parse(text, context)
            apply_schedule(module, GENERALIZE_SCHEDULE, "test")
            assert tighten_windowed_inputs(module) == sliced
            slices = [str(op.results[0].type) for op in walk_ops(module, {"tensor.extract_slice"})]
            assert slices == (["tensor<1x3x2x1xf32>"] if sliced else [])
            assert module.operation.verify()


def test_a_dynamic_dimension_read_through_a_window_is_sliced_to_its_reach():
    """A dynamic batch is kept whole (sliced at its `tensor.dim`); a dynamic width read
    through windows that reach 2 columns is sliced to 2."""
    text = """
func.func @f(%x: tensor<?x3x?x1xf32>, %w: tensor<1x2x1x1xf32>, %o: tensor<?x2x1x1xf32>) -> tensor<?x2x1x1xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<?x3x?x1xf32>, tensor<1x2x1x1xf32>) outs(%o : tensor<?x2x1x1xf32>) -> tensor<?x2x1x1xf32>
  return %r : tensor<?x2x1x1xf32>
}"""
    with ir.Context() as context, ir.Location.unknown():
        module = ir.Module.parse(text, context)
        apply_schedule(module, GENERALIZE_SCHEDULE, "test")
        assert tighten_windowed_inputs(module) == 1
        slices = [str(op.results[0].type) for op in walk_ops(module, {"tensor.extract_slice"})]
        assert slices == ["tensor<?x3x2x1xf32>"]
        assert module.operation.verify()
