"""PyTorch references and input generators for the Enzyme-MLIR and MLIR's own tests corpus programs (see references.py)."""
from __future__ import annotations

import math

import numpy as np

from references import Group, _fill, _positive, _signed, inputs_pos, inputs_signed, torch, F  # noqa: F401

_GROUP = Group()
REFERENCES, INPUTS = _GROUP.references, _GROUP.input_generators
_reference, _inputs = _GROUP.reference, _GROUP.inputs


# ---------------------------------------------------------------- Enzyme-MLIR


@_reference
def em_select(c, a, b):
    return torch.where(c, a, b)


@_inputs
def inputs_em_cond_true(rng, specs):
    # (c: i1, a, b): take the true branch (a); b gets no gradient.
    return [np.asarray(True), *(np.asarray(rng.uniform(0.25, 1.25)) for _ in specs[1:])]


@_reference
def em_maxnumf(a, b):
    return torch.fmax(a, b)


@_reference
def em_absf(x):
    return torch.abs(x)


@_reference
def em_log1p(x):
    return torch.log1p(x)


@_reference
def em_copysign(x, y):
    return torch.copysign(x, y)


@_reference
def em_asinh(x):
    return torch.asinh(x)


@_reference
def em_div(x, y):
    return x / y


@_reference
def em_identity(x):
    return x * 1.0


@_reference
def em_multiout(x):
    return x * x, x * 1.0


@_reference
def em_truncf(x):
    return x * 1.0


@_reference
def em_multiret_mixed(x, y, z):
    return x * x, y * y, z * z


@_reference
def em_multiret2(x):
    helper = lambda v: v * 1.5  # noqa: E731
    prep = helper(x)
    a = helper(prep) * 2.0
    b = helper(a) * 3.0
    c = helper(b) + 4.0
    d = helper(c) * 5.0
    return (a + b) + a * b + c + d


@_reference
def em_cos_square_loop(x):
    s = x
    for _ in range(10):
        s = torch.cos(s * s)
    return s


@_reference
def em_mincutouter(x):
    s = x
    for _ in range(10):
        s = (torch.cos(s * x) + x) * (s + x)
    return s


@_inputs
def inputs_em_mincutouter(rng, specs):
    # keep the ten iterations tame (the state grows by about x per step)
    return [np.asarray(rng.uniform(0.15, 0.3))]


@_reference
def em_custom_rule_tensor_loop(a, x):
    for _ in range(3):
        x = a * x
    return x


# ---------------------------------------------------------------- MLIR's own tests


@_reference
def mlir_collapse_2x6x2(x):
    return x.reshape(2, 6, 2)


@_reference
def mlir_expand_2x2x3x1x2(x):
    return x.reshape(2, 2, 3, 1, 2)


@_reference
def mlir_pad_2_3(x):
    # low [0, 2, 0], high [0, 0, 2], padding value 2.3 (F.pad lists the last dimension first)
    return F.pad(x, (0, 2, 2, 0, 0, 0), value=2.3)


@_reference
def mlir_insert_twice(c, v):
    return torch.cat((v, c[1:])), torch.cat((c[:1], v))


@_reference
def mlir_conv_1d(inp, fil, out):
    return out + F.conv1d(inp[None, None], fil[None, None])[0, 0]


@_reference
def mlir_conv_1d_nwc_wcf(inp, fil, out):
    y = F.conv1d(inp.permute(0, 2, 1), fil.permute(2, 1, 0))
    return out + y.permute(0, 2, 1)


@_reference
def mlir_conv_3d_ndhwc_dhwcf(inp, fil, out):
    y = F.conv3d(inp.permute(0, 4, 1, 2, 3), fil.permute(4, 3, 0, 1, 2))
    return out + y.permute(0, 2, 3, 4, 1)


@_reference
def mlir_matmul_acc(a, b, c):
    return c + a @ b


@_reference
def mlir_row_sum(a):
    return a.sum(1)


@_reference
def mlir_ata_acc(a, c):
    return c + a.T @ a


@_reference
def mlir_concat_dim0(*xs):
    return torch.cat(xs, 0)


@_reference
def mlir_concat_dim1(a, b):
    return torch.cat((a, b), 1)


@_reference
def mlir_gather_dim1(x, idx):
    # result[i, j, a, c, d] = x[a, idx[i, j, 0], c, d]
    return x[:, idx[..., 0]].permute(1, 2, 0, 3, 4)


@_reference
def mlir_gather_dims12_keep(x, idx):
    # result[i, j, a, 0, 0, d] = x[a, idx[i, j, 0], idx[i, j, 1], d]
    return x[:, idx[..., 0], idx[..., 1], :].permute(1, 2, 0, 3)[:, :, :, None, None, :]


@_reference
def mlir_generic_three_results(x, a, b):
    s = x + a[:, None]
    return s.T, s * b[None, :], s * 1.0


@_reference
def mlir_generic_multi_statement(x, i):
    # sitofp(i) + extf(x), written transposed, in f64
    return (x + i[:, None].to(x.dtype)).T


@_reference
def mlir_x_plus_xt(x):
    return x + x.T


