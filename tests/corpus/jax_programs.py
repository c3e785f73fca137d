#!/usr/bin/env python3
"""The corpus programs exported from JAX, and their `jax.grad` references.

Each program below is ordinary JAX. `gradir.from_jax` exports it (f32, the
example shapes below) to `programs/jax_<name>.mlir`: `jax.jit(f).lower(...)`,
jaxlib's `stablehlo-legalize-to-linalg`, MLIR 22 normalisation (see
`gradir/jax_export.py`). Its inputs (float64) and JAX's own results and
gradients, computed with `jax_enable_x64` by `jax.value_and_grad`, are recorded
in `programs/jax_<name>.npz`; the corpus runner reads them (`inputs=recorded
reference=jax`), so running the corpus needs no JAX.

    python tests/corpus/jax_programs.py            # (re)write every jax_* program and reference
    python tests/corpus/jax_programs.py mlp        # one of them
    python tests/corpus/jax_programs.py --check    # compare the files with a fresh export (exit 1 if stale)

Needs `pip install -e '.[jax]'` (jax==0.10.2).
"""
from __future__ import annotations

import argparse
import functools
import inspect
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PROGRAMS_DIR = HERE / "programs"
SEED = 0

try:
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg
    import jax.scipy.special
    import jax.scipy.stats
    from jax import lax
    from jax.example_libraries import stax
except ImportError:  # the module still lists the programs (tests read SPECS)
    jax = jnp = lax = stax = None


# ---------------------------------------------------------------- the JAX programs


def mlp_loss(w1, b1, w2, b2, x, y):
    h = jnp.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return jnp.mean((out - y) ** 2)


def layer_norm_loss(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    y = (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta
    return jnp.sum(jnp.tanh(y))


def attention_loss(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / jnp.sqrt(jnp.asarray(q.shape[-1], x.dtype))
    out = jax.nn.softmax(scores, axis=-1) @ v
    return jnp.sum(out**2)


def logsumexp_loss(x):
    return jnp.sum(jax.nn.logsumexp(x, axis=-1))


def cross_entropy_loss(w, b, x, labels):
    logits = x @ w + b
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=-1))


def rnn_loss(w, u, b, h0, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u + b)
        return h, h

    _, hs = lax.scan(step, h0, xs)
    return jnp.sum(hs**2)


# ---------------------------------------------------------------- programs from public JAX code
# Upstream code, changed only as far as a loss of flat float32 arguments needs (each
# Spec's `source` names the file and every change): models become functions of their
# parameters, sizes are small, randomness is a fixed key or an input.

# jax-ml/jax examples/mnist_classifier_fromscratch.py


def mnist_predict(params, inputs):
    activations = inputs
    for w, b in params[:-1]:
        outputs = jnp.dot(activations, w) + b
        activations = jnp.tanh(outputs)

    final_w, final_b = params[-1]
    logits = jnp.dot(activations, final_w) + final_b
    return logits - jax.scipy.special.logsumexp(logits, axis=1, keepdims=True)


def mnist_fromscratch_loss(w1, b1, w2, b2, inputs, targets):
    params, batch = [(w1, b1), (w2, b2)], (inputs, targets)
    inputs, targets = batch
    preds = mnist_predict(params, inputs)
    return -jnp.mean(jnp.sum(preds * targets, axis=1))


# jax-ml/jax examples/differentially_private_sgd.py


def dpsgd_model(pool):
    return stax.serial(
        stax.Conv(2, (3, 3), padding="SAME", strides=(2, 2)),
        stax.Relu,
        pool((2, 2), (1, 1)),
        stax.Flatten,
        stax.Dense(3),
    )


def dpsgd_loss(params, batch, pool=None):
    _, predict = dpsgd_model(pool or stax.MaxPool)
    inputs, targets = batch
    logits = predict(params, inputs)
    logits = stax.logsoftmax(logits)  # log normalize
    return -jnp.mean(jnp.sum(logits * targets, axis=1))  # cross entropy loss


def dpsgd_cnn_loss(conv_w, conv_b, dense_w, dense_b, images, targets):
    params = [(conv_w, conv_b), (), (), (), (dense_w, dense_b)]
    return dpsgd_loss(params, (images, targets))


def dpsgd_clipped_grad(params, l2_norm_clip, single_example_batch):
    """Evaluate gradient for a single-example batch and clip its grad norm."""
    grads = jax.grad(dpsgd_loss)(params, single_example_batch, stax.AvgPool)
    nonempty_grads, tree_def = jax.tree_util.tree_flatten(grads)
    total_grad_norm = jnp.linalg.norm(jnp.array([jnp.linalg.norm(neg.ravel()) for neg in nonempty_grads]))
    divisor = jnp.maximum(total_grad_norm / l2_norm_clip, 1.0)
    normalized_nonempty_grads = [g / divisor for g in nonempty_grads]
    return jax.tree_util.tree_unflatten(tree_def, normalized_nonempty_grads)


def dpsgd_private_grad_loss(conv_w, conv_b, dense_w, dense_b, images, targets):
    params = [(conv_w, conv_b), (), (), (), (dense_w, dense_b)]
    batch = (images[:, None], targets[:, None])  # shape_as_image(..., dummy_dim=True)
    l2_norm_clip, batch_size = 3.0, images.shape[0]
    clipped_grads = jax.vmap(dpsgd_clipped_grad, (None, None, 0))(params, l2_norm_clip, batch)
    clipped_grads_flat, grads_treedef = jax.tree_util.tree_flatten(clipped_grads)
    aggregated_clipped_grads = [g.sum(0) for g in clipped_grads_flat]
    normalized_aggregated_clipped_grads = [g / batch_size for g in aggregated_clipped_grads]
    return sum(jnp.sum(g**2) for g in normalized_aggregated_clipped_grads)


# jax-ml/jax examples/mnist_vae.py


def vae_gaussian_kl(mu, sigmasq):
    """KL divergence from a diagonal Gaussian to the standard Gaussian."""
    return -0.5 * jnp.sum(1.0 + jnp.log(sigmasq) - mu**2.0 - sigmasq)


def vae_gaussian_sample(rng, mu, sigmasq):
    """Sample a diagonal Gaussian."""
    return mu + jnp.sqrt(sigmasq) * jax.random.normal(rng, mu.shape, jnp.float32)  # f32 draws under x64 too


def vae_bernoulli_logpdf(logits, x):
    """Bernoulli log pdf of data x given logits."""
    return -jnp.sum(jnp.logaddexp(0.0, jnp.where(x, -1.0, 1.0) * logits))


def vae_models():
    encoder_init, encode = stax.serial(
        stax.Dense(4), stax.Relu,
        stax.FanOut(2),
        stax.parallel(stax.Dense(2), stax.serial(stax.Dense(2), stax.Softplus)),
    )  # fmt: skip
    decoder_init, decode = stax.serial(
        stax.Dense(4), stax.Relu,
        stax.Dense(6),
    )  # fmt: skip
    return encode, decode


def vae_elbo(rng, params, images):
    """Monte Carlo estimate of the negative evidence lower bound."""
    encode, decode = vae_models()
    enc_params, dec_params = params
    mu_z, sigmasq_z = encode(enc_params, images)
    logits_x = decode(dec_params, vae_gaussian_sample(rng, mu_z, sigmasq_z))
    return vae_bernoulli_logpdf(logits_x, images) - vae_gaussian_kl(mu_z, sigmasq_z)


def vae_loss(e1w, e1b, e2w, e2b, e3w, e3b, d1w, d1b, d2w, d2b, images):
    enc_params = [(e1w, e1b), (), (), [(e2w, e2b), [(e3w, e3b), ()]]]
    dec_params = [(d1w, d1b), (), (d2w, d2b)]
    params, batch, batch_size = (enc_params, dec_params), images, images.shape[0]
    rng = jax.random.fold_in(jax.random.key(0), 1)
    return -vae_elbo(rng, params, batch) / batch_size


# jax-ml/jax examples/advi.py


def advi_diag_gaussian_sample(rng, mean, log_std):
    # Take a single sample from a diagonal multivariate Gaussian.
    return mean + jnp.exp(log_std) * jax.random.normal(rng, mean.shape, jnp.float32)  # f32 draws under x64 too


def advi_diag_gaussian_logpdf(x, mean, log_std):
    # Evaluate a single point on a diagonal multivariate Gaussian.
    return jnp.sum(jax.vmap(jax.scipy.stats.norm.logpdf)(x, mean, jnp.exp(log_std)))


def advi_elbo(logprob, rng, mean, log_std):
    # Single-sample Monte Carlo estimate of the variational lower bound.
    sample = advi_diag_gaussian_sample(rng, mean, log_std)
    return logprob(sample) - advi_diag_gaussian_logpdf(sample, mean, log_std)


def advi_batch_elbo(logprob, rng, params, num_samples):
    # Average over a batch of random samples.
    rngs = jax.random.split(rng, num_samples)
    vectorized_elbo = jax.vmap(functools.partial(advi_elbo, logprob), in_axes=(0, None, None))
    return jnp.mean(vectorized_elbo(rngs, *params))


def advi_funnel_log_density(params):
    norm = jax.scipy.stats.norm
    return norm.logpdf(params[0], 0, jnp.exp(params[1])) + norm.logpdf(params[1], 0, 1.35)


def advi_objective(mean, log_std):
    params, t, num_samples = (mean, log_std), 3, 8
    rng = jax.random.key(t)
    return -advi_batch_elbo(advi_funnel_log_density, rng, params, num_samples)


# jax-ml/jax docs/notebooks/vmapped_log_probs.md


def vmapped_log_probs_data():
    np_random = np.random.RandomState(10009)  # np.random.seed(10009)
    num_features = 3
    num_points = 8
    true_beta = np_random.randn(num_features).astype(np.float32)
    all_x = np_random.randn(num_points, num_features).astype(np.float32)
    y = (np_random.rand(num_points) < 1 / (1 + np.exp(-all_x.dot(true_beta)))).astype(np.int32)
    return all_x, y


def vmapped_log_probs_elbo(beta_loc, beta_log_scale, epsilon):
    all_x, y = vmapped_log_probs_data()

    @jax.jit
    def log_joint(beta):
        result = 0.0
        # Note that no `axis` parameter is provided to `jnp.sum`.
        result = result + jnp.sum(jax.scipy.stats.norm.logpdf(beta, loc=0.0, scale=10.0))
        result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2 * y - 1) * jnp.dot(all_x, beta))))
        return result

    batched_log_joint = jax.jit(jax.vmap(log_joint))
    beta_sample = beta_loc + jnp.exp(beta_log_scale) * epsilon
    return jnp.mean(batched_log_joint(beta_sample), 0) + jnp.sum(beta_log_scale - 0.5 * np.log(2 * np.pi))


# jax-ml/jax docs/notebooks/convolutions.md


def conv_strided_atrous_loss(img, kernel):
    dn = lax.conv_dimension_numbers(img.shape, kernel.shape, ("NHWC", "HWIO", "NHWC"))
    # SAME padding, 2,2 stride, no dilation
    out = lax.conv_general_dilated(img, kernel, (2, 2), "SAME", (1, 1), (1, 1), dn)
    # VALID padding, no stride, rhs kernel dilation ~ Atrous convolution
    out2 = lax.conv_general_dilated(img, kernel, (1, 1), "VALID", (1, 1), (2, 2), dn)
    return jnp.sum(out**2) + jnp.sum(out2**2)


def conv_transposed_loss(img, kernel):
    dn = lax.conv_dimension_numbers(img.shape, kernel.shape, ("NHWC", "HWIO", "NHWC"))
    # VALID padding, no stride, lhs=input dilation  ~ Transposed Convolution
    out = lax.conv_general_dilated(img, kernel, (1, 1), ((0, 0), (0, 0)), (2, 2), (1, 1), dn)
    # transposed conv = 180deg kernel rotation plus LHS dilation
    kernel_rot = jnp.rot90(jnp.rot90(kernel, axes=(0, 1)), axes=(0, 1))
    padding = ((2, 1), (2, 1))
    out2 = lax.conv_general_dilated(img, kernel_rot, (1, 1), padding, (2, 2), (1, 1), dn)
    return jnp.sum(out**2) + jnp.sum(out2**2)


# google/flax flax/linen/pooling.py, flax/nnx/nn/normalization.py, examples/mnist/train.py


def flax_pool(inputs, init, reduce_fn, window_shape, strides, padding):
    num_batch_dims = inputs.ndim - (len(window_shape) + 1)
    strides = strides or (1,) * len(window_shape)
    strides = (1,) * num_batch_dims + strides + (1,)
    dims = (1,) * num_batch_dims + window_shape + (1,)
    y = lax.reduce_window(inputs, init, reduce_fn, dims, strides, padding)
    return y


def flax_avg_pool(inputs, window_shape, strides=None, padding="VALID"):
    y = flax_pool(inputs, 0.0, lax.add, window_shape, strides, padding)
    y = y / np.prod(window_shape)  # count_include_pad=True
    return y


def flax_batch_norm(x, scale, bias, epsilon=1e-5):
    # BatchNorm(use_running_average=False) on NHWC: _compute_stats (use_fast_variance) then _normalize
    axes = (0, 1, 2)
    mu, mu2 = x.mean(axes), jnp.square(x).mean(axes)
    var = jnp.maximum(0.0, mu2 - jnp.square(mu))
    stats_shape = feature_shape = (1, 1, 1, x.shape[-1])
    mean = mu.reshape(stats_shape)
    var = var.reshape(stats_shape)
    y = x - mean
    mul = lax.rsqrt(var + epsilon)
    mul *= scale.reshape(feature_shape)
    y *= mul
    y += bias.reshape(feature_shape)
    return y


def flax_conv(x, kernel, bias):
    # nnx.Conv(kernel_size=(3, 3)): padding 'SAME', strides 1
    y = lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y + bias.reshape((1, 1, 1, -1))


