"""PyTorch references and input generators for the corpus programs from other linalg producers (tpp-mlir, StableHLO's linalg lowering, ...), added as a group (see references.py)."""
from __future__ import annotations

import numpy as np
from references import Group, F, _concrete, _fill, _positive, _signed, inputs_pos, inputs_signed, torch  # noqa: F401

_GROUP = Group()
REFERENCES, INPUTS = _GROUP.references, _GROUP.input_generators
_reference, _inputs = _GROUP.reference, _GROUP.inputs


# ---------------------------------------------------------------- openxla/stablehlo: stablehlo/conversions/linalg/tests


@_reference
def stablehlo_reduce_multi_dimensions(x, init):
    return x.sum((0, 2)) + init


@_reference
def stablehlo_reduce_dim0(x, init):
    return torch.maximum(x.amax(0), init.expand(x.shape[1]))


@_inputs
def inputs_stablehlo_reduce_dim0(rng, specs):
    # signed values; the init (0.9) beats the column max in some columns only
    x = _signed(rng, (5, 4))
    x[:, 1] = -np.abs(x[:, 1])  # column 1: every element below the init
    return [x, np.asarray(0.9)]


@_reference
def stablehlo_variadic_diff_type_reduce(x, payload):
    # argmax of the row with an initial (1.0, 1): the accumulator is kept where it is >= the element
    best, where = x.max(1)
    wins = best > 1.0
    value = torch.where(wins, best, torch.ones_like(best))
    index = torch.where(wins, payload.gather(1, where[:, None])[:, 0], torch.ones_like(where))
    return value, index


@_inputs
def inputs_stablehlo_argmax_payload(rng, specs):
    # 4x5 values in [-2, 2] (distinct: no ties), the row max above the init 1.0 in three rows of four
    x = rng.uniform(-2.0, 2.0, size=(4, 5))
    x[2] = rng.uniform(-2.0, 0.9, size=5)
    payload = rng.integers(0, 100, size=(4, 5)).astype(np.int32)
    return [x, payload]


def _windows_sum(padded, init):
    # out[i, j] = init + padded[2 i, j] + padded[2 i, j + 2]  (window 1x2, window dilation 2, strides 2x1)
    rows = padded[0:8:2]
    return init + rows[:, 0:7] + rows[:, 2:9]


@_reference
def stablehlo_reduce_window_generic(x, init):
    padded = F.pad(x[None, None], (1, 2, 0, 3), value=0.0)[0, 0]
    mask = F.pad(torch.ones_like(x)[None, None], (1, 2, 0, 3), value=0.0)[0, 0]
    padded = padded + (1 - mask) * init
    return _windows_sum(padded, init)


@_reference
def stablehlo_reduce_window_padding_base_dilation(x, init):
    # base dilation 2 on rows: 3 rows -> 5; low padding [0, 1], high [3, 2] -> 8x9
    mask = torch.zeros(8, 9, dtype=x.dtype)
    mask[0:5:2, 1:7] = 1.0
    full = torch.zeros(8, 9, dtype=x.dtype)
    full[0:5:2, 1:7] = x
    full = full + (1 - mask) * init
    return _windows_sum(full, init)


@_reference
def stablehlo_select_and_scatter(x, source, init):
    # max-pool 2x2 stride 2 (NHWC, C = 1), then each source value added at its window's argmax
    _, where = F.max_pool2d(x.permute(0, 3, 1, 2), 2, return_indices=True)
    scattered = F.max_unpool2d(source.permute(0, 3, 1, 2), where, 2, output_size=(8, 8))
    return scattered.permute(0, 2, 3, 1) + init


@_reference
def stablehlo_concatenate(a, b, c):
    return torch.cat([a, b, c], 1)


@_inputs
def inputs_stablehlo_concatenate(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 3), (2, 1), (2, 2)]), _signed)


