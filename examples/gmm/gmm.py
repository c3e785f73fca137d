"""The ADBench Gaussian Mixture Model objective as an `autodiff` program, for any
(d, K, n), with its gradient w.r.t. alphas, means and icf through `autodiff.grad`.

    python examples/gmm/gmm.py 10 25 1000 > gmm_d10_K25_n1000.mlir

The program (float64, as ADBench) has two functions:
    @gmm_objective(alphas: K, means: Kxd, icf: Kx(d(d+1)/2), x: nxd) -> f64
    @gmm_gradient(same arguments) -> (d alphas, d means, d icf)

How the triangular factors are built without a gather op. Each Q_k is
diag(exp(q_k)) + L_k, where icf_k = [q_k, packed strictly-lower L_k, column by
column]. The dialect moves data only with reshape/transpose/matmul, and a dense
0/1 scatter from icf to all of L (d(d+1)/2 x d^2, 8.5M entries at d = 64) would
be a 68 MB constant and K d^4 / 2 flops. Instead:
  * icf_k is viewed as R rows of width w (w = d for odd d, d + 1 for even d, so
    that R * w = d(d+1)/2 exactly: a free reshape);
  * column c of L_k is a contiguous run of at most d - 1 < w entries, so it lies
    inside two consecutive rows; a (R x 2d) 0/1 matmul copies those two rows for
    every column ("windows", K x d x 2w);
  * one small 0/1 matrix per column (d x 2w x d in all: 0.5M entries at d = 64)
    moves the run to its rows and zeroes the rest, as a matmul batched over c.
That is about 3 K d^3 flops (0.16 GFLOP at d = 64, K = 200), against n K d^2
for the Mahalanobis products themselves.

The logsumexp over components is the stable form (max, subtract, exp, sum,
log, add back). Terms that depend only on (d, K, n, gamma, m) are computed
here in Python and added as one constant.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gmm_reference import objective_constant  # noqa: E402

HEX_CONSTANT_THRESHOLD = 4096
"""Constants with more entries are written as MLIR hex blobs (fast to parse)."""


def tensor_type(*shape: int) -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + "f64>"


def dense_literal(values: np.ndarray) -> str:
    """`dense<...>` text for a float64 array: nested lists when small, a hex blob when large."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 0:
        return f"dense<{float(values)!r}>"
    if values.size > HEX_CONSTANT_THRESHOLD:
        return 'dense<"0x' + values.astype("<f8").tobytes().hex().upper() + '">'

    def nested(array: np.ndarray) -> str:
        if array.ndim == 1:
            return "[" + ", ".join(repr(float(v)) for v in array) + "]"
        return "[" + ", ".join(nested(row) for row in array) + "]"

    return f"dense<{nested(values)}>"


def icf_row_layout(d: int) -> tuple[int, int]:
    """(rows R, width w) with R * w = d(d+1)/2: icf_k viewed as an R x w matrix."""
    width = d if d % 2 == 1 else d + 1
    return d * (d + 1) // 2 // width, width


def lower_column_starts(d: int) -> list[int]:
    """Flat position in icf_k of the first entry of each column of L_k (ADBench's
    packing: the d log-diagonal entries, then columns 0, 1, ..., each below the diagonal)."""
    starts, position = [], d
    for column in range(d):
        starts.append(position)
        position += d - 1 - column
    return starts


def window_row_selection(d: int) -> np.ndarray:
    """(R, 2d) 0/1: column 2c picks the icf row holding the start of L's column c,
    column 2c + 1 the row after it (all zero past the last row)."""
    rows, width = icf_row_layout(d)
    selection = np.zeros((rows, 2 * d))
    for column, start in enumerate(lower_column_starts(d)):
        if column == d - 1:
            break  # the last column of a strictly lower triangle is empty
        first = start // width
        selection[first, 2 * column] = 1.0
        if first + 1 < rows:
            selection[first + 1, 2 * column + 1] = 1.0
    return selection


