"""Random programs compiled for the CPU: the `cpu` pipeline's output is valid
MLIR, and the gradients (reverse and forward mode, and the program's own
`autodiff.grad`) match central finite differences in f64.

Each example runs in a child process (`cpu_worker.py`) so that a crash or a
hang in MLIR fails that example, not the session."""
import pathlib
import tempfile

import numpy as np
from hypothesis import given

from cpu_worker import run_worker
from program_generator import OP_FAMILIES, programs
from property_support import child_process_settings, child_timeout


@child_process_settings(6, "GRADIR_CPU_EXAMPLES")
@given(programs())
def test_cpu_pipeline_output_is_valid_mlir(program):
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "program.mlir"
        path.write_text(program.text())
        result = run_worker("pipeline", str(path), "cpu", timeout=child_timeout())
    assert result.passed, f"{result.report}\nprogram:\n{program.text()}"


# Every family, select included: every i1 tensor is stored as bytes (a select whose
# broadcast condition's gradient is reduced used to make MLIR 22 abort; see
# tests/numerics/test_op_gradients.py and tests/cpu_backend/test_cpu_booleans.py).
GRADCHECKED_FAMILIES = OP_FAMILIES
# Conditions reshaped, broadcast, transposed and reduced over: select drawn twice as often.
BOOLEAN_FAMILIES = ("select", "select", "reduction", "broadcast_to", "reshape", "transpose", "unary")


def gradcheck_in_child(program) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "program.mlir"
        path.write_text(program.text())
        inputs = pathlib.Path(directory) / "inputs.npz"
        np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(program.inputs(seed=0))})
        wrt = ",".join(map(str, program.gradient_arguments))
        result = run_worker("gradcheck", str(path), str(inputs), wrt, timeout=child_timeout())
    assert result.passed, f"{result.report}\nprogram:\n{program.text()}"


@child_process_settings(8, "GRADIR_GRADCHECK_EXAMPLES")
@given(programs(families=GRADCHECKED_FAMILIES))
def test_cpu_gradients_match_finite_differences(program):
    gradcheck_in_child(program)


@child_process_settings(6, "GRADIR_GRADCHECK_EXAMPLES")
@given(programs(families=BOOLEAN_FAMILIES))
def test_cpu_gradients_of_select_heavy_programs(program):
    gradcheck_in_child(program)
