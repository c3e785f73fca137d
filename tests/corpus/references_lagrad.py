"""PyTorch references and input generators for the LAGrad corpus programs (see references.py)."""
from __future__ import annotations

import numpy as np

from references import _rotation_from_euler_angles, apply_global_transform, inputs_hand_objective, skinned_vertex_subset, to_pose_params, _fill, _positive, _signed, inputs_pos, inputs_signed, torch, F  # noqa: F401


# ---------------------------------------------------------------- inputs


def inputs_lg_pow4(rng, specs):
    """(x, n: index): positive x and a trip count of 4."""
    return [_positive(rng, specs[0][0]), np.asarray(4, dtype=np.int64)]


def _parents(rng, n):
    """A parent table: bone 0 a root, every other -1 or an earlier index (the loops read a parent's slot already written)."""
    return np.array([-1] + [rng.integers(-1, i) for i in range(1, n)], dtype=np.int32)


def inputs_lg_cache_loop(rng, specs):
    (a_shape, _), (p_shape, _) = specs
    return [_signed(rng, a_shape), _parents(rng, p_shape[0])]


def inputs_lg_gmm_main_term(rng, specs):
    """(alphas, means, Qs, Ls, x): signed, the log-diagonals Qs and the factors Ls scaled down (exp(Qs) and the mat-vec stay O(1))."""
    alphas, means, qs, ls, x = (shape for shape, _ in specs)
    return [_signed(rng, alphas), _signed(rng, means), 0.3 * _signed(rng, qs), 0.3 * _signed(rng, ls), _signed(rng, x)]


def inputs_lg_relatives_to_absolutes(rng, specs):
    """(relatives, parents): near-rigid 4x4s (identity plus small noise) so that products along a chain stay O(1); a parent table."""
    (rel_shape, _), (p_shape, _) = specs
    return [np.eye(4) + 0.2 * _signed(rng, rel_shape), _parents(rng, p_shape[0])]


def inputs_lg_gmm_compressed(rng, specs):
    """As references.inputs_gmm_full, with L compressed (k x d(d-1)/2)."""
    alphas, means, qs, ls, x = (shape for shape, _ in specs[:5])
    return [_signed(rng, alphas), _signed(rng, means), 0.3 * _signed(rng, qs), 0.3 * _signed(rng, ls), _signed(rng, x),
            np.asarray(1.0), np.asarray(0, dtype=np.int64)]


def inputs_lg_hand_complicated(rng, specs):
    """(theta, us, parents, base_relatives, inverse_base_absolutes, base_positions, weights, triangles, correspondences, points):
    as references.inputs_hand_objective, plus barycentric coordinates in (0.05, 0.45) each, triangles of three distinct vertices and valid correspondences."""
    (_, _), (us_shape, _), p, br, iba, bp, w, (tri_shape, _), (corr_shape, _), pts = specs
    theta, parents, rel, inv, positions, weights, _, points = inputs_hand_objective(rng, [((26,), "f64"), p, br, iba, bp, w, ((1,), "i32"), pts])
    nverts = positions.shape[0]
    triangles = np.stack([rng.permutation(nverts)[:3] for _ in range(tri_shape[0])]).astype(np.int32)  # three distinct vertices
    corr = rng.integers(0, tri_shape[0], size=corr_shape).astype(np.int32)
    return [theta, rng.uniform(0.05, 0.45, size=us_shape), parents, rel, inv, positions, weights, triangles, corr, points]


def inputs_lg_adjoint_err_nest(rng, specs):
    """(seed rows, i32 vertex of each row): two rows scattered into the same vertex, to exercise the accumulation."""
    (a_shape, _), _ = specs
    return [_signed(rng, a_shape), np.array([5, 5], dtype=np.int32)]


def inputs_lg_mlp_loop(rng, specs):
    """(input, i32 labels, w0, b0, w1, b1, w2, b2): signed, labels among the classes, weights scaled by 1/sqrt(fan-in)."""
    arrays = inputs_signed(rng, specs)
    classes = specs[7][0][0]
    arrays[1] = rng.integers(0, classes, size=specs[1][0]).astype(np.int32)
    for index in (2, 4, 6):
        arrays[index] = arrays[index] / np.sqrt(arrays[index].shape[1])
    return arrays


# ---------------------------------------------------------------- references
# (prefixed lg_ so that they never shadow a name in references.py)


def lg_negf(x):
    return -x


