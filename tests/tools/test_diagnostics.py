"""Every way a user of the Python API (and of `autodiff-run` / `autodiff-gradcheck`)
can go wrong ends in one `gradir.GradirError` subclass whose message is one line,
names the place (`file:line:col`, or the argument), and says what was expected."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import gradir
from gradir.errors import (
    ArgumentError,
    DifferentiationError,
    GradirError,
    PipelineError,
    SourceError,
    TargetError,
)

BIN = pathlib.Path(sys.executable).parent

SCALE = """\
func.func @scale(%x: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %0 = autodiff.mul %x, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""

LOSS = """\
func.func @loss(%w: tensor<3xf64>, %n: tensor<3xi32>) -> tensor<f64> {
  %0 = autodiff.exp %w : tensor<3xf64>
  %1 = autodiff.sum %0 : tensor<3xf64> -> tensor<f64>
  return %1 : tensor<f64>
}
"""


def entry(body: str, signature: str = "%a: tensor<4xf32>", results: str = "tensor<4xf32>") -> str:
    """`LOSS`-free programs: a callee `@f` plus `@main` holding `body`."""
    return (
        "func.func @f(%a: tensor<4xf32>) -> tensor<f32> {\n"
        "  %s = autodiff.sum %a : tensor<4xf32> -> tensor<f32>\n"
        "  return %s : tensor<f32>\n"
        "}\n"
        f"func.func @main({signature}) -> {results} {{\n"
        f"  {body}\n"
        f"  return %d : {results}\n"
        "}\n"
    )


def error_of(call, *arguments, **keywords) -> GradirError:
    with pytest.raises(GradirError) as caught:
        call(*arguments, **keywords)
    message = str(caught.value)
    assert "\n" not in message, f"not one line: {message!r}"
    assert "Traceback" not in message
    return caught.value


# -- bad programs: located one-line errors ------------------------------------------


@pytest.mark.parametrize(
    "source, kind, where, expected",
    [
        ("func.func @f( {", SourceError, "1:15", "Expected argument or type"),
        (
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = autodiff.frobnicate %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
            SourceError, "2:", "Operation autodiff.frobnicate is not registered",
        ),
        (
            "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
            "  %0 = autodiff.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>\n"
            "  return %0 : tensor<2x5xf32>\n}\n",
            SourceError, "2:3",
            "'autodiff.matmul' op contraction dimensions do not match: lhs 2x3 has K=3, rhs 4x5 has K=4",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = autodiff.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>\n"
            "  return %a : tensor<4xf32>\n}\n",
            SourceError, "2:3", "element types must match",
        ),
        (
            "func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
            "  %0 = autodiff.exp %a : tensor<4xi32>\n  return %0 : tensor<4xi32>\n}\n",
            SourceError, "2:3", "must have a float element type (f16, bf16, f32 or f64)",
        ),
        (
            entry("%d = autodiff.grad @nowhere(%a) : (tensor<4xf32>) -> tensor<4xf32>"),
            SourceError, "6:3", "'autodiff.grad' op callee @nowhere could not be found",
        ),
        (
            entry("%d = autodiff.grad @f(%a) {wrt = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>"),
            SourceError, "6:3", "wrt index 1 is out of range: callee @f has 1 arguments",
        ),
        (
            entry("%d = autodiff.grad @f(%a) {wrt = array<i64: 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>"),
            SourceError, "6:3", "contain duplicates",
        ),
        (
            entry("%d = autodiff.grad @f(%a) : (tensor<4xf32>) -> tensor<5xf32>",
                  results="tensor<5xf32>"),
            SourceError, "6:3", "result types (tensor<5xf32>) do not match the expected (tensor<4xf32>)",
        ),
        (
            entry("%d = autodiff.grad @f(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"),
            SourceError, "6:3", "do not match the expected",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) -> tensor<f32> {\n"
            '  %t = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n'
            "  %s = autodiff.sum %t : tensor<4xf32> -> tensor<f32>\n  return %s : tensor<f32>\n}\n"
            "func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %d = autodiff.grad @f(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
            "  return %d : tensor<4xf32>\n}\n",
            DifferentiationError, "2:3", "differentiation of 'test.op' is not supported",
        ),
    ],
    ids=[
        "syntax", "unknown-op", "verifier", "element-types", "integer-operand",
        "missing-callee", "wrt-out-of-range", "wrt-duplicates", "entry-result-type",
        "entry-operand-count", "no-derivative-rule",
    ],
)  # fmt: skip
def test_bad_program_is_a_located_error(source, kind, where, expected):
    error = error_of(gradir.compile, source, target="cpu")
    assert isinstance(error, kind), f"{type(error).__name__}: {error}"
    assert str(error).startswith(f"<string>:{where}"), str(error)
    assert ": error: " in str(error) and expected in str(error)


def test_error_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "broken.mlir"
    path.write_text(SCALE.replace("tensor<f32>) -> tensor<2x3xf32>\n", "tensor<f32>) -> tensor<3xf32>\n"))
    error = error_of(gradir.compile, str(path))
    # The parser sees %x used with a second type: a located parse error.
    assert str(error).startswith(f"{path}:3:10: error: operand is used with type")


def test_missing_file_and_wrong_source_type():
    assert "cannot read missing.mlir: No such file or directory" in str(
        error_of(gradir.compile, "missing.mlir")
    )
    error = error_of(gradir.compile, 42)
    assert isinstance(error, SourceError)
    assert "expected .mlir text, a path or an xDSL ModuleOp, got int" in str(error)


def test_unknown_target():
    error = error_of(gradir.compile, SCALE, target="tpu")
    assert isinstance(error, PipelineError)
    assert str(error) == "error: unknown target 'tpu' (valid targets: cpu, cuda)"


NO_RULE = """\
func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  %t = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %t : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"""


def test_a_failed_compile_leaves_the_callers_module_untouched():
    from gradir.source import load_module

    module = load_module(NO_RULE)
    before = str(module)
    assert isinstance(error_of(gradir.compile, module), DifferentiationError)
    assert str(module) == before


# -- calling a compiled function with the wrong arguments ------------------------------


@pytest.fixture(scope="module")
def scale():
    return gradir.compile(SCALE, target="cpu")


def test_good_call_works(scale):
    (result,) = scale.call("scale", np.ones((2, 3), np.float32), np.float32(2.0))
    np.testing.assert_array_equal(result, np.full((2, 3), 2.0, np.float32))


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ((np.ones((2, 3), np.float32),), "scale: expected 2 arguments, got 1"),
        (
            (np.ones((2, 3), np.float32), np.float32(1), np.float32(1)),
            "scale: expected 2 arguments, got 3",
        ),
        (
            (np.ones((3, 2), np.float32), np.float32(1)),
            "scale: argument 0 has shape (3, 2), expected (2, 3)",
        ),
        (
            (np.ones((2, 3), np.float64), np.float32(1)),
            "scale: argument 0 has dtype float64, expected float32 (tensor<2x3xf32>)",
        ),
        (
            ([[1.0] * 3] * 2, np.float32(1)),
            "scale: argument 0 is a list, expected a numpy array tensor<2x3xf32>",
        ),
        (
            (np.ones((2, 3), np.float32), np.ones(1, np.float32)),
            "scale: argument 1 has shape (1,), expected ()",
        ),
    ],
    ids=["too-few", "too-many", "shape", "dtype", "not-an-array", "scalar-shape"],
)
def test_wrong_arguments_are_argument_errors(scale, arguments, expected):
    error = error_of(scale.call, "scale", *arguments)
    assert isinstance(error, ArgumentError)
    assert str(error) == f"error: {expected}"


