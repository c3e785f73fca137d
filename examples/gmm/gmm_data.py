"""ADBench GMM inputs: the text file format, and a seeded generator that draws
the same distributions in the same order as ADBench's `gmm-data-gen.py`.

File format (whitespace separated, one record per line):
    d K n
    alphas            K lines, one number each
    means             K lines of d numbers
    icf               K lines of d + d(d-1)/2 numbers
    x                 n lines of d numbers (1 line when the point is replicated)
    gamma m           the Wishart prior's parameters
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

ADBENCH_SEED = 31337
ADBENCH_MAX_COMPONENTS = 200
ADBENCH_MAX_POINTS = 10000


@dataclass
class GMMInstance:
    """One GMM problem: parameters (alphas, means, icf), data x, Wishart prior."""

    alphas: np.ndarray
    """(K,) mixture weights, in log space (unnormalised)."""
    means: np.ndarray
    """(K, d) component means."""
    icf: np.ndarray
    """(K, d + d(d-1)/2) inverse covariance factors: log of the diagonal, then the
    strictly lower triangle column by column."""
    x: np.ndarray
    """(n, d) data points."""
    gamma: float = 1.0
    m: int = 0

    @property
    def d(self) -> int:
        return int(self.means.shape[1])

    @property
    def k(self) -> int:
        return int(self.alphas.shape[0])

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    @property
    def parameter_count(self) -> int:
        """Entries of the gradient: alphas + means + icf."""
        return self.alphas.size + self.means.size + self.icf.size


def icf_size(d: int) -> int:
    return d * (d + 1) // 2


def _read_row(lines: list[str], index: int, width: int, path: str) -> list[float]:
    if index >= len(lines):
        raise ValueError(f"{path}:{index + 1}: unexpected end of file")
    values = lines[index].split()
    if len(values) != width:
        raise ValueError(f"{path}:{index + 1}: expected {width} numbers, found {len(values)}")
    return [float(value) for value in values]


def read_gmm_instance(path: str | os.PathLike, replicate_point: bool = False) -> GMMInstance:
    """Read an ADBench GMM file; `replicate_point` reads one x row and repeats it n times
    (ADBench's 2.5M-point files)."""
    path = os.fspath(path)
    with open(path) as handle:
        lines = [line for line in handle.read().splitlines() if line.strip()]
    d, k, n = (int(v) for v in _read_row(lines, 0, 3, path))
    row = 1
    alphas = [_read_row(lines, row + i, 1, path)[0] for i in range(k)]
    row += k
    means = [_read_row(lines, row + i, d, path) for i in range(k)]
    row += k
    icf = [_read_row(lines, row + i, icf_size(d), path) for i in range(k)]
    row += k
    x_rows = 1 if replicate_point else n
    x = [_read_row(lines, row + i, d, path) for i in range(x_rows)]
    row += x_rows
    gamma, m = _read_row(lines, row, 2, path)
    x_array = np.array(x, dtype=np.float64).reshape(x_rows, d)
    if replicate_point:
        x_array = np.repeat(x_array, n, axis=0)
    return GMMInstance(
        np.array(alphas, dtype=np.float64),
        np.array(means, dtype=np.float64).reshape(k, d),
        np.array(icf, dtype=np.float64).reshape(k, icf_size(d)),
        x_array,
        float(gamma),
        int(m),
    )


def write_gmm_instance(path: str | os.PathLike, instance: GMMInstance) -> None:
    """Write `instance` in the ADBench format, with every number exact (repr)."""

    def row(values) -> str:
        return " ".join(repr(float(v)) for v in values)

    lines = [f"{instance.d} {instance.k} {instance.n}"]
    lines += [repr(float(a)) for a in instance.alphas]
    lines += [row(mean) for mean in instance.means]
    lines += [row(factors) for factors in instance.icf]
    lines += [row(point) for point in instance.x]
    lines.append(f"{float(instance.gamma)!r} {int(instance.m)}")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")


def generate_gmm_instance(d: int, k: int, n: int, seed: int = ADBENCH_SEED) -> GMMInstance:
    """ADBench's distributions: alphas, icf and x standard normal, means uniform on [0, 1),
    gamma = 1, m = 0. With the default seed and k <= 200, n <= 10000 the draws are
    ADBench's own (one uniform stream for the means, one normal stream read in the
    order alphas, icf, x, both sized for the largest K and n)."""
    if k > ADBENCH_MAX_COMPONENTS or n > ADBENCH_MAX_POINTS:
        raise ValueError(f"ADBench draws at most K={ADBENCH_MAX_COMPONENTS}, n={ADBENCH_MAX_POINTS}")
    rng = np.random.RandomState(seed)
    uniform = rng.uniform(0.0, 1.0, ADBENCH_MAX_COMPONENTS * d)
    normal = rng.normal(
        0.0, 1.0, ADBENCH_MAX_COMPONENTS * (1 + icf_size(d)) + ADBENCH_MAX_POINTS * d
    )
    alphas = normal[:k]
    icf = normal[k : k + k * icf_size(d)].reshape(k, icf_size(d))
    x_start = k + k * icf_size(d)
    x = normal[x_start : x_start + n * d].reshape(n, d)
    means = uniform[: k * d].reshape(k, d)
    return GMMInstance(alphas.copy(), means.copy(), icf.copy(), x.copy(), 1.0, 0)
