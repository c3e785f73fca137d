"""PyTorch references and input generators for the corpus programs.

Each reference is a small function written from the *meaning* of one corpus
program (not from gradir's output): it takes the program's arguments as torch
tensors (floats in float64, integers in int64) and returns the program's
results (one tensor or a tuple).  A program names its reference with
`reference=<name>` on its `// gradir-corpus:` line.

Input generators (`inputs=<name>`, default `pos`) take a NumPy generator and
the argument specs `[(shape, element type), ...]` and return one NumPy array
per argument, float arguments in float64 (gradcheck promotes programs to f64).
They are chosen so that each program is exercised: no saturated tanh, no
all-dead ReLU, no ties in comparisons, no log/sqrt of non-positive values.
"""
from __future__ import annotations

import math

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the corpus runner reports it at its `reference` stage
    torch = F = None

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")


class Group:
    """The references and input generators of a module of them (`references_iree.py`, ...),
    merged into `REFERENCES` and `INPUTS` below: `@group.reference` registers a function under
    its name, `@group.inputs` one named `inputs_<name>` under `<name>`."""

    def __init__(self):
        self.references: dict = {}
        self.input_generators: dict = {}

    def reference(self, function):
        self.references[function.__name__] = function
        return function

    def inputs(self, function):
        self.input_generators[function.__name__[len("inputs_"):]] = function
        return function


# ---------------------------------------------------------------- inputs


def _numpy_dtype(element: str):
    if element in FLOAT_TYPES:
        return np.float64
    if element == "i1":
        return np.bool_
    if element == "i32":
        return np.int32
    return np.int64  # i64, index


def _fill(rng, specs, float_fn, int_high=2):
    arrays = []
    for shape, element in specs:
        if element in FLOAT_TYPES:
            arrays.append(np.asarray(float_fn(rng, shape), dtype=np.float64))
        elif element == "i1":
            arrays.append(rng.integers(0, 2, size=shape).astype(np.bool_))
        else:
            arrays.append(rng.integers(0, int_high, size=shape).astype(_numpy_dtype(element)))
    return arrays


def _concrete(specs, shapes):
    """The entry's dynamic dimensions (negative in the MLIR shape) take the sizes in `shapes`
    (a scalar argument: shape () and want ())."""
    out = []
    for (shape, element), want in zip(specs, shapes):
        static = len(shape) == len(want) and all(s < 0 or s == w for s, w in zip(shape, want))
        assert static, (shape, want)
        out.append((tuple(want), element))
    return out


def _positive(rng, shape):
    return rng.uniform(0.25, 1.25, size=shape)