def test_unknown_function_is_an_argument_error(scale):
    error = error_of(scale.call, "nope", np.ones((2, 3), np.float32))
    assert isinstance(error, ArgumentError)
    assert str(error) == "error: no public function 'nope' (available: scale)"
    with pytest.raises(AttributeError, match="has no public function or attribute 'nope'") as caught:
        scale.nope  # noqa: B018
    assert isinstance(caught.value, ArgumentError)  # a GradirError too
    assert not hasattr(scale, "nope")


# -- gradcheck ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "function, keywords, expected",
    [
        ("nope", {}, "no function @nope in the module"),
        ("loss", {"wrt": [2]}, "wrt index 2 does not name a float tensor or float scalar argument of @loss"),
        ("loss", {"wrt": [1]}, "wrt index 1 does not name a float tensor or float scalar argument of @loss"),
        ("loss", {"inputs": [np.ones(3)]}, "@loss takes 2 arguments, 1 inputs given"),
    ],
    ids=["unknown-function", "wrt-out-of-range", "wrt-integer-argument", "input-count"],
)
def test_gradcheck_argument_errors(function, keywords, expected):
    error = error_of(gradir.gradcheck, LOSS, function, **keywords)
    assert isinstance(error, ArgumentError)
    assert str(error) == f"error: {expected}"


# -- targets -------------------------------------------------------------------------------