def window_to_column(d: int) -> np.ndarray:
    """(d, 2w, d) 0/1: for column c, maps its two-row window to L_k[:, c]
    (entry [c, h*w + v, r] is 1 when L_k[r, c] sits at row start_row + h, offset v)."""
    _, width = icf_row_layout(d)
    mapping = np.zeros((d, 2 * width, d))
    for column, start in enumerate(lower_column_starts(d)):
        first_row = start // width
        for row in range(column + 1, d):
            position = start + row - column - 1
            offset_in_window = position - first_row * width
            mapping[column, offset_in_window, row] = 1.0
    return mapping


def diagonal_selection(d: int) -> tuple[np.ndarray, np.ndarray]:
    """((R, 1), (w, d)) 0/1: pick icf row 0, then its first d entries (the log-diagonal q)."""
    rows, width = icf_row_layout(d)
    first_row = np.zeros((rows, 1))
    first_row[0, 0] = 1.0
    return first_row, np.eye(width, d)


class _Emitter:
    """Collects `%name = op ... : type` lines; each value remembers its type."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.types: dict[str, str] = {}

    def constant(self, name: str, values: np.ndarray) -> str:
        type_ = tensor_type(*np.shape(values))
        self.lines.append(f"%{name} = arith.constant {dense_literal(values)} : {type_}")
        self.types[name] = type_
        return name

    def unary(self, name: str, op: str, x: str) -> str:
        self.lines.append(f"%{name} = autodiff.{op} %{x} : {self.types[x]}")
        self.types[name] = self.types[x]
        return name

    def binary(self, name: str, op: str, x: str, y: str, *shape: int) -> str:
        type_ = tensor_type(*shape)
        self.lines.append(
            f"%{name} = autodiff.{op} %{x}, %{y} : ({self.types[x]}, {self.types[y]}) -> {type_}"
        )
        self.types[name] = type_
        return name

    def shaped(self, name: str, op: str, x: str, *shape: int, attributes: str = "") -> str:
        """reshape / transpose / reductions: one operand, explicit result shape."""
        type_ = tensor_type(*shape)
        attributes = f" {{{attributes}}}" if attributes else ""
        self.lines.append(f"%{name} = autodiff.{op} %{x}{attributes} : {self.types[x]} -> {type_}")
        self.types[name] = type_
        return name


def _dims(*dims: int, keepdim: bool = False) -> str:
    text = "dims = array<i64: " + ", ".join(str(d) for d in dims) + ">"
    return text + (", keepdim = true" if keepdim else "")


def _permutation(*order: int) -> str:
    return "permutation = array<i64: " + ", ".join(str(i) for i in order) + ">"


def gmm_objective_body(d: int, k: int, n: int, gamma: float, m: int) -> list[str]:
    """Lines of @gmm_objective's body (before `return %objective`)."""
    rows, width = icf_row_layout(d)
    first_row, diagonal_of_row = diagonal_selection(d)
    e = _Emitter()
    e.types.update(
        alphas=tensor_type(k), means=tensor_type(k, d), icf=tensor_type(k, rows * width),
        x=tensor_type(n, d),
    )  # fmt: skip
    e.constant("pick_window_rows", window_row_selection(d))
    e.constant("window_to_column", window_to_column(d))
    e.constant("pick_first_row", first_row)
    e.constant("first_d_entries", diagonal_of_row)
    e.constant("identity", np.eye(d))
    e.constant("minus_half", np.array(-0.5))
    e.constant("half_gamma_squared", np.array(0.5 * gamma * gamma))
    e.constant("wishart_m", np.array(float(m)))
    e.constant("point_count", np.array(float(n)))
    e.constant("constant_terms", np.array(objective_constant(d, k, n, gamma, m)))

    # icf_k as R x w, transposed so the row index is the contracted one: (K w) x R.
    e.shaped("icf_rows", "reshape", "icf", k, rows, width)
    e.shaped("icf_rows_t", "transpose", "icf_rows", k, width, rows, attributes=_permutation(0, 2, 1))
    e.shaped("icf_by_row", "reshape", "icf_rows_t", k * width, rows)

    # q_k = icf_k[:d] (first row, first d entries), Qdiag = exp(q), sum_qs = sum(q).
    e.binary("first_row", "matmul", "icf_by_row", "pick_first_row", k * width, 1)
    e.shaped("first_row_k", "reshape", "first_row", k, width)
    e.binary("log_diagonal", "matmul", "first_row_k", "first_d_entries", k, d)
    e.unary("diagonal", "exp", "log_diagonal")
    e.shaped("sum_qs", "sum", "log_diagonal", k, attributes=_dims(1))

    # L_k^T (row c = column c of L_k): two icf rows per column, then one 0/1 map per column.
    e.binary("windows_t", "matmul", "icf_by_row", "pick_window_rows", k * width, 2 * d)
    e.shaped("windows_t3", "reshape", "windows_t", k, width, 2 * d)
    e.shaped("windows_pairs", "transpose", "windows_t3", k, 2 * d, width, attributes=_permutation(0, 2, 1))
    e.shaped("windows", "reshape", "windows_pairs", k, d, 2 * width)
    e.shaped("windows_by_column", "transpose", "windows", d, k, 2 * width, attributes=_permutation(1, 0, 2))
    e.binary("lower_by_column", "matmul", "windows_by_column", "window_to_column", d, k, d)

    # Q_k^T laid out [c, k, r] = Q_k[r, c]: L_k plus diag(exp(q_k)).
    e.shaped("diagonal_t", "transpose", "diagonal", d, k, attributes=_permutation(1, 0))
    e.shaped("diagonal_by_column", "reshape", "diagonal_t", d, k, 1)
    e.shaped("identity_by_column", "reshape", "identity", d, 1, d)
    e.binary("diagonal_factor", "mul", "diagonal_by_column", "identity_by_column", d, k, d)
    e.binary("factor_by_column", "add", "lower_by_column", "diagonal_factor", d, k, d)

    # Q_k (x_i - mu_k) = Q_k x_i - Q_k mu_k: one (n x d) x (d x K d) matmul for every
    # point and component at once, instead of K copies of the centred points.
    e.shaped("factors", "reshape", "factor_by_column", d, k * d)
    e.binary("points_by_factor", "matmul", "x", "factors", n, k * d)
    e.shaped("means_t", "transpose", "means", d, k, attributes=_permutation(1, 0))
    e.shaped("means_by_column", "reshape", "means_t", d, k, 1)
    e.binary("means_times_factor", "mul", "means_by_column", "factor_by_column", d, k, d)
    e.shaped("means_by_factor", "sum", "means_times_factor", k, d, attributes=_dims(0))
    e.shaped("means_by_factor_row", "reshape", "means_by_factor", 1, k * d)
    e.binary("mahalanobis", "sub", "points_by_factor", "means_by_factor_row", n, k * d)
    e.binary("mahalanobis_sq", "mul", "mahalanobis", "mahalanobis", n, k * d)
    e.shaped("mahalanobis_sq_3d", "reshape", "mahalanobis_sq", n, k, d)

    # inner[i, k] = alphas_k + sum_qs_k - 0.5 ||Q_k (x_i - mu_k)||^2.
    e.shaped("distance", "sum", "mahalanobis_sq_3d", n, k, attributes=_dims(2))
    e.binary("half_distance", "mul", "distance", "minus_half", n, k)
    e.binary("weights", "add", "alphas", "sum_qs", k)
    e.binary("inner", "add", "half_distance", "weights", n, k)

    # sum_i logsumexp_k(inner), stable.
    e.shaped("peak", "max", "inner", n, 1, attributes=_dims(1, keepdim=True))
    e.binary("shifted", "sub", "inner", "peak", n, k)
    e.unary("exponentials", "exp", "shifted")
    e.shaped("total", "sum", "exponentials", n, 1, attributes=_dims(1, keepdim=True))
    e.unary("log_total", "log", "total")
    e.binary("point_lse", "add", "log_total", "peak", n, 1)
    e.shaped("sum_point_lse", "sum", "point_lse", attributes=_dims(0, 1))

    # n * logsumexp(alphas), stable.
    e.shaped("alpha_peak", "max", "alphas", 1, attributes=_dims(0, keepdim=True))
    e.binary("alpha_shifted", "sub", "alphas", "alpha_peak", k)
    e.unary("alpha_exponentials", "exp", "alpha_shifted")
    e.shaped("alpha_total", "sum", "alpha_exponentials", 1, attributes=_dims(0, keepdim=True))
    e.unary("alpha_log_total", "log", "alpha_total")
    e.binary("alpha_lse_1", "add", "alpha_log_total", "alpha_peak", 1)
    e.shaped("alpha_lse", "reshape", "alpha_lse_1")
    e.binary("alpha_term", "mul", "alpha_lse", "point_count")
    e.binary("likelihood", "sub", "sum_point_lse", "alpha_term")

    # Wishart prior: 0.5 gamma^2 sum_k (||exp(q_k)||^2 + ||L_k||^2) - m sum_k sum_qs_k.
    e.binary("diagonal_sq", "mul", "diagonal", "diagonal", k, d)
    e.shaped("diagonal_frobenius", "sum", "diagonal_sq", attributes=_dims(0, 1))
    e.binary("lower_sq", "mul", "lower_by_column", "lower_by_column", d, k, d)
    e.shaped("lower_frobenius", "sum", "lower_sq", attributes=_dims(0, 1, 2))
    e.binary("frobenius", "add", "diagonal_frobenius", "lower_frobenius")
    e.binary("frobenius_term", "mul", "frobenius", "half_gamma_squared")
    e.shaped("all_sum_qs", "sum", "sum_qs", attributes=_dims(0))
    e.binary("m_term", "mul", "all_sum_qs", "wishart_m")
    e.binary("prior", "sub", "frobenius_term", "m_term")

    e.binary("variable_terms", "add", "likelihood", "prior")
    e.binary("objective", "add", "variable_terms", "constant_terms")
    return e.lines


