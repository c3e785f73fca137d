"""What only the inputs make undefined is checked at run time (`run_time_checks`).

Before, an index read from the inputs that fell outside its tensor read memory
anywhere (a wrong number, or a segmentation fault), and an integer division by a zero
read from them ended the process with SIGFPE. The calls that could crash run in a
child process, so that a regression fails these tests instead of ending the session.
"""

import textwrap

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm
from gradir.cpu_backend.run_time_checks import check_messages
from gradir.mlir_bridge import to_mlir_module
from runtime_programs import FILL_READ

EXTRACT = """
func.func @f(%x: tensor<4xf64>, %i: index) -> f64 {
  %v = tensor.extract %x[%i] : tensor<4xf64>
  return %v : f64
}
"""

SLICE = """
func.func @f(%x: tensor<8xf64>, %at: index) -> tensor<3xf64> {
  %s = tensor.extract_slice %x[%at] [3] [1] : tensor<8xf64> to tensor<3xf64>
  return %s : tensor<3xf64>
}
"""

GATHER = """
func.func @f(%table: tensor<5xf64>, %ids: tensor<3xindex>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%ids : tensor<3xindex>) outs(%e : tensor<3xf64>) {
  ^bb0(%id: index, %o: f64):
    %v = tensor.extract %table[%id] : tensor<5xf64>
    linalg.yield %v : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}
"""
"""A gather: the read's index comes from the data, inside the generic's body."""

DIVIDE = """
func.func @f(%x: tensor<4xi32>, %d: i32) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<4xi32>) outs(%e : tensor<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %q = arith.OP %a, %d : i32
    linalg.yield %q : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
"""

LOOP = """
func.func @f(%lo: index, %hi: index, %step: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = scf.for %i = %lo to %hi step %step iter_args(%k = %c0) -> index {
    %next = arith.addi %k, %c1 : index
    scf.yield %next : index
  }
  return %n : index
}
"""

POWERS = """
func.func @f(%a: i32, %b: i32, %x: f64) -> (i32, f64) {
  %r = math.ipowi %a, %b : i32
  %p = math.fpowi %x, %b : f64, i32
  return %r, %p : i32, f64
}
"""
"""Integer powers: MLIR 22 lowers them only through `convert-math-to-funcs`, whose `ipowi`
divides 1 by 0 for a zero base and a negative exponent."""

STATIC = """
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = tensor.extract %m[%c1, %c2] : tensor<4x3xf32>
  return %v : f32
}
"""
"""Static shapes and constant indices: nothing can fail at run time."""


