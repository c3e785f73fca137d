"""Convolution and pooling derivatives (`autodiff_pass/rules/conv.py`,
`rules/tensor_regions.py`) in float64 through the real CPU pipeline:

- every op of `dialects/linalg_conv.py`, reverse and forward mode against
  central differences, on shapes, strides and dilations drawn at random (fixed
  seed), with inputs of distinct values (a max/min pooling window has one
  arg-max, and the init competes with the window);
- programs written as torch-mlir writes them (tensor.pad, bias as the init,
  grouped and depthwise layouts, average pooling as a sum and a division)
  against PyTorch's `conv*d`, `max_pool*d` and `avg_pool*d`, gradients and
  forward-mode tangents;
- max pooling on tied windows against PyTorch exactly: the first maximum in
  window order gets the gradient, in both modes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import gradir
from gradir.gradient_check import GradChecker
from window_programs import DEFAULT_EXTENTS, SPECS, case, is_conv

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(2027)


def _random_case(name: str):
    spec = SPECS[name]
    rank = len(spec.windows)
    extents = {loop: int(RNG.integers(1, DEFAULT_EXTENTS[loop] + 2)) for loop in spec.loop_names}
    for out, kernel in spec.windows:
        extents[out] = int(RNG.integers(2, 4))
        extents[kernel] = int(RNG.integers(2, 4))
    strides = tuple(int(s) for s in RNG.integers(1, 4, rank))
    dilations = tuple(int(d) for d in RNG.integers(1, 3, rank))
    return case(name, strides=strides, dilations=dilations, **extents)


CASES = {name: _random_case(name) for name in SPECS}


def distinct_values(shapes, rng) -> list[np.ndarray]:
    """Arrays whose values are all distinct, across arrays too (no ties)."""
    sizes = [int(np.prod(s)) for s in shapes]
    values = (rng.permutation(sum(sizes)) + rng.uniform(0.1, 0.9)) / sum(sizes) - 0.5
    return [chunk.reshape(s) for chunk, s in zip(np.split(values, np.cumsum(sizes)[:-1]), shapes)]


@pytest.fixture(scope="module")
def every_op_checker():
    text = "".join(c.function(name) for name, c in CASES.items())
    # A pooling op reads only its window operand's shape: no gradient to check there.
    return GradChecker(text, [(name, None if is_conv(c.spec) else [0, 2]) for name, c in CASES.items()])


@pytest.mark.parametrize("name", list(SPECS))
def test_every_op_against_central_differences(every_op_checker, name):
    window = CASES[name]
    inputs = distinct_values(window.shapes(), np.random.default_rng(len(name)))
    result = every_op_checker.check(name, inputs)
    assert result.ok, result.report()


# ----------------------------------------------------------------------------
# torch-mlir style programs against PyTorch
# ----------------------------------------------------------------------------


def _t(shape) -> str:
    return "tensor<" + "x".join(map(str, shape)) + "xf64>"


def _dense(values) -> str:
    return f"dense<[{', '.join(str(int(v)) for v in values)}]> : tensor<{len(values)}xi64>"


def _pad(name: str, source: str, shape, low, high, value: str) -> tuple[str, list[int]]:
    padded = [n + lo + hi for n, lo, hi in zip(shape, low, high)]
    indices = ", ".join(f"%i{k}: index" for k in range(len(shape)))
    text = (f"  {name} = tensor.pad {source} low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{\n"
            f"  ^bb0({indices}):\n    tensor.yield {value} : f64\n  }} : {_t(shape)} to {_t(padded)}\n")
    return text, padded


def _out_size(size, kernel, stride, dilation) -> int:
    return (size - dilation * (kernel - 1) - 1) // stride + 1


@dataclass
class TorchCase:
    """A program `@f(args) -> y` and the PyTorch function it computes (on
    arrays in the program's layouts)."""

    name: str
    text: str
    shapes: list[list[int]]
    output_shape: list[int]
    reference: object
    ties: bool = False


def conv_case(name, dims, x_shape, w_shape, stride, padding, dilation, layout="nchw", groups=1) -> TorchCase:
    """torch.nn.functional.conv{dims}d with bias, in torch-mlir's form: the
    input padded with zeros, the bias broadcast into the init."""
    n, c = x_shape[:2]
    spatial = x_shape[2:]
    f, kernel = w_shape[0], w_shape[2:]
    out = [_out_size(s + 2 * p, k, st, d) for s, p, k, st, d in zip(spatial, padding, kernel, stride, dilation)]
    letters = "dhw"[3 - dims:]
    channels_last = layout.startswith("nhwc") or layout.startswith("nwc") or layout.startswith("ndhwc")
    pad_low = [0, *padding, 0] if channels_last else [0, 0, *padding]
    x_layout = [n, *spatial, c] if channels_last else list(x_shape)
    if groups == 1:
        op = {("nchw", 1): "conv_1d_ncw_fcw", ("nchw", 2): "conv_2d_nchw_fchw", ("nchw", 3): "conv_3d_ncdhw_fcdhw",
              ("nhwc", 1): "conv_1d_nwc_wcf", ("nhwc", 2): "conv_2d_nhwc_hwcf", ("nhwc", 3): "conv_3d_ndhwc_dhwcf",
              ("nhwc_fhwc", 2): "conv_2d_nhwc_fhwc"}[(layout, dims)]  # fmt: skip
        w_layout = {"nchw": list(w_shape), "nhwc": [*kernel, c, f], "nhwc_fhwc": [f, *kernel, c]}[layout]
        y_layout = [n, *out, f] if channels_last else [n, f, *out]
    else:  # depthwise, one filter per channel
        assert groups == c == f
        op = {1: "depthwise_conv_1d_ncw_cw", 2: "depthwise_conv_2d_nchw_chw", 3: "depthwise_conv_3d_ncdhw_cdhw"}[dims]
        w_layout = [c, *kernel]
        y_layout = [n, c, *out]
    x, w, b, y = _t(x_layout), _t(w_layout), _t([f]), _t(y_layout)
    pad_text, padded = _pad("%xp", "%x", x_layout, pad_low, pad_low, "%zero")
    rank = len(y_layout)
    bias_dim = rank - 1 if channels_last else 1
    loops = ", ".join(f"d{k}" for k in range(rank))
    text = f"""
func.func @{name}(%x: {x}, %w: {w}, %b: {b}) -> {y} {{
  %zero = arith.constant 0.0 : f64
{pad_text}  %empty = tensor.empty() : {y}
  %init = linalg.generic {{indexing_maps = [affine_map<({loops}) -> (d{bias_dim})>, affine_map<({loops}) -> ({loops})>], iterator_types = [{", ".join(['"parallel"'] * rank)}]}} ins(%b : {b}) outs(%empty : {y}) {{
  ^bb0(%in: f64, %o: f64):
    linalg.yield %in : f64
  }} -> {y}
  %r = linalg.{op} {{dilations = {_dense(dilation)}, strides = {_dense(stride)}}} ins(%xp, %w : {_t(padded)}, {w}) outs(%init : {y}) -> {y}
  return %r : {y}
}}
"""
    conv = getattr(F, f"conv{dims}d")

    def reference(x_array, w_array, b_array):
        xt = x_array.permute(0, dims + 1, *range(1, dims + 1)) if channels_last else x_array
        if groups != 1:
            wt = w_array.unsqueeze(1)
        elif layout == "nhwc":
            wt = w_array.permute(dims + 1, dims, *range(dims))
        elif layout == "nhwc_fhwc":
            wt = w_array.permute(0, dims + 1, *range(1, dims + 1))
        else:
            wt = w_array
        yt = conv(xt, wt, b_array, stride=stride, padding=padding, dilation=dilation, groups=groups)
        return yt.permute(0, *range(2, dims + 2), 1) if channels_last else yt

    del letters
    return TorchCase(name, text, [x_layout, w_layout, [f]], y_layout, reference)


def pool_case(name, dims, kind, x_shape, kernel, stride, padding, dilation=None, layout="nchw") -> TorchCase:
    """max_pool{dims}d / avg_pool{dims}d (count_include_pad) in torch-mlir's
    form: padded with -FLT_MAX (max) or zeros (average), average pooling as a
    sum pooling divided by the window size."""
    dilation = dilation or [1] * dims
    n, c = x_shape[:2]
    spatial = x_shape[2:]
    out = [_out_size(s + 2 * p, k, st, d) for s, p, k, st, d in zip(spatial, padding, kernel, stride, dilation)]
    channels_last = layout == "nhwc"
    x_layout = [n, *spatial, c] if channels_last else list(x_shape)
    y_layout = [n, *out, c] if channels_last else [n, c, *out]
    pad_low = [0, *padding, 0] if channels_last else [0, 0, *padding]
    tag = {(1, False): "ncw", (2, False): "nchw", (1, True): "nwc", (2, True): "nhwc", (3, True): "ndhwc"}[(dims, channels_last)]
    op = f"pooling_{tag}_{'max' if kind == 'max' else 'sum'}"
    x, y, window = _t(x_layout), _t(y_layout), _t(kernel)
    fill = "-1.7976931348623157E+308" if kind == "max" else "0.0"
    pad_text, padded = _pad("%xp", "%x", x_layout, pad_low, pad_low, "%lowest")
    rank = len(y_layout)
    loops = ", ".join(f"d{k}" for k in range(rank))
    divide = ""
    result = "%pooled"
    if kind == "avg":
        divide = f"""  %count = arith.constant {float(np.prod(kernel))} : f64
  %e2 = tensor.empty() : {y}
  %avg = linalg.generic {{indexing_maps = [affine_map<({loops}) -> ({loops})>, affine_map<({loops}) -> ({loops})>], iterator_types = [{", ".join(['"parallel"'] * rank)}]}} ins(%pooled : {y}) outs(%e2 : {y}) {{
  ^bb0(%in: f64, %o: f64):
    %q = arith.divf %in, %count : f64
    linalg.yield %q : f64
  }} -> {y}
"""
        result = "%avg"
    text = f"""
func.func @{name}(%x: {x}) -> {y} {{
  %lowest = arith.constant {fill} : f64
{pad_text}  %empty = tensor.empty() : {y}
  %init = linalg.fill ins(%lowest : f64) outs(%empty : {y}) -> {y}
  %window = tensor.empty() : {window}
  %pooled = linalg.{op} {{dilations = {_dense(dilation)}, strides = {_dense(stride)}}} ins(%xp, %window : {_t(padded)}, {window}) outs(%init : {y}) -> {y}
{divide}  return {result} : {y}
}}
"""
    if kind == "max":
        def pool(t):
            return getattr(F, f"max_pool{dims}d")(t, kernel, stride=stride, padding=padding, dilation=dilation)
    else:
        def pool(t):
            return getattr(F, f"avg_pool{dims}d")(t, kernel, stride=stride, padding=padding, count_include_pad=True)

    def reference(x_array):
        if channels_last:
            xt = x_array.permute(0, dims + 1, *range(1, dims + 1))
            return pool(xt).permute(0, *range(2, dims + 2), 1)
        return pool(x_array)

    return TorchCase(name, text, [x_layout], y_layout, reference)


TORCH_CASES = [
    conv_case("conv2d_nchw", 2, [2, 3, 7, 8], [4, 3, 3, 2], stride=[2, 1], padding=[1, 2], dilation=[1, 2]),
    conv_case("conv2d_nhwc", 2, [2, 2, 6, 7], [3, 2, 2, 3], stride=[1, 2], padding=[2, 1], dilation=[2, 1], layout="nhwc"),
    conv_case("conv2d_fhwc", 2, [1, 3, 6, 6], [2, 3, 3, 3], stride=[3, 2], padding=[1, 1], dilation=[1, 1], layout="nhwc_fhwc"),
    conv_case("conv1d_ncw", 1, [2, 3, 11], [2, 3, 3], stride=[2], padding=[2], dilation=[3]),
    conv_case("conv1d_nwc", 1, [2, 2, 9], [3, 2, 4], stride=[1], padding=[1], dilation=[1], layout="nhwc"),
    conv_case("conv3d_ncdhw", 3, [1, 2, 5, 5, 6], [2, 2, 2, 3, 2], stride=[1, 2, 2], padding=[1, 0, 1], dilation=[2, 1, 1]),
    conv_case("conv3d_ndhwc", 3, [1, 2, 4, 5, 5], [3, 2, 2, 2, 3], stride=[2, 1, 1], padding=[0, 1, 1], dilation=[1, 2, 1], layout="nhwc"),
    conv_case("depthwise2d", 2, [2, 3, 6, 7], [3, 1, 3, 2], stride=[2, 2], padding=[1, 1], dilation=[1, 2], groups=3),
    conv_case("depthwise1d", 1, [1, 2, 9], [2, 1, 3], stride=[2], padding=[1], dilation=[2], groups=2),
    pool_case("maxpool2d", 2, "max", [2, 3, 7, 8], [3, 2], stride=[2, 2], padding=[1, 1], dilation=[1, 2]),
    pool_case("maxpool2d_nhwc", 2, "max", [2, 2, 6, 6], [2, 2], stride=[2, 2], padding=[0, 1], layout="nhwc"),
    pool_case("maxpool1d", 1, "max", [2, 3, 10], [3], stride=[2], padding=[1], dilation=[2]),
    pool_case("maxpool3d", 3, "max", [1, 2, 4, 5, 5], [2, 2, 3], stride=[1, 2, 2], padding=[1, 0, 1], layout="nhwc"),
    pool_case("avgpool2d", 2, "avg", [2, 3, 7, 6], [3, 3], stride=[2, 1], padding=[1, 1]),
    pool_case("avgpool1d", 1, "avg", [2, 2, 9], [2], stride=[2], padding=[1]),
    pool_case("avgpool3d", 3, "avg", [1, 2, 4, 4, 5], [2, 2, 2], stride=[2, 1, 2], padding=[1, 1, 0], layout="nhwc"),
    # windows that do not overlap: 2x2 of stride 2, and stride 3 over 2 (a gap) with rows left over
    pool_case("maxpool2d_tiled", 2, "max", [2, 3, 8, 6], [2, 2], stride=[2, 2], padding=[0, 0]),
    pool_case("maxpool2d_gaps", 2, "max", [1, 2, 9, 8], [2, 2], stride=[3, 3], padding=[0, 1]),
    pool_case("avgpool2d_gaps", 2, "avg", [1, 2, 8, 7], [2, 1], stride=[3, 2], padding=[0, 0], layout="nhwc"),
]


def _derivative_wrappers(case: TorchCase) -> str:
    args = [f"%a{k}" for k in range(len(case.shapes))]
    types = [_t(s) for s in case.shapes]
    y = _t(case.output_shape)
    wrt = ", ".join(str(k) for k in range(len(args)))
    signature = ", ".join(f"{a}: {t}" for a, t in zip(args, types))
    tangents = [f"%t{k}" for k in range(len(args))]
    return f"""
func.func @vjp_{case.name}({signature}, %ct: {y}) -> ({y}, {", ".join(types)}) {{
  %r:{len(args) + 1} = autodiff.vjp @{case.name}({", ".join(args)}, %ct) {{wrt = array<i64: {wrt}>}} : ({", ".join(types)}, {y}) -> ({y}, {", ".join(types)})
  return {", ".join(f"%r#{k}" for k in range(len(args) + 1))} : {y}, {", ".join(types)}
}}
func.func @jvp_{case.name}({signature}, {", ".join(f"{t}: {ty}" for t, ty in zip(tangents, types))}) -> ({y}, {y}) {{
  %r:2 = autodiff.jvp @{case.name}({", ".join(args + tangents)}) {{wrt = array<i64: {wrt}>}} : ({", ".join(types + types)}) -> ({y}, {y})
  return %r#0, %r#1 : {y}, {y}
}}
"""


def _wrapper_names(cases) -> list[str]:
    """The `_derivative_wrappers` the tests call: the only functions compiled for themselves."""
    return [f"{kind}_{case.name}" for case in cases for kind in ("vjp", "jvp")]


@pytest.fixture(scope="module")
def torch_executable():
    text = "".join(c.text + _derivative_wrappers(c) for c in TORCH_CASES)
    return gradir.compile(text, target="cpu", functions=_wrapper_names(TORCH_CASES))


def _torch_derivatives(case: TorchCase, arrays, cotangent, tangents):
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    output = case.reference(*leaves)
    gradients = torch.autograd.grad(output, leaves, torch.tensor(cotangent))
    _, tangent = torch.func.jvp(case.reference, tuple(torch.tensor(a) for a in arrays),
                                tuple(torch.tensor(t) for t in tangents))
    return output.detach().numpy(), [g.numpy() for g in gradients], tangent.numpy()


@pytest.mark.parametrize("case", TORCH_CASES, ids=lambda c: c.name)
def test_against_pytorch(torch_executable, case):
    rng = np.random.default_rng(abs(hash(case.name)) % 1000)
    arrays = [rng.standard_normal(s) for s in case.shapes]
    cotangent = rng.standard_normal(case.output_shape)
    tangents = [rng.standard_normal(s) for s in case.shapes]
    value, gradients, tangent = _torch_derivatives(case, arrays, cotangent, tangents)
    results = torch_executable.call(f"vjp_{case.name}", *arrays, cotangent)
    np.testing.assert_allclose(results[0], value, rtol=1e-12, atol=1e-12)
    for ours, theirs in zip(results[1:], gradients):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    _, ours_tangent = torch_executable.call(f"jvp_{case.name}", *arrays, *tangents)
    np.testing.assert_allclose(ours_tangent, tangent, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------
# Ties
# ----------------------------------------------------------------------------

TIE_CASES = [
    pool_case("tie_overlapping", 2, "max", [1, 2, 6, 6], [3, 3], stride=[1, 1], padding=[1, 1]),
    pool_case("tie_tiled", 2, "max", [2, 2, 6, 6], [2, 2], stride=[2, 2], padding=[0, 0]),
    pool_case("tie_dilated_nhwc", 2, "max", [1, 3, 7, 7], [2, 3], stride=[2, 1], padding=[1, 1], dilation=[2, 1], layout="nhwc"),
    pool_case("tie_1d", 1, "max", [2, 2, 9], [3], stride=[2], padding=[1]),
]


@pytest.fixture(scope="module")
def tie_executable():
    text = "".join(c.text + _derivative_wrappers(c) for c in TIE_CASES)
    return gradir.compile(text, target="cpu", functions=_wrapper_names(TIE_CASES))


@pytest.mark.parametrize("case", TIE_CASES, ids=lambda c: c.name)
def test_max_pool_ties_follow_pytorch(tie_executable, case):
    """Small integers: most windows hold several maxima. PyTorch gives the
    gradient to the first in window order (row-major), and its forward mode
    the tangent of that element; gradir must agree exactly."""
    rng = np.random.default_rng(7)
    (shape,) = case.shapes
    x = rng.integers(0, 3, shape).astype(np.float64)
    x.reshape(-1)[: x.size // 3] = 1.0  # whole windows of equal values
    cotangent = rng.integers(1, 5, case.output_shape).astype(np.float64)
    tangent = rng.integers(1, 5, shape).astype(np.float64)
    value, (gradient,), torch_tangent = _torch_derivatives(case, [x], cotangent, [tangent])
    ours_value, ours_gradient = tie_executable.call(f"vjp_{case.name}", x, cotangent)
    np.testing.assert_array_equal(ours_value, value)
    np.testing.assert_array_equal(ours_gradient, gradient)
    _, ours_tangent = tie_executable.call(f"jvp_{case.name}", x, tangent)
    np.testing.assert_array_equal(ours_tangent, torch_tangent)


def test_init_beats_window_only_when_strictly_greater():
    """MLIR's max pooling also compares with its init: the init gets the
    gradient only where it is strictly greater than every window element;
    on a tie the window element gets it (PyTorch has no init: its running
    maximum starts below every value)."""
    text = f"""
func.func @f(%x: {_t([1, 4, 1])}, %init: {_t([1, 2, 1])}) -> {_t([1, 2, 1])} {{
  %window = tensor.empty() : {_t([2])}
  %r = linalg.pooling_nwc_max {{strides = dense<2> : tensor<1xi64>}} ins(%x, %window : {_t([1, 4, 1])}, {_t([2])}) outs(%init : {_t([1, 2, 1])}) -> {_t([1, 2, 1])}
  return %r : {_t([1, 2, 1])}
}}
func.func @df(%x: {_t([1, 4, 1])}, %init: {_t([1, 2, 1])}, %g: {_t([1, 2, 1])}) -> ({_t([1, 4, 1])}, {_t([1, 2, 1])}) {{
  %r:3 = autodiff.vjp @f(%x, %init, %g) : ({_t([1, 4, 1])}, {_t([1, 2, 1])}, {_t([1, 2, 1])}) -> ({_t([1, 2, 1])}, {_t([1, 4, 1])}, {_t([1, 2, 1])})
  return %r#1, %r#2 : {_t([1, 4, 1])}, {_t([1, 2, 1])}
}}
"""
    x = np.array([1.0, 3.0, 2.0, 2.0]).reshape(1, 4, 1)
    init = np.array([3.0, 5.0]).reshape(1, 2, 1)
    dx, dinit = gradir.compile(text).df(x, init, np.array([10.0, 20.0]).reshape(1, 2, 1))
    np.testing.assert_array_equal(dx.reshape(-1), [0.0, 10.0, 0.0, 0.0])
    np.testing.assert_array_equal(dinit.reshape(-1), [0.0, 20.0])


# ----------------------------------------------------------------------------
# tensor.pad
# ----------------------------------------------------------------------------


def test_padding_value_gets_the_gradient_of_the_padding():
    """A padding value read from outside the region (here a differentiated
    scalar) gets the sum of the gradient over the padded positions."""
    text = f"""
func.func @f(%x: {_t([2, 3])}, %v: tensor<f64>) -> {_t([4, 6])} {{
  %s = tensor.extract %v[] : tensor<f64>
  %p = tensor.pad %x low[1, 2] high[1, 1] {{
  ^bb0(%i: index, %j: index):
    tensor.yield %s : f64
  }} : {_t([2, 3])} to {_t([4, 6])}
  %q = arith.mulf %p, %p : {_t([4, 6])}
  return %q : {_t([4, 6])}
}}
"""
    result = gradir.gradcheck(text, "f", inputs=[np.arange(6.0).reshape(2, 3) / 7, np.array(0.3)])
    assert result.ok, result.report()


# ----------------------------------------------------------------------------
# Convolutions written as linalg.generic
# ----------------------------------------------------------------------------

GENERIC_CONV = """
#x = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, 2 * oh + kh, ow + 2 * kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#y = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @conv(%x: tensor<2x3x7x8xf64>, %w: tensor<4x3x2x3xf64>, %init: tensor<2x4x3x4xf64>) -> tensor<2x4x3x4xf64> {
  %r = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x3x7x8xf64>, tensor<4x3x2x3xf64>) outs(%init : tensor<2x4x3x4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.mulf %a, %b : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<2x4x3x4xf64>
  return %r : tensor<2x4x3x4xf64>
}
func.func @conv1d_filter_first(%w: tensor<3x2x2xf64>, %x: tensor<2x9xf64>, %init: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(f, o, c, k) -> (f, c, k)>, affine_map<(f, o, c, k) -> (c, 2 * o + k + 1)>, affine_map<(f, o, c, k) -> (f, o)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%w, %x : tensor<3x2x2xf64>, tensor<2x9xf64>) outs(%init : tensor<3x4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.mulf %b, %a : f64
    %s = arith.addf %m, %o : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
"""


@pytest.mark.parametrize("name", ["conv", "conv1d_filter_first"])
def test_convolution_generics_against_central_differences(name):
    """Input maps that are not projected permutations (`2 * d2 + d5`,
    `d3 + 2 * d6`, an offset): both modes, every operand."""
    result = gradir.gradcheck(GENERIC_CONV, name)
    assert result.ok, result.report()


def test_convolution_generic_matches_pytorch_without_a_scatter():
    """The generic is a strided, dilated conv2d: its gradients are PyTorch's,
    computed by the convolution adjoints (no scf.for scatter in the result)."""
    from gradir.compilation import lower_to_linalg

    types = "tensor<2x3x7x8xf64>, tensor<4x3x2x3xf64>, tensor<2x4x3x4xf64>"
    text = GENERIC_CONV + f"""
func.func @df(%x: tensor<2x3x7x8xf64>, %w: tensor<4x3x2x3xf64>, %init: tensor<2x4x3x4xf64>, %ct: tensor<2x4x3x4xf64>) -> ({types}) {{
  %r:4 = autodiff.vjp @conv(%x, %w, %init, %ct) : ({types}, tensor<2x4x3x4xf64>) -> (tensor<2x4x3x4xf64>, {types})
  return %r#1, %r#2, %r#3 : {types}
}}
"""
    assert "scf.for" not in str(lower_to_linalg(text))
    rng = np.random.default_rng(3)
    x, w, init, ct = (rng.standard_normal(s) for s in ([2, 3, 7, 8], [4, 3, 2, 3], [2, 4, 3, 4], [2, 4, 3, 4]))
    leaves = [torch.tensor(a, requires_grad=True) for a in (x, w, init)]
    output = leaves[2] + F.conv2d(leaves[0], leaves[1], stride=(2, 1), dilation=(1, 2))
    expected = torch.autograd.grad(output, leaves, torch.tensor(ct))
    for ours, theirs in zip(gradir.compile(text).df(x, w, init, ct), expected):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-12, atol=1e-12)


MIXED_PRECISION_CONV = """
#x = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, 2 * oh + kh, ow + 2 * kw)>
#w = affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>
#y = affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>
func.func @conv(%x: tensor<2x3x7x8xbf16>, %w: tensor<4x3x2x3xbf16>, %init: tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32> {
  %r = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x3x7x8xbf16>, tensor<4x3x2x3xbf16>) outs(%init : tensor<2x4x3x4xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x4x3x4xf32>
  return %r : tensor<2x4x3x4xf32>
}
func.func @df(%x: tensor<2x3x7x8xbf16>, %w: tensor<4x3x2x3xbf16>, %init: tensor<2x4x3x4xf32>, %ct: tensor<2x4x3x4xf32>)
    -> (tensor<2x3x7x8xbf16>, tensor<4x3x2x3xbf16>, tensor<2x4x3x4xf32>) {
  %r:4 = autodiff.vjp @conv(%x, %w, %init, %ct) : (tensor<2x3x7x8xbf16>, tensor<4x3x2x3xbf16>, tensor<2x4x3x4xf32>, tensor<2x4x3x4xf32>)
      -> (tensor<2x4x3x4xf32>, tensor<2x3x7x8xbf16>, tensor<4x3x2x3xbf16>, tensor<2x4x3x4xf32>)
  return %r#1, %r#2, %r#3 : tensor<2x3x7x8xbf16>, tensor<4x3x2x3xbf16>, tensor<2x4x3x4xf32>
}
"""
"""IREE's bf16 convolutions widen each element to f32 in the body. The body without the
`extf`s is what `gradcheck`'s f64 promotion makes of it, so the bf16 program took the scatter
path while its check took the convolution adjoints: a check of another path than the one
`autodiff-opt` takes. Both take the convolution adjoints now."""


def test_a_mixed_precision_convolution_generic_takes_the_convolution_adjoints():
    from gradir.compilation import lower_to_linalg

    lowered = str(lower_to_linalg(MIXED_PRECISION_CONV))
    assert "scf.for" not in lowered and "arith.truncf" in lowered
    result = gradir.gradcheck(MIXED_PRECISION_CONV, "conv")
    assert result.ok, result.report()
    # Run (the CPU runtime takes f16, not bf16, arrays: the same extf path)
    half = MIXED_PRECISION_CONV.replace("bf16", "f16")
    rng = np.random.default_rng(4)
    x, w, init, ct = (rng.standard_normal(s) for s in ([2, 3, 7, 8], [4, 3, 2, 3], [2, 4, 3, 4], [2, 4, 3, 4]))
    xh, wh = x.astype(np.float16), w.astype(np.float16)
    leaves = [torch.tensor(a.astype(np.float64), requires_grad=True) for a in (xh, wh, init)]
    output = leaves[2] + F.conv2d(leaves[0], leaves[1], stride=(2, 1), dilation=(1, 2))
    expected = torch.autograd.grad(output, leaves, torch.tensor(ct))
    got = gradir.compile(half).df(xh, wh, init.astype(np.float32), ct.astype(np.float32))
    assert [g.dtype for g in got] == [np.float16, np.float16, np.float32]
    for ours, theirs, tolerance in zip(got, expected, (4e-3, 4e-3, 1e-6)):  # f16 keeps 11 bits
        np.testing.assert_allclose(np.asarray(ours, np.float64), theirs.numpy(), rtol=tolerance, atol=tolerance)
