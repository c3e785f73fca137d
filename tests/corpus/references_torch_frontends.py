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


# ---- second batch of torch-mlir e2e test modules (programs torchmlir_*, added together)


def _magnitudes(rng, shape, bands):
    """Random signs times magnitudes drawn uniformly from one of `bands` (intervals), chosen at random per element:
    for piecewise functions, inputs on every piece and away from the breakpoints."""
    band = rng.integers(0, len(bands), size=shape)
    lo = np.array([b[0] for b in bands])[band]
    hi = np.array([b[1] for b in bands])[band]
    return rng.uniform(lo, hi) * rng.choice([-1.0, 1.0], size=shape)


@_reference
def tm_conv1d(x, weight, bias):
    return F.conv1d(x, weight, bias)


@_reference
def tm_conv1d_depthwise_pad(x, weight):
    return F.conv1d(x, weight, None, padding=4, groups=4)


@_reference
def tm_conv1d_groups(x, weight, bias):
    return F.conv1d(x, weight, bias, groups=2)


@_reference
def tm_conv3d(x, weight, bias):
    return F.conv3d(x, weight, bias)


@_reference
def tm_conv2d_same(x, weight):
    return F.conv2d(x, weight, None, padding="same")


@_reference
def tm_conv2d_groups_strided(x, weight):
    return F.conv2d(x, weight, None, stride=3, padding=2, groups=4)


@_reference
def tm_conv_transpose1d(x, weight):
    return F.conv_transpose1d(x, weight, None, stride=2, padding=1)


@_reference
def tm_avg_pool1d(x):
    return F.avg_pool1d(x, 6, stride=2, padding=3, count_include_pad=True)


@_reference
def tm_avg_pool3d(x):
    return F.avg_pool3d(x, 2, stride=2)


@_reference
def tm_adaptive_avg_pool1d(x):
    return F.adaptive_avg_pool1d(x, 9)


@_reference
def tm_max_pool1d(x):
    return F.max_pool1d(x, 3, stride=2, padding=1)


@_reference
def tm_max_pool3d(x):
    return F.max_pool3d(x, 3, stride=2, padding=1)


@_reference
def tm_leaky_relu(x):
    return F.leaky_relu(x, 0.1)


@_reference
def tm_celu(x):
    return F.celu(x)


@_reference
def tm_selu(x):
    return F.selu(x)


@_reference
def tm_logit(a):
    return torch.logit(a, eps=1e-7)


@_inputs
def inputs_tm_unit_interval(rng, specs):
    return _fill(rng, specs, lambda r, s: r.uniform(0.1, 0.9, size=s))


@_reference
def tm_erf(a):
    return torch.erf(a)


@_reference
def tm_atan2(a, b):
    return torch.atan2(a, b)


@_reference
def tm_frac(a):
    return torch.frac(a)


@_inputs
def inputs_tm_frac(rng, specs):
    # integer parts 0..2 and fractional parts in [0.2, 0.8], both signs: trunc() locally constant
    return _fill(rng, specs, lambda r, s: (r.integers(0, 3, size=s) + r.uniform(0.2, 0.8, size=s)) * r.choice([-1.0, 1.0], size=s))


@_reference
def tm_logaddexp_broadcast(x, y):
    return torch.logaddexp(x, y)


@_reference
def tm_log_sigmoid(a):
    return F.logsigmoid(a)


@_reference
def tm_softshrink(a):
    return F.softshrink(a, 2.0)


@_inputs
def inputs_tm_softshrink(rng, specs):
    return _fill(rng, specs, lambda r, s: _magnitudes(r, s, [(0.25, 1.75), (2.25, 3.5)]))


@_reference
def tm_where_self_broadcast(cond, b, c):
    return torch.where(cond, b, c)


