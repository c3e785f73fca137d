"""PyTorch references and input generators for the corpus programs from torch front-end outputs (torch-mlir, buddy-mlir and other projects that commit torch-mlir's linalg output), added as a group (see references.py)."""
from __future__ import annotations

import numpy as np
from references import Group, F, _concrete, _fill, _positive, _signed, inputs_pos, inputs_signed, torch  # noqa: F401

_GROUP = Group()
REFERENCES, INPUTS = _GROUP.references, _GROUP.input_generators
_reference, _inputs = _GROUP.reference, _GROUP.inputs


def _dynamic_signed(*shapes):
    def generate(rng, specs):
        return _fill(rng, _concrete(specs, shapes), _signed)

    return generate


# ---------------------------------------------------------------- torch-mlir's e2e test modules through its FX importer
# (programs torchmlir_*: torch-mlir's linalg-on-tensors output of llvm/torch-mlir's
# projects/pt1/python/torch_mlir_e2e_test/test_suite modules)

INPUTS["tm_dyn_3x2x4"] = _dynamic_signed((3, 2, 4))
INPUTS["tm_dyn_5x3"] = _dynamic_signed((5, 3))
INPUTS["tm_dyn_3x4"] = _dynamic_signed((3, 4))
INPUTS["tm_sdpa_dyn"] = _dynamic_signed((2, 5, 4), (2, 6, 4), (2, 6, 3))
INPUTS["tm_mlp2_dyn"] = _dynamic_signed((5, 3), (5, 3), (5,), (2, 5), (2,))


@_reference
def tm_softmax_last(x):
    return torch.softmax(x, -1)


@_reference
def tm_native_layer_norm(x, weight, bias):
    # aten.native_layer_norm(x, [2, 2, 3], weight, bias, eps=0.5): (output, mean, rstd), the statistics kept as 2x3x1x1x1
    dims = (2, 3, 4)
    mean = x.mean(dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dims, keepdim=True)
    rstd = torch.rsqrt(var + 0.5)
    return (x - mean) * rstd * weight + bias, mean, rstd


@_reference
def tm_native_group_norm(x, weight, bias):
    # aten.native_group_norm(x, weight, bias, N=2, C=6, HxW=4, group=3, eps=1e-6): (output, mean, rstd), the statistics 2x3
    g = x.reshape(2, 3, 8)
    mean = g.mean(2)
    var = ((g - mean[:, :, None]) ** 2).mean(2)
    rstd = torch.rsqrt(var + 1e-6)
    normed = ((g - mean[:, :, None]) * rstd[:, :, None]).reshape(2, 6, 2, 2)
    return normed * weight[:, None, None] + bias[:, None, None], mean, rstd


@_reference
def tm_rms_norm(x, weight):
    # aten.rms_norm(x, [1, 2, 4], weight, eps=0.5)
    ms = (x * x).mean((2, 3, 4), keepdim=True)
    return x * torch.rsqrt(ms + 0.5) * weight


@_reference
def tm_batch_norm_eval(x, weight, bias, running_mean, running_var):
    # eval-mode batch norm, eps 1e-5 (the running statistics are differentiable inputs of the program)
    c = lambda v: v[:, None, None]  # noqa: E731
    return (x - c(running_mean)) / torch.sqrt(c(running_var) + 1e-5) * c(weight) + c(bias)


@_inputs
def inputs_tm_batch_norm_eval(rng, specs):
    arrays = _fill(rng, specs, _signed)
    arrays[4] = np.abs(arrays[4])  # running variance
    return arrays


@_reference
def tm_batch_norm_train(x, weight, bias):
    return F.batch_norm(x, None, None, weight, bias, training=True, eps=1e-5)


@_reference
def tm_gelu_tanh(x):
    # the tanh form with the program's constant 0.797724 where PyTorch uses sqrt(2 / pi) = 0.7978845608
    # (torch-mlir's lowering writes 0.797724; F.gelu(approximate="tanh") differs from the program by ~1e-4)
    return 0.5 * x * (1.0 + torch.tanh(0.797724 * (x + 0.044715 * x**3)))


@_reference
def tm_mish(x):
    return F.mish(x)


@_reference
def tm_elu(x):
    return F.elu(x)


