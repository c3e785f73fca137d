"""The ADBench GMM example (examples/gmm/): the generated autodiff program against
the NumPy reference objective and torch.autograd gradients, finite differences
on a tiny size, and the ADBench file format."""
import pathlib
import sys

import numpy as np
import pytest

import gradir

GMM_DIR = pathlib.Path(__file__).resolve().parents[2] / "examples" / "gmm"
sys.path.insert(0, str(GMM_DIR))

from gmm import gmm_program, icf_row_layout, window_to_column, window_row_selection  # noqa: E402
from gmm_data import (  # noqa: E402
    GMMInstance,
    generate_gmm_instance,
    read_gmm_instance,
    write_gmm_instance,
)
from gmm_reference import gmm_objective_numpy, lower_triangle_indices  # noqa: E402

# Odd and even d (the icf row layout differs), d = 1 (no lower triangle), a
# non-default Wishart prior.
SIZES = [(1, 2, 3), (2, 5, 10), (3, 4, 7), (4, 3, 9), (7, 6, 13)]
GAMMA, M = 1.3, 2


def compiled(d, k, n, gamma=GAMMA, m=M):
    return gradir.compile(gmm_program(d, k, n, gamma, m))


def arguments(instance: GMMInstance):
    return instance.alphas, instance.means, instance.icf, instance.x


@pytest.mark.parametrize("d,k,n", SIZES)
def test_objective_matches_numpy_reference(d, k, n):
    instance = generate_gmm_instance(d, k, n, seed=d + 10 * k)
    value = compiled(d, k, n).gmm_objective(*arguments(instance))
    expected = gmm_objective_numpy(*arguments(instance), GAMMA, M)
    np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_logsumexp_is_stable_for_far_points():
    # Points far from every mean: exp of the raw inner terms underflows to 0.
    d, k, n = 3, 4, 5
    instance = generate_gmm_instance(d, k, n, seed=1)
    instance.x = instance.x + 60.0
    value = compiled(d, k, n).gmm_objective(*arguments(instance))
    expected = gmm_objective_numpy(*arguments(instance), GAMMA, M)
    assert np.isfinite(value)
    np.testing.assert_allclose(value, expected, rtol=1e-12)


@pytest.mark.parametrize("d,k,n", SIZES)
def test_gradient_matches_torch_autograd(d, k, n):
    pytest.importorskip("torch", reason="the oracle extra (torch==2.13.0) is not installed")
    from gmm_reference import gmm_gradient_torch

    instance = generate_gmm_instance(d, k, n, seed=d + 10 * k + 1)
    gradients = compiled(d, k, n).gmm_gradient(*arguments(instance))
    _, *expected = gmm_gradient_torch(*arguments(instance), GAMMA, M)
    for name, ours, theirs in zip(("alphas", "means", "icf"), gradients, expected):
        assert ours.shape == theirs.shape, name
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10, err_msg=name)


def test_gradcheck_tiny():
    instance = generate_gmm_instance(2, 3, 4, seed=7)
    result = gradir.gradcheck(
        gmm_program(2, 3, 4, GAMMA, M), "gmm_objective", inputs=arguments(instance), wrt=[0, 1, 2]
    )
    assert result.ok, result.report()


@pytest.mark.parametrize("d", [1, 2, 3, 6, 9, 64])
def test_window_constants_scatter_icf_into_the_lower_triangle(d):
    """The two 0/1 constants rebuild L exactly as ADBench packs it (checked in NumPy)."""
    k = 3
    rows, width = icf_row_layout(d)
    icf = np.random.default_rng(d).standard_normal((k, d * (d + 1) // 2))
    by_row = icf.reshape(k, rows, width).transpose(0, 2, 1)  # (K, w, R)
    windows = (by_row @ window_row_selection(d)).transpose(0, 2, 1).reshape(k, d, 2 * width)
    lower_t = np.einsum("kcv,cvr->kcr", windows, window_to_column(d))
    expected = np.zeros((k, d, d))
    lower_rows, lower_columns = lower_triangle_indices(d)
    expected[:, lower_rows, lower_columns] = icf[:, d:]
    np.testing.assert_array_equal(lower_t.transpose(0, 2, 1), expected)


def test_file_round_trip(tmp_path):
    instance = generate_gmm_instance(3, 4, 6)
    instance.gamma, instance.m = 2.5, 1
    path = tmp_path / "gmm_d3_K4.txt"
    write_gmm_instance(path, instance)
    assert path.read_text().splitlines()[0] == "3 4 6"
    back = read_gmm_instance(path)
    for name in ("alphas", "means", "icf", "x"):
        np.testing.assert_array_equal(getattr(back, name), getattr(instance, name), err_msg=name)
    assert (back.gamma, back.m) == (2.5, 1)


def test_reader_replicates_a_single_point(tmp_path):
    path = tmp_path / "gmm_replicated.txt"
    path.write_text("2 1 3\n0.5\n0.1 0.2\n1 2 3\n-1.5 4\n1 0\n")
    instance = read_gmm_instance(path, replicate_point=True)
    np.testing.assert_array_equal(instance.x, [[-1.5, 4.0]] * 3)
    np.testing.assert_array_equal(instance.icf, [[1.0, 2.0, 3.0]])
    assert (instance.d, instance.k, instance.n, instance.gamma, instance.m) == (2, 1, 3, 1.0, 0)


def test_reader_reports_the_bad_line(tmp_path):
    path = tmp_path / "gmm_bad.txt"
    path.write_text("2 1 1\n0.5\n0.1 0.2\n1 2\n")
    with pytest.raises(ValueError, match=r"gmm_bad.txt:4: expected 3 numbers, found 2"):
        read_gmm_instance(path)


def test_generator_follows_adbench_streams():
    small, large = generate_gmm_instance(2, 5, 10), generate_gmm_instance(2, 25, 10)
    # One normal stream (alphas first) and one uniform stream (means), shared by every K.
    np.testing.assert_array_equal(small.alphas, large.alphas[:5])
    np.testing.assert_array_equal(small.means, large.means[:5])
    assert np.all((large.means >= 0) & (large.means < 1))
    assert (small.gamma, small.m) == (1.0, 0)
    assert small.icf.shape == (5, 3) and small.x.shape == (10, 2)
    np.testing.assert_array_equal(small.x, generate_gmm_instance(2, 5, 10).x)
    assert not np.array_equal(small.x, generate_gmm_instance(2, 5, 10, seed=1).x)
