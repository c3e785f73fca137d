"""The corpus runner's comparison (`run_corpus._mismatch`) and the primal stage's types.

An infinite reference value (a max reduction from -inf over nothing) once scaled the
tolerance to infinity, so that any value agreed with it; and a dynamic extent was spelled
as MLIR's marker number, so the primal stage of every program with dynamic shapes was n/a.
"""
from __future__ import annotations

import numpy as np
import pytest

import run_corpus


@pytest.mark.parametrize(
    "got, want",
    [([-np.inf, 1.0], [-np.inf, 1.0]), ([np.nan, 2.0], [np.nan, 2.0]), ([1.0 + 1e-12, 3.0], [1.0, 3.0])],
)
def test_equal_values_agree(got, want):
    assert run_corpus._mismatch("r", np.array(got), np.array(want), 1e-7, 1e-9) is None  # noqa: SLF001


@pytest.mark.parametrize(
    "got, want",
    [([5.0, 1.0], [-np.inf, 1.0]), ([np.inf, 1.0], [-np.inf, 1.0]), ([np.nan, 1.0], [1.0, 1.0]),
     ([1.0, 7.0], [1.0, np.inf]), ([1.001, 1.0], [1.0, 1.0])],
)  # fmt: skip
def test_different_values_disagree(got, want):
    problem = run_corpus._mismatch("r", np.array(got), np.array(want), 1e-7, 1e-9)  # noqa: SLF001
    assert problem is not None and "1 of 2 entries differ" in problem


def test_dynamic_extents_are_spelled_with_a_question_mark():
    assert run_corpus._tensor_type((-9223372036854775808, 3), "f32") == "tensor<?x3xf32>"  # noqa: SLF001