@_inputs
def inputs_tm_where_self_broadcast(rng, specs):
    _, b, c = _fill(rng, specs, _signed)
    cond = np.zeros(specs[0][0], dtype=np.bool_)
    cond.reshape(-1)[rng.permutation(cond.size)[: cond.size // 2]] = True  # both branches taken
    return [cond, b, c]


@_reference
def tm_clamp_min_tensor(x, lo):
    return torch.clamp_min(x, lo)


@_inputs
def inputs_tm_clamp_min_tensor(rng, specs):
    x, lo = _fill(rng, specs, _signed)
    return [x, -0.5 + 0.05 * lo]  # inside the range of x: active and inactive elements


@_reference
def tm_lerp_tensor_broadcast(a, b, c):
    return torch.lerp(a, b, c)


@_reference
def tm_softplus(x):
    return F.softplus(x)


@_inputs
def inputs_tm_spread5(rng, specs):
    # hardsigmoid/hardswish break at +-3: magnitudes on both sides of 3, away from it
    return _fill(rng, specs, lambda r, s: _magnitudes(r, s, [(0.25, 2.5), (3.5, 5.0)]))


@_reference
def tm_hardsigmoid(x):
    return F.hardsigmoid(x)


@_reference
def tm_hardswish(x):
    return F.hardswish(x)


@_reference
def tm_silu(x):
    return F.silu(x)


@_reference
def tm_hardtanh(x):
    return F.hardtanh(x, -2.0, 2.0)


@_inputs
def inputs_tm_hardtanh(rng, specs):
    return _fill(rng, specs, lambda r, s: _magnitudes(r, s, [(0.25, 1.75), (2.25, 3.5)]))


@_reference
def tm_threshold(x):
    return F.threshold(x, 0.5, 2.0)


@_reference
def tm_baddbmm_broadcast(inp, batch1, batch2):
    return torch.baddbmm(inp, batch1, batch2)


@_reference
def tm_addbmm(inp, batch1, batch2):
    return torch.addbmm(inp, batch1, batch2, beta=0.5, alpha=2.0)


@_reference
def tm_matmul4d(a, b):
    return torch.matmul(a, b)


@_reference
def tm_matmul3d_broadcast(a, b):
    return torch.matmul(a, b)


@_reference
def tm_linear3d(x, weight, bias):
    return F.linear(x, weight, bias)


@_reference
def tm_outer(a, b):
    return torch.outer(a, b)


@_reference
def tm_bilinear(x1, x2, weight, bias):
    return F.bilinear(x1, x2, weight, bias)


@_reference
def tm_l1_norm(a):
    return torch.linalg.vector_norm(a, 1, dim=0)


@_reference
def tm_frobenius_norm_keepdim(a):
    return torch.linalg.vector_norm(a, 2, dim=[0, 1], keepdim=True)


@_reference
def tm_l1_loss_mean(x, y):
    return F.l1_loss(x, y)


@_reference
def tm_cross_entropy_none(x, target):
    return F.cross_entropy(x, target, reduction="none")


@_inputs
def inputs_tm_cross_entropy_none(rng, specs):
    x, _ = _fill(rng, specs, _signed)
    return [x, np.array([2, 0, 1, 2], dtype=np.int64)]


@_reference
def tm_min_keepdim_both(a):
    values, indices = torch.min(a, 1, keepdim=True)
    return values, indices


@_reference
def tm_var_correction_keepdim(x):
    return torch.var(x, dim=[0, 1], keepdim=True)


@_reference
def tm_var_mean_correction(x):
    return torch.var_mean(x, dim=[1, 2], correction=2, keepdim=True)


@_reference
def tm_stack(x, y, z):
    return torch.stack([x, y, z], 1)


@_reference
def tm_slice_step(x):
    return x[0:5:2, 0:3:2, 0:4:2]


@_reference
def tm_chunk_add(x):
    c0, c1, c2 = torch.chunk(x, 3, 1)
    return c0 + c1 + c2


@_reference
def tm_split_with_sizes(x):
    return tuple(torch.split(x, [3, 4, 5], -1))


@_reference
def tm_select_scatter(x, src):
    return torch.select_scatter(x, src, 1, 0)


@_reference
def tm_slice_scatter(x, src):
    return torch.slice_scatter(x, src, dim=1, start=0, end=1)


@_reference
def tm_rot90(a):
    return torch.rot90(a, 1, (0, 1))


@_reference
def tm_replication_pad2d(x):
    return F.pad(x, (1, 2, 3, 4), mode="replicate")


@_reference
def tm_replication_pad3d(x):
    return F.pad(x, (3, 5, 7, 0, 1, 2), mode="replicate")


@_reference
def tm_diag_embed_offset(a):
    return torch.diag_embed(a, offset=1, dim1=1, dim2=3)


@_reference
def tm_repeat_interleave(x):
    return x.repeat_interleave(2, 1)


@_reference
def tm_repeat(x):
    return x.repeat([2, 1, 3, 4])


@_reference
def tm_index_three_indexers(x, index1, index2, index3):
    return x[:, :, index1, :, index2, index3]


@_inputs
def inputs_tm_index_three_indexers(rng, specs):
    x = _signed(rng, specs[0][0])
    # in range for dims of sizes 4, 5 and 3, some negative (wrapped around), with repeats (accumulated gradients)
    index1 = rng.integers(-4, 4, size=specs[1][0]).astype(np.int64)
    index2 = rng.integers(-5, 5, size=specs[2][0]).astype(np.int64)
    index3 = rng.integers(-3, 3, size=specs[3][0]).astype(np.int64)
    return [x, index1, index2, index3]


@_reference
def tm_normalize(x):
    return F.normalize(x)


@_reference
def tm_renorm(x):
    return torch.renorm(x, 2, 1, 10.0)


@_inputs
def inputs_tm_renorm(rng, specs):
    (x,) = _fill(rng, specs, _signed)
    x[:, 1] *= 20.0  # this column's norm is above maxnorm 10, the others below
    return [x]


@_reference
def tm_weight_norm(v, g):
    norm = v.norm(dim=(0, 1), keepdim=True)
    return v * (g / norm), norm


@_reference
def tm_trilinear(i1, i2, i3):
    return i1 * i2 * i3


@_reference
def tm_einsum_diagonal(t1, t2):
    return torch.einsum("iijj,ijij->ji", t1, t2)


@_reference
def tm_einsum_contract_rhs(t1, t2):
    return torch.einsum("abc,bc->a", t1, t2)


@_reference
def tm_softmax_backward(grad_output, output):
    return output * (grad_output - (grad_output * output).sum(1, keepdim=True))


@_reference
def tm_log_softmax_dim0(x):
    return torch.log_softmax(x, 0)


@_reference
def tm_addcdiv(inp, t1, t2):
    return torch.addcdiv(inp, t1, t2)


@_reference
def tm_embedding_bag_sum(weight, indices, offsets):
    return F.embedding_bag(indices, weight, offsets, mode="sum")


@_inputs
def inputs_tm_embedding_bag_sum(rng, specs):
    (weight, _, _) = _fill(rng, specs, _signed)
    return [weight, np.array([0, 1, 2, 2, 0, 9, 4, 5], dtype=np.int64), np.array([0, 3, 5], dtype=np.int64)]
