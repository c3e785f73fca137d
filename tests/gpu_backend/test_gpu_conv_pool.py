"""Convolutions, pooling and their derivatives through the GPU pipeline.

- every op of `dialects/linalg_conv.py` (uneven strides and dilations), its vjp and jvp, lowers
  to PTX, and every kernel assembles without spills where `ptxas` is on PATH;
- one op of each family (batchless, NCHW/NHWC/NDHWC convolutions, grouped, depthwise with a
  multiplier, sum/max/min pooling, overlapping 3x3 max pooling of stride 2) runs its vjp and
  jvp kernels on the CPU
  (`CudaProgram.emulate`) and agrees with the CPU backend;
- the LeNet-5 training loss of `examples/cnn` (tensor.pad, bias inits, ReLU, max pooling,
  matmuls, log-softmax, the NLL loss's gather at the labels): its gradient kernels, emulated,
  against PyTorch's gradient.
"""
from __future__ import annotations

import pathlib
import shutil
import sys

import numpy as np
import pytest

import gradir
from gradir.gpu_backend.ptx import assemble
from window_programs import SPECS, case, strided_case

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "cnn"))
from lenet import lenet, lenet_gradient, torch_loss  # noqa: E402

FAMILIES = [
    "conv_2d", "conv_1d_ncw_fcw", "conv_2d_nhwc_hwcf", "conv_3d_ndhwc_dhwcf", "conv_2d_ngchw_gfchw",
    "depthwise_conv_2d_nhwc_hwcm", "pooling_nchw_sum", "pooling_nhwc_max", "pooling_ncw_max", "pooling_ndhwc_min",
    "overlapping_max_pool",
]  # fmt: skip


OVERLAPPING_POOL = ("overlapping_max_pool", "pooling_nchw_max")
"""3x3 windows of stride 2 (ResNet's): the position the gradient goes to read element by element."""


def _case(name: str):
    if name == OVERLAPPING_POOL[0]:
        return case(OVERLAPPING_POOL[1], strides=(2, 2), element="f32", kh=3, kw=3)
    return strided_case(name, element="f32")


def _derivatives(name: str) -> str:
    """`@name`, `@vjp_name` (gradients of the three operands) and `@jvp_name` (the tangent)."""
    window = _case(name)
    tx, tw, to = window.types()
    return window.function(name) + f"""
func.func @vjp_{name}(%x: {tx}, %w: {tw}, %init: {to}, %ct: {to}) -> ({tx}, {tw}, {to}) {{
  %r:4 = autodiff.vjp @{name}(%x, %w, %init, %ct) {{wrt = array<i64: 0, 1, 2>}} : ({tx}, {tw}, {to}, {to}) -> ({to}, {tx}, {tw}, {to})
  return %r#1, %r#2, %r#3 : {tx}, {tw}, {to}
}}
func.func @jvp_{name}(%x: {tx}, %w: {tw}, %init: {to}, %tx: {tx}, %tw: {tw}, %ti: {to}) -> {to} {{
  %r:2 = autodiff.jvp @{name}(%x, %w, %init, %tx, %tw, %ti) {{wrt = array<i64: 0, 1, 2>}} : ({tx}, {tw}, {to}, {tx}, {tw}, {to}) -> ({to}, {to})
  return %r#1 : {to}
}}
"""


def test_every_op_and_its_derivatives_lower_to_ptx():
    program = gradir.compile("".join(_derivatives(name) for name in SPECS), target="cuda")
    for name in SPECS:  # kernels are named after the function that launches them
        for derivative in ("vjp", "jvp"):
            assert any(kernel.startswith(f"{name}_{derivative}_") for kernel in program.ptx), (name, derivative)
    if shutil.which("ptxas"):
        distinct: dict[str, tuple[str, str]] = {}
        for kernel, ptx in program.ptx.items():  # fills and copies recur: assemble each body once
            distinct.setdefault(ptx.replace(kernel, "kernel"), (kernel, ptx))
        for kernel, ptx in distinct.values():
            assert assemble(ptx, "sm_90").resources[kernel].spill_bytes == 0, kernel


@pytest.fixture(scope="module")
def family_programs():
    text = "".join(_derivatives(name) for name in FAMILIES)
    called = [f"{kind}_{name}" for name in FAMILIES for kind in ("vjp", "jvp")]  # the rest only inlined
    # The CPU's is the reference.
    return gradir.compile(text, target="cuda", functions=called), gradir.compile(text, opt_level=0, functions=called)


def _agree(program, cpu, function: str, arguments: list[np.ndarray]) -> None:
    for got, want in zip(program.emulate(function, *arguments), cpu.call(function, *arguments)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=function)


@pytest.mark.parametrize("name", FAMILIES)
def test_kernels_agree_with_the_cpu_backend(family_programs, name):
    program, cpu = family_programs
    shapes = _case(name).shapes()
    rng = np.random.default_rng(len(name))
    # distinct values: a max/min pooling window has one arg-max, on both backends
    values = rng.permutation(sum(int(np.prod(s)) for s in shapes) * 2).astype(np.float32) / 100
    start, arrays = 0, []
    for shape in [*shapes, *shapes]:
        size = int(np.prod(shape))
        arrays.append(values[start : start + size].reshape(shape))
        start += size
    x, w, init = arrays[:3]
    _agree(program, cpu, f"vjp_{name}", [x, w, init, rng.standard_normal(shapes[2]).astype(np.float32)])
    _agree(program, cpu, f"jvp_{name}", [x, w, init, *arrays[3:]])


def test_cnn_gradient_kernels_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    program = gradir.compile(lenet(2) + lenet_gradient(2), target="cuda")
    rng = np.random.default_rng(0)
    signature = program.signatures["lenet_grad"]
    arguments = [rng.standard_normal(a.shape).astype(np.float32) * 0.3 for a in signature.arguments]
    arguments[1] = np.array([3, 7], dtype=np.int64)
    parameters = [torch.tensor(a, requires_grad=True) for a in arguments[2:]]
    loss = torch_loss(torch, torch.tensor(arguments[0]), torch.tensor(arguments[1]), *parameters)
    for got, want in zip(program.emulate("lenet_grad", *arguments), torch.autograd.grad(loss, parameters)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-5)
    if shutil.which("ptxas"):
        for kernel, ptx in program.ptx.items():
            assert assemble(ptx, "sm_90").resources[kernel].spill_bytes == 0, kernel
