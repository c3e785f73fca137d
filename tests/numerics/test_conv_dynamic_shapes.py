"""Convolutions and pooling on tensors of dynamic shape (`autodiff_pass/rules/conv.py`),
reverse and forward mode against central differences in f64 through the CPU pipeline,
each program compiled once and checked at several run-time sizes.

Before, the windowed-reduction adjoints built their spread gradient, zeros and slices
from the static shape, so a convolution-shaped `linalg.generic` over `tensor<?xf64>`
made `autodiff-reverse` emit a `tensor.insert_slice` with `?` sizes and no size values
(invalid IR), and the named ops were refused. Now the sizes come from `tensor.dim` of
the op's own values; a kernel of run-time size read with a positive dilation walks the
kernel backwards over a reversed filter (`Window.flipped`). Pooling windows of run-time
size stay a located refusal.
"""
from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest
from window_programs import case

import gradir
from gradir.errors import DifferentiationError
from gradir.gradient_check import GradChecker


def _generic(input_map: str, input_type: str, filter_map: str, filter_type: str, output_map: str,
             output_type: str, iterators: str) -> str:  # fmt: skip
    """`@f(x, w, out) = out + sum x[input_map] * w[filter_map]` as a linalg.generic."""
    return f"""
func.func @f(%x: {input_type}, %w: {filter_type}, %o: {output_type}) -> {output_type} {{
  %y = linalg.generic {{indexing_maps = [affine_map<{input_map}>, affine_map<{filter_map}>, affine_map<{output_map}>],
                        iterator_types = [{iterators}]}}
      ins(%x, %w : {input_type}, {filter_type}) outs(%o : {output_type}) {{
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }} -> {output_type}
  return %y : {output_type}
}}
"""


def _conv_1d(read: str) -> str:
    return _generic(f"(d0, d1) -> ({read})", "tensor<?xf64>", "(d0, d1) -> (d1)", "tensor<?xf64>",
                    "(d0, d1) -> (d0)", "tensor<?xf64>", '"parallel", "reduction"')  # fmt: skip


# input map, input size of (n outputs, k kernel)
CONV_1D = {
    "sum": ("d0 + d1", lambda n, k: n + k - 1),
    "offset": ("d0 + d1 + 1", lambda n, k: n + k + 1),  # one element at each end never read
    "reversed": ("d0 - d1 + 2", lambda n, k: n + 2),  # dilation -1: reads o + 2 - k, k < 3
}

# stride 2, dilation 3 over a batch (unbatched, MLIR 22's specialisation names it a `linalg.conv_1d`,
# which has no strides: a wrong forward, cpu_backend/specialize_generics.py)
STRIDED_DILATED_1D = _generic("(d0, d1, d2) -> (d0, d1 * 2 + d2 * 3)", "tensor<?x?xf64>", "(d0, d1, d2) -> (d2)",
                              "tensor<?xf64>", "(d0, d1, d2) -> (d0, d1)", "tensor<?x?xf64>",
                              '"parallel", "parallel", "reduction"')  # fmt: skip

# (d0, d1 * 2): a stride with no kernel loop, the batch of run-time size
STRIDED = _generic("(d0, d1, d2) -> (d0, d1 * 2)", "tensor<?x4xf64>", "(d0, d1, d2) -> (d2)", "tensor<3xf64>",
                   "(d0, d1, d2) -> (d0, d1, d2)", "tensor<?x2x3xf64>",
                   '"parallel", "parallel", "parallel"')  # fmt: skip
STRIDED_ALL_DYNAMIC = _generic("(d0, d1, d2) -> (d0, d1 * 2)", "tensor<?x?xf64>", "(d0, d1, d2) -> (d2)",
                               "tensor<?xf64>", "(d0, d1, d2) -> (d0, d1, d2)", "tensor<?x?x?xf64>",
                               '"parallel", "parallel", "parallel"')  # fmt: skip

# NHWC x HWCF -> NHWF, every size known at run time only (IREE's generalized conv_2d_nhwc_hwcf)
NHWC = "tensor<?x?x?x?xf64>"
CONV_2D = _generic("(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)", NHWC,
                   "(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)", NHWC,
                   "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)", NHWC,
                   '"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"')  # fmt: skip