def _signed(rng, shape):
    """Magnitudes in [0.25, 1.25), random signs: both sides of 0, never near it."""
    return rng.uniform(0.25, 1.25, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def inputs_pos(rng, specs):
    return _fill(rng, specs, _positive)


def inputs_signed(rng, specs):
    return _fill(rng, specs, _signed)


def inputs_near_one(rng, specs):
    """For x^128: keep the result finite and the derivative O(1)."""
    return _fill(rng, specs, lambda r, s: r.uniform(0.98, 1.0, size=s))


def _scalar(value, dtype):
    return np.asarray(value, dtype=dtype)


def inputs_enzyme_reduce(rng, specs):
    # (x: f32, ub: index): x^ub with a trip count of 5.
    return [_scalar(rng.uniform(0.6, 1.2), np.float64), _scalar(5, np.int64)]


def inputs_enzyme_nested_if(rng, specs):
    # (x, c1, c2): take the deepest branch, cos(x) + x.
    return [_scalar(rng.uniform(0.25, 1.25), np.float64), _scalar(False, np.bool_), _scalar(True, np.bool_)]


def inputs_enzyme_if1(rng, specs):
    return [_scalar(rng.uniform(0.25, 1.25), np.float64), _scalar(True, np.bool_)]


def inputs_descending(rng, specs):
    # (x, y) with x > y: enzyme_branch_self_recursive loops forever where x < y.
    y = rng.uniform(0.25, 0.75)
    return [_scalar(y + rng.uniform(0.1, 0.5), np.float64), _scalar(y, np.float64)]


def inputs_cross_entropy(rng, specs):
    return [_signed(rng, (4,)), _scalar(2, np.int64)]


def inputs_batched_cross_entropy(rng, specs):
    return [_signed(rng, (4, 2)), np.array([1, 3], dtype=np.int64)]


def inputs_mlp_batched(rng, specs):
    arrays = inputs_signed(rng, specs)
    arrays[1] = np.array([0, 2, 1, 2], dtype=np.int32)  # labels among 3 classes
    for index in (2, 4, 6):  # weights: keep activations O(1)
        arrays[index] = arrays[index] / math.sqrt(arrays[index].shape[1])
    return arrays


def inputs_gmm_full(rng, specs):
    k, d, n = 3, 3, 5
    return [
        _signed(rng, (k,)),  # alphas
        _signed(rng, (k, d)),  # means
        0.3 * _signed(rng, (k, d)),  # Qs (log-diagonals)
        0.3 * _signed(rng, (k, d, d)),  # Ls
        _signed(rng, (n, d)),  # x
        _scalar(1.0, np.float64),  # wishart gamma
        _scalar(0, np.int64),  # wishart m
    ]


def inputs_lstm(rng, specs):
    return [0.5 * _signed(rng, shape) for shape, _ in specs]


def inputs_ba(rng, specs):
    cam = np.concatenate([
        0.3 * _signed(rng, (3,)),  # rotation (angle-axis), away from 0
        0.2 * _signed(rng, (3,)),  # camera centre
        rng.uniform(0.8, 1.2, size=1),  # focal length
        0.1 * _signed(rng, (2,)),  # principal point
        0.05 * _signed(rng, (2,)),  # radial distortion
    ])
    X = np.array([0.0, 0.0, 3.0]) + 0.5 * _signed(rng, (3,))  # in front of the camera
    return [cam, X, _scalar(rng.uniform(0.5, 1.5), np.float64), _signed(rng, (2,))]


def inputs_compute_err(rng, specs):
    return [_signed(rng, (5, 3)), _signed(rng, (2, 3)), np.array([3, 1], dtype=np.int32)]


def inputs_hand_objective(rng, specs):
    """(theta, parents, base_relatives, inverse_base_absolutes, base_positions,
    weights, correspondences, points). Parents form a tree (each bone's parent
    is -1 or an earlier bone: the absolutes loop reads the parent's slot it has
    already written), the bone transforms are near-rigid 4x4s (identity plus
    small noise, last row 0 0 0 1) so products along a chain stay O(1), the
    base positions are homogeneous (last coordinate 1), the skinning weights
    positive with rows summing to 1, and the correspondences valid vertices."""
    (_, _), (parents_shape, _), (bones_shape, _), _, (verts_shape, _), _, (corr_shape, _), (points_shape, _) = specs
    nbones, nverts = parents_shape[0], verts_shape[0]
    parents = np.array([-1] + [rng.integers(-1, b) for b in range(1, nbones)], dtype=np.int32)

    def transforms():
        t = np.eye(4) + 0.2 * _signed(rng, bones_shape)
        t[:, 3, :] = [0.0, 0.0, 0.0, 1.0]
        return t

    base_positions = _signed(rng, verts_shape)
    base_positions[:, 3] = 1.0
    weights = _positive(rng, (nverts, nbones))
    weights /= weights.sum(axis=1, keepdims=True)
    return [
        _signed(rng, (26,)), parents, transforms(), transforms(), base_positions, weights,
        rng.integers(0, nverts, size=corr_shape).astype(np.int32), _signed(rng, points_shape),
    ]


def inputs_pooling_max(rng, specs):
    # (input, window, init): the init far below the inputs, so each window's max is an input.
    return [_signed(rng, (2, 1, 5, 3)), np.zeros((1, 2)), np.full((2, 1, 4, 3), -10.0)]


def inputs_lenet(rng, specs):
    """Images N(0, 1), labels in range (the gather reads before it selects), and
    parameters drawn as PyTorch initialises them (uniform within 1/sqrt(fan-in),
    fan-in of the layer's weight), so that activations stay O(1)."""
    (x_shape, _), (labels_shape, _) = specs[:2]
    parameters = []
    for (weight, _), (bias, _) in zip(specs[2::2], specs[3::2]):
        bound = 1.0 / math.sqrt(int(np.prod(weight[1:])))
        parameters += [rng.uniform(-bound, bound, size=weight), rng.uniform(-bound, bound, size=bias)]
    return [rng.standard_normal(x_shape), rng.integers(0, 10, size=labels_shape).astype(np.int64), *parameters]


def _signed_with_positive(indices):
    def generate(rng, specs):
        arrays = inputs_signed(rng, specs)
        for index in indices:  # batch-norm variances
            arrays[index] = np.abs(arrays[index])
        return arrays

    return generate


INPUTS = {
    "pos": inputs_pos,
    "signed": inputs_signed,
    "near_one": inputs_near_one,
    "enzyme_reduce": inputs_enzyme_reduce,
    "enzyme_nested_if": inputs_enzyme_nested_if,
    "enzyme_if1": inputs_enzyme_if1,
    "descending": inputs_descending,
    "cross_entropy": inputs_cross_entropy,
    "batched_cross_entropy": inputs_batched_cross_entropy,
    "mlp_batched": inputs_mlp_batched,
    "gmm_full": inputs_gmm_full,
    "lstm": inputs_lstm,
    "ba": inputs_ba,
    "compute_err": inputs_compute_err,
    "hand_objective": inputs_hand_objective,
    "pooling_max": inputs_pooling_max,
    "resnet_stem": _signed_with_positive([5]),
    "resnet_block": _signed_with_positive([5, 10]),
    "lenet": inputs_lenet,
}


# ---------------------------------------------------------------- helpers


def _logsumexp(x, dim=-1):
    return torch.logsumexp(x, dim=dim)


def _rotation_from_angle_axis(a):
    """LAGrad/ADBench angle_axis_to_rotation_matrix (the norm >= 1e-4 branch)."""
    norm = torch.sqrt(torch.sum(a * a))
    if norm < 1e-4:
        return torch.eye(3, dtype=a.dtype)
    x, y, z = a[0] / norm, a[1] / norm, a[2] / norm
    s, c = torch.sin(norm), torch.cos(norm)
    return torch.stack([
        torch.stack([x * x + (1 - x * x) * c, x * y * (1 - c) + z * s, x * z * (1 - c) - y * s]),
        torch.stack([x * y * (1 - c) - z * s, y * y + (1 - y * y) * c, y * z * (1 - c) + x * s]),
        torch.stack([x * z * (1 - c) + y * s, y * z * (1 - c) - x * s, z * z + (1 - z * z) * c]),
    ])


def _batch_norm(y, gamma, beta, mean, var):
    shape = (1, -1, 1, 1)
    return (y - mean.view(shape)) * torch.rsqrt(var.view(shape) + 1e-5) * gamma.view(shape) + beta.view(shape)


# ---------------------------------------------------------------- LAGrad


def add3(x):
    return x + (x + x)


def mytanh(x):
    return torch.tanh(x)


def functioncall(a, b):
    return (a * a) * (a * a) * b


def ifsecondarg(a, b):
    c = 3.4
    r = a * b if a >= b else c * ((c * b) * b)
    return r * c


def dot(a, b):
    return torch.dot(a, b)


def matvec(A, x):
    return (A @ x) * torch.tensor([1.1, -1.2, 1.0], dtype=A.dtype)


def bmm(A, B):
    return torch.bmm(A, B)


def cross(a, b):
    return torch.linalg.cross(a, b)


def closure(s, a, b):
    return a * s * b


def broadcast_square(a, b):
    return (a * b) ** 2


def colsum(a):
    return a.sum(0)


def gmm_einsum(L, x):
    return torch.einsum("kij,nkj->nki", L, x)


def logsumexp_rows(x):
    return torch.log(torch.exp(x).sum(1))


def logsumexp_1d(a):
    return torch.logsumexp(a, 0)


def nonconst_out(A, B, C):
    return C * B + A @ B


def vecmat(x, A):
    return x @ A


def generic_functioncall(A):
    r = A.sum(1)
    return torch.log(r) * r


def withcall(x):
    return 3 * torch.sigmoid(x)


def relu(x):
    return torch.where(x < 0, torch.zeros_like(x), x)


def arrmax(x):
    return x.max()


def product(x):
    return torch.prod(x)


def fortensor(A, b):
    return A.sum().expand(4) + 0 * b


def forint(A):
    return torch.stack([A[0], A[0] * A[1]])


def nested_with_slice(A, B):
    return torch.log(torch.exp(A @ B.T).sum(1)).sum()


def wrt_iter_arg(state):
    x = torch.tensor([1.0, 2.0, 3.0], dtype=state.dtype)
    for i in range(2):
        x = state[i] * x + x
    return x


def if_funcall(a, b):
    if a[0] == 0:
        return a * (b * torch.sin(a[0]))
    return a


def slice_add_nocollapse(A):
    return (2 * A[:, 1] + A[:, 0]).sum()


def extract_1d(a):
    return a[3] * a[3] * 3.4


def cross_entropy(a, label):
    return -torch.log_softmax(a, 0)[label]


def _batched_cross_entropy(act, labels):
    logp = torch.log_softmax(act, 0)
    return -logp[labels, torch.arange(act.shape[1])].mean()


def batched_cross_entropy(act, labels):
    return _batched_cross_entropy(act, labels)


def mlp_batched(x, labels, w0, b0, w1, b1, w2, b2):
    h0 = torch.relu(w0 @ x + b0[:, None])
    h1 = torch.relu(w1 @ h0 + b1[:, None])
    act = w2 @ h1 + b2[:, None]
    return _batched_cross_entropy(act, labels)


def gmm_full(alphas, means, Qs, Ls, x, gamma, m):
    """LAGrad's full-L GMM objective as written (L used whole, Qdiag = exp(Qs))."""
    n, d = x.shape
    Qdiag = torch.exp(Qs)
    sum_qs = Qs.sum(1)
    xc = x[:, None, :] - means[None, :, :]  # n, k, d
    Lx = torch.einsum("kij,nkj->nki", Ls, xc)
    Qx = Qdiag[None] * xc + Lx
    main = alphas[None] + sum_qs[None] - 0.5 * (Qx * Qx).sum(2)  # n, k
    slse = torch.logsumexp(main, 1).sum()
    frob = (Qdiag * Qdiag).sum(1) + (Ls * Ls).sum((1, 2))
    prior = (0.5 * gamma * gamma * frob - m.to(x.dtype) * sum_qs).sum()
    return slse - n * torch.logsumexp(alphas, 0) + prior


def lstm_objective(main_params, extra_params, state, sequence):
    """LAGrad's ADBench LSTM (l layers, b-wide, c steps) as written."""
    l = main_params.shape[0]
    c = sequence.shape[0]
    b = sequence.shape[1]
    state = state.clone()
    total = 0.0
    count = 0
    for t in range(c - 1):
        inp = sequence[t] * extra_params[0]
        new_state = []
        for i in range(l):
            w, bias = main_params[i, 0], main_params[i, 1]
            hidden, cell = state[i, 0], state[i, 1]
            forget = torch.sigmoid(inp * w[0] + bias[0])
            ingate = torch.sigmoid(hidden * w[1] + bias[1])
            outgate = torch.sigmoid(inp * w[2] + bias[2])
            change = torch.tanh(hidden * w[3] + bias[3])
            cell = cell * forget + ingate * change
            hidden = outgate * torch.tanh(cell)
            new_state.append(torch.stack([hidden, cell]))
            inp = hidden
        state = torch.stack(new_state)
        ypred = inp * extra_params[1] + extra_params[2]
        lse = torch.log(torch.exp(ypred).sum() + 2.0)
        total = total + torch.dot(sequence[t + 1], ypred - lse)
        count += b
    return -total / count


def ba_reproj(cam, X, w, feat):
    rot, C, f, x0, rad = cam[0:3], cam[3:6], cam[6], cam[7:9], cam[9:11]
    Xc = X - C
    sqtheta = (rot * rot).sum()
    if sqtheta != 0:
        theta = torch.sqrt(sqtheta)
        w0 = rot / theta
        Xcam = Xc * torch.cos(theta) + torch.linalg.cross(w0, Xc) * torch.sin(theta) \
            + w0 * (torch.dot(w0, Xc) * (1 - torch.cos(theta)))
    else:
        Xcam = Xc + torch.linalg.cross(rot, Xc)
    p = Xcam[0:2] / Xcam[2]
    rsq = (p * p).sum()
    L = 1 + rad[0] * rsq + rad[1] * rsq * rsq
    proj = p * L * f + x0
    return w * (proj - feat)


def angle_axis_to_rotation_matrix(a):
    return _rotation_from_angle_axis(a)


def to_pose_params(theta):
    rows = [[theta.new_zeros(()) for _ in range(3)] for _ in range(25)]
    one = theta.new_ones(())
    for i in range(3):
        rows[0][i], rows[1][i], rows[2][i] = theta[i], one, theta[i + 3]
    i_theta, i_pp = 6, 5
    for _ in range(5):
        rows[i_pp][0] = theta[i_theta]
        rows[i_pp][1] = theta[i_theta + 1]
        rows[i_pp + 1][0] = theta[i_theta + 2]
        rows[i_pp + 2][0] = theta[i_theta + 3]
        i_theta += 4
        i_pp += 4
    return torch.stack([torch.stack(r) for r in rows])


def skinned_vertex_subset(transforms, base_positions, weights):
    positions = torch.zeros(base_positions.shape[0], 3, dtype=base_positions.dtype)
    for b in range(transforms.shape[0]):
        curr = base_positions @ transforms[b]
        positions = positions + curr[:, :3] * weights[:, b : b + 1]
    return positions


def apply_global_transform(pose_params, positions):
    R = _rotation_from_angle_axis(pose_params[0]) * pose_params[1][:, None]
    return positions @ R + pose_params[2][None, :]


def compute_err(vertices, points, correspondences):
    return points - vertices[correspondences.long()]


def _rotation_from_euler_angles(xyz):
    """LAGrad's euler_angles_to_rotation_matrix: Rx(xyz[0]) @ Ry(xyz[2]) @ Rz(xyz[1]),
    each elementary rotation laid out transposed (upstream: "transposed relative to ADBench")."""
    zero, one = xyz.new_zeros(()), xyz.new_ones(())
    cx, sx = torch.cos(xyz[0]), torch.sin(xyz[0])
    cy, sy = torch.cos(xyz[2]), torch.sin(xyz[2])
    cz, sz = torch.cos(xyz[1]), torch.sin(xyz[1])
    Rx = torch.stack([torch.stack([one, zero, zero]), torch.stack([zero, cx, sx]), torch.stack([zero, -sx, cx])])
    Ry = torch.stack([torch.stack([cy, zero, sy]), torch.stack([zero, one, zero]), torch.stack([-sy, zero, cy])])
    Rz = torch.stack([torch.stack([cz, sz, zero]), torch.stack([-sz, cz, zero]), torch.stack([zero, zero, one])])
    return Rx @ (Ry @ Rz)


def hand_objective(theta, parents, base_relatives, inverse_base_absolutes, base_positions, weights, correspondences, points):
    """ADBench Hand residuals (LAGrad's layout: matrices act on row vectors from the right)."""
    pose_params = to_pose_params(theta)
    nbones = base_relatives.shape[0]
    absolutes = []
    for b in range(nbones):
        tr = torch.zeros(4, 4, dtype=theta.dtype)
        tr[:3, :3] = _rotation_from_euler_angles(pose_params[b + 3])
        tr[3, 3] = 1.0
        relative = tr @ base_relatives[b]
        parent = int(parents[b])
        absolutes.append(relative if parent == -1 else relative @ absolutes[parent])
    transforms = inverse_base_absolutes @ torch.stack(absolutes)
    positions = skinned_vertex_subset(transforms, base_positions, weights)
    vertices = apply_global_transform(pose_params, positions)
    return compute_err(vertices, points, correspondences)


# ---------------------------------------------------------------- Enzyme


def enzyme_reduce(x, ub):
    return x ** int(ub)


def enzyme_while_rev(x):
    return x * 1.0


def enzyme_nested_if(x, c1, c2):
    if c1:
        return x * x
    inner = torch.cos(x) if c2 else x.new_tensor(4.0)
    return inner + x


def enzyme_while_fwd(x):
    return 10.0 + 10 * x


def elementwise_add(a, b):
    return a + b


def tensorsin(x):
    return torch.sin(x)


def enzyme_sqrt(x):
    return torch.sqrt(x)


def enzyme_atan(x):
    return torch.atan(x)


def enzyme_fma(x, y, z):
    return x * y + z


def enzyme_log2(x):
    return torch.log2(x)


def enzyme_for2(x):
    return x + 10 * x


def enzyme_branch(x, y):
    return torch.where(x < y, x, y)


def enzyme_bbarg_order(x):
    return x + 1.0


def enzyme_branch_self_recursive(x, y):
    return x + 1.0 + 0.0 * y


def enzyme_if1(x, c):
    return (x * x) * 2.0 if c else (x + x) * 10.0


def enzyme_maximumf(a, b):
    return torch.maximum(a, b)


def enzyme_affine_loop(x):
    return 10.0 + 10 * x


def enzyme_ppow(x):
    return x ** 10


def enzyme_affine_reduce(x):
    return x ** 128


def enzyme_relu(x):
    return torch.where(x > 0, x, torch.zeros_like(x))


# ---------------------------------------------------------------- MLIR


def conv_2d_nhwc_hwcf(inp, fil, out):
    y = F.conv2d(inp.permute(0, 3, 1, 2), fil.permute(3, 2, 0, 1))
    return out + y.permute(0, 2, 3, 1)


def conv_2d(inp, fil, out):
    return out + F.conv2d(inp[None, None], fil[None, None])[0, 0]


def pooling_nhwc_sum(inp, window, out):
    x = inp.permute(0, 3, 1, 2)
    kh, kw = window.shape
    y = F.avg_pool2d(x, (kh, kw), stride=1) * (kh * kw)
    return out + y.permute(0, 2, 3, 1)


def pooling_nhwc_max(inp, window, out):
    y = F.max_pool2d(inp.permute(0, 3, 1, 2), tuple(window.shape), stride=1)
    return torch.maximum(out, y.permute(0, 2, 3, 1))


def softmax_last(x, dst):
    return torch.softmax(x, 2)


def depthwise_conv_2d_nhwc_hwc(inp, fil):
    channels = inp.shape[3]
    y = F.conv2d(inp.permute(0, 3, 1, 2), fil.permute(2, 0, 1)[:, None], stride=2, groups=channels)
    return y.permute(0, 2, 3, 1)


def batchless_conv_2d_hwc_hwcf(inp, fil, out):
    y = F.conv2d(inp.permute(2, 0, 1)[None], fil.permute(3, 2, 0, 1))[0]
    return out + y.permute(1, 2, 0)


def matmul_acc(A, B):
    return A @ B + 1000.0


def reduce_subf(x):
    return -x.sum(1)


def matmul_cols(A, B):
    return A @ B


# ---------------------------------------------------------------- torch-mlir


def torch_mlp_log_softmax(x, w1, b1, w2):
    b2 = torch.tensor([0.0324810967, -0.0126106814, -0.0104555413, -0.0361788198, -0.0510280579,
                       0.0537375212, -0.0112992674, 0.0203299597, 0.0365288779, -0.0514795408],
                      dtype=x.dtype)
    h = torch.relu(x @ w1.T + b1)
    z = torch.relu(h @ w2.T + b2)
    return torch.log_softmax(z, 1)


_FLT_MAX = 3.40282347e38


def resnet_stem(x, w, gamma, beta, mean, var):
    y = F.conv2d(F.pad(x, (3, 3, 3, 3)), w, stride=2)
    y = torch.relu(_batch_norm(y, gamma, beta, mean, var))
    y = F.pad(y, (1, 1, 1, 1), value=-_FLT_MAX)
    return F.max_pool2d(y, 3, stride=2)


def resnet_block(x, w1, g1, b1, m1, v1, w2, g2, b2, m2, v2):
    y = torch.relu(_batch_norm(F.conv2d(F.pad(x, (1, 1, 1, 1)), w1), g1, b1, m1, v1))
    z = _batch_norm(F.conv2d(F.pad(y, (1, 1, 1, 1)), w2), g2, b2, m2, v2)
    return torch.relu(z + x)


def resnet_head(x, w, b):
    pooled = x.sum((2, 3)) / 9.0
    return pooled @ w.T + b


def lenet_nll_loss(x, labels, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5):
    """LeNet-5 (padding 2 for 28x28 images), log-softmax and the mean NLL loss."""
    h = F.max_pool2d(torch.relu(F.conv2d(x, w1, b1, padding=2)), 2)
    h = F.max_pool2d(torch.relu(F.conv2d(h, w2, b2)), 2).flatten(1)
    h = torch.relu(h @ w3.T + b3)
    h = torch.relu(h @ w4.T + b4)
    return F.nll_loss(torch.log_softmax(h @ w5.T + b5, 1), labels)


REFERENCES = {
    name: function
    for name, function in globals().items()
    if callable(function) and not isinstance(function, type) and not name.startswith(("_", "inputs_"))
    and getattr(function, "__module__", None) == __name__
}


# References of program groups kept in their own modules (REFERENCES and INPUTS dicts each).
import references_enzyme_mlir, references_iree, references_lagrad, references_mlir_upstream  # noqa: E402
import references_linalg_frontends, references_torch_frontends  # noqa: E402

for _group in (references_lagrad, references_enzyme_mlir, references_mlir_upstream, references_iree,
               references_torch_frontends, references_linalg_frontends):
    REFERENCES.update(_group.REFERENCES)
    INPUTS.update(_group.INPUTS)
