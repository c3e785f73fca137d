"""PyTorch references and input generators for the iree corpus programs added as a group (see references.py)."""
from __future__ import annotations

import numpy as np
from references import Group, F, _concrete, _fill, _positive, _signed, inputs_pos, inputs_signed, torch  # noqa: F401

_GROUP = Group()
REFERENCES, INPUTS = _GROUP.references, _GROUP.input_generators
_reference, _inputs = _GROUP.reference, _GROUP.inputs


@_reference
def iree_layernorm_dynamic(x, count, eps):
    r = 1.0 / count[:, 0]
    mean = x.sum(1) * r
    centred = x - mean[:, None]
    var = (centred * centred).sum(1) * r
    return centred * torch.rsqrt(var + eps[:, 0])[:, None]


@_inputs
def inputs_iree_layernorm_dynamic(rng, specs):
    # x 3x4 signed; the row count and epsilon positive (the count near the true 4 keeps var + eps well away from 0)
    x, count, eps = _fill(rng, _concrete(specs, [(3, 4), (3, 1), (3, 1)]), _signed)
    return [x, 4.0 + np.abs(count), np.abs(eps) * 0.1]


@_reference
def iree_softmax_last(x):
    return torch.softmax(x, -1)


@_inputs
def inputs_iree_dyn_2x3x4(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 3, 4)]), _signed)


@_inputs
def inputs_iree_dyn_2x4(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 4)]), _signed)



@_reference
def iree_sum_sq_dev_0d(x, c):
    return ((x - c) ** 2).sum()


@_inputs
def inputs_iree_dyn_4x4(rng, specs):
    return _fill(rng, _concrete(specs, [(4, 4)]), _signed)


@_inputs
def inputs_iree_dyn_2x2x3x3(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 2, 3, 3)]), _signed)


@_reference
def iree_pack_pad_3x3(x):
    # pad 4x4 to 6x6 with zeros; result[i, j, a, b] = padded[3 i + a, 3 j + b]
    padded = F.pad(x, (0, 2, 0, 2))
    return padded.reshape(2, 3, 2, 3).permute(0, 2, 1, 3)


@_reference
def iree_unpack_3x3_slice(t):
    # full[3 i + a, 3 j + b] = t[i, j, a, b], cut to its top-left 4x4
    return t.permute(0, 2, 1, 3).reshape(6, 6)[:4, :4]


@_reference
def iree_pack_pad_transpose(x):
    # pad 1x9 to 4x16; result[o1, o0, i1, i0] = padded[4 o0 + i0, 8 o1 + i1]
    padded = F.pad(x, (0, 7, 0, 3))
    return padded.reshape(1, 4, 2, 8).permute(2, 0, 3, 1)


@_reference
def iree_strided_slice_dynamic(x):
    return x[2:] * 3.0


@_reference
def iree_broadcast_batch_matmul_transpose_b(act, weight):
    return act @ weight.T


# ---------------------------------------------------------------- tests/e2e/math (generate.py)


@_reference
def iree_math_erf(x):
    return torch.erf(x)









@_reference
def iree_math_atan2(x, y):
    # math.atan2 %x, %y is atan2(x, y): x the ordinate, y the abscissa
    return torch.atan2(x, y)


# ---------------------------------------------------------------- GlobalOptimization/test/raise_special_ops.mlir


@_reference
def iree_extract_to_transpose(a, b):
    return a.T + 0.0 * b  # %B only gives the shape (no gradient)



# ---------------------------------------------------------------- DispatchCreation/test/pad_fusion_with_consumer.mlir


@_reference
def iree_pad_conv_dynamic(x, p1, p2, p3, p4, w, out):
    # high padding with 42.0, then NHWC x HWCF convolution (stride 1) accumulated into `out`
    padded = F.pad(x, (0, int(p4), 0, int(p3), 0, int(p2), 0, int(p1)), value=42.0)
    y = F.conv2d(padded.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1))
    return out + y.permute(0, 2, 3, 1)


@_inputs
def inputs_iree_pad_conv_dynamic(rng, specs):
    # x 1x3x3x2 padded by (0, 1, 1, 0) to 1x4x4x2; filter 2x2x2x3; output 1x3x3x3
    shapes = [(1, 3, 3, 2), (), (), (), (), (2, 2, 2, 3), (1, 3, 3, 3)]
    arrays = _fill(rng, _concrete(specs, shapes), _signed)
    for i, pad in zip((1, 2, 3, 4), (0, 1, 1, 0)):
        arrays[i] = np.asarray(pad, dtype=arrays[i].dtype)
    return arrays


# ---------------------------------------------------------------- DispatchCreation/test/bubble_up_expand_shapes.mlir


@_reference
def iree_concat_expand_dynamic(a, b, dim):
    c = torch.cat((a, b), 1)
    return c.reshape(c.shape[0], 5, int(dim))