def test_missing_ptxas_is_a_target_error(monkeypatch):
    from gradir.gpu_backend.ptx import assemble

    monkeypatch.setenv("PATH", "")
    error = error_of(assemble, "// no kernels\n.version 8.0\n.target sm_90\n.address_size 64\n")
    assert isinstance(error, TargetError)
    assert str(error).startswith("error: ptxas not found on PATH")


# -- the CLIs that take numpy inputs --------------------------------------------------------


def run(tool: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / tool), *arguments], capture_output=True, text=True, timeout=600
    )


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 1, result
    assert result.stdout == "" and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def scale_file(tmp_path):
    path = tmp_path / "scale.mlir"
    path.write_text(SCALE)
    x, s = tmp_path / "x.npy", tmp_path / "s.npy"
    np.save(x, np.ones((2, 3), np.float32))
    np.save(s, np.float32(3))
    return path, x, s


def test_autodiff_run_errors(scale_file, tmp_path):
    path, x, s = scale_file
    assert one_error_line(run("autodiff-run", str(path), "--entry", "scale", "--inputs", str(x))) == (
        "error: scale: expected 2 arguments, got 1"
    )
    missing = tmp_path / "missing.npy"
    line = one_error_line(
        run("autodiff-run", str(path), "--entry", "scale", "--inputs", str(x), str(missing))
    )
    assert line.startswith(f"error: cannot read input {missing}")
    not_npy = tmp_path / "text.npy"
    not_npy.write_text("hello")
    line = one_error_line(
        run("autodiff-run", str(path), "--entry", "scale", "--inputs", str(x), str(not_npy))
    )
    assert line.startswith(f"error: cannot read input {not_npy}")
    assert one_error_line(run("autodiff-run", str(path))) == (
        "error: the following arguments are required: --entry (see --help)"
    )


def test_autodiff_run_writes_no_output_on_failure(scale_file, tmp_path):
    path, x, _ = scale_file
    output = tmp_path / "out.npz"
    one_error_line(
        run("autodiff-run", str(path), "--entry", "scale", "--inputs", str(x), "--output", str(output))
    )
    assert not output.exists()


def test_autodiff_gradcheck_errors(tmp_path):
    path = tmp_path / "loss.mlir"
    path.write_text(LOSS)
    assert one_error_line(run("autodiff-gradcheck", str(path), "--entry", "loss", "--wrt", "0,x")) == (
        "error: --wrt expects comma-separated integers, got '0,x' (see --help)"
    )
    assert one_error_line(run("autodiff-gradcheck", str(path), "--entry", "loss", "--wrt", "5")) == (
        "error: wrt index 5 does not name a float tensor or float scalar argument of @loss"
    )
    assert one_error_line(run("autodiff-gradcheck", str(path), "--entry", "nope")) == (
        "error: no function @nope in the module"
    )
    missing = tmp_path / "missing.npy"
    line = one_error_line(
        run("autodiff-gradcheck", str(path), "--entry", "loss", "--inputs", str(missing))
    )
    assert str(missing) in line and "Traceback" not in line


def test_a_verifier_that_crashes_is_a_located_error():
    """An op whose verifier raises something other than a verify error (xDSL 0.74's
    linalg.transpose did, on an out-of-range permutation) is still one located line."""
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.irdl import IRDLOperation, irdl_op_definition
    from gradir.verify import verify_module

    @irdl_op_definition
    class CrashingOp(IRDLOperation):
        name = "test.crashing"

        def verify_(self) -> None:
            raise IndexError("tuple index out of range")

    module = ModuleOp([CrashingOp()])
    with pytest.raises(SourceError) as error:
        verify_module(module)
    assert str(error.value).endswith(
        "error: 'test.crashing' op does not verify (IndexError in its verifier: tuple index out of range)"
    )
    assert "\n" not in str(error.value)


def test_a_reader_that_stops_early_ends_the_cli_quietly(scale_file):
    """`autodiff-opt f.mlir | head -0`: the closed pipe is no error line ("[Errno 32] Broken
    pipe") and no "Exception ignored ... BrokenPipeError"; the status is SIGPIPE's, as mlir-opt's."""
    path, x, s = scale_file
    for argv in (["autodiff-opt", str(path)], ["autodiff-run", str(path), "--entry", "scale", "--inputs", str(x), str(s)]):
        process = subprocess.Popen([str(BIN / argv[0]), *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        process.stdout.close()  # before the tool has started, let alone written
        error = process.stderr.read().decode()
        process.wait(timeout=600)
        assert (process.returncode, error) == (141, ""), argv[0]
