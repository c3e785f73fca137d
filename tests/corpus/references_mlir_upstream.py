"""PyTorch references and input generators for the mlir upstream corpus programs added as a group (see references.py)."""
from __future__ import annotations

import numpy as np

from references import Group, _fill, _positive, _signed, inputs_pos, inputs_signed, torch, F  # noqa: F401

_GROUP = Group()
REFERENCES, INPUTS = _GROUP.references, _GROUP.input_generators
_reference, _inputs = _GROUP.reference, _GROUP.inputs


# ---------------------------------------------------------------- named-ops.mlir


@_reference
def mu_depthwise_3d_ndhwc_dhwcm(inp, fil):
    # out[n, d, h, w, c, m] = sum_{kd,kh,kw} inp[n, 2d + kd, h + kh, 3w + kw, c] * fil[kd, kh, kw, c, m]
    kd, kh, kw, c, m = fil.shape
    weight = fil.permute(3, 4, 0, 1, 2).reshape(c * m, 1, kd, kh, kw)
    y = F.conv3d(inp.permute(0, 4, 1, 2, 3), weight, stride=(2, 1, 3), groups=c)  # (N, C*M, D', H', W')
    y = y.permute(0, 2, 3, 4, 1)
    return y.reshape(*y.shape[:4], c, m)


@_reference
def mu_pooling_ndhwc_max(inp):
    # 3x3x3 window, stride 1, into an init of zeros (the inputs are positive)
    y = F.max_pool3d(inp.permute(0, 4, 1, 2, 3), 3, stride=1).permute(0, 2, 3, 4, 1)
    return torch.clamp(y, min=0.0)


@_reference
def mu_pooling_nhwc_min(inp):
    # 3x3 window, stride 1, into an init of zeros (the inputs are negative)
    y = -F.max_pool2d(-inp.permute(0, 3, 1, 2), 3, stride=1)
    return torch.clamp(y.permute(0, 2, 3, 1), max=0.0)


@_inputs
def inputs_mu_negative(rng, specs):
    # every input in (-1.25, -0.25]: below the zero init, so the min is always an input
    return _fill(rng, specs, lambda r, s: -_positive(r, s))


@_reference
def mu_powf(x, y):
    return torch.pow(x, y)


# ---------------------------------------------------------------- transform-op-fuse-into-containing.mlir


@_reference
def mu_forall_exp_chunks(chunk, x, out):
    # every chunk of the fill(42) output is overwritten by exp of the same chunk of x
    return torch.exp(x) + 0.0 * out


@_inputs
def inputs_mu_chunk_two(rng, specs):
    # chunk size 2 over 5 elements: chunks [0, 2), [2, 4) and the clipped [4, 5)
    return [np.asarray(2, dtype=np.int64), *(_positive(rng, shape) for shape, _ in specs[1:])]


# ---------------------------------------------------------------- fusion-elementwise-ops.mlir


@_reference
def mu_scalar_generic_fusion(x, i):
    # x[i, 0, 0] broadcast to 10 elements, times the constant 1.0
    return x[int(i), 0, 0].expand(10) * 1.0


@_reference
def mu_break_outs_dependency(x):
    return (x + x) * (x + x)


# ---------------------------------------------------------------- elementwise/generalize-named-ops.mlir


@_reference
def mu_elementwise_tanh_tb(a, b):
    # r[d0, d1, d2] = tanh(a[d2, d1]); b only provides the shape
    return torch.tanh(a.T)[None].expand(b.shape) + 0.0 * b


@_reference
def mu_elementwise_select_tb(cond, b, c, d):
    # r[d0, d1, d2] = cond[d2, d1] ? b : c
    return torch.where(cond.T[None].expand(b.shape), b, c) + 0.0 * d


# ---------------------------------------------------------------- SCF/one-shot-bufferize.mlir


@_reference
def mu_execute_region_with_conflict(t):
    # (0.0, t with t[7] = 0.0, the original t[7])
    inserted = torch.cat((t[:7], torch.zeros_like(t[7:8]), t[8:]))
    return torch.zeros_like(t[0]), inserted, t[7] * 1.0


# ---------------------------------------------------------------- winograd-conv2d-rewrite.mlir


@_reference
def mu_winograd_conv2d(inp, fil, out):
    # Winograd F(4,3) computes the valid NHWC x FHWC convolution, added to the init
    y = F.conv2d(inp.permute(0, 3, 1, 2), fil.permute(0, 3, 1, 2))
    return out + y.permute(0, 2, 3, 1)


# ---------------------------------------------------------------- vectorization/extract-with-patterns.mlir


@_reference
def mu_extract_index_from_tensor(x, i1, i2, unused, init):
    # r[d0, d1, d2, d3] = x[i1[d0, d2], i2[d0, d2]]
    g = x[i1.long(), i2.long()]  # (4, 3): [d0, d2]
    return g[:, None, :, None].expand(init.shape) + 0.0 * unused.sum() + 0.0 * init


# ---------------------------------------------------------------- generalize-pad-tensor.mlir


@_reference
def mu_pad_dynamic_amount(x, n):
    # low n on dimension 2, high n on dimension 3, zeros (F.pad lists the last dimension first)
    n = int(n)
    return F.pad(x, (0, n, n, 0), value=0.0)


@_inputs
def inputs_mu_pad_amount_one(rng, specs):
    return [_signed(rng, specs[0][0]), np.asarray(1, dtype=np.int64)]


# ---------------------------------------------------------------- Linalg/roundtrip.mlir


@_reference
def mu_variadic_reduce(x, init, xi, initi):
    return init + x.sum(1), initi + xi.sum(1)


@_reference
def mu_map_binary(a, b, init):
    return a + b + 0.0 * init


# ---------------------------------------------------------------- vectorization/pad-with-patterns.mlir


@_reference
def mu_pad_value_argument(x, value):
    # low [0, 0, 2], high [0, 1, 0] (F.pad lists the last dimension first); padding = value
    placed = F.pad(x, (2, 0, 0, 1, 0, 0))
    inside = F.pad(torch.ones_like(x), (2, 0, 0, 1, 0, 0)) > 0
    return torch.where(inside, placed, value * torch.ones_like(placed))
