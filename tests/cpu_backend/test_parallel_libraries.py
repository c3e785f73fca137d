"""Parallel code on disk: `gradir.export` and the compilation cache link the OpenMP runtime the
JIT is handed by address (`library_export.RuntimePlacement`). An exported directory carries
the runtime beside the library and runs where xDSL and MLIR cannot be imported; a cache
entry links the installed runtime. Results are `gradir.compile`'s with the same thread
count, bit for bit, and a failed check on any thread is the same error."""
import json
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir.cpu_backend.thread_runtime import RUNTIME_FILE
from test_parallel_loops import ELEMENTWISE, GATHER, LARGE
from child_process import WITHOUT_COMPILER_STACK

PROGRAM = ELEMENTWISE.format(n=LARGE)
RUNTIME_SYMBOL = "__kmpc_fork_call"


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal(LARGE).astype(np.float32) for _ in range(2)]


def test_an_exported_parallel_library_carries_its_runtime_and_runs_alone(tmp_path):
    built = tmp_path / "built"
    built.mkdir()
    library = gradir.export(PROGRAM, path=built / "libp.so", num_threads=2)
    assert {path.name for path in built.iterdir()} == {"libp.so", "libp.h", "libp.json", RUNTIME_FILE}
    assert json.loads(library.with_suffix(".json").read_text())["thread_runtime"] == RUNTIME_FILE
    moved = shutil.copytree(built, tmp_path / "moved")  # found through $ORIGIN, not a path
    shutil.rmtree(built)
    compiled = gradir.compile(PROGRAM, num_threads=2)
    assert "omp.parallel" in compiled.llvm_text
    np.savez(tmp_path / "inputs.npz", *_inputs())
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import ctypes
        import numpy as np
        import gradir
        given = np.load({str(tmp_path / "inputs.npz")!r})
        lib = gradir.load({str(moved / "libp.so")!r})
        gx, gy = lib.df(given["arr_0"], given["arr_1"])
        np.savez({str(tmp_path / "outputs.npz")!r}, gx, gy, lib.f(given["arr_0"], given["arr_1"]))
        print(sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("xdsl", "mlir")}}))
        print(hasattr(ctypes.CDLL(None), {RUNTIME_SYMBOL!r}))
        print(sorted({{line.split()[-1] for line in open("/proc/self/maps") if {RUNTIME_FILE!r} in line}}))
    """)
    printed = run_python(script, tmp_path).splitlines()
    assert printed[:2] == ["[]", "False"]  # nothing of the compiler; the runtime's symbols stay local
    assert printed[2] == str([str(moved / RUNTIME_FILE)])  # the copy beside it, not the installed one
    ours = np.load(tmp_path / "outputs.npz")
    inputs = _inputs()
    for name, expected in zip(ours.files, (*compiled.df(*inputs), compiled.f(*inputs))):
        assert ours[name].tobytes() == np.asarray(expected).tobytes()


def test_an_exported_parallel_library_and_pytorch_share_a_process(tmp_path):
    """PyTorch's OpenMP (GCC's libgomp) and the library's (libiomp5) each keep serving their own
    code, whichever is loaded first."""
    library = gradir.export(PROGRAM, path=tmp_path / "libp.so", num_threads=2)
    expected = gradir.compile(PROGRAM, num_threads=2).f(*_inputs())
    np.savez(tmp_path / "inputs.npz", *_inputs())
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import numpy as np
        import torch
        import gradir
        torch.set_num_threads(2)
        m = torch.randn(300, 300, dtype=torch.float64)
        before = (m @ m).sum().item()
        lib = gradir.load({str(library)!r})
        given = np.load({str(tmp_path / "inputs.npz")!r})
        print(lib.f(given["arr_0"], given["arr_1"]).tobytes().hex())
        print((m @ m).sum().item() == before, torch.get_num_threads())
    """)
    lines = run_python(script, tmp_path).splitlines()
    assert lines == [expected.tobytes().hex(), "True 2"]


@pytest.mark.parametrize("bad", [0, LARGE - 1])
def test_a_failed_check_in_a_parallel_region_of_an_exported_library_is_the_same_error(tmp_path, bad):
    """Index 0 is in the calling thread's share, the last in the other thread's."""
    library = gradir.export(GATHER.format(n=LARGE), path=tmp_path / "libgather.so", num_threads=2)
    assert (tmp_path / RUNTIME_FILE).is_file()
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import numpy as np
        import gradir
        lib = gradir.load({str(library)!r})
        table, ids = np.arange(5.0), np.arange({LARGE}) % 5
        ids[{bad}] = 5
        try:
            lib.f(table, ids)
        except gradir.RunTimeCheckError as error:
            print(type(error).__name__, error)
        ids[{bad}] = 4
        print(lib.f(table, ids)[{bad}])
    """)
    lines = run_python(script, tmp_path).splitlines()
    assert lines[0].startswith("RunTimeCheckError") and "an index out of bounds" in lines[0]
    assert lines[1] == "4.0"


BLOCKED_MATMUL = """
func.func @f(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %c = autodiff.matmul %a, %b : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %c : tensor<512x512xf32>
}
"""
"""Cache-blocked on 2 threads: each iteration of the parallel block loop allocates its packed
blocks (256 KiB each), the only allocations of the function."""


def test_a_failed_allocation_in_a_parallel_region_of_an_exported_library_is_the_same_error(tmp_path):
    library = gradir.export(BLOCKED_MATMUL, path=tmp_path / "libmm.so", num_threads=2)
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import ctypes
        import numpy as np
        import gradir
        lib = gradir.load({str(library)!r})
        limit = ctypes.c_int64.in_dll(lib._library, lib.manifest["symbols"]["allocation_limit"])
        a = np.ones((512, 512), np.float32)
        for allowed in (1000, 1 << 40):  # below a packed block, then room for all
            limit.value = lib.allocation_limit = allowed
            try:
                print(lib.f(a, a)[511, 511])
            except gradir.AllocationError as error:
                print(type(error).__name__, error)
    """)
    lines = run_python(script, tmp_path).splitlines()
    assert lines[0].startswith("AllocationError") and "a buffer of 256 KiB (262144 bytes)" in lines[0]
    assert lines[1] == "512.0"