@_inputs
def inputs_iree_concat_expand_dynamic(rng, specs):
    # a 2x5: the concatenation is 2x15 = 2x5x3, so %dim = 3
    a, b, dim = _fill(rng, _concrete(specs, [(2, 5), (2, 10), ()]), _signed)
    return [a, b, np.asarray(3, dtype=dim.dtype)]


# ---------------------------------------------------------------- raise_special_ops.mlir (continued)


@_reference
def iree_insert_slice_dynamic_into_constant(a, x, y):
    out = torch.ones(5, 6, dtype=a.dtype)
    out[1:1 + int(x), 2:2 + int(y)] = a
    return out


@_inputs
def inputs_iree_insert_slice_dynamic_into_constant(rng, specs):
    # a 3x4 at [1, 2] inside 5x6 (leaves a border of 1.0 on each side but the right)
    a, x, y = _fill(rng, _concrete(specs, [(3, 4), (), ()]), _signed)
    return [a, np.asarray(3, dtype=x.dtype), np.asarray(4, dtype=y.dtype)]


# ---------------------------------------------------------------- tests/e2e/linalg/argmax.mlir


@_reference
def iree_argmax_1d(x):
    return x.max()


# ---------------------------------------------------------------- DispatchCreation tests


@_reference
def iree_batchnorm_training(running, x, mean):
    # x[n1, n2, n3, n4, c]: squared deviations from mean[c] summed over the leading four dims
    ss = ((x - mean) ** 2).sum((0, 1, 2, 3))
    var = ss / 1.45 + 1.3
    std = torch.sqrt(var)
    return var, std, running - (running - std) * 1.42


@_reference
def iree_unpack_hardswish_expand(packed, bias):
    # unpack 2x3 tiles of 2x2 into 4x6: full[2 i + a, 2 j + b] = packed[i, j, a, b]
    x = packed.permute(0, 2, 1, 3).reshape(4, 6) + bias
    y = x * torch.clamp(x + 3.0, 0.0, 6.0) * 0.166666672
    return y.reshape(2, 2, 6)


@_reference
def iree_sigmoid_gated_contraction(a0, a1, a2, a3):
    gate = 1.0 / (torch.exp(a3) + 1.0)
    lhs = a1 * gate
    rhs = a0 * a2
    return torch.einsum("ikc,jkc->cij", lhs, rhs)


@_reference
def iree_math_tanh_on_tensor(x):
    return torch.tanh(x)


@_reference
def iree_rope_extract_in_body(x, sin, cos):
    # x2 = x / 4; out = x2 * cos + rotate_half(x2) * sin, rotating along dim 3 (size 2): (-x2[.., 1, :], x2[.., 0, :])
    x2 = x * 0.25
    rotated = torch.stack((-x2[:, :, :, 1, :], x2[:, :, :, 0, :]), dim=3)
    return x2 * cos + rotated * sin


@_reference
def iree_transpose_reduction_iterator(x):
    return x.transpose(4, 5) * 1.0


@_reference
def iree_dynamic_matmuls_same_accumulator(lhs, rhs, acc):
    return acc + lhs @ rhs + lhs @ rhs + lhs @ rhs


@_inputs
def inputs_iree_dynamic_matmuls_same_accumulator(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 3), (3, 4), (2, 4)]), _signed)


@_reference
def iree_strided_slice_insert(a, b):
    s = a[2:2 + 2 * 3:2, 3:3 + 3 * 3:3] + b[3:3 + 3 * 3:3, 2:2 + 2 * 3:2]
    out = torch.full((10, 12), 42.0, dtype=a.dtype)
    out[1:1 + 2 * 3:2, 2:2 + 3 * 3:3] = s
    return out


# ---------------------------------------------------------------- GlobalOptimization/test/strided_contraction_to_contraction.mlir


@_reference
def iree_strided_contraction_output(x, w):
    # out[n, i, j, f] = sum_c x[n, 2 i, 2 j, c] w[f, c]
    return torch.einsum("nijc,fc->nijf", x[:, ::2, ::2, :], w)


@_reference
def iree_strided_contraction_partial_conv(x, w):
    # out[n, i, j, f] = sum_{k, c} x[n, 2 i, 2 j + k, c] w[f, k, c]
    windows = torch.stack([x[:, ::2, k:k + 3:2, :] for k in range(2)], dim=3)  # n, i, j, k, c
    return torch.einsum("nijkc,fkc->nijf", windows, w)


@_reference
def iree_strided_contraction_filter(x, w):
    # out[a, b] = sum_{t, c} x[a, 2 t, c] w[b, t, c]
    return torch.einsum("atc,btc->ab", x[:, ::2, :], w)


@_inputs
def inputs_iree_strided_contraction_dynamic_batch(rng, specs):
    return _fill(rng, _concrete(specs, [(2, 4, 4, 2), (3, 2)]), _signed)