def flax_cnn_loss(k1, c1, s1, o1, k2, c2, s2, o2, w3, b3, w4, b4, images, labels):
    x = images
    x = flax_avg_pool(jax.nn.relu(flax_batch_norm(flax_conv(x, k1, c1), s1, o1)), (2, 2), (2, 2))
    x = flax_avg_pool(jax.nn.relu(flax_batch_norm(flax_conv(x, k2, c2), s2, o2)), (2, 2), (2, 2))
    x = x.reshape(x.shape[0], -1)  # flatten
    x = jax.nn.relu(x @ w3 + b3)
    logits = x @ w4 + b4
    # optax.softmax_cross_entropy_with_integer_labels(logits=logits, labels=labels).mean()
    label_logits = jnp.take_along_axis(logits, labels[..., None], axis=-1)[..., 0]
    log_normalizers = jax.nn.logsumexp(logits, axis=-1)
    return (log_normalizers - label_logits).mean()


# google/flax flax/linen/recurrent.py


def flax_lstm_cell(params, carry, inputs):
    wi, wh, bh = params  # the Dense layers ii, if, ig, io (no bias) and hi, hf, hg, ho, stacked
    c, h = carry
    i = jax.nn.sigmoid(inputs @ wi[0] + (h @ wh[0] + bh[0]))
    f = jax.nn.sigmoid(inputs @ wi[1] + (h @ wh[1] + bh[1]))
    g = jnp.tanh(inputs @ wi[2] + (h @ wh[2] + bh[2]))
    o = jax.nn.sigmoid(inputs @ wi[3] + (h @ wh[3] + bh[3]))
    new_c = f * c + i * g
    new_h = o * jnp.tanh(new_c)
    return (new_c, new_h), new_h


def flax_lstm_loss(wi, wh, bh, xs, ys):
    batch, hidden = xs.shape[1], wh.shape[-1]
    carry = (jnp.zeros((batch, hidden)), jnp.zeros((batch, hidden)))  # initialize_carry: zeros
    _, hs = lax.scan(functools.partial(flax_lstm_cell, (wi, wh, bh)), carry, xs)  # nn.RNN, time-major
    return jnp.mean((hs - ys) ** 2)


def flax_gru_cell(params, carry, inputs):
    wi, bi, wh, bhn = params  # the Dense layers ir, iz, in (bias) and hr, hz (no bias), hn (bias), stacked
    h = carry
    r = jax.nn.sigmoid((inputs @ wi[0] + bi[0]) + h @ wh[0])
    z = jax.nn.sigmoid((inputs @ wi[1] + bi[1]) + h @ wh[1])
    # add bias because the linear transformations aren't directly summed.
    n = jnp.tanh((inputs @ wi[2] + bi[2]) + r * (h @ wh[2] + bhn))
    new_h = (1.0 - z) * n + z * h
    return new_h, new_h


def flax_gru_loss(wi, bi, wh, bhn, h0, xs):
    def body(t, h):
        return flax_gru_cell((wi, bi, wh, bhn), h, xs[t])[0]

    h = lax.fori_loop(0, xs.shape[0], body, h0)
    return jnp.sum(h**2)


# jax-ml/jax docs/the-training-cookbook.py


class dot_dict(dict):
    __setattr__ = dict.__setitem__
    __getattr__ = dict.__getitem__


def cookbook_model_apply(num_layers, params, tokens):
    out = params.embedding.at[tokens].get()
    out += params.pos_embed
    del tokens

    for layer in range(num_layers):
        block = params.layers[layer]
        att_skip = out  # 1 billion dollars in venture capital funding please
        qkv = jnp.einsum("bsd,3dkh->bs3kh", out, block.attention.qkv)
        out = jax.nn.dot_product_attention(qkv[:, :, 0, :], qkv[:, :, 1, :], qkv[:, :, 2, :], is_causal=True)
        out = jnp.einsum("bskh,khd->bsd", out, block.attention.out)
        out += att_skip
        out *= jax.lax.rsqrt(jnp.linalg.norm(out, axis=-1, keepdims=True) + 1e-6)

        mlp_skip = out  # machine learning circa 1986
        out = jnp.einsum("bsd,dh->bsh", out, block.mlp.in_kernel)
        out = jax.nn.gelu(out)
        out = jnp.einsum("bsh,hd->bsd", out, block.mlp.out_kernel)
        out += mlp_skip
        out *= jax.lax.rsqrt(jnp.linalg.norm(out, axis=-1, keepdims=True) + 1e-6)

    logits = jnp.einsum("bsd,dl->bsl", out, params.linear_out.kernel)
    return logits


def cookbook_loss(embedding, pos_embed, qkv, att_out, mlp_in, mlp_out, linear_out, observed_ids, target_ids):
    params = dot_dict(embedding=embedding, pos_embed=pos_embed, linear_out=dot_dict(kernel=linear_out))
    block = dot_dict(attention=dot_dict(qkv=qkv, out=att_out), mlp=dot_dict(in_kernel=mlp_in, out_kernel=mlp_out))
    params.layers = dot_dict({0: block})
    batch, vocab_size = dict(observed_ids=observed_ids, target_ids=target_ids), embedding.shape[0]

    def loss_fn(params):
        logits = cookbook_model_apply(1, params, batch["observed_ids"])
        labels = jax.nn.one_hot(batch["target_ids"], vocab_size)
        return -(labels * jax.nn.log_softmax(logits)).mean()

    return loss_fn(params)


# google/flax examples/gemma (layers.py, positional_embeddings.py, modules.py, transformer.py)


def gemma_rms_norm(x, scale):
    x = jnp.asarray(x, jnp.float32)
    mean2 = jnp.mean(jnp.square(x), axis=-1, keepdims=True)
    normed_inputs = jnp.asarray(x * jax.lax.rsqrt(mean2 + 1e-06), dtype=jnp.float32)
    normed_inputs = normed_inputs * (1.0 + scale)
    return normed_inputs


def gemma_apply_rope(inputs, positions, head_dim, max_wavelength=10_000, scale_factor=1.0):
    fraction = 2 * jnp.arange(0, head_dim // 2) / head_dim
    timescale = max_wavelength**fraction
    sinusoid_inp = positions[..., jnp.newaxis] / timescale[jnp.newaxis, jnp.newaxis, :]
    sinusoid_inp = sinusoid_inp[..., jnp.newaxis, :]
    sinusoid_inp /= scale_factor
    sin = jnp.sin(sinusoid_inp)
    cos = jnp.cos(sinusoid_inp)
    first_half, second_half = jnp.split(inputs, 2, axis=-1)
    first_part = first_half * cos - second_half * sin
    second_part = second_half * cos + first_half * sin
    out = jnp.concatenate([first_part, second_part], axis=-1)
    return out.astype(inputs.dtype)


def gemma_attention(q_w, kv_w, o_w, x, segment_pos, attn_mask, num_heads, num_kv_heads, head_dim):
    query_pre_attn_scalar, attn_logits_soft_cap, sliding_window_size, K_MASK = head_dim**-0.5, 50.0, 2, -2.3819763e38
    query_proj = jnp.einsum("BTD,NDH->BTNH", x, q_w)
    key_proj, value_proj = jnp.einsum("BTD,CKDH->CBTKH", x, kv_w)
    query_proj = gemma_apply_rope(query_proj, segment_pos, head_dim=head_dim)
    query_scaled = query_proj * query_pre_attn_scalar
    key_proj = gemma_apply_rope(key_proj, segment_pos, head_dim=head_dim)
    # use_gqa: Reshape matrices to enable einsums over groups.
    num_groups = num_heads // num_kv_heads
    batch_size, seq_size, _, head_dim = query_scaled.shape
    query_scaled = query_scaled.reshape((batch_size, seq_size, num_kv_heads, num_groups, head_dim))
    logits = jnp.einsum("BTKGH,BSKH->BTKGS", query_scaled, key_proj)
    logits = logits.reshape((batch_size, seq_size, num_heads, -1))
    logits = jnp.tanh(logits / attn_logits_soft_cap)
    logits = logits * attn_logits_soft_cap
    # AttentionType.LOCAL_SLIDING
    all_ones = jnp.ones(attn_mask.shape, dtype=attn_mask.dtype)
    sliding_mask = jnp.triu(all_ones, -1 * sliding_window_size + 1) * jnp.tril(all_ones, sliding_window_size - 1)
    attn_mask = sliding_mask * attn_mask
    padded_logits = jnp.where((jnp.expand_dims(attn_mask, -2)), logits, K_MASK)
    probs = jax.nn.softmax(padded_logits, axis=-1).astype(key_proj.dtype)
    batch_size, seq_size1, _, _ = probs.shape
    probs = probs.reshape((batch_size, seq_size1, num_kv_heads, num_groups, -1))
    encoded = jnp.einsum("BTKGS,BSKH->BTKGH", probs, value_proj)
    encoded = encoded.reshape((batch_size, seq_size, num_heads, head_dim))
    return jnp.einsum("BTNH,NHD->BTD", encoded, o_w)


def gemma_block_loss(x, pre_attn, q_w, kv_w, o_w, post_attn, pre_ffw, gate_w, up_w, down_w, post_ffw, input_mask):
    # transformer.py: build_positions_from_mask, make_causal_attn_mask
    positions = jnp.cumsum(input_mask, axis=-1)
    segment_pos = positions - (positions >= 1)
    seq_len = input_mask.shape[-1]
    attn_mask = input_mask[..., None, :]
    causal_mask = jnp.tril(jnp.ones((seq_len, seq_len), dtype=jnp.bool_))
    attn_mask *= causal_mask[None, ...]
    # modules.py Block.__call__
    attn_inputs = gemma_rms_norm(x, pre_attn)
    attn_output = gemma_attention(q_w, kv_w, o_w, attn_inputs, segment_pos, attn_mask, 4, 2, 2)
    attn_output = gemma_rms_norm(attn_output, post_attn)
    x += attn_output
    ffw_inputs = gemma_rms_norm(x, pre_ffw)
    ffw_outputs = (jax.nn.gelu(ffw_inputs @ gate_w) * (ffw_inputs @ up_w)) @ down_w  # FeedForward
    ffw_outputs = gemma_rms_norm(ffw_outputs, post_ffw)
    x += ffw_outputs
    return jnp.mean(x**2)


# jax-ml/jax jax/experimental/ode.py, tests/ode_test.py


def runge_kutta_step(func, y0, f0, t0, dt):
    # Dopri5 Butcher tableaux
    alpha = jnp.array([1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0], dtype=dt.dtype)
    beta = jnp.array(
        [[1 / 5, 0, 0, 0, 0, 0, 0], [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]],
        dtype=f0.dtype)  # fmt: skip
    c_sol = jnp.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0], dtype=f0.dtype)
    c_error = jnp.array([
        35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 -
        451 / 720, -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.
    ], dtype=f0.dtype)  # fmt: skip

    def body_fun(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + dt.astype(f0.dtype) * jnp.dot(beta[i - 1, :], k)
        ft = func(yi, ti)
        return lax.dynamic_update_slice(k, ft[None, :], (i, 0))  # upstream: k.at[i, :].set(ft)

    k = lax.dynamic_update_slice(jnp.zeros((7, f0.shape[0]), f0.dtype), f0[None, :], (0, 0))  # upstream: .at[0, :].set(f0)
    k = lax.fori_loop(1, 7, body_fun, k)

    y1 = dt.astype(f0.dtype) * jnp.dot(c_sol, k) + y0
    y1_error = dt.astype(f0.dtype) * jnp.dot(c_error, k)
    f1 = k[-1]
    return y1, f1, y1_error, k


def ode_pend(y, _, m, g):
    theta, omega = y
    return jnp.array([omega, -m * omega - g * jnp.sin(theta)])


def ode_dopri_loss(y0, m, g):
    func, dt = functools.partial(ode_pend, m=m, g=g), jnp.asarray(0.1, jnp.float32)

    def step(i, y):
        t = i * dt
        return runge_kutta_step(func, y, func(y, t), t, dt)[0]

    return jnp.sum(lax.fori_loop(0, 4, step, y0) ** 2)


# jax-ml/jax docs/notebooks/Custom_derivative_rules_for_Python_code.md


def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-6

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def newton_sqrt(a):
    update = lambda a, x: 0.5 * (x + a / x)  # noqa: E731
    return fixed_point(update, a, a)


def newton_sqrt_loss(a, b):
    return jnp.sum(jax.vmap(newton_sqrt)(a)) + newton_sqrt(b)


# jax-ml/jax docs/jaxpr.md


def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1.0, lambda x: x - 2.0, lambda x: x + 3.0], arg)


def func7(arg):
    return lax.cond(arg >= 0.0, lambda xtrue: xtrue + 3.0, lambda xfalse: xfalse - 3.0, arg)


def func8(arg1, arg2):  # Where `arg2` is a pair.
    return lax.cond(arg1 >= 0.0, lambda xtrue: xtrue[0], lambda xfalse: jnp.array([1]) + xfalse[1], arg2)


def jaxpr_cond_loss(index, x, y, p0, p1):
    u = jnp.sum(one_of_three(index, x) ** 2) + jnp.sum(jax.vmap(one_of_three)(jnp.arange(3) % 3, x) ** 3)
    v = jnp.sum(jax.vmap(func7)(y) ** 2) + func7(jnp.sum(x)) ** 2
    return u + v + jnp.sum(func8(y[0], (p0, p1)) ** 2) + jnp.sum(func8(y[1], (p0 * x[0], p1 * x[1])) ** 2)


# jax-ml/jax examples/gaussian_process_regression.py (removed in c856560f0e)


def gp_cov_map(cov_func, xs, xs2=None):
    if xs2 is None:
        return jax.vmap(lambda x: jax.vmap(lambda y: cov_func(x, y))(xs))(xs)
    else:
        return jax.vmap(lambda x: jax.vmap(lambda y: cov_func(x, y))(xs))(xs2).T


def gp_softplus(x):
    return jnp.logaddexp(x, 0.0)


