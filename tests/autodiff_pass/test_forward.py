"""`autodiff-forward`: tangents against gradients, and Hessian-vector
products forward over reverse against reverse over reverse."""
from __future__ import annotations

import numpy as np
from pass_support import SHAPES, central_difference, random_point

from gradir.cpu_backend.cpu_runtime import CpuExecutable


def test_jvp_is_the_gradient_dotted_with_the_tangent(loss_program: CpuExecutable):
    point, tangent = random_point(1), random_point(2)
    directional = loss_program.jvp(*point, *tangent)
    gradient = loss_program.grad(*point)
    expected = sum(float(np.sum(g * t)) for g, t in zip(gradient, tangent))
    np.testing.assert_allclose(directional, expected, rtol=1e-10)


def test_hessian_vector_products_agree_and_match_finite_differences(
    loss_program: CpuExecutable,
):
    point = random_point(3)
    v = np.random.default_rng(4).normal(size=SHAPES[0])
    forward = loss_program.hvp_forward(*point, v)
    reverse = loss_program.hvp_reverse(*point, v)
    np.testing.assert_allclose(forward, reverse, rtol=1e-10)
    expected = central_difference(
        loss_program.grad_w, point, [v, np.zeros(SHAPES[1]), np.zeros(SHAPES[2])]
    )
    np.testing.assert_allclose(forward, expected, rtol=1e-5, atol=1e-8)