def test_one_thread_exports_serial_code_without_the_runtime(tmp_path):
    library = gradir.export(PROGRAM, path=tmp_path / "libserial.so", num_threads=1)
    assert {path.name for path in tmp_path.iterdir()} == {"libserial.so", "libserial.h", "libserial.json"}
    assert "thread_runtime" not in json.loads(library.with_suffix(".json").read_text())
    inputs = _inputs()
    serial = gradir.compile(PROGRAM, num_threads=1)
    for ours, theirs in zip(gradir.load(library).df(*inputs), serial.df(*inputs)):
        assert ours.tobytes() == theirs.tobytes()


def test_a_library_whose_runtime_is_gone_is_a_target_error(tmp_path):
    library = gradir.export(PROGRAM, path=tmp_path / "libp.so", num_threads=2)
    (tmp_path / RUNTIME_FILE).unlink()
    with pytest.raises(gradir.TargetError, match=f"its OpenMP runtime .*{RUNTIME_FILE} is missing"):
        gradir.load(library)


SINE = f"""
func.func @f(%x: tensor<{LARGE}xf32>) -> tensor<{LARGE}xf32> {{
  %y = autodiff.sin %x : tensor<{LARGE}xf32>
  return %y : tensor<{LARGE}xf32>
}}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_c_calls_a_parallel_library_through_its_header(tmp_path):
    """The header compiles; a C program links the library alone (it finds the runtime)."""
    library = gradir.export(SINE, path=tmp_path / "libsine.so", num_threads=2)
    assert "thread_runtime" in json.loads(library.with_suffix(".json").read_text())
    (tmp_path / "main.c").write_text(textwrap.dedent(f"""
        #include <stdio.h>
        #include <stdlib.h>
        #include "libsine.h"
        int main(void) {{
          float *x = malloc({LARGE} * sizeof(float)), *y = malloc({LARGE} * sizeof(float));
          for (int i = 0; i < {LARGE}; i++) x[i] = (float)i / {LARGE};
          gradir_memref_1d in = {{x, x, 0, {{{LARGE}}}, {{1}}}}, out = {{y, y, 0, {{{LARGE}}}, {{1}}}};
          int64_t failure = 0;
          __gradir_guarded_f(&failure, &in, &out);
          fwrite(y, sizeof(float), {LARGE}, stdout);
          return (int)failure;
        }}
    """))
    subprocess.run(["cc", "-Wall", "-Werror", "-o", "main", "main.c", "-L.", "-lsine", "-Wl,-rpath,$ORIGIN"],
                   cwd=tmp_path, check=True)  # fmt: skip
    printed = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, check=True).stdout
    x = np.arange(LARGE, dtype=np.float32) / np.float32(LARGE)
    assert printed == gradir.compile(SINE, num_threads=2).f(x).tobytes()


CHILD = """
import json
import numpy as np
import gradir
exe = gradir.compile({source!r}, num_threads=2)
rng = np.random.default_rng(7)
gx, gy = exe.df(*[rng.standard_normal({n}).astype(np.float32) for _ in range(2)])
np.savez({output!r}, gx, gy)
print(json.dumps(exe.from_disk))
"""


def test_a_parallel_program_goes_through_the_cache_across_processes(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("GRADIR_CACHE", "1")
    monkeypatch.setenv("GRADIR_CACHE_DIR", str(directory))
    outputs = []
    for run in ("first", "second"):
        output = tmp_path / f"{run}.npz"
        printed = run_python(CHILD.format(source=PROGRAM, n=LARGE, output=str(output)), tmp_path)
        assert json.loads(printed) is (run == "second")
        outputs.append(np.load(output))
        (entry,) = directory.glob("*/*/lib.json")
        runtime = json.loads(entry.read_text())["thread_runtime"]
        assert runtime.endswith(RUNTIME_FILE) and not (entry.parent / RUNTIME_FILE).exists()
    monkeypatch.setenv("GRADIR_CACHE", "0")
    expected = gradir.compile(PROGRAM, num_threads=2).df(*_inputs())
    for name, theirs in zip(outputs[0].files, expected):
        assert outputs[0][name].tobytes() == outputs[1][name].tobytes() == theirs.tobytes()