@_reference
def tm_triu(x):
    return torch.triu(x, 1)


@_reference
def tm_max_pool2d(x):
    return F.max_pool2d(x, kernel_size=[6, 8], stride=[2, 2], padding=[3, 4], dilation=2)


@_reference
def tm_avg_pool2d_nopad_count(x):
    return F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)


@_reference
def tm_adaptive_avg_pool2d(x):
    return F.adaptive_avg_pool2d(x, (3, 3))


@_reference
def tm_conv2d_dilated_strided(x, weight):
    return F.conv2d(x, weight, None, stride=2, padding=3, dilation=3)


@_reference
def tm_conv2d_depthwise(x, weight):
    return F.conv2d(x, weight, None, stride=2, padding=3, dilation=3, groups=4)


@_reference
def tm_upsample_nearest2d(x):
    # output [i, j] = x[i // 3, j // 4]
    return x.repeat_interleave(3, 2).repeat_interleave(4, 3)


@_reference
def tm_embedding(indices, weight):
    # the forward gather (padding_idx only changes PyTorch's own backward, not the program)
    return weight[indices]


@_inputs
def inputs_tm_embedding(rng, specs):
    indices, weight = _fill(rng, specs, _signed)
    indices = rng.integers(0, 10, size=(3, 3)).astype(np.int64)
    indices[2, 2] = indices[0, 0]  # a repeated row: its gradient accumulates
    return [indices, weight]


@_reference
def tm_sdpa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


@_reference
def tm_sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


@_reference
def tm_flip(x):
    return torch.flip(x, [1, 2])


@_reference
def tm_roll(x):
    return x.roll([2, -1], [0, 2])


@_reference
def tm_cosine_similarity(x1, x2):
    return F.cosine_similarity(x1, x2)


@_reference
def tm_pixel_shuffle(x):
    return F.pixel_shuffle(x, 3)


@_reference
def tm_unfold(x):
    return F.unfold(x, (2, 3))


@_reference
def tm_index_select(x, indices):
    return torch.index_select(x, 2, indices)


@_inputs
def inputs_tm_index_select(rng, specs):
    x, _ = _fill(rng, specs, _signed)
    return [x, np.array([4, 1], dtype=np.int64)]


@_reference
def tm_nll_loss(x, target):
    # aten.nll_loss_forward(reduction=none, ignore_index=2): (-x[i, target[i]] or 0 where ignored, total_weight 0)
    picked = -x.gather(1, target.clamp(0, 2)[:, None])[:, 0]
    out = torch.where(target != 2, picked, torch.zeros_like(picked))
    return out, 0.0 * x.sum()


@_inputs
def inputs_tm_nll_loss(rng, specs):
    x, _ = _fill(rng, specs, _signed)
    return [x, np.array([rng.integers(0, 2), 2], dtype=np.int64)]  # one counted row, one ignored


@_reference
def tm_cross_entropy(x, target):
    return F.cross_entropy(x, target)


@_inputs
def inputs_tm_cross_entropy_dyn(rng, specs):
    x, _ = _fill(rng, _concrete(specs, [(6, 3), (6,)]), _signed)
    return [x, rng.integers(0, 3, size=6).astype(np.int64)]


@_reference
def tm_mse_loss_sum(x, y):
    return ((x - y) ** 2).sum()


@_reference
def tm_vector_norm3(a):
    return torch.linalg.vector_norm(a, 3.0, dim=[0, 1])


@_reference
def tm_bce_logits(x, target):
    return F.binary_cross_entropy_with_logits(x, target, reduction="none")


@_inputs
def inputs_tm_bce_logits(rng, specs):
    x, _ = _fill(rng, specs, _signed)
    return [x, rng.uniform(0.1, 0.9, size=specs[1][0])]


@_reference
def tm_trace(a):
    return torch.diagonal(a).sum()


@_reference
def tm_kl_div(x, y):
    # aten.kl_div(x, y): mean of y * (log y - x)
    return F.kl_div(x, y, reduction="mean")


@_inputs
def inputs_tm_kl_div_dyn(rng, specs):
    x, y = _fill(rng, _concrete(specs, [(3, 5, 2), (3, 5, 2)]), _signed)
    return [x, np.abs(y)]