@_reference
def stablehlo_broadcast_in_dim(x):
    # result[d0, d1, d2, d3, d4] = x[d4, d0, 0]
    return x[:, :, 0].T[:, None, None, None, :].expand(4, 2, 3, 2, 3)


@_reference
def stablehlo_pad_interior_negative(x, value):
    mask = torch.zeros(29, 10, dtype=x.dtype)
    mask[4:27:2, 0:7:2] = 1.0
    full = torch.zeros(29, 10, dtype=x.dtype)
    full[4:27:2, 0:7:2] = x
    full = full + (1 - mask) * value
    return full[0:25, 1:10]


@_reference
def stablehlo_dynamic_slice(x, start1, start2):
    i = min(max(int(start1), 0), 2)
    j = min(max(int(start2), 0), 0)
    return x[i:i + 1, j:j + 4]


@_inputs
def inputs_stablehlo_dynamic_slice(rng, specs):
    return [_signed(rng, (3, 4)), np.asarray(5, dtype=np.int64), np.asarray(1, dtype=np.int64)]


@_reference
def stablehlo_dynamic_update_slice(target, update, start):
    i = min(max(int(start), 0), 1)
    out = target.clone()
    out[i:i + 2, i:i + 2] = update
    return out


@_inputs
def inputs_stablehlo_dynamic_update_slice(rng, specs):
    return [_signed(rng, (3, 3)), _signed(rng, (2, 2)), np.asarray(1, dtype=np.int32)]


@_reference
def stablehlo_gather_no_collapse(x, starts):
    rows = []
    for s0, s1 in starts.tolist():
        i = min(max(s0, 0), 2)
        j = min(max(s1, 0), 1)
        rows.append(x[i:i + 4, j:j + 2])
    return torch.stack(rows)


@_inputs
def inputs_stablehlo_gather_indices(rng, specs):
    (xshape, _), (ishape, _) = specs
    return [_signed(rng, xshape), rng.integers(-1, 7, size=ishape).astype(np.int32)]


@_reference
def stablehlo_gather_reorder_start_index(x, starts):
    out = []
    for s in starts.tolist():
        # start_index_map [3, 1, 2, 0]: s[0] -> dim 3, s[1] -> dim 1, s[2] -> dim 2, s[3] -> dim 0
        i0 = min(max(s[3], 0), 5)
        i1 = min(max(s[1], 0), 1)
        i2 = min(max(s[2], 0), 1)
        i3 = min(max(s[0], 0), 3)
        out.append(x[i0, i1:i1 + 2, i2, i3:i3 + 4])  # slice sizes 1x2x1x4, dims 0 and 2 collapsed
    return torch.stack(out)


@_reference
def stablehlo_torch_index_select_batch(x, index):
    # result[b, i, k, l] = x[b, i, index[b, k], l]
    return torch.stack([x[b][:, index[b], :] for b in range(x.shape[0])])


@_inputs
def inputs_stablehlo_index_select(rng, specs):
    return [_signed(rng, (4, 7, 8, 2)), rng.integers(0, 8, size=(4, 1)).astype(np.int32)]


@_reference
def stablehlo_dot_general(a, b):
    # a[m, batch, k], b[n, k, batch] -> [batch, m, n]
    return torch.einsum("mbk,nkb->bmn", a, b)


@_inputs
def inputs_stablehlo_dot_general(rng, specs):
    return _fill(rng, _concrete(specs, [(3, 2, 4), (2, 4, 2)]), _signed)


@_reference
def stablehlo_reverse(x):
    return x.flip(1)


@_inputs
def inputs_stablehlo_reverse(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 3)]), _signed)


@_reference
def stablehlo_clamp_scalar(lb, x, ub):
    return torch.minimum(torch.maximum(lb, x), ub)


@_inputs
def inputs_stablehlo_clamp_scalar(rng, specs):
    x = np.array([-1.1, -0.7, -0.3, 0.2, 0.6, 0.9]) + rng.uniform(-0.05, 0.05, size=6)
    return [np.asarray(-0.5), x, np.asarray(0.5)]