def lg_square(x):
    return x * x


def lg_quadratic(x):
    return 4 * x * x + x + 4


def lg_mul(a, b):
    return a * b


def lg_if_function(x):
    return x * x if x >= 0 else x


def lg_ifdifferenttype(x):
    if x >= 0:
        return torch.exp(x).expand(3)
    return torch.zeros(3, dtype=x.dtype) + 0 * x


def lg_unused(x):
    return x * -1.2


def lg_custom_grad(x):
    return x * torch.tensor([2.3, -1.1], dtype=x.dtype)


def lg_proj(a):
    return torch.stack([a[0], a[2]])


def lg_insert_overwrite(t):
    return torch.cat([t[0:1], 2 * t[1:2]], 0)


def lg_double(t):
    return 2 * t


def lg_insert_slice(t):
    out = torch.zeros(5, 4, dtype=t.dtype)
    return out.index_put((torch.tensor([3] * 4), torch.arange(4)), t)


def lg_insert_slice_overwrite(t):
    scale = torch.tensor([1.0, 1.0, 1.0, 2.0], dtype=t.dtype)
    return lg_insert_slice(t * scale)


def lg_logsumexp_add2(t):
    return torch.log(torch.exp(t).sum() + 2.0)


def lg_three_args(q, x):
    inter = 2.3 * x.sum(2, keepdim=True).expand_as(x)
    return q[None] * x + inter


def lg_sub(a, b):
    return a - b


def lg_broadcast(a):
    return a.expand(4)


def lg_dot(a, b):
    return torch.dot(a, b)


def lg_pow_tensor(x, n):
    return x ** int(n)


def lg_nested_pow(x, n):
    return x ** (3 * int(n))


def lg_nested_pow_tensor(x, n):
    return x ** (3 * int(n))


def lg_vecmat(x, M):
    return x @ M


def lg_matmul(A, B):
    return A @ B


def lg_column2(A):
    return A[:, 2]


def lg_plane2(A):
    return A[2]


def lg_zach(w):
    return 1 - w * w


def lg_vecscal(x, s):
    return x * s


def lg_trmv_packed(M, x):
    return M @ x


def _packed_lower(d):
    """(row, column) of each entry of LAGrad's packed strictly-lower triangle, in storage order."""
    return [(j, i) for i in range(d) for j in range(i + 1, d)]


def lg_outer_product(x, y, out):
    d = x.shape[0]
    upd = torch.stack([x[j] * y[i] for j, i in _packed_lower(d)])
    return out + upd


def lg_compressed_vecmat(x, L, v):
    d = x.shape[0]
    rows = [v[i] for i in range(d)]
    for k, (j, i) in enumerate(_packed_lower(d)):
        rows[i] = rows[i] + L[k] * x[j]
    return torch.stack(rows)


def lg_qtimesx(L, x):
    d = x.shape[0]
    rows = [x.new_zeros(()) for _ in range(d)]
    for k, (j, i) in enumerate(_packed_lower(d)):
        rows[j] = rows[j] + L[k] * x[i]
    return torch.stack(rows)


def lg_cache_loop(A, parents):
    rows = []
    for i in range(A.shape[0]):
        p = int(parents[i])
        rows.append(A[i] if p == -1 else rows[p] * A[i])
    return torch.stack(rows)


def lg_nested_loop(A, B):
    return torch.logsumexp(A @ B.T, 1).sum()


def lg_nested_main_term(A, B):
    k = B.shape[0]
    return torch.logsumexp((A[:k] * B).sum(1), 0)


def lg_gmm_main_term(alphas, means, Qs, Ls, x):
    xc = x[:, None, :] - means[None, :, :]  # n, k, d
    Qx = torch.exp(Qs)[None] * xc + torch.einsum("kij,nkj->nki", Ls, xc)
    main = alphas[None] + Qs.sum(1)[None] - 0.5 * (Qx * Qx).sum(2)
    return torch.logsumexp(main, 1).sum()


def _posed_relative(pose, base):
    tr = torch.zeros(4, 4, dtype=pose.dtype)
    tr[:3, :3] = _rotation_from_euler_angles(pose)
    tr[3, 3] = 1.0
    return tr @ base


def lg_get_posed_relatives(base_relatives, pose_params):
    return torch.stack([_posed_relative(pose_params[b + 3], base_relatives[b]) for b in range(base_relatives.shape[0])])