@_reference
def mlir_dead_results(x):
    # the input is read through the identity map; output 0 is written through
    # (d0, d1, d2) -> (d0, d2, d1), output 2 through (d0, d1, d2) -> (d1, d0, d2)
    return (2 * x).permute(0, 2, 1), (2 * x).permute(1, 0, 2)


@_reference
def mlir_transpose_broadcast_div(x, y, z):
    # x[d2, d3, d1] / y[d0, d1, d2, d3, d4]; z is only the init
    return x.permute(2, 0, 1)[None, :, :, :, None] / y


@_reference
def mlir_div_by_scalar(x, s):
    return x / s


@_reference
def mlir_product(x):
    return torch.prod(x)


@_reference
def mlir_double_until(x, y):
    while x.item() < y.item():
        x = x + x
    return x


@_inputs
def inputs_mlir_double_until(rng, specs):
    # y = x * 2^2.5: three doublings, and x * 2^k never near y
    x = rng.uniform(0.25, 1.25)
    return [np.asarray(x), np.asarray(x * 2 ** 2.5)]


@_reference
def mlir_sum_times_ten_until(x, y):
    s = x.sum()
    while s.item() < y.item():
        s = s.expand(x.shape).sum()
    return s


@_inputs
def inputs_mlir_sum_times_ten_until(rng, specs):
    # y = sum(x) * 10^1.5: the sum is broadcast and summed again twice (result 100 * sum(x))
    x = rng.uniform(0.25, 1.25, size=specs[0][0])
    return [x, np.asarray(x.sum() * 10 ** 1.5)]


@_reference
def mlir_pool_nhwc_max_strided(inp, shape, out):
    y = F.max_pool2d(inp.permute(0, 3, 1, 2), (2, 2), stride=(2, 4), dilation=(1, 2))
    return torch.maximum(out, y.permute(0, 2, 3, 1))


@_reference
def mlir_pool_nwc_min_strided(inp, shape, out):
    y = -F.max_pool1d(-inp.permute(0, 2, 1), 2, stride=4, dilation=2)
    return torch.minimum(out, y.permute(0, 2, 1))


@_reference
def mlir_depthwise_hwcm_dilated(inp, fil, out):
    kh, kw, c, m = fil.shape
    weight = fil.permute(2, 3, 0, 1).reshape(c * m, 1, kh, kw)  # output channel c * M + m
    y = F.conv2d(inp.permute(0, 3, 1, 2), weight, dilation=2, groups=c).permute(0, 2, 3, 1)
    return out + y.reshape(out.shape)


@_reference
def mlir_depthwise_hwc_strided(inp, fil, out):
    weight = fil.permute(2, 0, 1)[:, None]
    y = F.conv2d(inp.permute(0, 3, 1, 2), weight, stride=2, groups=fil.shape[2])
    return out + y.permute(0, 2, 3, 1)


@_reference
def mlir_batch_reduce_matmul(a, b, c):
    return c + torch.einsum("bij,bjk->ik", a, b)


@_reference
def mlir_conv_1d_ncw_fcw(inp, fil, out):
    return out + F.conv1d(inp, fil)


@_reference
def mlir_swappy(c1, c2, t1, t2):
    if bool(c1) and bool(c2):
        return t1 * 1.0, t2 * 1.0
    return t2 * 1.0, t1 * 1.0


@_inputs
def inputs_mlir_swappy(rng, specs):
    # the scf.if branch that swaps: cond1 true, cond2 false
    return [np.asarray(True), np.asarray(False), np.asarray(rng.uniform(0.25, 1.25)), np.asarray(rng.uniform(0.25, 1.25))]


@_reference
def mlir_scf_for_swapped(a, b, c, lb, ub, step):
    ta, tb = a, b
    for _ in range(int(lb), int(ub), int(step)):
        ta2 = torch.cat((c, ta[4:]))
        tb2 = torch.cat((c, tb[4:]))
        ta, tb = tb2, ta2
    return ta[int(step)], tb[int(step)]


@_inputs
def inputs_mlir_scf_for_swapped(rng, specs):
    # three iterations (0, 4, 8: an odd number of swaps); the returned element [4] is past the inserted slice
    return [rng.uniform(0.25, 1.25, size=6), rng.uniform(0.25, 1.25, size=6), rng.uniform(0.25, 1.25, size=4),
            np.asarray(0, dtype=np.int64), np.asarray(9, dtype=np.int64), np.asarray(4, dtype=np.int64)]


@_inputs
def inputs_mlir_select_both(rng, specs):
    # (c: tensor<i1>, a, b): the condition false, so b is the one selected
    return [np.asarray(False), np.asarray(rng.uniform(0.25, 1.25)), np.asarray(rng.uniform(0.25, 1.25))]


@_reference
def em_sincos(x):
    return torch.sin(x), torch.cos(x)


@_reference
def mlir_exit_loop_iter_use(x):
    # @bar(a) = (a > 3, 1.5 a): the first state above 3, by factors of 1.5
    while not x.item() > 3.0:
        x = x * 1.5
    return x


@_reference
def mlir_init_and_dot(a, b, c):
    return torch.dot(a, b) + 0.0 * c


@_reference
def em_square_plus_42(x):
    return x * x + 42.0
