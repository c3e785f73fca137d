"""`pooling_taps.pooling_windows_unrolled`: pooling over small strided windows as one
elementwise generic, with the same values as the op's loops (sums in the same order)."""
from __future__ import annotations

import numpy as np
import pytest

import gradir
from gradir.cpu_backend.pooling_taps import pooling_windows_unrolled
from gradir.mlir_bridge import to_mlir_module
from window_programs import SPECS, case

POOLINGS = [name for name in SPECS if name.startswith("pooling_")]


def evaluate(window, x, init):
    """The op's loops in NumPy: the init combined with each window element in order."""
    spec, combine = window.spec, {"sum": np.add, "max": np.maximum, "min": np.minimum}[window.spec.kind]
    loops = spec.loop_names
    grid = dict(zip(loops, np.indices([window.extents[name] for name in loops])))
    index, position = [], 0
    for entry in spec.input_entries:
        if "+" in entry:
            o, k = entry.split("+")
            index.append(grid[o] * window.stride_values[position] + grid[k] * window.dilation_values[position])
            position += 1
        else:
            index.append(grid[entry])
    gathered = x[tuple(index)]
    output, kernels = spec.output.split(), spec.filter.split()
    gathered = gathered.transpose([loops.index(n) for n in output] + [loops.index(k) for k in kernels])
    result = init.copy()
    for tap in gathered.reshape(*init.shape, -1).transpose(-1, *range(init.ndim)):
        result = combine(result, tap)
    return result


@pytest.mark.parametrize("name", POOLINGS)
def test_strided_small_windows_are_rewritten_and_right(name):
    rank = len(SPECS[name].windows)
    window = case(name, strides=(2, 3, 2)[:rank], dilations=(1, 2, 1)[:rank], element="f32")
    assert pooling_windows_unrolled(to_mlir_module(window.function(name))) == 1
    rng = np.random.default_rng(len(name))
    x, _, init = (rng.standard_normal(s).astype(np.float32) for s in window.shapes())
    (result,) = gradir.compile(window.function(name)).call(name, x, np.zeros(window.shapes()[1], np.float32), init)
    np.testing.assert_array_equal(result, evaluate(window, x, init))


@pytest.mark.parametrize("strides, kernel", [((1, 2), 2), ((2, 2), 5)])
def test_stride_one_and_large_windows_stay_loops(strides, kernel):
    window = case("pooling_nchw_max", strides=strides, element="f32", kh=kernel, kw=kernel)
    assert pooling_windows_unrolled(to_mlir_module(window.function("pooling_nchw_max"))) == 0
