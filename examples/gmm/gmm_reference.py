"""Reference GMM objectives: NumPy (the oracle for the objective) and PyTorch
(the oracle for gradients, and the "PyTorch eager" contestant of the benchmark).

Both are written in the vectorised way a user of those libraries would write
them: the lower-triangular factors are scattered from `icf` with index arrays,
and the per-point Mahalanobis terms are one batched product.
"""
from __future__ import annotations

import math

import numpy as np


def lower_triangle_indices(d: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns) of the strictly lower triangle in ADBench's packing order:
    column by column, rows increasing inside a column."""
    pairs = [(row, column) for column in range(d) for row in range(column + 1, d)]
    rows = np.array([r for r, _ in pairs], dtype=np.int64)
    columns = np.array([c for _, c in pairs], dtype=np.int64)
    return rows, columns


def log_gamma_distribution(a: float, p: int) -> float:
    """log of the multivariate gamma function Gamma_p(a)."""
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(
        math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1)
    )


def objective_constant(d: int, k: int, n: int, gamma: float, m: int) -> float:
    """The terms of the objective that depend only on sizes and the prior:
    the Gaussian normaliser and K times the Wishart normaliser."""
    degrees = d + m + 1
    wishart_normaliser = degrees * d * (math.log(gamma) - 0.5 * math.log(2.0)) - (
        log_gamma_distribution(0.5 * degrees, d)
    )
    return -n * d * 0.5 * math.log(2.0 * math.pi) - k * wishart_normaliser


def _logsumexp(values: np.ndarray, axis: int) -> np.ndarray:
    peak = values.max(axis=axis, keepdims=True)
    return np.log(np.exp(values - peak).sum(axis=axis)) + np.squeeze(peak, axis)


def gmm_objective_numpy(alphas, means, icf, x, gamma: float = 1.0, m: int = 0) -> float:
    """ADBench's GMM objective: data log-likelihood terms plus the Wishart prior, in float64."""
    k, d = means.shape
    n = x.shape[0]
    log_diagonal = icf[:, :d]
    rows, columns = lower_triangle_indices(d)
    factors = np.zeros((k, d, d))
    factors[:, rows, columns] = icf[:, d:]
    factors[:, np.arange(d), np.arange(d)] = np.exp(log_diagonal)
    centred = x[None, :, :] - means[:, None, :]  # (K, n, d)
    mahalanobis = np.einsum("krc,kic->kir", factors, centred)
    inner = alphas[:, None] + log_diagonal.sum(axis=1)[:, None] - 0.5 * (mahalanobis**2).sum(axis=2)
    main = _logsumexp(inner, axis=0).sum() - n * _logsumexp(alphas, axis=0)
    frobenius = (np.exp(log_diagonal) ** 2).sum() + (icf[:, d:] ** 2).sum()
    prior = 0.5 * gamma * gamma * frobenius - m * log_diagonal.sum()
    return float(main + prior + objective_constant(d, k, n, gamma, m))


def gmm_objective_torch(alphas, means, icf, x, gamma: float = 1.0, m: int = 0):
    """The same objective on torch tensors (differentiable; returns a 0-d tensor)."""
    import torch

    k, d = means.shape
    n = x.shape[0]
    log_diagonal = icf[:, :d]
    rows, columns = (torch.from_numpy(a).to(icf.device) for a in lower_triangle_indices(d))
    lower = torch.zeros((k, d, d), dtype=icf.dtype, device=icf.device)  # on the GPU for scripts/gpu-check
    lower[:, rows, columns] = icf[:, d:]
    factors = lower + torch.diag_embed(torch.exp(log_diagonal))
    centred = x.unsqueeze(0) - means.unsqueeze(1)  # (K, n, d)
    mahalanobis = torch.bmm(centred, factors.transpose(1, 2))
    inner = alphas.unsqueeze(1) + log_diagonal.sum(dim=1, keepdim=True) - 0.5 * (mahalanobis**2).sum(dim=2)
    main = torch.logsumexp(inner, dim=0).sum() - n * torch.logsumexp(alphas, dim=0)
    frobenius = (torch.exp(log_diagonal) ** 2).sum() + (icf[:, d:] ** 2).sum()
    prior = 0.5 * gamma * gamma * frobenius - m * log_diagonal.sum()
    return main + prior + objective_constant(d, k, n, gamma, m)


def gmm_gradient_torch(alphas, means, icf, x, gamma: float = 1.0, m: int = 0):
    """(objective, d alphas, d means, d icf) as NumPy float64 arrays, by torch autograd."""
    import torch

    parameters = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (alphas, means, icf)]
    value = gmm_objective_torch(*parameters, torch.as_tensor(x, dtype=torch.float64), gamma, m)
    gradients = torch.autograd.grad(value, parameters)
    return (float(value.detach()),) + tuple(g.numpy() for g in gradients)
