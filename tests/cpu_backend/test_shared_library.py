"""`gradir.export` / `autodiff-opt --emit shared-lib` and `gradir.load`: machine code as a shared
library, called where neither xDSL nor MLIR can be imported, with the results `gradir.compile`
gives, bit for bit, and the same errors."""
import json
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradir
from child_process import WITHOUT_COMPILER_STACK, run_python
from gradir.tools.autodiff_opt import main as autodiff_opt

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"

EXTRACT = """\
func.func @f(%x: tensor<4xf64>, %i: index) -> f64 {
  %v = tensor.extract %x[%i] : tensor<4xf64>
  return %v : f64
}
"""
"""A read at an index from the inputs: run-time checked (`run_time_checks`)."""


def _inputs(signature, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(spec.shape).astype(spec.dtype) for spec in signature.arguments]


def test_an_exported_library_runs_where_xdsl_and_mlir_cannot_be_imported(tmp_path):
    library = gradir.export(MLP, target="cpu", path=tmp_path / "libmlp.so")
    assert library == tmp_path / "libmlp.so"
    assert {path.name for path in tmp_path.iterdir()} == {"libmlp.so", "libmlp.h", "libmlp.json"}
    source = tmp_path / "extract.mlir"
    source.write_text(EXTRACT)
    gradir.export(source, path=tmp_path / "libextract.so")
    compiled = gradir.compile(MLP)
    arrays = {}
    for name, signature in compiled.signatures.items():
        for position, array in enumerate(_inputs(signature, seed=len(name))):
            arrays[f"{name}:{position}"] = array
    np.savez(tmp_path / "inputs.npz", **arrays)
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import json
        import numpy as np
        import gradir
        try:
            import xdsl
        except ImportError:
            print("xdsl blocked")
        lib = gradir.load({str(library)!r})
        given = np.load({str(tmp_path / "inputs.npz")!r})
        out = {{}}
        for name in lib.signatures:
            arguments = [given[f"{{name}}:{{i}}"] for i in range(len(lib.signatures[name].arguments))]
            for position, value in enumerate(lib.call(name, *arguments)):
                out[f"{{name}}:{{position}}"] = value
        np.savez({str(tmp_path / "outputs.npz")!r}, **out)
        loss = lib.mlp_loss(*[given[f"mlp_loss:{{i}}"] for i in range(8)])
        print("attribute call:", type(loss).__name__, loss.shape)
        try:
            lib.mlp_loss(*[given[f"mlp_loss:{{i}}"] for i in range(7)], np.zeros(3, np.float32))
        except gradir.ArgumentError as error:
            print("ArgumentError", error)
        try:
            lib.mlp_loss(*[given[f"mlp_loss:{{i}}"].astype(np.float64) for i in range(8)])
        except gradir.ArgumentError as error:
            print("ArgumentError", error)
        extract = gradir.load({str(tmp_path / "libextract.so")!r})
        print("extract", extract.f(np.arange(4.0), 3))
        try:
            extract.f(np.arange(4.0), 10**8)
        except gradir.RunTimeCheckError as error:
            print("RunTimeCheckError", error.location, "|", error)
        print("loaded:", sorted(m for m in sys.modules if m.split(".")[0] in ("xdsl", "mlir")))
    """)
    printed = run_python(script, tmp_path).splitlines()
    assert printed[0] == "xdsl blocked"
    assert printed[-1] == "loaded: []"
    assert printed[1] == "attribute call: ndarray ()"
    assert printed[2] == "ArgumentError error: mlp_loss: argument 7 has shape (3,), expected (10,)"
    assert printed[3].startswith("ArgumentError error: mlp_loss: argument 0 has dtype float64, expected float32")
    outputs = np.load(tmp_path / "outputs.npz")
    for name in compiled.signatures:
        arguments = [arrays[f"{name}:{i}"] for i in range(len(compiled.signatures[name].arguments))]
        expected = compiled.call(name, *arguments)
        for position, value in enumerate(expected):
            found = outputs[f"{name}:{position}"]
            assert found.dtype == value.dtype and found.shape == value.shape
            assert found.tobytes() == value.tobytes(), f"{name} result {position} differs"
    assert printed[4] == "extract 3.0"
    with pytest.raises(gradir.RunTimeCheckError) as raised:
        gradir.compile(source).f(np.arange(4.0), 10**8)
    assert printed[5] == f"RunTimeCheckError {raised.value.location} | {raised.value}"
    assert raised.value.location == f"{source}:2:3"


def test_the_manifest_records_every_signature_and_the_target(tmp_path):
    gradir.export(MLP, path=tmp_path / "libmlp.so")
    manifest = json.loads((tmp_path / "libmlp.json").read_text())
    assert manifest["target"] == "cpu" and manifest["library"] == "libmlp.so"
    signatures = gradir.compile(MLP).signatures
    assert list(manifest["functions"]) == list(signatures)
    grad = manifest["functions"]["mlp_grad"]
    assert grad["arguments"][0] == {"kind": "tensor", "shape": [8, 16], "element": "f32"}
    assert len(grad["results"]) == len(signatures["mlp_grad"].results)
    assert gradir.load(tmp_path / "libmlp.so").signatures == signatures


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_c_calls_the_library_through_its_header(tmp_path):
    source = tmp_path / "extract.mlir"
    source.write_text(EXTRACT)
    gradir.export(source, path=tmp_path / "libextract.so")
    (tmp_path / "main.c").write_text(textwrap.dedent("""
        #include <stdio.h>
        #include "libextract.h"
        int main(void) {
          double x[4] = {1.5, 2.5, 3.5, 4.5};
          gradir_memref_1d d = {x, x, 0, {4}, {1}};
          int64_t failure = 0;
          double v = __gradir_guarded_f(&failure, &d, 2);
          printf("%g %lld\\n", v, (long long)failure);
          __gradir_guarded_f(&failure, &d, 7);
          printf("%lld\\n", (long long)failure);
          return 0;
        }
    """))
    subprocess.run(["cc", "-Wall", "-Werror", "-o", "main", "main.c", "-L.", "-lextract", "-Wl,-rpath,$ORIGIN"],
                   cwd=tmp_path, check=True)  # fmt: skip
    printed = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert printed.split() == ["3.5", "0", "-1"]


def test_autodiff_opt_emits_a_shared_library(tmp_path, capsys):
    assert autodiff_opt([str(MLP), "--pipeline", "cpu", "--emit", "shared-lib", "-o", str(tmp_path / "libm.so")]) == 0
    assert capsys.readouterr().out == ""
    library = gradir.load(tmp_path / "libm.so")
    compiled = gradir.compile(MLP)
    arguments = _inputs(compiled.signatures["mlp_grad"], seed=3)
    for found, expected in zip(library.mlp_grad(*arguments), compiled.mlp_grad(*arguments)):
        assert found.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--pipeline", "cpu", "--emit", "shared-lib"], "error: --emit shared-lib writes a library: give its path with -o FILE.so"),
        (["--pipeline", "linalg", "--emit", "shared-lib", "-o", "x.so"], "error: --emit shared-lib only applies with --pipeline cpu or gpu"),
        (["--pipeline", "cpu", "--emit", "shared-lib", "-o", "x.txt"], "error: a shared library's path ends in .so, got 'x.txt'"),
    ],
)
def test_autodiff_opt_refuses_a_library_it_cannot_write(flags, message, capsys):
    assert autodiff_opt([str(MLP), *flags]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip() == message and captured.out == ""


def test_export_needs_a_c_compiler(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(gradir.TargetError, match="needs a C compiler to link it, and none was found"):
        gradir.export(EXTRACT, path=tmp_path / "libf.so")
    assert list(tmp_path.iterdir()) == []


def test_a_library_that_does_not_match_its_manifest_is_refused(tmp_path):
    gradir.export(EXTRACT, path=tmp_path / "libf.so")
    data = (tmp_path / "libf.so").read_bytes()
    (tmp_path / "libf.so").write_bytes(data[: len(data) // 2])
    with pytest.raises(gradir.SourceError, match="does not match its manifest libf.json"):
        gradir.load(tmp_path / "libf.so")
    with pytest.raises(gradir.SourceError, match="cannot read"):
        gradir.load(tmp_path / "missing.so")
    with pytest.raises(gradir.ArgumentError, match="ends in .so"):
        gradir.export(EXTRACT, path=tmp_path / "libf.dll")


def test_a_library_checks_its_allocations_as_the_jit_does(tmp_path):
    """The allocation limit is the library's exported global, set by the loader, and the
    guard's pthread key is created when the library loads; two scalar results come back
    through the struct the C interface fills."""
    import threading

    from test_checked_allocations import FILL_AND_SUM, TERABYTES, X

    source = FILL_AND_SUM.format(name="f")
    library = gradir.load(gradir.export(source, path=tmp_path / "libfill.so"))
    executable = gradir.compile(source)
    assert library.f(X, 4) == executable.f(X, 4) == (6.0, 1.5)
    messages = []
    for program in (library, executable):
        with pytest.raises(gradir.AllocationError) as caught:
            program.f(X, TERABYTES)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "more than this process can ever hold" in messages[0]
    wrong = []

    def work(seed: int) -> None:
        for step in range(30):
            n = TERABYTES if (seed + step) % 3 == 0 else 7 + seed
            try:
                if library.f(X, n) != (1.5 * n, 1.5) or n == TERABYTES:
                    wrong.append(n)
            except gradir.AllocationError:
                if n != TERABYTES:
                    wrong.append(n)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


SCALARS = """\
func.func @g(%x: f16, %flag: i1, %t: tensor<2x3xi8>) -> (i1, tensor<2x3xi8>) {
  return %flag, %t : i1, tensor<2x3xi8>
}
func.func @"not an identifier"(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
@pytest.mark.parametrize("source", [MLP, SCALARS], ids=["mlp", "scalars"])
def test_every_header_is_valid_c(tmp_path, source):
    library = gradir.export(source, path=tmp_path / "libh.so")
    done = subprocess.run(["cc", "-Wall", "-Werror", "-fsyntax-only", "-x", "c", str(library.with_suffix(".h"))],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    if source is SCALARS:
        loaded = gradir.load(library)
        flag, table = loaded.g(1.5, True, np.arange(6, dtype=np.int8).reshape(2, 3))
        assert flag is np.True_ and table.tolist() == [[0, 1, 2], [3, 4, 5]]
        assert loaded.call("not an identifier", np.arange(4.0))[0].tolist() == [0, 1, 2, 3]
        assert "not a C identifier: look up `_mlir___gradir_guarded_not an identifier`" in library.with_suffix(".h").read_text()