# stride 2 along H, dilation 2 along W, a static 2x2x2x3 filter
CONV_2D_STRIDED = _generic("(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 + d5 * 2, d6)", "tensor<?x?x?x2xf64>",
                           "(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)", "tensor<2x2x2x3xf64>",
                           "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)", "tensor<?x?x?x3xf64>",
                           '"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"')  # fmt: skip


@cache
def _checker(text: str) -> GradChecker:
    return GradChecker(text, [("f", None)])


def _check(text: str, inputs) -> None:
    result = _checker(text).check("f", inputs)
    assert result.ok, result.report()
    assert result.checks


def _normal(seed: int, *shapes) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


@pytest.mark.parametrize("kind", list(CONV_1D))
@pytest.mark.parametrize("n, k", [(4, 3), (6, 2), (2, 3)])
def test_1d_convolution_generic_of_dynamic_sizes(kind, n, k):
    read, input_size = CONV_1D[kind]
    if kind == "reversed" and k > 3:
        pytest.skip("the window would read before the input")
    _check(_conv_1d(read), _normal(n * 10 + k, input_size(n, k), k, n))


@pytest.mark.parametrize("batch, n, k", [(1, 4, 3), (2, 2, 2), (3, 3, 1)])
def test_strided_dilated_1d_generic_of_dynamic_sizes(batch, n, k):
    x, w, o = _normal(n + k, (batch, 2 * (n - 1) + 3 * (k - 1) + 2), k, (batch, n))  # the last element never read
    expected = o + sum(x[:, 3 * j : 3 * j + 2 * (n - 1) + 1 : 2] * w[j] for j in range(k))
    np.testing.assert_allclose(_checker(STRIDED_DILATED_1D).executable.f(x, w, o), expected, rtol=1e-12)
    _check(STRIDED_DILATED_1D, [x, w, o])


@pytest.mark.parametrize("batch", [1, 2, 3])
def test_strided_generic_with_a_dynamic_batch(batch):
    _check(STRIDED, _normal(batch, (batch, 4), 3, (batch, 2, 3)))