def lg_pr_body(pose, base):
    return _posed_relative(pose, base)


def lg_relatives_to_absolutes(relatives, parents):
    absolutes = []
    for b in range(relatives.shape[0]):
        p = int(parents[b])
        absolutes.append(relatives[b] if p == -1 else absolutes[p] @ relatives[b])
    return torch.stack(absolutes)


def _lstm_cell(w, b, hidden, cell, inp):
    forget = torch.sigmoid(inp * w[0] + b[0])
    ingate = torch.sigmoid(hidden * w[1] + b[1])
    outgate = torch.sigmoid(inp * w[2] + b[2])
    change = torch.tanh(hidden * w[3] + b[3])
    cell = cell * forget + ingate * change
    return outgate * torch.tanh(cell), cell


def lg_lstm_model(weight, bias, hidden, cell, inp):
    return _lstm_cell(weight, bias, hidden, cell, inp)[0]


def lg_lstm_predict(main_params, extra_params, state, x):
    inp = x * extra_params[0]
    for i in range(main_params.shape[0]):
        inp, _ = _lstm_cell(main_params[i, 0], main_params[i, 1], state[i, 0], state[i, 1], inp)
    return inp * extra_params[1] + extra_params[2]


def lg_gmm_compressed(alphas, means, Qs, Ls, x, gamma, m):
    """ADBench's GMM objective with L packed (strictly lower, column by column)."""
    n, d = x.shape
    k = alphas.shape[0]
    L = torch.zeros(k, d, d, dtype=x.dtype)
    for idx, (row, col) in enumerate(_packed_lower(d)):
        L[:, row, col] = Ls[:, idx]
    Qdiag = torch.exp(Qs)
    sum_qs = Qs.sum(1)
    xc = x[:, None, :] - means[None, :, :]
    Qx = Qdiag[None] * xc + torch.einsum("kij,nkj->nki", L, xc)
    main = alphas[None] + sum_qs[None] - 0.5 * (Qx * Qx).sum(2)
    slse = torch.logsumexp(main, 1).sum()
    frob = (Qdiag * Qdiag).sum(1) + (Ls * Ls).sum(1)
    prior = (0.5 * gamma * gamma * frob - m.to(x.dtype) * sum_qs).sum()
    return slse - n * torch.logsumexp(alphas, 0) + prior


def lg_hand_complicated(theta, us, parents, base_relatives, inverse_base_absolutes, base_positions, weights, triangles, correspondences, points):
    pose_params = to_pose_params(theta)
    relatives = lg_get_posed_relatives(base_relatives, pose_params)
    absolutes = []
    for b in range(relatives.shape[0]):
        p = int(parents[b])
        absolutes.append(relatives[b] if p == -1 else relatives[b] @ absolutes[p])
    transforms = inverse_base_absolutes @ torch.stack(absolutes)
    vertices = apply_global_transform(pose_params, skinned_vertex_subset(transforms, base_positions, weights))
    tri = triangles[correspondences.long()].long()  # npoints x 3
    u0, u1 = us[:, 0:1], us[:, 1:2]
    hand = u0 * vertices[tri[:, 0]] + u1 * vertices[tri[:, 1]] + (1 - u0 - u1) * vertices[tri[:, 2]]
    return points - hand


def lg_onehot_matmul(A, B):
    return A.T @ B


def lg_onehot_matmul_bt(A, B):
    return B @ A.T


def lg_row_broadcast_mul(a, B):
    return B * a[:, None]


def lg_colsum(A):
    return A.sum(0)


def lg_rowhot_insert(A):
    return torch.cat([A, torch.zeros(A.shape[0], 1, dtype=A.dtype)], 1)


def lg_adjoint_err_nest(seed, rows):
    out = torch.zeros(8, 3, dtype=seed.dtype)
    return out.index_add(0, rows.long(), -seed)


def lg_mlp_loop(x, labels, w0, b0, w1, b1, w2, b2):
    h0 = torch.relu(x @ w0.T + b0)
    h1 = torch.relu(h0 @ w1.T + b1)
    act = h1 @ w2.T + b2
    return F.cross_entropy(act, labels.long())


REFERENCES = {name: f for name, f in dict(globals()).items() if name.startswith("lg_") and callable(f)}
INPUTS = {name[len("inputs_"):]: f for name, f in dict(globals()).items()
          if name.startswith("inputs_lg_") and callable(f)}