def _in_child(tmp_path, program: str, call: str, timeout: float = 300) -> str:
    """Run `exe.f(...)` (`call`) in a child process; what it printed: the call's result or
    the error it raised."""
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        exe = gradir.compile({program!r})
        try:
            print({call})
        except gradir.RunTimeCheckError as error:
            print(type(error).__name__, error)
    """)
    return run_python(script, tmp_path, timeout).strip()


def test_an_index_out_of_bounds_is_an_error_and_the_next_call_runs():
    exe = gradir.compile(EXTRACT)
    with pytest.raises(gradir.RunTimeCheckError, match=r"@f: an index out of bounds \(tensor.extract\) at run time"):
        exe.f(np.arange(4.0), 4)
    with pytest.raises(gradir.RunTimeCheckError):
        exe.f(np.arange(4.0), -1)
    assert exe.f(np.arange(4.0), 3) == 3.0


def test_a_far_index_is_an_error_not_a_crash(tmp_path):
    output = _in_child(tmp_path, EXTRACT, "exe.f(np.arange(4.0), 10**8)")
    assert output.startswith("RunTimeCheckError error: cpu-run: @f: an index out of bounds"), output


def test_the_error_is_located_in_the_file(tmp_path):
    path = tmp_path / "extract.mlir"
    path.write_text(EXTRACT)
    with pytest.raises(gradir.RunTimeCheckError) as raised:
        gradir.compile(path).f(np.arange(4.0), 9)
    assert raised.value.location == f"{path}:3:3"
    assert isinstance(raised.value, gradir.GradirError)


def test_a_slice_out_of_bounds_is_an_error():
    exe = gradir.compile(SLICE)
    np.testing.assert_array_equal(exe.f(np.arange(8.0), 5), [5.0, 6.0, 7.0])
    with pytest.raises(gradir.RunTimeCheckError, match=r"memref.subview"):
        exe.f(np.arange(8.0), 6)


def test_a_gather_index_from_the_data_is_checked():
    exe = gradir.compile(GATHER)
    table = np.arange(5.0) * 10
    np.testing.assert_array_equal(exe.f(table, np.array([4, 0, 2])), [40.0, 0.0, 20.0])
    with pytest.raises(gradir.RunTimeCheckError, match="an index out of bounds"):
        exe.f(table, np.array([1, 5, 2]))


@pytest.mark.parametrize("op", ["divsi", "divui", "remsi", "remui", "ceildivsi", "floordivsi"])
def test_an_integer_division_by_zero_is_an_error(tmp_path, op):
    program = DIVIDE.replace("OP", op)
    assert _in_child(tmp_path, program, "exe.f(np.arange(4, dtype=np.int32), np.int32(3)).tolist()") == {
        "divsi": "[0, 0, 0, 1]", "divui": "[0, 0, 0, 1]", "remsi": "[0, 1, 2, 0]", "remui": "[0, 1, 2, 0]",
        "ceildivsi": "[0, 1, 1, 1]", "floordivsi": "[0, 0, 0, 1]",
    }[op]  # fmt: skip
    output = _in_child(tmp_path, program, "exe.f(np.arange(4, dtype=np.int32), np.int32(0))")
    assert output == (
        f"RunTimeCheckError error: cpu-run: @f: an integer division by zero (arith.{op}) at run time; "
        "the call was abandoned and the buffers it had allocated are not freed"
    )


def test_the_smallest_integer_by_minus_one_is_an_error(tmp_path):
    program = DIVIDE.replace("OP", "divsi")
    output = _in_child(tmp_path, program, "exe.f(np.array([1, -2**31, 3, 4], dtype=np.int32), np.int32(-1))")
    assert "an integer division overflow, the smallest i32 by -1 (arith.divsi)" in output, output
    assert _in_child(tmp_path, program, "exe.f(np.array([1, 2, 3, 4], dtype=np.int32), np.int32(-1)).tolist()") == (
        "[-1, -2, -3, -4]"
    )


VECTOR_DIVIDE = """
func.func @f(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %va = vector.transfer_read %a[%c0, %c0], %z : tensor<2x2xi32>, vector<2x2xi32>
  %vb = vector.transfer_read %b[%c0, %c0], %z : tensor<2x2xi32>, vector<2x2xi32>
  %q = arith.divsi %va, %vb : vector<2x2xi32>
  %e = tensor.empty() : tensor<2x2xi32>
  %r = vector.transfer_write %q, %e[%c0, %c0] : vector<2x2xi32>, tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
"""


def test_a_division_of_vectors_is_checked_lane_by_lane(tmp_path):
    """A vector division written in the program (the pipeline's own vectorisation comes
    after the checks): one zero lane, or one MIN / -1 lane, ended the process with SIGFPE."""
    a = "np.array([[7, 8], [9, 10]], np.int32)"
    assert _in_child(
        tmp_path, VECTOR_DIVIDE, f"exe.call('f', {a}, np.array([[1, 2], [3, 4]], np.int32))[0].tolist()"
    ) == ("[[7, 4], [3, 2]]")
    zero = _in_child(tmp_path, VECTOR_DIVIDE, f"exe.call('f', {a}, np.array([[1, 2], [3, 0]], np.int32))")
    assert zero.startswith("RunTimeCheckError error: cpu-run: @f: an integer division by zero (arith.divsi)"), zero
    smallest = "np.array([[1, 1], [-2**31, 1]], np.int32)"
    overflow = _in_child(tmp_path, VECTOR_DIVIDE, f"exe.call('f', {smallest}, np.array([[1, 1], [-1, 1]], np.int32))")
    assert "an integer division overflow, the smallest i32 by -1 (arith.divsi)" in overflow, overflow


FILLED = (
    FILL_READ
    + """
func.func @g(%i: index, %x: f64) -> tensor<3xf64> {
  %t = tensor.generate {
  ^bb0(%j: index):
    %one = arith.constant 1.0 : f64
    tensor.yield %one : f64
  } : tensor<3xf64>
  %r = tensor.insert %x into %t[%i] : tensor<3xf64>
  return %r : tensor<3xf64>
}
"""
)


def test_an_index_into_a_filled_or_generated_tensor_is_checked_before_it_folds(tmp_path):
    """Canonicalization folds `extract(fill)[i]` to the fill value whatever i: index 9 of a
    4-element fill gave 2.5 with no error. The index is checked on tensors, before."""
    exe = gradir.compile(FILLED)
    assert exe.f(3) == 2.5
    np.testing.assert_array_equal(exe.g(1, 7.0), [1.0, 7.0, 1.0])
    for call in ("exe.f(4)", "exe.f(10**9)", "exe.g(3, 7.0)"):
        output = _in_child(tmp_path, FILLED, call)
        assert output.startswith("RunTimeCheckError error: cpu-run: @"), output
        assert "an index out of bounds (tensor." in output, output


CLAIMED_IN_BOUNDS = """
func.func @f(%a: tensor<4xf64>, %i: index) -> f64 {
  %z = arith.constant 0.0 : f64
  %v = vector.transfer_read %a[%i], %z {in_bounds = [true]} : tensor<4xf64>, vector<2xf64>
  %s = vector.reduction <add>, %v : vector<2xf64> into f64
  return %s : f64
}
"""


def test_a_transfer_that_wrongly_claims_to_be_in_bounds_reads_padding(tmp_path):
    """`in_bounds = [true]` is the program's unverified claim: believed, a read at 10^9 ended
    the process. Dropped, the lanes outside read the padding value, as for any transfer."""
    assert _in_child(tmp_path, CLAIMED_IN_BOUNDS, "exe.call('f', np.arange(4.0), 1)[0]") == "3.0"
    assert _in_child(tmp_path, CLAIMED_IN_BOUNDS, "exe.call('f', np.arange(4.0), 3)[0]") == "3.0"  # 3 + padding
    assert _in_child(tmp_path, CLAIMED_IN_BOUNDS, "exe.call('f', np.arange(4.0), 10**9)[0]") == "0.0"


def test_a_loop_step_that_is_not_positive_is_an_error(tmp_path):
    exe = gradir.compile(LOOP)
    assert exe.f(0, 10, 3) == 4
    assert exe.f(5, 5, 0) == 0  # never runs, whatever its step
    # Unchecked, these loops never end: in a child process, with a time limit.
    for step in (0, -1):
        output = _in_child(tmp_path, LOOP, f"exe.f(0, 10, {step})", timeout=120)
        assert "a loop step that is not positive, so the loop would never end (scf.for)" in output, output


def test_integer_powers_run_and_a_zero_base_to_a_negative_power_is_an_error(tmp_path):
    exe = gradir.compile(POWERS)
    assert exe.f(2, 3, 1.5) == (8, 1.5**3)
    assert exe.f(2, -1, 2.0) == (0, 0.5)
    output = _in_child(tmp_path, POWERS, "exe.f(0, -1, 2.0)")
    assert "an integer division by zero (arith.divsi) in @__mlir_math_ipowi_i32" in output, output


def test_nothing_is_checked_where_nothing_can_fail():
    module = to_mlir_module(STATIC)
    lower_to_llvm(module)
    assert check_messages(module) == []
    assert "__gradir_check_failed" not in str(module)


def test_the_failure_function_keeps_off_a_user_symbol():
    program = EXTRACT + "func.func @__gradir_check_failed(%x: f64) -> f64 { return %x : f64 }\n"
    exe = gradir.compile(program)
    with pytest.raises(gradir.RunTimeCheckError, match="an index out of bounds"):
        exe.f(np.arange(4.0), 4)
    assert exe.f(np.arange(4.0), 1) == 1.0


EXPANSIONS = """
func.func @rows(%x: tensor<?xf64>, %a: index, %b: index) -> tensor<?x?xf64> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xf64> into tensor<?x?xf64>
  return %e : tensor<?x?xf64>
}
func.func @column(%m: tensor<?x?xf64>, %a: index, %b: index) -> tensor<?x?x1xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %m, %c0 : tensor<?x?xf64>
  %col = tensor.extract_slice %m[0, 1] [%n, 1] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
  %e = tensor.expand_shape %col [[0, 1, 2]] output_shape [%a, %b, 1] : tensor<?xf64> into tensor<?x?x1xf64>
  return %e : tensor<?x?x1xf64>
}
func.func @flat(%x: tensor<?x?xf64>) -> tensor<?xf64> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<?x?xf64> into tensor<?xf64>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %c, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %s = linalg.square ins(%c : tensor<?xf64>) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  return %s : tensor<?xf64>
}
"""


def test_an_expansion_into_several_dynamic_sizes_runs_and_checks_its_sizes(tmp_path):
    """`?` into `?x?`: MLIR 22's run-time verification of such a `memref.expand_shape` failed
    an internal assertion, which ended the process (named_programs.py's dynamic seed 19,
    through the backward of a collapse); a strided source (a column) expands too, into static sizes and dynamic ones. Compiled
    in a child first: were the assertion back, it would end this process."""
    output = _in_child(tmp_path, EXPANSIONS, "exe.rows(np.arange(6.0), 2, 3).tolist()")
    assert output == "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]", output
    exe = gradir.compile(EXPANSIONS)
    np.testing.assert_array_equal(exe.rows(np.arange(6.0), 2, 3), np.arange(6.0).reshape(2, 3))
    m = np.arange(18.0).reshape(6, 3)
    np.testing.assert_array_equal(exe.column(m, 3, 2), m[:, 1].reshape(3, 2, 1))
    with pytest.raises(gradir.RunTimeCheckError, match=r"@rows: sizes that do not multiply to the dimension"):
        exe.rows(np.arange(6.0), 2, 4)
    np.testing.assert_array_equal(exe.rows(np.arange(8.0), 2, 4), np.arange(8.0).reshape(2, 4))


def test_the_gradient_of_a_collapse_of_dynamic_sizes_matches_central_differences(tmp_path):
    """Its backward expands `?` into `?x?` (in a child, as above)."""
    check = 'gradir.gradcheck(exe.source, "flat", [np.random.default_rng(3).uniform(-1, 1, (3, 4))]).report()'
    output = _in_child(tmp_path, EXPANSIONS, check.replace("exe.source", repr(EXPANSIONS)))
    assert "vjp gradient of argument 0: ok" in output and "jvp tangent of result 0: ok" in output, output