def gp_exp_quadratic(x1, x2):
    return jnp.exp(-jnp.sum((x1 - x2) ** 2))


def gp_marginal_likelihood(noise, amplitude, lengthscale, x, y):
    numpts, eye = x.shape[0], jnp.eye(x.shape[0])
    noise = gp_softplus(noise)
    amp = gp_softplus(amplitude)
    ls = gp_softplus(lengthscale)
    ymean = jnp.mean(y)
    y = y - ymean
    x = x / ls
    train_cov = amp * gp_cov_map(gp_exp_quadratic, x) + eye * (noise + 1e-6)
    chol = jax.scipy.linalg.cholesky(train_cov, lower=True)
    kinvy = jax.scipy.linalg.solve_triangular(chol.T, jax.scipy.linalg.solve_triangular(chol, y, lower=True))
    log2pi = jnp.log(2.0 * 3.1415)
    ml = jnp.sum(-0.5 * jnp.dot(y.T, kinvy) - jnp.sum(jnp.log(jnp.diag(chol))) - (numpts / 2.0) * log2pi)
    ml -= jnp.sum(-0.5 * jnp.log(2 * 3.1415) - jnp.log(amp) - 0.5 * jnp.log(amp) ** 2)  # lognormal prior
    return -ml


def gp_kernel_loss(noise, amplitude, lengthscale, x, y, xtest):
    eye = jnp.eye(x.shape[0])
    noise = gp_softplus(noise)
    amp = gp_softplus(amplitude)
    ls = gp_softplus(lengthscale)
    ymean = jnp.mean(y)
    y = y - ymean
    x = x / ls
    train_cov = amp * gp_cov_map(gp_exp_quadratic, x) + eye * (noise + 1e-6)
    xtest = xtest / ls
    cross_cov = amp * gp_cov_map(gp_exp_quadratic, x, xtest)
    var = amp * gp_cov_map(gp_exp_quadratic, xtest)
    # the Cholesky solves (LAPACK custom_calls, not exportable) replaced by products
    return jnp.dot(y, jnp.dot(train_cov, y)) + jnp.sum(jnp.dot(cross_cov.T, y) ** 2) + jnp.sum(jnp.diag(var))


# google/flax examples/ppo/ppo_lib.py (loss_fn), models.py, agent.py


def ppo_actor_critic(params, states):
    w1, b1, wp, bp, wv, bv = params  # models.ActorCritic, its convolutions and Dense(512) reduced to one Dense(4)
    x = states.reshape((states.shape[0], -1))
    x = jax.nn.relu(x @ w1 + b1)
    logits = x @ wp + bp
    policy_log_probabilities = jax.nn.log_softmax(logits)
    value = x @ wv + bv
    return policy_log_probabilities, value


def ppo_loss(w1, b1, wp, bp, wv, bv, states, actions, old_log_probs, returns, advantages):
    params, clip_param, vf_coeff, entropy_coeff = (w1, b1, wp, bp, wv, bv), 0.1, 0.5, 0.01
    log_probs, values = ppo_actor_critic(params, states)  # agent.policy_action
    values = values[:, 0]  # Convert shapes: (batch, 1) to (batch, ).
    probs = jnp.exp(log_probs)

    value_loss = jnp.mean(jnp.square(returns - values), axis=0)

    entropy = jnp.sum(-probs * log_probs, axis=1).mean()

    log_probs_act_taken = jax.vmap(lambda lp, a: lp[a])(log_probs, actions)
    ratios = jnp.exp(log_probs_act_taken - old_log_probs)
    # Advantage normalization (following the OpenAI baselines).
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg_loss = ratios * advantages
    clipped_loss = advantages * jax.lax.clamp(1.0 - clip_param, ratios, 1.0 + clip_param)
    ppo_loss = -jnp.mean(jnp.minimum(pg_loss, clipped_loss), axis=0)

    return ppo_loss + vf_coeff * value_loss - entropy_coeff * entropy


# google-deepmind/rlax rlax/_src/multistep.py, rlax/_src/value_learning.py


def lambda_returns(r_t, discount_t, v_t, lambda_=1.0, stop_target_gradients=False):
    # If scalar make into vector.
    lambda_ = jnp.ones_like(discount_t) * lambda_

    # Work backwards to compute `G_{T-1}`, ..., `G_0`.
    def _body(acc, xs):
        returns, discounts, values, lambda_ = xs
        acc = returns + discounts * ((1 - lambda_) * values + lambda_ * acc)
        return acc, acc

    _, returns = jax.lax.scan(_body, v_t[-1], (r_t, discount_t, v_t, lambda_), reverse=True)

    return jax.lax.select(stop_target_gradients, jax.lax.stop_gradient(returns), returns)


def td_lambda(v_tm1, r_t, discount_t, v_t, lambda_, stop_target_gradients=True):
    target_tm1 = lambda_returns(r_t, discount_t, v_t, lambda_)
    target_tm1 = jax.lax.select(stop_target_gradients, jax.lax.stop_gradient(target_tm1), target_tm1)
    return target_tm1 - v_tm1


def rlax_td_lambda_loss(v_tm1, r_t, discount_t, v_t):
    return 0.5 * jnp.sum(td_lambda(v_tm1, r_t, discount_t, v_t, 0.9, stop_target_gradients=False) ** 2)


# jax-ml/jax jax/_src/random/core.py


def truncated_normal_sample(lower, upper, u01):
    # `_truncated_normal(key, lower, upper, shape, dtype)` with its uniform draw as an argument
    dtype = jnp.float32
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lower / sqrt2)
    b = lax.erf(upper / sqrt2)
    u = a + (b - a) * u01  # uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax.erf_inv(u)
    # Clamp the value to the open interval (lower, upper) to make sure that
    # rounding (or if we chose `a` for `u`) doesn't push us outside of the range.
    return jnp.clip(
        out,
        lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype=dtype)),
        lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype=dtype)))


def truncated_normal_loss(lower, upper, u01):
    return jnp.mean(truncated_normal_sample(lower, upper, u01) ** 2)


# lindermanlab/S5 s5/ssm.py


def s5_binary_operator(q_i, q_j):
    """Binary operator for parallel scan of linear recurrence. Assumes a diagonal matrix A."""
    A_i, b_i = q_i
    A_j, b_j = q_j
    return A_j * A_i, A_j * b_i + b_j


def s5_discretize_zoh(Lambda, B_tilde, Delta):
    Identity = jnp.ones(Lambda.shape[0])
    Lambda_bar = jnp.exp(Lambda * Delta)
    B_bar = (1 / Lambda * (Lambda_bar - Identity))[..., None] * B_tilde
    return Lambda_bar, B_bar


def s5_apply_ssm(Lambda_bar, B_bar, C_tilde, input_sequence):
    Lambda_elements = Lambda_bar * jnp.ones((input_sequence.shape[0], Lambda_bar.shape[0]))
    Bu_elements = jax.vmap(lambda u: B_bar @ u)(input_sequence)

    _, xs = jax.lax.associative_scan(jax.vmap(s5_binary_operator), (Lambda_elements, Bu_elements))

    return jax.vmap(lambda x: (C_tilde @ x).real)(xs)


def s5_ssm_loss(Lambda_re, B, C, D, log_step, input_sequence):
    # S5SSM.setup (discretization "zoh", step_rescale 1) and S5SSM.__call__
    step = jnp.exp(log_step[:, 0])
    Lambda_bar, B_bar = s5_discretize_zoh(Lambda_re, B, step)
    ys = s5_apply_ssm(Lambda_bar, B_bar, C, input_sequence)
    # Add feedthrough matrix output Du;
    Du = jax.vmap(lambda u: D * u)(input_sequence)
    return jnp.sum((ys + Du) ** 2)


# google-deepmind/optax optax/losses/_regression.py, optax/losses/_classification.py


def optax_huber_loss(predictions, targets=None, delta=1.0):
    predictions = jnp.asarray(predictions)
    if targets is not None:
        targets = jnp.asarray(targets)
    errors = (predictions - targets) if (targets is not None) else predictions
    # 0.5 * err^2                  if |err| <= d
    # 0.5 * d^2 + d * (|err| - d)  if |err| > d
    abs_errors = jnp.abs(errors)
    quadratic = jnp.minimum(abs_errors, delta)
    # Same as max(abs_x - delta, 0) but avoids potentially doubling gradient.
    linear = abs_errors - quadratic
    return 0.5 * quadratic**2 + delta * linear


def optax_log_cosh(predictions, targets=None):
    predictions = jnp.asarray(predictions)
    if targets is not None:
        targets = jnp.asarray(targets)
    errors = (predictions - targets) if (targets is not None) else predictions
    # log(cosh(x)) = log((exp(x) + exp(-x))/2) = log(exp(x) + exp(-x)) - log(2)
    return jnp.logaddexp(errors, -errors) - jnp.log(2.0).astype(errors.dtype)


def optax_cosine_similarity(predictions, targets, *, epsilon=0.0, axis=-1, where=None):
    a = predictions
    b = targets
    a_norm2 = jnp.square(a).sum(axis=axis, where=where, keepdims=True)
    b_norm2 = jnp.square(b).sum(axis=axis, where=where, keepdims=True)
    a_norm = jnp.sqrt(a_norm2.clip(epsilon))
    b_norm = jnp.sqrt(b_norm2.clip(epsilon))
    a_unit = a / a_norm
    b_unit = b / b_norm
    return (a_unit * b_unit).sum(axis=axis, where=where)


def optax_cosine_distance(predictions, targets, *, epsilon=0.0, axis=-1, where=None):
    # cosine distance = 1 - cosine similarity.
    return 1.0 - optax_cosine_similarity(predictions, targets, epsilon=epsilon, axis=axis, where=where)


def optax_regression_loss(predictions, targets, embeddings, target_embeddings):
    return (jnp.mean(optax_huber_loss(predictions, targets, delta=1.0))
            + jnp.mean(optax_log_cosh(predictions, targets))
            + jnp.mean(optax_cosine_distance(embeddings, target_embeddings, epsilon=1e-12)))  # fmt: skip


def optax_sigmoid_binary_cross_entropy(logits, labels):
    labels = jnp.astype(labels, logits.dtype)
    log_p = jax.nn.log_sigmoid(logits)
    # log(1 - sigmoid(x)) = log_sigmoid(-x), the latter more numerically stable
    log_not_p = jax.nn.log_sigmoid(-logits)
    return -labels * log_p - (1.0 - labels) * log_not_p


def optax_hinge_loss(predictor_outputs, targets):
    return jnp.maximum(0, 1 - predictor_outputs * targets)


optax_dot_last_dim = jnp.vectorize(jnp.dot, signature="(n),(n)->()") if jnp is not None else None


def optax_multiclass_hinge_loss(scores, labels):
    one_hot_labels = jax.nn.one_hot(labels, scores.shape[-1])
    return jnp.max(scores + 1.0 - one_hot_labels, axis=-1) - optax_dot_last_dim(scores, one_hot_labels)


def optax_multiclass_perceptron_loss(scores, labels):
    one_hot_labels = jax.nn.one_hot(labels, scores.shape[-1])
    return jnp.max(scores, axis=-1) - optax_dot_last_dim(scores, one_hot_labels)


def optax_softmax_cross_entropy(logits, labels, axis=-1, where=None):
    if where is not None and where.ndim != logits.ndim:
        where = jnp.expand_dims(where, axis)
    log_probs = jax.nn.log_softmax(logits, axis, where)
    return -(labels * log_probs).sum(axis, where=where)


def optax_poly_loss_cross_entropy(logits, labels, *, epsilon=2.0, axis=-1, where=None):
    p = jax.nn.softmax(logits, axis=axis, where=where)
    one_minus_pt = jnp.sum(labels * (1 - p), axis=axis, where=where)
    cross_entropy = optax_softmax_cross_entropy(logits=logits, labels=labels, axis=axis, where=where)
    return cross_entropy + epsilon * one_minus_pt


def optax_kl_divergence(log_predictions, targets, axis=-1, where=None):
    loss = targets * (jnp.where(targets == 0, 0, jnp.log(targets)) - log_predictions)
    return jnp.sum(loss, axis=axis, where=where)


def optax_generalized_kl_divergence(log_predictions, targets, axis=-1, where=None):
    x = optax_kl_divergence(log_predictions, targets, axis=axis, where=where)
    y = jnp.sum(jnp.exp(log_predictions) - targets, axis=axis, where=where)
    return x + y


def optax_classification_loss(logits, scores, log_predictions, targets, binary_labels, class_labels):
    one_hot = jax.nn.one_hot(class_labels, scores.shape[-1])
    return (jnp.mean(optax_sigmoid_binary_cross_entropy(logits, binary_labels))
            + jnp.mean(optax_hinge_loss(logits, 2 * binary_labels - 1))
            + jnp.mean(optax_multiclass_hinge_loss(scores, class_labels))
            + jnp.mean(optax_multiclass_perceptron_loss(scores, class_labels))
            + jnp.mean(optax_poly_loss_cross_entropy(scores, one_hot))
            + jnp.mean(optax_generalized_kl_divergence(log_predictions, targets)))  # fmt: skip