@pytest.mark.parametrize("batch, width, filters", [(2, 4, 3), (1, 6, 2)])
def test_strided_generic_with_every_size_dynamic(batch, width, filters):
    _check(STRIDED_ALL_DYNAMIC, _normal(batch, (batch, width), filters, (batch, width // 2, filters)))


@pytest.mark.parametrize("n, oh, ow, f, kh, kw, c", [(1, 2, 3, 2, 2, 2, 2), (2, 3, 2, 3, 3, 1, 1)])
def test_2d_nhwc_convolution_generic_of_dynamic_sizes(n, oh, ow, f, kh, kw, c):
    shapes = (n, oh + kh - 1, ow + kw - 1, c), (kh, kw, c, f), (n, oh, ow, f)
    _check(CONV_2D, _normal(oh * 7 + kh, *shapes))


@pytest.mark.parametrize("n, oh, ow", [(1, 2, 2), (2, 3, 1)])
def test_2d_strided_dilated_convolution_generic_of_dynamic_sizes(n, oh, ow):
    shapes = (n, 2 * (oh - 1) + 2, ow + 2, 2), (2, 2, 2, 3), (n, oh, ow, 3)
    _check(CONV_2D_STRIDED, _normal(n + oh, *shapes))


# ----------------------------------------------------------------------------
# Named ops with `?` in their types
# ----------------------------------------------------------------------------


def _dynamic(window, static_window: bool) -> str:
    """`window`'s function with every size `?` (a pooling op's window operand kept static)."""
    _, tw, _ = window.types()
    keep = {tw} if static_window else set()
    return re.sub(r"tensor<[0-9x]+xf64>", lambda m: m[0] if m[0] in keep else re.sub(r"[0-9]+x", "?x", m[0]),
                  window.function())  # fmt: skip


NAMED = {
    # name: (strides and dilations, two sets of loop extents checked with one compilation)
    "conv_2d_nhwc_hwcf": ({"strides": (2, 1), "dilations": (1, 2)},
                          [{"n": 1, "oh": 2, "ow": 2, "kh": 2, "kw": 2, "c": 2, "f": 3},
                           {"n": 2, "oh": 1, "ow": 3, "kh": 3, "kw": 1, "c": 1, "f": 2}]),
    "conv_1d_ncw_fcw": ({"strides": (1,), "dilations": (2,)},
                        [{"n": 2, "ow": 3, "kw": 2, "c": 2, "f": 2},
                         {"n": 1, "ow": 2, "kw": 3, "c": 1, "f": 3}]),
    "depthwise_conv_2d_nhwc_hwc": ({"strides": (1, 2), "dilations": (2, 1)},
                                   [{"n": 1, "oh": 2, "ow": 2, "kh": 2, "kw": 2, "c": 2},
                                    {"n": 2, "oh": 3, "ow": 1, "kh": 1, "kw": 3, "c": 1}]),
    "pooling_nhwc_max": ({"strides": (2, 2), "dilations": (1, 1)},  # 2x2 windows of stride 2: disjoint
                         [{"n": 1, "oh": 2, "ow": 2, "kh": 2, "kw": 2, "c": 2},
                          {"n": 2, "oh": 1, "ow": 3, "kh": 2, "kw": 2, "c": 1}]),
    "pooling_nhwc_sum": ({"strides": (1, 2), "dilations": (1, 1)},
                         [{"n": 1, "oh": 2, "ow": 2, "kh": 2, "kw": 2, "c": 2},
                          {"n": 2, "oh": 3, "ow": 1, "kh": 2, "kw": 2, "c": 1}]),
    "pooling_nchw_max": ({"strides": (2, 1), "dilations": (1, 1)},  # overlapping 3x2 windows
                         [{"n": 1, "c": 2, "oh": 2, "ow": 2, "kh": 3, "kw": 2},
                          {"n": 2, "c": 1, "oh": 1, "ow": 3, "kh": 3, "kw": 2}]),
    "pooling_nwc_min": ({"strides": (1,), "dilations": (1,)},
                        [{"n": 1, "ow": 3, "kw": 2, "c": 2},
                         {"n": 2, "ow": 2, "kw": 2, "c": 3}]),
}  # fmt: skip


def _distinct(shapes, seed: int) -> list[np.ndarray]:
    """Arrays of distinct values (no ties in a max/min window)."""
    rng = np.random.default_rng(seed)
    sizes = [int(np.prod(s)) for s in shapes]
    values = (rng.permutation(sum(sizes)) + rng.uniform(0.1, 0.9)) / sum(sizes) - 0.5
    return [chunk.reshape(s) for chunk, s in zip(np.split(values, np.cumsum(sizes)[:-1]), shapes)]


def _with_init_winning(name: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The init's first element beyond every window of a max/min pooling: the init gets a gradient there."""
    if name.endswith(("_max", "_min")):
        inputs[2].flat[0] = 1.0 if name.endswith("_max") else -1.0
    return inputs


@cache
def _named_checker(name: str) -> GradChecker:
    options, variants = NAMED[name]
    window = case(name, **options, **variants[0])
    pooling = name.startswith("pooling")
    return GradChecker(_dynamic(window, static_window=pooling), [("f", [0, 2] if pooling else None)])


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize("name", list(NAMED))
def test_named_op_of_dynamic_sizes(name, variant):
    options, variants = NAMED[name]
    window = case(name, **options, **variants[variant])
    if name.startswith("pooling") and variant:
        window_shape = case(name, **options, **variants[0]).shapes()[1]
        assert window.shapes()[1] == window_shape, "the window is static in the compiled function"
    result = _named_checker(name).check("f", _with_init_winning(name, _distinct(window.shapes(), variant + len(name))))
    assert result.ok, result.report()


def test_disjoint_pooling_over_an_input_longer_than_its_windows():
    """A 2x2 max pooling of stride 2 leaves the last row and column unread: the gradient
    is written into zeros of the input's run-time size."""
    options, _ = NAMED["pooling_nhwc_max"]
    window = case("pooling_nhwc_max", **options, n=1, oh=2, ow=1, kh=2, kw=2, c=2, extra_input=(1, 1))
    x, w, init = _with_init_winning("pooling_nhwc_max", _distinct(window.shapes(), 5))
    assert x.shape == (1, 5, 3, 2)
    result = _named_checker("pooling_nhwc_max").check("f", [x, w, init])
    assert result.ok, result.report()


def test_pooling_with_a_window_of_run_time_size_is_a_located_refusal():
    text = _dynamic(case("pooling_nhwc_max", n=1, oh=2, ow=2, kh=2, kw=2, c=1), static_window=False)
    with pytest.raises(DifferentiationError, match=r"<string>:2:\d+: error: .*pooling_nhwc_max.*window of static size"):
        gradir.gradcheck(text, "f", wrt=[0, 2])