def gmm_program(d: int, k: int, n: int, gamma: float = 1.0, m: int = 0) -> str:
    """MLIR text of @gmm_objective and @gmm_gradient for the given sizes and prior."""
    if d < 1 or k < 1 or n < 1:
        raise ValueError(f"GMM sizes must be positive, got d={d}, K={k}, n={n}")
    arguments = [tensor_type(k), tensor_type(k, d), tensor_type(k, d * (d + 1) // 2), tensor_type(n, d)]
    parameters = ", ".join(f"%{name}: {t}" for name, t in zip(("alphas", "means", "icf", "x"), arguments))
    gradients = ", ".join(arguments[:3])
    body = "\n".join("  " + line for line in gmm_objective_body(d, k, n, gamma, m))
    return (
        f"// ADBench GMM objective, d={d} K={k} n={n} gamma={gamma!r} m={m}; generated by "
        "examples/gmm/gmm.py\n"
        f"func.func @gmm_objective({parameters}) -> tensor<f64> {{\n"
        f"{body}\n"
        "  return %objective : tensor<f64>\n"
        "}\n\n"
        f"func.func @gmm_gradient({parameters}) -> ({gradients}) {{\n"
        "  %gradient:3 = autodiff.grad @gmm_objective(%alphas, %means, %icf, %x) "
        "{wrt = array<i64: 0, 1, 2>}\n"
        f"      : ({', '.join(arguments)}) -> ({gradients})\n"
        f"  return %gradient#0, %gradient#1, %gradient#2 : {gradients}\n"
        "}\n"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Print the ADBench GMM autodiff program.")
    parser.add_argument("d", type=int, help="dimension of the points")
    parser.add_argument("k", type=int, help="number of mixture components")
    parser.add_argument("n", type=int, help="number of points")
    parser.add_argument("--gamma", type=float, default=1.0, help="Wishart gamma (ADBench: 1)")
    parser.add_argument("--m", type=int, default=0, help="Wishart m (ADBench: 0)")
    options = parser.parse_args(argv)
    sys.stdout.write(gmm_program(options.d, options.k, options.n, options.gamma, options.m))


if __name__ == "__main__":
    main()