@_reference
def stablehlo_logistic(x):
    return torch.sigmoid(x)


@_reference
def stablehlo_cbrt(x):
    return torch.sign(x) * x.abs() ** (1.0 / 3.0)


@_reference
def stablehlo_remainder(x, y):
    return torch.fmod(x, y)


@_inputs
def inputs_stablehlo_remainder(rng, specs):
    # quotients x / y of both signs, 0.3 .. 3.6, none near an integer (the remainder's jumps)
    y = _signed(rng, (2, 2))
    q = np.array([[0.4, -1.5], [2.3, -3.6]]) + rng.uniform(-0.05, 0.05, size=(2, 2))
    return [q * y, y]


@_reference
def stablehlo_select_scalar_pred(pred, a, b):
    return torch.where(pred, a, b)


@_inputs
def inputs_stablehlo_select_scalar_pred(rng, specs):
    return [np.asarray(False)] + _fill(rng, _concrete(specs[1:], [(2, 3), (2, 3)]), _signed)


# ---------------------------------------------------------------- libxsmm/tpp-mlir


@_reference
def tpp_mha_tensorflow(k_in, q_in, v_in):
    def project(x, c):
        w = torch.full((2, 2, 2, 2), c, dtype=x.dtype)
        return torch.einsum("bshd,hdke->bske", x, w)

    q, k, v = project(q_in, 2.0), project(k_in, 1.0), project(v_in, 4.0)
    scores = torch.einsum("bshd,bthd->bhts", k, q)  # out[b, h, t, s] = sum_d K[b, s, h, d] Q[b, t, h, d]
    attended = torch.einsum("bhst,bthd->bshd", scores, v)
    wo = torch.full((2, 2, 4), 3.0, dtype=q_in.dtype)
    return torch.einsum("bshd,hdo->bso", attended, wo)


@_reference
def tpp_mlp_gpu_base(x, acc):
    return torch.relu(acc + x @ torch.ones(6, 5, dtype=x.dtype) + 1.0)


@_reference
def tpp_mlp_mmt4d(a, w, bias, acc):
    # mmt4d(a, transpose(w, [0, 1, 3, 2])): c[i, j, m, n] = sum_{k, c} a[i, k, m, c] w[j, k, c, n]
    c = acc + torch.einsum("ikmc,jkcn->ijmn", a, w)
    return torch.relu(bias[None, :, None, :] + c)


@_reference
def stablehlo_depthwise_conv_with_padding(x, w):
    # filter [kh, kw, 1, 4] with 2 groups: output feature o reads input channel o // 2
    padded = F.pad(x, (0, 0, 1, 1))
    weight = w.permute(3, 2, 0, 1)  # [4, 1, kh, kw]
    y = F.conv2d(padded.permute(0, 3, 1, 2), weight, groups=2)
    return y.permute(0, 2, 3, 1)


@_reference
def stablehlo_conv_transpose_2d(x, w):
    full = torch.zeros(1, 7, 9, 2, dtype=x.dtype)
    full[:, 2:5, 2:7:2, :] = x
    y = F.conv2d(full.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), dilation=2)
    return y.permute(0, 2, 3, 1)


@_reference
def stablehlo_real_dynamic_slice(x, start, limit, strides):
    size = -(-(int(limit[1]) - int(start[1])) // int(strides[1]))
    j = min(max(int(start[1]), 0), x.shape[1] - size)
    return x[:, j:j + (size - 1) * int(strides[1]) + 1:int(strides[1])]


@_inputs
def inputs_stablehlo_real_dynamic_slice(rng, specs):
    start, limit, strides = (np.asarray(v, dtype=np.int64) for v in ([0, 1], [3, 7], [1, 2]))
    return [_signed(rng, (3, 8)), start, limit, strides]
