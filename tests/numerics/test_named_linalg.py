"""Derivatives of the named linalg ops front ends emit, in MLIR 22's spelling (issue
"Real MLIR II"): dot, matvec, vecmat, batch_matvec, batch_matmul (also with transposed
or broadcast operands), matmul with any indexing maps, mmt4d, contract, elementwise (every
float kind), map and reduce with any body, softmax, transpose and broadcast. Each is
checked in float64 against central differences through the CPU pipeline, reverse (vjp)
and forward (jvp) mode, on shapes drawn at random (fixed seed; `named_linalg_cases.py`).
Second order (the gradient of a function of the gradient) is checked for the
contractions, whose gradients are themselves named ops or adjoint generics.
All first-order functions share one compilation, the second-order ones another."""
import numpy as np
import pytest

from gradir.gradient_check import GradChecker
from exercised import assert_exercised
from named_linalg_cases import CASES, module_text, second_order_function


ZERO_DERIVATIVE = {"elementwise_floor", "elementwise_ceil", "elementwise_round", "named_floor", "named_ceil", "named_round"}
"""Ops whose derivative is zero wherever it exists: their checks compare zeros."""


@pytest.fixture(scope="module")
def checker():
    return GradChecker(module_text(CASES), [(case.name, case.wrt) for case in CASES])


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_named_op_gradcheck(checker, case):
    result = checker.check(case.name, case.inputs, allow_vacuous=True)
    assert_exercised(result, zero_derivative=case.name in ZERO_DERIVATIVE)


SECOND_ORDER = [
    case for case in CASES
    if case.name in {
        "dot", "matvec", "batch_matmul", "batch_matmul_transpose_a", "batch_matmul_transpose_b",
        "batch_matmul_broadcast_a", "matmul_broadcast_a", "matmul_transposed_output",
        "matmul_transposed_inputs", "mmt4d", "batch_mmt4d", "contract_batched", "softmax_dim1", "map_body",
        "reduce_max", "elementwise_div", "batch_reduce_matmul_transpose_a", "named_tanh", "pack_padded", "pack_unpack",
    }
]  # fmt: skip


@pytest.fixture(scope="module")
def second_order_checker():
    text = module_text(SECOND_ORDER) + "".join(second_order_function(case) for case in SECOND_ORDER)
    # -O0: the first-order checks above run the default level's code for these very ops.
    return GradChecker(text, [(f"{case.name}_second", case.wrt) for case in SECOND_ORDER], opt_level=0)


@pytest.mark.parametrize("case", SECOND_ORDER, ids=[case.name for case in SECOND_ORDER])
def test_named_op_second_order(second_order_checker, case):
    result = second_order_checker.check(f"{case.name}_second", case.inputs, allow_vacuous=True)
    assert_exercised(result)


def test_cases_exercise_their_ops():
    """Inputs that would make a check vacuous are not drawn: every case's loss moves
    when any checked input moves."""
    assert len({case.name for case in CASES}) == len(CASES)
    for case in CASES:
        for array in case.inputs:
            assert np.all(np.isfinite(array)) and (array.ndim == 0 or np.ptp(array) > 0 or array.size == 1)