def optax_ctc_loss_with_forward_probs(logits, logit_paddings, labels, label_paddings, *, blank_id=0, log_epsilon=-1e5):
    batchsize, unused_maxinputlen, num_classes = logits.shape
    batchsize_of_labels, maxlabellen = labels.shape

    logprobs = jax.nn.log_softmax(logits)
    labellens = maxlabellen - jnp.sum(label_paddings, axis=1).astype(jnp.int32)

    # repeat[b, n] == 1.0 when label[b, n] == label[b, n+1].
    repeat = (labels[:, :-1] == labels[:, 1:]).astype(jnp.float32)
    repeat = jnp.pad(repeat, ((0, 0), (0, 1)))

    logprobs_phi = logprobs[:, :, blank_id : blank_id + 1]  # [B, T, 1]
    logprobs_phi = jnp.transpose(logprobs_phi, (1, 0, 2))  # [T, B, 1]

    one_hot = jax.nn.one_hot(labels, num_classes=num_classes)  # [B, N, K]
    logprobs_emit = jnp.einsum("btk,bnk->btn", logprobs, one_hot)
    logprobs_emit = jnp.transpose(logprobs_emit, (1, 0, 2))  # [T, B, N]

    logalpha_phi_init = jnp.ones((batchsize, maxlabellen + 1)) * log_epsilon  # [B, N]
    # upstream: logalpha_phi_init.at[:, 0].set(0.0) (a stablehlo.scatter, which does not export)
    logalpha_phi_init = jnp.concatenate([jnp.zeros((batchsize, 1)), logalpha_phi_init[:, 1:]], axis=1)
    logalpha_emit_init = jnp.ones((batchsize, maxlabellen)) * log_epsilon

    def update_phi_score(phi, added_score):
        # Update `phi[:, 1:]`` with adding `added_score` in log space.
        return jnp.concatenate([phi[:, :1], jnp.logaddexp(phi[:, 1:], added_score)], axis=-1)

    def loop_body(prev, x):
        prev_phi, prev_emit = prev
        # emit-to-phi epsilon transition, except if the next label is repetition
        prev_phi_orig = prev_phi
        prev_phi = update_phi_score(prev_phi, prev_emit + log_epsilon * repeat)

        logprob_emit, logprob_phi, pad = x

        # phi-to-emit transition
        next_emit = jnp.logaddexp(prev_phi[:, :-1] + logprob_emit, prev_emit + logprob_emit)
        # self-loop transition
        next_phi = prev_phi + logprob_phi
        # emit-to-phi blank transition only when the next label is repetition
        next_phi = update_phi_score(next_phi, prev_emit + logprob_phi + log_epsilon * (1.0 - repeat))

        pad = pad.reshape((batchsize, 1))
        next_emit = pad * prev_emit + (1.0 - pad) * next_emit
        next_phi = pad * prev_phi_orig + (1.0 - pad) * next_phi

        return (next_phi, next_emit), (next_phi, next_emit)

    xs = (logprobs_emit, logprobs_phi, logit_paddings.transpose((1, 0)))
    _, (logalpha_phi, logalpha_emit) = jax.lax.scan(loop_body, (logalpha_phi_init, logalpha_emit_init), xs)

    # last row needs to be updated with the last epsilon transition
    logalpha_phi_last = update_phi_score(logalpha_phi[-1], logalpha_emit[-1])
    logalpha_phi = logalpha_phi.at[-1].set(logalpha_phi_last)

    # extract per_seq_loss
    one_hot = jax.nn.one_hot(labellens, num_classes=maxlabellen + 1)  # [B, N+1]
    per_seq_loss = -jnp.einsum("bn,bn->b", logalpha_phi_last, one_hot)  # pylint:disable=invalid-unary-operand-type

    return per_seq_loss, logalpha_phi, logalpha_emit