@_reference
def tm_std_biased(x):
    return torch.std(x, dim=(0, 2), unbiased=False)


@_reference
def tm_mlp2(x, w0, b0, w1, b1):
    return torch.tanh(F.linear(torch.tanh(F.linear(x, w0, b0)), w1, b1))


@_reference
def tm_reflection_pad2d(x):
    return F.pad(x, (2, 2, 2, 2), mode="reflect")


@_reference
def tm_einsum(a, b, c):
    return torch.einsum("bqe,ked,btd->bqtk", a, b, c)


@_reference
def tm_grid_sampler(x, grid):
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)


@_inputs
def inputs_tm_grid_sampler(rng, specs):
    # sample points strictly inside cells (fractional parts in [0.2, 0.8]) so that floor() is locally constant
    x, _ = _fill(rng, specs, _signed)
    n, h, w, _two = specs[1][0]
    ix = rng.integers(0, 3, size=(n, h, w)) + rng.uniform(0.2, 0.8, size=(n, h, w))  # input width 4: cells 0..2
    iy = rng.integers(0, 2, size=(n, h, w)) + rng.uniform(0.2, 0.8, size=(n, h, w))  # input height 3: cells 0..1
    grid = np.stack([ix / 3.0 * 2.0 - 1.0, iy / 2.0 * 2.0 - 1.0], axis=-1)
    return [x, grid]


@_reference
def tm_conv_transpose2d(x, weight):
    return F.conv_transpose2d(x, weight, None, stride=2, padding=1)


@_reference
def tm_max_pool2d_with_indices(x):
    return F.max_pool2d(x, 2, stride=1, return_indices=True)


@_reference
def tm_prod(a):
    return torch.prod(a)


@_reference
def tm_amax_0_2(a):
    return torch.amax(a, (0, 2))


@_reference
def tm_max_dim1(a):
    return torch.max(a, 1)[0]


@_reference
def tm_clamp_tensor(x, lo, hi):
    return torch.clamp(x, lo), torch.clamp(x, max=hi), torch.clamp(x, min=lo, max=hi)


@_inputs
def inputs_tm_clamp_tensor(rng, specs):
    # bounds near -0.5 and 0.5, inside the range of x, so that every clamp is active somewhere and inactive elsewhere
    x, lo, hi = _fill(rng, specs, _signed)
    return [x, -0.5 + 0.05 * lo, 0.5 + 0.05 * hi]


@_reference
def tm_gather(x, indices):
    return torch.gather(x, 2, indices)


@_inputs
def inputs_tm_gather(rng, specs):
    x, _ = _fill(rng, specs, _signed)
    return [x, np.array([[[1, 2, 3], [1, 2, 3]]], dtype=np.int64)]  # the upstream indices


@_reference
def tm_index_tensor_center(x, index1, index2):
    return x[:, index1, index2, :]


@_inputs
def inputs_tm_index_tensor_center(rng, specs):
    x, _, _ = _fill(rng, specs, _signed)
    return [x, np.array([[0, 3], [2, 3]], dtype=np.int64), np.array([1, 2], dtype=np.int64)]  # (3, 2) picked twice


@_reference
def tm_glu(x):
    return F.glu(x, 1)


@_reference
def tm_pow(a, b):
    return torch.pow(a, b)


@_inputs
def inputs_tm_pow_broadcast_dyn(rng, specs):
    a, b = _fill(rng, _concrete(specs, [(3, 1), (3, 4)]), _signed)
    return [np.abs(a), b]


@_reference
def tm_linalg_cross(a, b):
    return torch.linalg.cross(a, b)


@_reference
def tm_addmm(m, mat1, mat2):
    return torch.addmm(m, mat1, mat2, beta=2.0, alpha=7.0)


@_reference
def tm_prelu(x, weight):
    return F.prelu(x, weight)


@_reference
def tm_remainder(x):
    return torch.remainder(x, 2.0)


@_reference
def tm_instance_norm(x, weight, bias):
    return F.instance_norm(x, None, None, weight, bias, use_input_stats=True, eps=1e-5)


@_reference
def tm_interpolate_bilinear(x):
    return F.interpolate(x, size=(3, 5), mode="bilinear", align_corners=False)