def optax_ctc_loss(logits):
    logit_paddings = jnp.array([[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]])
    labels = jnp.array([[1, 2, 1], [2, 2, 0]])
    label_paddings = jnp.array([[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    per_seq_loss, _, _ = optax_ctc_loss_with_forward_probs(logits, logit_paddings, labels, label_paddings)
    return jnp.mean(per_seq_loss)


# jax-ml/jax jax/_src/nn/functions.py (the activations, called as jax.nn.*)


def jax_nn_activations_loss(x, c):
    acts = [jax.nn.gelu(x, approximate=False), jax.nn.gelu(x, approximate=True), jax.nn.silu(x),
            jax.nn.softplus(x), jax.nn.log_sigmoid(x), jax.nn.elu(x), jax.nn.selu(x), jax.nn.celu(x, alpha=0.5),
            jax.nn.mish(x), jax.nn.squareplus(x), jax.nn.soft_sign(x), jax.nn.sparse_plus(x),
            jax.nn.leaky_relu(x), jax.nn.hard_tanh(x), jax.nn.relu6(3.0 * x + 2.0), jax.nn.hard_swish(3.0 * x),
            jax.nn.standardize(x, axis=-1)]  # fmt: skip
    return sum(jnp.sum(c * a) for a in acts) + jnp.sum(jax.nn.glu(x, axis=-1) ** 2)


# pyro-ppl/numpyro numpyro/distributions/transforms.py, numpyro/distributions/continuous.py


def numpyro_clipped_expit(x):
    finfo = jnp.finfo(jnp.result_type(x))
    return jnp.clip(jax.scipy.special.expit(x), finfo.tiny, 1.0 - finfo.eps)


def numpyro_stick_breaking(x):
    # we shift x to obtain a balanced mapping (0, 0, ..., 0) -> (1/K, 1/K, ..., 1/K)
    x = x - jnp.log(x.shape[-1] - jnp.arange(x.shape[-1]))
    # convert to probabilities (relative to the remaining) of each fraction of the stick
    z = numpyro_clipped_expit(x)
    z1m_cumprod = jnp.cumprod(1 - z, axis=-1)
    pad_width = [(0, 0)] * x.ndim
    pad_width[-1] = (0, 1)
    z_padded = jnp.pad(z, pad_width, mode="constant", constant_values=1.0)
    pad_width = [(0, 0)] * x.ndim
    pad_width[-1] = (1, 0)
    z1m_cumprod_shifted = jnp.pad(z1m_cumprod, pad_width, mode="constant", constant_values=1.0)
    return z_padded * z1m_cumprod_shifted


def numpyro_stick_breaking_log_abs_det_jacobian(x, y):
    # Ref: https://mc-stan.org/docs/2_19/reference-manual/simplex-transform-section.html
    # |det|(J) = Product(y * (1 - sigmoid(x)))
    #          = Product(y * sigmoid(x) * exp(-x))
    x = x - jnp.log(x.shape[-1] - jnp.arange(x.shape[-1]))
    return jnp.sum(jnp.log(y[..., :-1]) + (jax.nn.log_sigmoid(x) - x), axis=-1)


def numpyro_dirichlet_log_prob(concentration, value):
    gammaln = jax.scipy.special.gammaln
    normalize_term = jnp.sum(gammaln(concentration), axis=-1) - gammaln(jnp.sum(concentration, axis=-1))
    return jnp.sum(jnp.log(value) * (concentration - 1.0), axis=-1) - normalize_term


def numpyro_dirichlet_potential(x, concentration):
    # the unconstrained log density of a Dirichlet site: log_prob(T(x)) + log|det J_T(x)|
    y = numpyro_stick_breaking(x)
    return -(numpyro_dirichlet_log_prob(concentration, y) + numpyro_stick_breaking_log_abs_det_jacobian(x, y))


def numpyro_dirichlet_potential_at_init(x, unconstrained_concentration):
    # numpyro.param("concentration", jnp.ones(5), constraint=constraints.positive) is kept unconstrained, as
    # log(1) = 0, and read through biject_to(positive) = ExpTransform: exactly 1.0 at initialisation
    concentration = jnp.exp(unconstrained_concentration)
    return numpyro_dirichlet_potential(x, concentration)


# google/flax flax/linen/pooling.py, flax/nnx/nn/normalization.py (GroupNorm), flax/nnx/nn/linear.py (Conv)


def flax_max_pool(inputs, window_shape, strides=None, padding="VALID"):
    y = flax_pool(inputs, -jnp.inf, lax.max, window_shape, strides, padding)
    return y


def flax_group_norm(x, scale, bias, num_groups, epsilon=1e-6):
    # GroupNorm.__call__ on NHWC with _compute_stats (use_fast_variance) and _normalize inlined
    reduction_axes = (1, 2, -1)
    feature_axis = -1
    group_size = x.shape[-1] // num_groups
    group_shape = x.shape[:-1] + (num_groups, group_size)
    xg = x.reshape(group_shape)
    axes = list(reduction_axes[:-1]) + [-1]
    mu, mu2 = xg.mean(axes), jnp.square(xg).mean(axes)
    mean, var = mu, jnp.maximum(0.0, mu2 - jnp.square(mu))
    mean = jnp.repeat(mean, group_size, axis=-1)
    var = jnp.repeat(var, group_size, axis=-1)
    stats_shape = (x.shape[0], 1, 1, x.shape[feature_axis])
    y = x - mean.reshape(stats_shape)
    mul = lax.rsqrt(var.reshape(stats_shape) + epsilon)
    mul *= scale.reshape((1, 1, 1, -1))
    y *= mul
    y += bias.reshape((1, 1, 1, -1))
    return y


def flax_depthwise_block_loss(x, k_dw, b_dw, scale, bias, k_pw):
    # nnx.Conv(4, 4, kernel_size=(3, 3), feature_group_count=4, strides=1, padding='SAME', kernel_dilation=1)
    y = lax.conv_general_dilated(x, k_dw, (1, 1), "SAME", feature_group_count=4,
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))  # fmt: skip
    y = y + b_dw.reshape((1, 1, 1, -1))
    y = flax_group_norm(y, scale, bias, num_groups=2)
    y = jax.nn.swish(y)
    # nnx.Conv(4, 3, kernel_size=(1, 1), use_bias=False, kernel_dilation=(2, 2), padding='CIRCULAR') is a 1x1 conv
    y = lax.conv_general_dilated(y, k_pw, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = flax_max_pool(y, (2, 2), (2, 2))
    return jnp.sum(y**2)


# jax-ml/jax docs/notebooks/autodiff_cookbook.md


def cookbook_sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2) + 1)


# Outputs probability of a label being true.
def cookbook_predict(W, b, inputs):
    return cookbook_sigmoid(jnp.dot(inputs, W) + b)


def cookbook_hvp_loss(W, b, v):
    # Build a toy dataset.
    inputs = jnp.array([[0.52, 1.12,  0.77],
                        [0.88, -1.08, 0.15],
                        [0.52, 0.06, -1.30],
                        [0.74, -2.49, 1.39]])  # fmt: skip
    targets = jnp.array([True, True, False, True])

    # Training loss is the negative log-likelihood of the training examples.
    def loss(W, b):
        preds = cookbook_predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    def hvp_rev_rev(f, x, v):  # "hvp" as first defined: reverse-over-reverse
        return jax.grad(lambda x: jnp.vdot(jax.grad(f)(x), v))(x)

    def hvp_fwd_rev(f, primals, tangents):  # "forward-over-reverse"
        return jax.jvp(jax.grad(f), primals, tangents)[1]

    f = lambda W: loss(W, b)  # noqa: E731
    return jnp.sum(hvp_fwd_rev(f, (W,), (v,)) ** 2) + jnp.vdot(hvp_rev_rev(f, W, v), W)


# kingoflolz/mesh-transformer-jax mesh_transformer/layers.py (GPT-J)


def gptj_fixed_pos_embedding(x, seq_dim=0):
    dim = x.shape[-1]
    inv_freq = 1.0 / (10000 ** (np.arange(0, dim, 2) / dim))

    sinusoid_inp = np.einsum("i , j -> i j", np.arange(x.shape[seq_dim]), inv_freq)

    return np.sin(sinusoid_inp), np.cos(sinusoid_inp)


def gptj_rotate_every_two(x):
    x1 = x[:, :, ::2]  # upstream x[:, :, :, ::2]: the layer calls it on [seq, heads, dim] (see apply_rotary_pos_emb)
    x2 = x[:, :, 1::2]

    x = jnp.stack((-x2, x1), axis=-1)

    return x.reshape(x.shape[:-2] + (-1,))  # rearrange(x, '... d j -> ... (d j)')


def gptj_apply_rotary_pos_emb(x, sincos):
    # repeat(t, '... b n -> ... b (n j)', j=2)
    sin, cos = map(lambda t: jnp.repeat(t, 2, axis=-1)[-x.shape[-3]:, None, :], sincos)
    return (x * cos) + (gptj_rotate_every_two(x) * sin)


def gptj_layer_loss(x, scale, offset, wq, wv, wk, wo, w_in, b_in, w_out, b_out):
    heads, dim_per_head, pe_rotary_dims = 2, 4, 2
    # ReplicatedLayerNorm (one shard: all_gather is the identity)
    mean = jnp.mean(x, axis=-1, keepdims=True)
    variance = jnp.var(x, axis=-1, keepdims=True)
    inv = scale * jax.lax.rsqrt(variance + 1e-5)
    x = inv * (x - mean) + offset
    # qvk_proj
    q = (x @ wq).reshape(x.shape[:-1] + (heads, dim_per_head))
    v = (x @ wv).reshape(x.shape[:-1] + (heads, dim_per_head))
    k = (x @ wk).reshape(x.shape[:-1] + (heads, dim_per_head))
    seq_len = x.shape[0]
    causal_mask = np.tril(np.ones((seq_len, seq_len)))
    bias = -1e10 * (1.0 - causal_mask)
    # self_attn (is_rotary)
    k_rot = k[:, :, :pe_rotary_dims]
    k_pass = k[:, :, pe_rotary_dims:]
    q_rot = q[:, :, :pe_rotary_dims]
    q_pass = q[:, :, pe_rotary_dims:]
    sincos = gptj_fixed_pos_embedding(k_rot)
    q_rot = gptj_apply_rotary_pos_emb(q_rot, sincos)
    k_rot = gptj_apply_rotary_pos_emb(k_rot, sincos)
    k = jnp.concatenate([k_rot, k_pass], axis=-1)
    q = jnp.concatenate([q_rot, q_pass], axis=-1)
    attention_logits = jnp.einsum("thd,Thd->htT", q, k)
    sqrt_key_size = np.sqrt(dim_per_head).astype(k.dtype)
    attention_logits = attention_logits / sqrt_key_size
    attention_logits += bias
    attention_weights = jax.nn.softmax(attention_logits)
    attention_vec = jnp.einsum("htT,Thd->thd", attention_weights, v).reshape((-1, heads * dim_per_head))
    attn_out = attention_vec @ wo
    # ff
    dense_out = jax.nn.gelu(x @ w_in + b_in) @ w_out + b_out
    return jnp.sum((attn_out + dense_out) ** 2)


# jax-ml/jax jax/_src/scipy/special.py, jax/_src/scipy/stats/ (called as jax.scipy.*)


def scipy_special_loss(x, p, w, a):
    sp, st = jax.scipy.special, jax.scipy.stats
    k = (jnp.arange(x.shape[-1]) % 2).astype(x.dtype)  # Bernoulli outcomes 0, 1, 0, ...
    return (jnp.sum(st.bernoulli.logpmf(k, p))  # xlogy, xlog1py
            + jnp.sum(st.norm.logcdf(x))  # log_ndtr: a series for x < -5 and log1p(-ndtr(-x)) above
            + jnp.sum(sp.logsumexp(x, axis=-1, b=w))  # weighted, b > 0
            + jnp.sum(sp.entr(p)) + jnp.sum(sp.erf(x)) + jnp.sum(sp.erfc(a)) + jnp.sum(sp.ndtr(a))
            + jnp.sum(st.logistic.logpdf(x)) + jnp.sum(sp.log_softmax(a, axis=0)))  # fmt: skip


# jax-ml/jax docs/gradient-checkpointing.md, docs/notebooks/autodiff_cookbook.md


def remat_layer(W, x):
    return jnp.sin(jnp.dot(W, x))


def remat_predict(params, x):
    *Ws, Wlast = params
    for W in Ws:
        x = remat_layer(W, x)
    x = jnp.dot(Wlast, x)
    return x


def remat_loss(params, x, y):
    return jnp.sum((remat_predict(params, x) - y) ** 2)


def remat_hvp_loss(W1, W2, W3, x, y, v1, v2, v3):
    params, v = [W1, W2, W3], [v1, v2, v3]
    loss_checkpoint = jax.checkpoint(remat_loss, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    # the cookbook's hvp(f, x, v) = grad(lambda x: jnp.vdot(grad(f)(x), v))(x): this is the inner function,
    # whose gradient (taken by gradir) is the Hessian-vector product
    grads = jax.grad(loss_checkpoint)(params, x, y)
    return sum(jnp.vdot(g, u) for g, u in zip(grads, v))

# lucidrains/minGRU-pytorch minGRU_pytorch/minGRU.py, ported to JAX


def mingru_heinsen_associative_scan_log(log_coeffs, log_values):
    a_star = jnp.cumsum(log_coeffs, axis=1)  # log_coeffs.cumsum(dim = 1)
    log_h0_plus_b_star = lax.cumlogsumexp(log_values - a_star, axis=1)  # (...).logcumsumexp(dim = 1)
    log_h = a_star + log_h0_plus_b_star
    return jnp.exp(log_h)


def mingru_log_g(x):
    return jnp.where(x >= 0, jnp.log(jax.nn.relu(x) + 0.5), -jax.nn.softplus(-x))


def mingru_loss(w_hidden_and_gate, x, prev_hidden):
    # minGRU.forward, parallel branch, with prev_hidden; expansion_factor 1 (to_out is Identity)
    seq_len = x.shape[1]
    hidden, gate = jnp.split(x @ w_hidden_and_gate, 2, axis=-1)  # self.to_hidden_and_gate(x).chunk(2, dim = -1)
    log_coeffs = -jax.nn.softplus(gate)
    log_z = -jax.nn.softplus(-gate)
    log_tilde_h = mingru_log_g(hidden)
    log_values = log_z + log_tilde_h
    log_values = jnp.concatenate((mingru_log_g(prev_hidden), log_values), axis=1)
    log_coeffs = jnp.pad(log_coeffs, ((0, 0), (1, 0), (0, 0)))  # F.pad(log_coeffs, (0, 0, 1, 0))
    out = mingru_heinsen_associative_scan_log(log_coeffs, log_values)
    out = out[:, -seq_len:]
    return jnp.sum(out**2)

# google-deepmind/jraph jraph/_src/models.py (GraphConvolution, GAT), jraph/_src/utils.py
# (segment_softmax), jraph/examples/zacharys_karate_club.py


def jraph_graph_convolution(update_node_fn, nodes, senders, receivers, add_self_edges):
    # models.GraphConvolution's _ApplyGCN, symmetric_normalization=True, aggregate_nodes_fn=segment_sum
    nodes = update_node_fn(nodes)
    total_num_nodes = nodes.shape[0]
    if add_self_edges:
        conv_receivers = jnp.concatenate((receivers, jnp.arange(total_num_nodes)), axis=0)
        conv_senders = jnp.concatenate((senders, jnp.arange(total_num_nodes)), axis=0)
    else:
        conv_senders = senders
        conv_receivers = receivers
    count_edges = lambda x: jax.ops.segment_sum(jnp.ones_like(conv_senders), x, total_num_nodes)  # noqa: E731
    sender_degree = count_edges(conv_senders)
    receiver_degree = count_edges(conv_receivers)
    nodes = nodes * jax.lax.rsqrt(jnp.maximum(sender_degree, 1.0))[:, None]
    nodes = jax.ops.segment_sum(nodes[conv_senders], conv_receivers, total_num_nodes)
    return nodes * jax.lax.rsqrt(jnp.maximum(receiver_degree, 1.0))[:, None]


def jraph_karate_club_loss(w0, w1, nodes, senders, receivers):
    # network_definition: GCN(Linear(5, no bias), self edges), relu, GCN(Linear(2, no bias))
    nodes = jraph_graph_convolution(lambda n: n @ w0, nodes, senders, receivers, add_self_edges=True)
    nodes = jax.nn.relu(nodes)
    decoded_nodes = jraph_graph_convolution(lambda n: n @ w1, nodes, senders, receivers, add_self_edges=False)
    # optimize_club's prediction_loss: the first node in class 0, the last in class 1
    log_prob = jax.nn.log_softmax(decoded_nodes)
    return -(log_prob[0, 0] + log_prob[-1, 1])


def jraph_segment_softmax(logits, segment_ids, num_segments):
    maxs = jax.ops.segment_max(logits, segment_ids, num_segments)
    logits = logits - maxs[segment_ids]
    logits = jnp.exp(logits)
    normalizers = jax.ops.segment_sum(logits, segment_ids, num_segments)
    normalizers = normalizers[segment_ids]
    return logits / normalizers


def jraph_gat_loss(w_query, a_sender, a_receiver, nodes, senders, receivers):
    # models.GAT's _ApplyGAT with a one-head query Linear and the GAT paper's logit function
    sum_n_node = nodes.shape[0]
    nodes = nodes @ w_query  # attention_query_fn
    sent_attributes = nodes[senders]
    received_attributes = nodes[receivers]
    softmax_logits = jax.nn.leaky_relu(sent_attributes @ a_sender + received_attributes @ a_receiver,
                                       negative_slope=0.2)  # fmt: skip
    weights = jraph_segment_softmax(softmax_logits, receivers, sum_n_node)
    messages = sent_attributes * weights[:, None]
    nodes = jax.ops.segment_sum(messages, receivers, num_segments=sum_n_node)
    nodes = jax.nn.leaky_relu(nodes)  # the default node_update_fn, one head
    return jnp.sum(jnp.tanh(nodes) ** 2)


# google-deepmind/optax optax/projections/_projections.py


def optax_projection_unit_simplex(values):
    s = 1
    n_features = values.shape[0]
    u = jnp.sort(values)[::-1]
    cumsum_u = jnp.cumsum(u)
    ind = jnp.arange(n_features) + 1
    cond = s / ind + (u - cumsum_u / ind) > 0
    idx = jnp.count_nonzero(cond)
    return jax.nn.relu(s / idx + (values - cumsum_u[idx - 1] / idx))


def optax_sparsemax_rows_loss(logits, targets):
    probabilities = jax.vmap(optax_projection_unit_simplex)(logits)  # sparsemax of each row
    return jnp.sum((probabilities - targets) ** 2)


# ---------------------------------------------------------------- what is exported


@dataclass(frozen=True)
class Spec:
    name: str
    function_name: str
    args: tuple  # (shape, dtype name, role); role: "data", "weight" (scaled by 1/sqrt(fan-in)), "labels<N>",
    #              "positive" (no sign), "normal" (standard normal), "uniform<lo>,<hi>", "onehot<N>" (one-hot rows),
    #              "bernoulli" (bool) or "leftpad<k>" (bool rows, the first k False)
    what: str
    source: str = ""  # the upstream program (repo, path, commit) and how it was changed; a header line when set
    helpers: tuple = ()  # names of functions the program calls, whose source the header shows too
    grad_mode: str = "rev"  # "fwd": the reference gradient is jax.jacfwd (JAX has no reverse mode for while_loop)
    reference_rtol: str = ""  # the corpus comparison's rtol, and why, where JAX's float64 reference cannot be exact

    @property
    def function(self):
        return globals()[self.function_name]

    @property
    def wrt(self) -> tuple[int, ...]:
        return tuple(i for i, (_, dtype, _) in enumerate(self.args) if dtype.startswith("float"))


JAX_REPO = "jax-ml/jax (commit cec06d116c05f0d52adfceee3d3b730fdbcb0ce5) "
FLAX = "google/flax (commit 18f8f311c275d57f46d95e41b15aa97b454754c0) "
OPTAX = "google-deepmind/optax (commit 01be1bf394dc7baa327ba03b55af9d95d2168ee1) "

SPECS = [
    Spec("mlp", "mlp_loss", (((3, 5), "float32", "weight"), ((5,), "float32", "data"), ((5, 2), "float32", "weight"),
                             ((2,), "float32", "data"), ((4, 3), "float32", "data"), ((4, 2), "float32", "data")),
         "two-layer tanh MLP with a mean squared error: linalg.matmul on a zero fill, bias broadcasts through "
         "`(d0, d1) -> (0, d1)` maps, a 0-d reduction, a 0-d divide generic"),
    Spec("layer_norm", "layer_norm_loss", (((4, 6), "float32", "data"), ((6,), "float32", "data"),
                                           ((6,), "float32", "data")),
         "layer normalisation (jnp.mean, jnp.var, lax.rsqrt) then sum(tanh(.)): row reductions, "
         "`(d0, 0)` broadcast maps, math.rsqrt"),
    Spec("attention", "attention_loss", (((4, 3), "float32", "data"), ((3, 3), "float32", "weight"),
                                         ((3, 3), "float32", "weight"), ((3, 3), "float32", "weight")),
         "single-head self-attention, softmax(q kᵀ / sqrt(d)) v, then sum of squares: matmuls, a transpose "
         "generic, jax.nn.softmax's max-shifted exp (arith.maximumf reduction from -inf)"),
    Spec("logsumexp", "logsumexp_loss", (((3, 4), "float32", "data"),),
         "jax.nn.logsumexp over rows, summed: a maximumf reduction from -inf, is_finite as absf + cmpf, a "
         "select, exp, a sum, absf, log"),
    Spec("cross_entropy", "cross_entropy_loss", (((3, 5), "float32", "weight"), ((5,), "float32", "data"),
                                                 ((4, 3), "float32", "data"), ((4,), "int32", "labels5")),
         "linear layer, jax.nn.log_softmax, jnp.take_along_axis with integer labels (a gather: tensor.extract "
         "at clamped data indices in a generic body), negative mean"),
    Spec("rnn", "rnn_loss", (((3, 3), "float32", "weight"), ((2, 3), "float32", "weight"), ((3,), "float32", "data"),
                             ((2, 3), "float32", "data"), ((5, 2, 2), "float32", "data")),
         "tanh RNN over 5 steps with lax.scan (batch 2): scf.while (from stablehlo.while) carrying a tensor<i32> "
         "counter, the state and the stacked outputs; dynamic extract_slice/insert_slice at the clamped counter"),
    Spec("mnist_fromscratch", "mnist_fromscratch_loss",
         (((6, 5), "float32", "weight"), ((5,), "float32", "weight"), ((5, 3), "float32", "weight"),
          ((3,), "float32", "weight"), ((4, 6), "float32", "data"), ((4, 3), "float32", "onehot3")),
         "JAX's MNIST example from scratch: a tanh MLP over a list of (w, b) pairs, log-probabilities by "
         "jax.scipy.special.logsumexp(keepdims=True) (its max shift under stop_gradient), one-hot cross entropy",
         JAX_REPO + "examples/mnist_classifier_fromscratch.py: `predict` (as mnist_predict) and `loss`; layer "
         "sizes [6, 5, 3] for [784, 1024, 1024, 10], params and batch as flat arguments",
         helpers=("mnist_predict",)),
    Spec("vae", "vae_loss",
         (((6, 4), "float32", "weight"), ((4,), "float32", "weight"), ((4, 2), "float32", "weight"),
          ((2,), "float32", "weight"), ((4, 2), "float32", "weight"), ((2,), "float32", "weight"),
          ((2, 4), "float32", "weight"), ((4,), "float32", "weight"), ((4, 6), "float32", "weight"),
          ((6,), "float32", "weight"), ((3, 6), "bool", "bernoulli")),
         "the MNIST VAE's negative ELBO: stax Dense/Relu/FanOut/parallel/Softplus encoder and decoder, "
         "jax.random.normal from a fixed key (threefry2x32 in integer ops, erf_inv), jnp.logaddexp, jnp.where on "
         "bool images (an i1 argument), log, sqrt",
         JAX_REPO + "examples/mnist_vae.py: `elbo` (as vae_elbo) and the objective -elbo / batch_size, the rng "
         "fixed to fold_in(key(0), 1), random.normal drawn in float32 (the float64 reference draws the same "
         "numbers); encoder and decoder with one hidden Dense(4) for two Dense(512), 6-pixel "
         "binary images",
         helpers=("vae_gaussian_kl", "vae_gaussian_sample", "vae_bernoulli_logpdf", "vae_models", "vae_elbo")),
    Spec("advi", "advi_objective", (((2,), "float32", "data"), ((2,), "float32", "data")),
         "automatic differentiation variational inference on the funnel density: random.split and vmap over keys, "
         "random.normal (threefry, erf_inv), jax.scipy.stats.norm.logpdf with exp scales, vmap(norm.logpdf)",
         JAX_REPO + "examples/advi.py: `objective` (rng = random.key(t), t = 3) with 8 samples for 40; helper "
         "names prefixed advi_; random.normal drawn in float32 (the float64 reference draws the same numbers)",
         helpers=("advi_diag_gaussian_sample", "advi_diag_gaussian_logpdf", "advi_elbo", "advi_batch_elbo",
                  "advi_funnel_log_density"),
         reference_rtol="2e-6 JAX draws the normal noise in float32 (its erf_inv is up to 8e-7 off the true one); "
                        "gradir's f64 check computes the same draw's erf_inv in f64, and the objective (8 samples of "
                        "exp(log_std) scales) carries the difference: 2.4e-7 of the value seen"),
    Spec("vmapped_log_probs", "vmapped_log_probs_elbo",
         (((3,), "float32", "data"), ((3,), "float32", "data"), ((4, 3), "float32", "normal")),
         "Bayesian logistic regression ELBO: a jitted log-joint (norm.logpdf prior, log(1 + exp(.)) likelihood on "
         "dense f32/i32 data constants) batched by jax.vmap under jax.jit, reparameterised samples",
         JAX_REPO + "docs/notebooks/vmapped_log_probs.md: `log_joint` and `elbo` of 'Self-contained variational "
         "inference example'; the fake data set generated as there, 3 features and 8 points for 10 and 100",
         helpers=("vmapped_log_probs_data",)),
    Spec("conv_strided_atrous", "conv_strided_atrous_loss",
         (((1, 6, 6, 2), "float32", "data"), ((3, 3, 2, 2), "float32", "weight")),
         "lax.conv_general_dilated in NHWC/HWIO: SAME padding with stride 2 (padding (0, 1)), and VALID with "
         "rhs (kernel) dilation 2 (atrous), sums of squares",
         JAX_REPO + "docs/notebooks/convolutions.md: the 'SAME padding, 2,2 stride' and 'rhs kernel dilation ~ "
         "Atrous convolution' calls (dilation 2 for 12), on a 1x6x6x2 image with a 3x3x2x2 kernel",
         ),
    Spec("conv_transposed", "conv_transposed_loss",
         (((1, 3, 3, 2), "float32", "data"), ((3, 3, 2, 2), "float32", "weight")),
         "transposed convolutions: lax.conv_general_dilated with lhs (input) dilation 2, and the 180-degree "
         "rotated kernel (jnp.rot90 twice: reverse) with padding ((2, 1), (2, 1))",
         JAX_REPO + "docs/notebooks/convolutions.md: the 'lhs=input dilation ~ Transposed Convolution' call and "
         "the tf.nn.conv2d_transpose equivalent, on a 1x3x3x2 image with a 3x3x2x2 kernel",
         ),
    Spec("flax_lstm", "flax_lstm_loss",
         (((4, 2, 3), "float32", "weight"), ((4, 3, 3), "float32", "weight"), ((4, 3), "float32", "weight"),
          ((4, 2, 2), "float32", "data"), ((4, 2, 3), "float32", "data")),
         "Flax's LSTMCell (sigmoid gates, tanh) run by lax.scan over 4 steps (batch 2), zero initial carry, "
         "mean squared error of the outputs: a tuple carry, stacked gate weights indexed per gate",
         FLAX + "flax/linen/recurrent.py `LSTMCell.__call__` with its eight Dense layers as stacked arrays "
         "(wi[gate] without bias, wh[gate] and bh[gate]), scanned time-major as nn.RNN does",
         helpers=("flax_lstm_cell",)),
    Spec("flax_gru", "flax_gru_loss",
         (((3, 2, 3), "float32", "weight"), ((3, 3), "float32", "weight"), ((3, 3, 3), "float32", "weight"),
          ((3,), "float32", "weight"), ((2, 3), "float32", "data"), ((5, 2, 2), "float32", "data")),
         "Flax's GRUCell run by lax.fori_loop over 5 steps reading xs[t] (a dynamic slice at the loop counter), "
         "sum of squares of the last state",
         FLAX + "flax/linen/recurrent.py `GRUCell.__call__` with its six Dense layers as stacked arrays, driven "
         "by lax.fori_loop instead of nn.RNN",
         helpers=("flax_gru_cell",)),
    Spec("cookbook_transformer", "cookbook_loss",
         (((6, 4), "float32", "weight"), ((4, 4), "float32", "data"), ((3, 4, 2, 2), "float32", "weight"),
          ((2, 2, 4), "float32", "weight"), ((4, 8), "float32", "weight"), ((8, 4), "float32", "weight"),
          ((4, 6), "float32", "weight"), ((1, 4), "int32", "labels6"), ((1, 4), "int32", "labels6")),
         "the JAX training cookbook's transformer: embedding gather (.at[tokens].get), 4-d einsums, "
         "jax.nn.dot_product_attention(is_causal=True), jnp.linalg.norm normalisation with rsqrt, tanh GELU, "
         "one_hot and log_softmax cross entropy",
         JAX_REPO + "docs/the-training-cookbook.py: `model_apply` (config replaced by num_layers, out_sharding "
         "arguments dropped) and train_step's `loss_fn`; 1 layer, embed 4, 2 heads of 2, mlp 8, vocab 6, "
         "sequence 4 (upstream 4 layers, 512, 8 x 128, 2048, 256, 128)",
         helpers=("dot_dict", "cookbook_model_apply")),
    Spec("gemma_block", "gemma_block_loss",
         (((1, 4, 4), "float32", "data"), ((4,), "float32", "data"), ((4, 4, 2), "float32", "weight"),
          ((2, 2, 4, 2), "float32", "weight"), ((4, 2, 4), "float32", "weight"), ((4,), "float32", "data"),
          ((4,), "float32", "data"), ((4, 6), "float32", "weight"), ((4, 6), "float32", "weight"),
          ((6, 4), "float32", "weight"), ((4,), "float32", "data"), ((1, 4), "bool", "leftpad1")),
         "a Gemma transformer block: RMSNorm, q/kv einsums, RoPE (jnp.split, sin/cos, concatenate), grouped-query "
         "attention (5-d einsums, reshapes), tanh soft-capping, sliding-window and causal masks (triu/tril on "
         "bool, jnp.where with -2.38e38), positions from an input mask by jnp.cumsum, gated GELU feed-forward",
         FLAX + "examples/gemma: layers.py RMSNorm, positional_embeddings.py apply_rope, modules.py "
         "Attention/FeedForward/Block.__call__ (local sliding attention, window 2, soft cap 50, post norms; no "
         "cache, no dropout), transformer.py build_positions_from_mask and make_causal_attn_mask, inlined as "
         "functions of the parameters; 4 heads, 2 kv heads, head_dim 2, features 4, hidden 6; loss mean(x**2)",
         helpers=("gemma_rms_norm", "gemma_apply_rope", "gemma_attention")),
    Spec("ode_dopri", "ode_dopri_loss",
         (((2,), "float32", "data"), ((), "float32", "positive"), ((), "float32", "positive")),
         "the damped pendulum integrated by 4 fixed Dormand-Prince steps: lax.fori_loop nested in lax.fori_loop, "
         "gathers from constant Butcher tableaux at the loop counter, dynamic_update_slice of the stage matrix, "
         "jnp.array of scalars (concatenate), 0-d float arguments",
         JAX_REPO + "jax/experimental/ode.py `runge_kutta_step` (its two .at[...].set updates written as "
         "lax.dynamic_update_slice: the stablehlo.scatter they lower to does not export) with tests/ode_test.py's `pend`, "
         "stepped by a fixed-step fori_loop instead of odeint's adaptive while_loop and custom_vjp",
         helpers=("runge_kutta_step", "ode_pend")),
    Spec("newton_sqrt", "newton_sqrt_loss", (((4,), "float32", "positive"), ((), "float32", "positive")),
         "Newton's square root by fixed-point iteration, lax.while_loop until |x_prev - x| <= 1e-6 (a trip "
         "count that depends on the data), scalar and vmapped (a batched while: any() of the predicates, "
         "selects); JAX's reference is jax.jacfwd (no reverse mode for while_loop)",
         JAX_REPO + "docs/notebooks/Custom_derivative_rules_for_Python_code.md: `fixed_point` and `newton_sqrt` "
         "as first written there (before custom_vjp), summed over a vmapped vector plus one scalar",
         helpers=("fixed_point", "newton_sqrt"), grad_mode="fwd"),
    Spec("jaxpr_cond", "jaxpr_cond_loss",
         (((), "int32", "labels3"), ((3,), "float32", "data"), ((3,), "float32", "data"), ((1,), "float32", "data"),
          ((), "float32", "data")),
         "lax.switch on an integer argument (3 branches) and lax.cond on float predicates, plain (scf.if chains) "
         "and vmapped (selects), a branch with a hoisted constant and a pair operand",
         JAX_REPO + "docs/jaxpr.md: `one_of_three`, `func7` and `func8` (the branch constant jnp.array([1]) as "
         "written there), combined into one loss of squares",
         helpers=("one_of_three", "func7", "func8")),
    Spec("gp_kernel", "gp_kernel_loss",
         (((), "float32", "data"), ((), "float32", "data"), ((), "float32", "data"), ((6, 1), "float32", "data"),
          ((6,), "float32", "data"), ((3, 1), "float32", "data")),
         "Gaussian-process covariances: cov_map as nested jax.vmap of a squared-exponential kernel (train, cross "
         "and test), softplus by jnp.logaddexp of 0-d parameters, jnp.eye, transposes, diag",
         "jax-ml/jax (commit 035c1e566d61d759eb20106ae47df47f6284975f, before c856560f0e removed it) "
         "examples/gaussian_process_regression.py `gp` without its Cholesky solves (jax.scipy.linalg.cholesky "
         "exports a LAPACK stablehlo.custom_call): y K y + |K_x*^T y|^2 + trace(K_**) instead of the marginal "
         "likelihood; 6 training points, 3 test points",
         helpers=("gp_cov_map", "gp_softplus", "gp_exp_quadratic")),
    Spec("td_lambda", "rlax_td_lambda_loss",
         (((6,), "float32", "data"), ((6,), "float32", "data"), ((6,), "float32", "uniform0.5,1.0"),
          ((6,), "float32", "data")),
         "TD(lambda) errors: lax.scan(reverse=True) for the lambda-returns, lax.select on a constant predicate "
         "between a stop_gradient'ed value and the value itself (stop_target_gradients=False: the gradient "
         "flows), squared",
         "google-deepmind/rlax (commit 4c5d25b2609879d321f5a432cdf88165574e57a7) rlax/_src/multistep.py "
         "`lambda_returns` and rlax/_src/value_learning.py `td_lambda` without the chex assertions, called with "
         "lambda 0.9 and stop_target_gradients=False, loss 0.5 * sum(td**2)",
         helpers=("lambda_returns", "td_lambda")),
    Spec("truncated_normal", "truncated_normal_loss",
         (((4,), "float32", "uniform-1.5,-0.5"), ((4,), "float32", "uniform0.5,1.5"), ((4,), "float32", "uniform0.1,0.9")),
         "reparameterised truncated-normal samples, differentiated wrt their bounds: lax.erf, lax.erf_inv (jaxlib "
         "expands chlo.erf_inv into polynomials and a select for |u| == 1 on u * inf), jnp.clip between "
         "lax.nextafter of stop_gradient'ed bounds",
         JAX_REPO + "jax/_src/random/core.py `_truncated_normal` with its `uniform(key, ...)` draw written "
         "out as a + (b - a) * u01 from an argument u01 (the threefry bits do not run, see vae), loss mean(x**2)",
         helpers=("truncated_normal_sample",)),
    # ---- added from public JAX-ecosystem code (optax, numpyro, flax, GPT-J, JAX's docs and library)
    Spec("optax_regression", "optax_regression_loss",
         (((6,), "float32", "data"), ((6,), "float32", "data"), ((3, 4), "float32", "data"),
          ((3, 4), "float32", "data")),
         "optax's regression losses: huber_loss (jnp.abs, jnp.minimum with delta 1: errors on both sides), log_cosh "
         "(jnp.logaddexp(e, -e)), cosine_distance (sum of squares .clip(epsilon) with min only, sqrt, divide)",
         OPTAX + "optax/losses/_regression.py `huber_loss`, `log_cosh`, `cosine_similarity`, `cosine_distance` "
         "without the utils.check_* calls, prefixed optax_; the means of the three summed",
         helpers=("optax_huber_loss", "optax_log_cosh", "optax_cosine_similarity", "optax_cosine_distance")),
    Spec("optax_classification", "optax_classification_loss",
         (((4, 3), "float32", "data"), ((4, 5), "float32", "data"), ((4, 5), "float32", "data"),
          ((4, 5), "float32", "positive"), ((4, 3), "int32", "labels2"), ((4,), "int32", "labels5")),
         "optax's classification losses: sigmoid_binary_cross_entropy (jax.nn.log_sigmoid of x and -x), hinge_loss "
         "(jnp.maximum(0, .), some active), multiclass_hinge_loss and multiclass_perceptron_loss (jnp.max over "
         "classes, one_hot, jnp.vectorize(jnp.dot)), poly_loss_cross_entropy (softmax and log_softmax), "
         "generalized_kl_divergence (jnp.where(targets == 0, 0, log))",
         OPTAX + "optax/losses/_classification.py `sigmoid_binary_cross_entropy`, `hinge_loss`, "
         "`multiclass_hinge_loss`, `multiclass_perceptron_loss`, `softmax_cross_entropy`, `poly_loss_cross_entropy`, "
         "`kl_divergence`, `generalized_kl_divergence` without the utils.check_* calls, prefixed optax_; hinge "
         "targets 2 * labels - 1; the means summed",
         helpers=("optax_sigmoid_binary_cross_entropy", "optax_hinge_loss", "optax_multiclass_hinge_loss",
                  "optax_multiclass_perceptron_loss", "optax_softmax_cross_entropy", "optax_poly_loss_cross_entropy",
                  "optax_kl_divergence", "optax_generalized_kl_divergence")),
    Spec("optax_ctc", "optax_ctc_loss",
         (((2, 5, 3), "float32", "data"),),
         "optax's CTC loss: log_softmax, one_hot einsums, jnp.pad, lax.scan with a pair carry of log-alphas "
         "(jnp.logaddexp, concatenate of slices, padding masks), .at[:, 0].set on the initial alphas, label "
         "repeats (labels [2, 2]) and a padded frame and label",
         OPTAX + "optax/losses/_classification.py `ctc_loss_with_forward_probs` (utils.check_* calls dropped) and "
         "`ctc_loss`, the paddings and labels fixed in the wrapper (B=2, T=5, K=3, N=3), loss the mean",
         helpers=("optax_ctc_loss_with_forward_probs",)),
    Spec("nn_activations", "jax_nn_activations_loss",
         (((3, 4), "float32", "data"), ((3, 4), "float32", "data")),
         "jax.nn's activations on mixed-sign inputs: gelu exact (erf) and tanh, silu, softplus, log_sigmoid, elu, "
         "selu, celu, mish, squareplus, soft_sign, sparse_plus, leaky_relu, hard_tanh, relu6, hard_swish (both "
         "sides of their kinks), standardize, glu (split in halves)",
         JAX_REPO + "jax/_src/nn/functions.py: the activations as jax.nn exports them, each weighted by an argument "
         "c and summed (glu squared)"),
    Spec("numpyro_dirichlet", "numpyro_dirichlet_potential",
         (((4,), "float32", "data"), ((5,), "float32", "positive")),
         "numpyro's unconstrained Dirichlet density: StickBreakingTransform (expit clipped by jnp.clip, "
         "jnp.cumprod, jnp.pad with constant 1), its log_abs_det_jacobian (log_sigmoid) and Dirichlet.log_prob "
         "(jax.scipy.special.gammaln: lgamma, digamma in the gradient wrt the concentration)",
         "pyro-ppl/numpyro (commit 39d1a15a43b8bc0ef5a70070b81655b46f18d1be) numpyro/distributions/transforms.py "
         "`_clipped_expit` (jnp.clip with positional bounds), StickBreakingTransform.__call__ and "
         "log_abs_det_jacobian, numpyro/distributions/continuous.py Dirichlet.log_prob, as functions; potential "
         "-(log_prob(T(x)) + log|det J|) as numpyro's potential_fn builds it for a Dirichlet(5) site",
         helpers=("numpyro_clipped_expit", "numpyro_stick_breaking", "numpyro_stick_breaking_log_abs_det_jacobian",
                  "numpyro_dirichlet_log_prob")),
    Spec("flax_depthwise", "flax_depthwise_block_loss",
         (((1, 4, 4, 4), "float32", "data"), ((3, 3, 1, 4), "float32", "weight"), ((4,), "float32", "data"),
          ((4,), "float32", "data"), ((4,), "float32", "data"), ((1, 1, 4, 3), "float32", "weight")),
         "a depthwise-separable block: lax.conv_general_dilated with feature_group_count=4 (SAME), Flax GroupNorm "
         "(2 groups: reshape to groups, mean of squares minus squared mean, jnp.repeat of the statistics), swish, a "
         "1x1 convolution, max_pool (lax.reduce_window max from -inf, stride 2)",
         FLAX + "flax/linen/pooling.py `pool`/`max_pool`, flax/nnx/nn/normalization.py GroupNorm.__call__ with "
         "_compute_stats (use_fast_variance) and _normalize inlined, nnx.Conv's conv_general_dilated call with "
         "feature_group_count, composed as a MobileNet-style block of 4 channels on a 1x4x4 image; loss sum(y**2)",
         helpers=("flax_pool", "flax_max_pool", "flax_group_norm")),
    Spec("cookbook_hvp", "cookbook_hvp_loss",
         (((3,), "float32", "data"), ((), "float32", "data"), ((3,), "float32", "data")),
         "Hessian-vector products of the autodiff cookbook's logistic regression: jax.jvp of jax.grad "
         "(forward-over-reverse) and jax.grad of vdot(grad, v) (reverse-over-reverse), so the exported program is "
         "second order and gradir differentiates it a third time",
         JAX_REPO + "docs/notebooks/autodiff_cookbook.md: `sigmoid`, `predict`, the toy dataset and `loss`, the two "
         "`hvp` definitions, combined as sum(hvp_fwd_rev**2) + vdot(hvp_rev_rev, W)",
         helpers=("cookbook_sigmoid", "cookbook_predict")),
    Spec("gptj_layer", "gptj_layer_loss",
         (((4, 8), "float32", "data"), ((8,), "float32", "data"), ((8,), "float32", "data"),
          ((8, 8), "float32", "weight"), ((8, 8), "float32", "weight"), ((8, 8), "float32", "weight"),
          ((8, 8), "float32", "weight"), ((8, 16), "float32", "weight"), ((16,), "float32", "data"),
          ((16, 8), "float32", "weight"), ((8,), "float32", "data")),
         "a GPT-J layer: layer norm, partial rotary embeddings with interleaved pairs (strided slices x[..., ::2] "
         "and x[..., 1::2], jnp.stack, reshape, jnp.repeat of the sin/cos tables), einsum attention with a -1e10 "
         "causal bias, tanh GELU feed-forward in parallel with attention",
         "kingoflolz/mesh-transformer-jax (commit 02850c46c6b9d957b2a9214c2c6c291269648792) "
         "mesh_transformer/layers.py `fixed_pos_embedding`, `rotate_every_two`, `apply_rotary_pos_emb` (einops "
         "rearrange/repeat written as reshape/jnp.repeat; rotate_every_two indexes 3-d as the layer calls it) and "
         "TransformerLayerShard (ReplicatedLayerNorm on one shard, qvk_proj, self_attn, ff; hk.Linear as matmuls) "
         "as one function; d_model 8, 2 heads of 4, rotary dims 2, ff 16 (upstream 4 * d_model); loss sum of squares",
         helpers=("gptj_fixed_pos_embedding", "gptj_rotate_every_two", "gptj_apply_rotary_pos_emb")),
    Spec("scipy_special", "scipy_special_loss",
         (((2, 4), "float32", "data"), ((4,), "float32", "uniform0.1,0.9"), ((2, 4), "float32", "positive"),
          ((3,), "float32", "data")),
         "jax.scipy special functions and log densities: bernoulli.logpmf (xlogy, xlog1py), norm.logcdf (log_ndtr's "
         "piecewise series and select), logsumexp with b= weights, entr, erf, erfc, ndtr, logistic.logpdf, "
         "log_softmax",
         JAX_REPO + "jax/_src/scipy/special.py and jax/_src/scipy/stats/{bernoulli,norm,logistic}.py as "
         "jax.scipy exports them, summed"),
    Spec("remat_hvp", "remat_hvp_loss",
         (((3, 3), "float32", "weight"), ((3, 3), "float32", "weight"), ((3, 3), "float32", "weight"),
          ((3,), "float32", "data"), ((3,), "float32", "data"), ((3, 3), "float32", "data"),
          ((3, 3), "float32", "data"), ((3, 3), "float32", "data")),
         "a Hessian-vector product through jax.checkpoint: jax.grad of a loss checkpointed with "
         "dots_with_no_batch_dims_saveable (the export holds its backward pass, whose rematerialised forward "
         "starts at a stablehlo.optimization_barrier of its inputs), contracted with v; gradir's gradient of it "
         "is the HVP",
         JAX_REPO + "docs/gradient-checkpointing.md: `loss`, `predict`, `layer` (prefixed remat_) and "
         "`loss_checkpoint = jax.checkpoint(loss, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)`; "
         "with docs/notebooks/autodiff_cookbook.md's `hvp` inner function lambda x: jnp.vdot(grad(f)(x), v); "
         "4x4 weights as 3x3",
         helpers=("remat_layer", "remat_predict", "remat_loss")),
    Spec("mingru", "mingru_loss",
         (((3, 6), "float32", "weight"), ((2, 5, 3), "float32", "data"), ((2, 1, 3), "float32", "data")),
         "the log-space minGRU (Heinsen sequence): softplus gates, jnp.where log_g, jnp.cumsum and "
         "lax.cumlogsumexp along the sequence (a reduce_window whose body is logaddexp), jnp.pad, concatenate, "
         "exp",
         "lucidrains/minGRU-pytorch (commit 270743367e9d9d1ea7e2fc0fba4145e3cc8c2c8c) minGRU_pytorch/minGRU.py "
         "`heinsen_associative_scan_log`, `log_g` and minGRU.forward's parallel branch with prev_hidden, ported "
         "from PyTorch to JAX op for op (cumsum -> jnp.cumsum, logcumsumexp -> lax.cumlogsumexp, chunk -> jnp.split, "
         "F.pad -> jnp.pad, Linear without bias -> matmul); dim 3, expansion_factor 1, batch 2, sequence 5; loss "
         "sum(out**2)",
         helpers=("mingru_heinsen_associative_scan_log", "mingru_log_g")),
    Spec("numpyro_dirichlet_init", "numpyro_dirichlet_potential_at_init",
         (((4,), "float32", "data"), ((5,), "float32", "uniform0.0,0.0")),
         "numpyro_dirichlet at the usual initialisation of a positive parameter: concentration exp(0) = 1.0 "
         "exactly, where jaxlib's expansion of gammaln (lgamma) evaluates its unselected reflection branch at "
         "log(sin(0)) = -inf",
         "pyro-ppl/numpyro (commit 39d1a15a43b8bc0ef5a70070b81655b46f18d1be) as numpyro_dirichlet, with the "
         "concentration read through ExpTransform (numpyro/distributions/transforms.py, biject_to(positive)) from "
         "its unconstrained value 0, as numpyro.param(..., jnp.ones(5), constraint=positive) stores it",
         helpers=("numpyro_clipped_expit", "numpyro_stick_breaking", "numpyro_stick_breaking_log_abs_det_jacobian",
                  "numpyro_dirichlet_log_prob", "numpyro_dirichlet_potential")),
    Spec("dpsgd_cnn", "dpsgd_cnn_loss",
         (((3, 3, 1, 2), "float32", "weight"), ((1, 1, 1, 2), "float32", "weight"), ((8, 3), "float32", "weight"),
          ((3,), "float32", "weight"), ((3, 6, 6, 1), "float32", "data"), ((3, 3), "float32", "onehot3")),
         "the DP-SGD example's stax CNN and loss: stax.Conv (SAME, stride 2: asymmetric padding), Relu, "
         "stax.MaxPool (lax.reduce_window max from -inf), Flatten, Dense, stax.logsoftmax, one-hot cross entropy",
         JAX_REPO + "examples/differentially_private_sgd.py: `loss` with its stax.serial model reduced to "
         "Conv(2, (3, 3), SAME, (2, 2)), Relu, MaxPool((2, 2), (1, 1)), Flatten, Dense(3) (upstream: two conv "
         "blocks, Dense(32), Dense(10)); the model built by dpsgd_model; 6x6 images",
         helpers=("dpsgd_model", "dpsgd_loss")),
    Spec("dpsgd_private_grad", "dpsgd_private_grad_loss",
         (((3, 3, 1, 2), "float32", "weight"), ((1, 1, 1, 2), "float32", "weight"), ((8, 3), "float32", "weight"),
          ((3,), "float32", "weight"), ((3, 6, 6, 1), "float32", "data"), ((3, 3), "float32", "onehot3")),
         "DP-SGD's per-example clipped gradients: vmap(grad(loss)) over the batch (a second-order program: the "
         "export holds the CNN's backward pass), jnp.linalg.norm of the gradient pytree, maximum(norm / clip, 1) "
         "(some examples clipped, some not), summed and squared",
         JAX_REPO + "examples/differentially_private_sgd.py: `clipped_grad` and `private_grad` without the "
         "Gaussian noise, returning the squared norm of the averaged clipped gradients; the model as in dpsgd_cnn "
         "but with stax.AvgPool for MaxPool (grad of max pooling exports a stablehlo.select_and_scatter)",
         helpers=("dpsgd_model", "dpsgd_loss", "dpsgd_clipped_grad")),
    Spec("flax_cnn", "flax_cnn_loss",
         (((3, 3, 1, 2), "float32", "weight"), ((2,), "float32", "weight"), ((2,), "float32", "data"),
          ((2,), "float32", "data"), ((3, 3, 2, 2), "float32", "weight"), ((2,), "float32", "weight"),
          ((2,), "float32", "data"), ((2,), "float32", "data"), ((8, 4), "float32", "weight"),
          ((4,), "float32", "weight"), ((4, 3), "float32", "weight"), ((3,), "float32", "weight"),
          ((2, 8, 8, 1), "float32", "data"), ((2,), "int32", "labels3")),
         "Flax's MNIST CNN: Conv (SAME) -> BatchNorm with batch statistics (mean of squares minus squared mean, "
         "max(0, .), rsqrt) -> relu -> avg_pool (lax.reduce_window add, stride 2), twice, then two Dense layers "
         "and softmax cross entropy with integer labels (take_along_axis, logsumexp); conv biases cancel in "
         "BatchNorm (zero gradient)",
         "google/flax (commit 18f8f311c275d57f46d95e41b15aa97b454754c0) examples/mnist/train.py `CNN` and "
         "`loss_fn` as one function of its parameters, with flax/linen/pooling.py `pool`/`avg_pool` and "
         "flax/nnx/nn/normalization.py BatchNorm (_compute_stats, _normalize) inlined; dropout dropped (eval "
         "mode), 2 and 2 channels for 32 and 64, Dense(4) for Dense(256), 3 classes, 8x8 images; optax's "
         "softmax_cross_entropy_with_integer_labels written out",
         helpers=("flax_pool", "flax_avg_pool", "flax_batch_norm", "flax_conv")),
    Spec("ppo_loss", "ppo_loss",
         (((6, 4), "float32", "weight"), ((4,), "float32", "weight"), ((4, 3), "float32", "weight"),
          ((3,), "float32", "weight"), ((4, 1), "float32", "weight"), ((1,), "float32", "weight"),
          ((5, 2, 3), "float32", "data"), ((5,), "int32", "labels3"), ((5,), "float32", "uniform-1.6,-0.6"),
          ((5,), "float32", "data"), ((5,), "float32", "data")),
         "the PPO loss: clipped surrogate (lax.clamp, jnp.minimum), advantage normalisation (mean, std), value "
         "loss, entropy bonus; vmap(lambda lp, a: lp[a]) gathers the taken actions' log-probabilities",
         FLAX + "examples/ppo/ppo_lib.py `loss_fn` (clip 0.1, vf_coeff 0.5, entropy_coeff 0.01) with "
         "agent.policy_action and models.ActorCritic reduced to one Dense(4)+relu trunk with policy "
         "(log_softmax) and value heads (upstream: three convolutions and Dense(512)); 5 samples, 3 actions",
         helpers=("ppo_actor_critic",)),
    Spec("jraph_karate_club", "jraph_karate_club_loss",
         (((4, 5), "float32", "weight"), ((5, 2), "float32", "weight"), ((6, 4), "float32", "data"),
          ((9,), "int32", "labels6"), ((9,), "int32", "labels6")),
         "jraph's two-layer graph convolutional network: node degrees by jax.ops.segment_sum of int32 ones, "
         "rsqrt normalisation, messages gathered at the senders and summed at the receivers (stablehlo.scatter "
         "with an add update), self edges by concatenate, relu, log-softmax loss on two nodes",
         "google-deepmind/jraph (commit 51f5990104f7374492f8f3ea1cbc47feb411c69c) jraph/_src/models.py `GraphConvolution` (symmetric normalisation, segment_sum "
         "aggregation) and jraph/examples/zacharys_karate_club.py `network_definition` and `prediction_loss`, "
         "with hk.Linear(.., with_bias=False) as matmuls by w0, w1 and the graph as arguments: 6 nodes with 4 "
         "features, 9 random edges (upstream: the 34-node karate club graph, one-hot features); the last node "
         "in class 1 (upstream: node 33)",
         helpers=("jraph_graph_convolution",)),
    Spec("jraph_gat", "jraph_gat_loss",
         (((4, 3), "float32", "weight"), ((3,), "float32", "weight"), ((3,), "float32", "weight"),
          ((6, 4), "float32", "data"), ((9,), "int32", "labels6"), ((9,), "int32", "labels6")),
         "a graph attention layer: per-edge logits from gathered sender and receiver features, jraph's "
         "segment_softmax (jax.ops.segment_max, a scatter with a max update from -inf, then segment_sum), "
         "attention-weighted messages summed at the receivers, leaky_relu",
         "google-deepmind/jraph (commit 51f5990104f7374492f8f3ea1cbc47feb411c69c) jraph/_src/models.py `GAT` (_ApplyGAT) and jraph/_src/utils.py `segment_softmax` "
         "(jraph's segment_max/segment_sum aliases written as jax.ops calls), with attention_query_fn a "
         "Linear(3) matmul, attention_logit_fn the GAT paper's leaky_relu(a^T [W h_s || W h_r]) (slope 0.2) "
         "as two dot products, the default node_update_fn; 6 nodes, 9 random edges; loss sum(tanh(nodes)**2)",
         helpers=("jraph_segment_softmax",)),
    Spec("optax_sparsemax", "optax_sparsemax_rows_loss",
         (((4, 6), "float32", "data"), ((4, 6), "float32", "data")),
         "sparsemax (the Euclidean projection onto the probability simplex) of each row: jnp.sort (a "
         "stablehlo.sort) reversed, jnp.cumsum, the support size by count_nonzero of a comparison, a gather "
         "at that data-dependent index, relu; vmapped over the rows; squared error to targets",
         OPTAX + "optax/projections/_projections.py `_projection_unit_simplex` without its @jax.custom_jvp "
         "(the rule it defines, supp * v - (supp . v / card) * supp, is the derivative of this primal code "
         "wherever the support does not change), applied to each row with jax.vmap as projection_simplex "
         "would be to one row; 4 rows of 6 logits; loss sum((p - targets)**2)",
         helpers=("optax_projection_unit_simplex",)),
    Spec("gp_marginal_likelihood", "gp_marginal_likelihood",
         (((), "float32", "data"), ((), "float32", "data"), ((), "float32", "data"), ((6, 1), "float32", "data"),
          ((6,), "float32", "data")),
         "the Gaussian-process negative log marginal likelihood: gp_kernel's covariances, then Cholesky, two "
         "triangular solves, log of the diagonal, a log-normal prior on the amplitude",
         "jax-ml/jax (commit 035c1e566d61d759eb20106ae47df47f6284975f) examples/gaussian_process_regression.py "
         "`gp(..., compute_marginal_likelihood=True)` with params as 0-d arguments; 6 points",
         helpers=("gp_cov_map", "gp_softplus", "gp_exp_quadratic")),
]  # fmt: skip
BY_NAME = {spec.name: spec for spec in SPECS}

NOT_EXPORTED = [
    # Programs from public code that `gradir.from_jax` refuses today (with jax 0.10.2), kept
    # here to move into SPECS once they export.
    # The S5 layer: "StableHLO to linalg failed in jaxlib: Failure while executing pass pipeline:" (the
    #   cause, on the lines after: lax.associative_scan's odd/even slices legalize to an empty
    #   tensor.extract_slice at offset 2 of a tensor<2xf32>, "offset 0 is out-of-bounds: 2 >= 2").
    Spec("s5_ssm", "s5_ssm_loss",
         (((3,), "float32", "uniform-1.0,-0.2"), ((3, 2), "float32", "weight"), ((2, 3), "float32", "weight"),
          ((2,), "float32", "data"), ((3, 1), "float32", "uniform-2.0,-0.5"), ((8, 2), "float32", "data")),
         "the S5 state-space layer: zero-order-hold discretisation (exp, 1/Lambda), a diagonal linear recurrence "
         "by lax.associative_scan of a vmapped binary operator, vmapped output and feedthrough maps",
         "lindermanlab/S5 (commit d133f4dee7f85c61476c150b69de3cccd610b6f5) s5/ssm.py `binary_operator`, "
         "`discretize_zoh`, `apply_ssm` and S5SSM.setup/__call__ as one function, real-valued (Lambda without its "
         "imaginary part, B and C real), conj_sym=False, bidirectional=False; P=3, H=2, L=8; loss sum(y**2)",
         helpers=("s5_binary_operator", "s5_discretize_zoh", "s5_apply_ssm")),
]  # fmt: skip
NOT_EXPORTED_BY_NAME = {spec.name: spec for spec in NOT_EXPORTED}


def program_path(spec: Spec) -> Path:
    return PROGRAMS_DIR / f"jax_{spec.name}.mlir"


def reference_path(spec: Spec) -> Path:
    return PROGRAMS_DIR / f"jax_{spec.name}.npz"


# ---------------------------------------------------------------- export


def _example_args(spec: Spec):
    return [jax.ShapeDtypeStruct(shape, jnp.dtype(dtype)) for shape, dtype, _ in spec.args]


def _entry_wrapper(spec: Spec, text: str) -> str:
    """The `autodiff.grad` entry below the marker, from the exported signature."""
    signature = next(line for line in text.splitlines() if line.startswith(f"func.func @{spec.function_name}("))
    types = [part.split(": ", 1)[1] for part in signature.split("(", 1)[1].split(") ->")[0].split(", ")]
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    args = ", ".join(f"%a{i}" for i in range(len(types)))
    grads = [types[i] for i in spec.wrt]
    n = len(grads)
    results = ", ".join(f"%g#{k}" for k in range(n)) if n > 1 else "%g"
    lhs = f"%g:{n}" if n > 1 else "%g"
    wrt = ", ".join(str(i) for i in spec.wrt)
    return (
        f"func.func @grad_{spec.function_name}({params}) -> ({', '.join(grads)}) {{\n"
        f"  {lhs} = autodiff.grad @{spec.function_name}({args}) {{wrt = array<i64: {wrt}>}} : "
        f"({', '.join(types)}) -> ({', '.join(grads)})\n"
        f"  return {results} : {', '.join(grads)}\n"
        f"}}\n"
    )


def _jaxlib_version() -> str:
    import jaxlib

    return jaxlib.__version__


def program_text(spec: Spec) -> str:
    """The corpus file: header (with the JAX source), the export, the gradir entry."""
    from gradir.jax_export import from_jax

    exported = from_jax(spec.function, *_example_args(spec), name=spec.function_name)
    source = []
    for function in [*(globals()[name] for name in spec.helpers), spec.function]:
        source += textwrap.dedent(inspect.getsource(function)).rstrip().splitlines()
    shapes = ", ".join(f"{dtype}{list(shape)}" for shape, dtype, _ in spec.args)
    header = [
        f"// Source: JAX {jax.__version__} (jaxlib {_jaxlib_version()}): "
        f"`gradir.from_jax({spec.function_name}, ...)` with example arguments {shapes}; "
        "jax.jit(f).lower(...) then jaxlib's stablehlo-legalize-to-linalg (see gradir/jax_export.py)",
        *([f"// Upstream: {spec.source}"] if spec.source else []),
        f"// What: {spec.what}",
        "// Adaptations: none by hand; generated by `python tests/corpus/jax_programs.py "
        f"{spec.name}` (references: jax.value_and_grad in float64, recorded in jax_{spec.name}.npz)",
        "// JAX source:",
        *[f"//   {line}" if line else "//" for line in source],
        *([f"// Reference tolerance: {spec.reference_rtol.split(' ', 1)[1]}"] if spec.reference_rtol else []),
        f"// gradir-corpus: entry={spec.function_name} wrt={','.join(map(str, spec.wrt))} reference=jax inputs=recorded"
        + (f" rtol={spec.reference_rtol.split(' ', 1)[0]}" if spec.reference_rtol else ""),
        "",
    ]
    marker = "// ---- gradir entry (added for the corpus, not upstream) ----"
    return "\n".join(header) + exported + "\n" + marker + "\n" + _entry_wrapper(spec, exported)


# ---------------------------------------------------------------- references


def make_inputs(spec: Spec) -> list[np.ndarray]:
    """float64 inputs: magnitudes in [0.25, 1.25) with random signs (weights
    scaled by 1/sqrt(fan-in)), integer labels in range."""
    rng = np.random.default_rng([SEED, *map(ord, spec.name)])
    arrays = []
    for shape, dtype, role in spec.args:
        if role.startswith("labels"):
            arrays.append(rng.integers(0, int(role[len("labels"):]), size=shape).astype(dtype))
            continue
        if role.startswith("onehot"):
            classes = int(role[len("onehot"):])
            arrays.append(np.eye(classes)[rng.integers(0, classes, size=shape[:-1])])
            continue
        if role == "bernoulli":
            arrays.append(rng.integers(0, 2, size=shape).astype(bool))
            continue
        if role == "normal":
            arrays.append(rng.standard_normal(size=shape))
            continue
        if role.startswith("uniform"):
            low, high = map(float, role[len("uniform"):].split(","))
            arrays.append(rng.uniform(low, high, size=shape))
            continue
        if role.startswith("leftpad"):  # bool rows: the first k False, the rest True
            arrays.append(np.broadcast_to(np.arange(shape[-1]) >= int(role[len("leftpad"):]), shape).copy())
            continue
        if role == "positive":
            arrays.append(rng.uniform(0.25, 1.25, size=shape))
            continue
        values = rng.uniform(0.25, 1.25, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        if role == "weight":
            values = values / np.sqrt(shape[0])
        arrays.append(values)
    return arrays


def reference_arrays(spec: Spec) -> dict[str, np.ndarray]:
    """`arg<i>` (inputs), `result0` and `grad<i>` for every float argument i:
    JAX's value and `jax.grad`, in float64."""
    inputs = make_inputs(spec)
    with jax.enable_x64(True):
        args = [jnp.asarray(a) for a in inputs]
        if spec.grad_mode == "fwd":
            value, grads = spec.function(*args), jax.jacfwd(spec.function, argnums=spec.wrt)(*args)
        else:
            value, grads = jax.value_and_grad(spec.function, argnums=spec.wrt)(*args)
        arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(inputs)}
        arrays["result0"] = np.asarray(value, dtype=np.float64)
        for i, g in zip(spec.wrt, grads):
            arrays[f"grad{i}"] = np.asarray(g, dtype=np.float64)
    return arrays


# ---------------------------------------------------------------- CLI


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"programs (default: all of {', '.join(BY_NAME)})")
    parser.add_argument("--check", action="store_true", help="compare with a fresh export instead of writing")
    args = parser.parse_args(argv)
    if jax is None:
        print("error: needs JAX: pip install -e '.[jax]'", file=sys.stderr)
        return 2
    unknown = set(args.names) - set(BY_NAME)
    if unknown:
        parser.error(f"unknown programs {sorted(unknown)}")
    stale = []
    for spec in [BY_NAME[n] for n in args.names] if args.names else SPECS:
        text, arrays = program_text(spec), reference_arrays(spec)
        if args.check:
            if not program_path(spec).exists() or program_path(spec).read_text() != text:
                stale.append(program_path(spec).name)
            recorded = np.load(reference_path(spec)) if reference_path(spec).exists() else {}
            if set(recorded) != set(arrays) or any(not np.allclose(recorded[k], v, rtol=1e-12, atol=0)
                                                   for k, v in arrays.items()):  # fmt: skip
                stale.append(reference_path(spec).name)
            continue
        program_path(spec).write_text(text)
        np.savez(reference_path(spec), **arrays)
        print(f"wrote {program_path(spec).relative_to(HERE)} and {reference_path(spec).name}")
    if stale:
        print("stale (rerun python tests/corpus/jax_programs.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
