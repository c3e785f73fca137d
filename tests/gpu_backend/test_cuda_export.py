"""`gradir.export(target="cuda")` / `autodiff-opt --pipeline gpu --emit shared-lib` and
`gradir.load` of the library, without a GPU: the files and the manifest, the embedded PTX and
cubins, loading where xDSL and MLIR cannot be imported, and the runtime's calls into a
recording fake driver (`fake_libcuda.c`, loaded with GRADIR_CUDA_DRIVER): module loads with the
right images, launches with the manifest's grids and blocks, allocations and frees balanced,
the fallback from a refused cubin to the PTX, and driver failures as TargetErrors."""
import collections
import ctypes
import json
import pathlib
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

import gradir
from child_process import WITHOUT_COMPILER_STACK, run_python
from gradir.compilation import runnable_linalg
from gradir.gpu_backend.cuda_library_export import embedded_images
from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.ptx import assemble, parse_ptxas_verbose
from gradir.tools.autodiff_opt import main as autodiff_opt
from test_gpu_cuda_program import SCALARS, RecordingDriver

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PRODUCT = ROOT / "examples" / "product.mlir"
MLP = ROOT / "examples" / "mlp.mlir"


needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA toolkit) not on PATH")


def fnv(data: bytes) -> str:
    """FNV-1a, 64 bits: the hash fake_libcuda.c logs of each image it loads."""
    value = 1469598103934665603
    for byte in data:
        value = ((value ^ byte) * 1099511628211) % 2**64
    return f"{value:016x}"


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("driver") / "libcuda_fake.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(path), str(HERE / "fake_libcuda.c")], check=True)
    return path


@pytest.fixture(scope="module")
def product(tmp_path_factory):
    """The README's example exported, and the CudaProgram of the same source."""
    directory = tmp_path_factory.mktemp("product")
    library = gradir.export(PRODUCT, target="cuda", path=directory / "libproduct.so")
    return library, CudaProgram(runnable_linalg(PRODUCT))


def test_export_writes_the_library_its_header_and_a_cuda_manifest(product):
    library, program = product
    assert {path.name for path in library.parent.iterdir()} == {"libproduct.so", "libproduct.h", "libproduct.json"}
    manifest = json.loads(library.with_suffix(".json").read_text())
    assert manifest["target"] == "cuda" and manifest["chip"] == "sm_90"
    assert list(manifest["functions"]) == list(program.signatures)
    loaded = gradir.load(library)
    assert type(loaded).__name__ == "CudaLibrary"
    assert loaded.signatures == program.signatures
    for name, config in program.launch_configs.items():
        entry = manifest["kernels"][name]
        assert (entry["function"], tuple(entry["grid"]), tuple(entry["block"])) == (config.function, config.grid, config.block)
    # df forwards to f_grad (a call, no copies of its results), which has f_vjp inlined.
    expected = [f"f_grad_0_1_{n}_elementwise" for n in range(4)]
    assert manifest["functions"]["df"]["kernels"] == program.kernels_of("df") == expected
    with pytest.raises(gradir.TargetError, match="a library for target 'cuda': load it with gradir.load"):
        gradir.NativeLibrary(library)


@needs_ptxas
def test_the_library_embeds_each_kernels_ptx_and_its_ptxas_cubin(product):
    library, program = product
    images = embedded_images(library.read_bytes())
    assert [ptx for _, ptx in images] == list(program.ptx.values())
    manifest = json.loads(library.with_suffix(".json").read_text())
    assert manifest["images"] == "cubin+ptx"
    for (cubin, ptx), name in zip(images, program.ptx):
        assert cubin[:4] == b"\x7fELF"
        assert cubin == assemble(ptx, "sm_90").cubin
        assert manifest["kernels"][name]["cubin_bytes"] == len(cubin)


@needs_ptxas
def test_the_mlp_gradient_exports_with_no_register_spills(tmp_path):
    library = gradir.export(MLP, target="gpu", path=tmp_path / "libmlp.so")
    kernels = json.loads(library.with_suffix(".json").read_text())["kernels"]
    assert len(kernels) > 20
    assert all(entry["registers"] > 0 for entry in kernels.values())
    assert {name: entry["spill_bytes"] for name, entry in kernels.items() if entry["spill_bytes"]} == {}
    # The manifest's figures are ptxas -v's: a kernel's are read back from its own output.
    name, (_, ptx) = next(iter(kernels)), embedded_images(library.read_bytes())[0]
    done = subprocess.run(["ptxas", "-v", "-arch=sm_90", "-", "-o", str(tmp_path / "k.cubin")], input=ptx,
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert parse_ptxas_verbose(done.stderr)[name].registers == kernels[name]["registers"]


def test_the_header_declares_the_runtime_and_each_function_for_c(product, tmp_path):
    library, _ = product
    (tmp_path / "main.c").write_text(textwrap.dedent("""
        #include "libproduct.h"
        int main(void) {
          if (gradir_cuda_start() != 0) return 3;
          gradir_memref_1d a = {0}, b = {0}, ga = {0}, gb = {0};
          _mlir_ciface_df(&a, &b, &ga, &gb);
          return 0;
        }
    """))
    command = ["cc", "-Wall", "-Werror", f"-I{library.parent}", "-o", str(tmp_path / "main"),
               str(tmp_path / "main.c"), str(library), f"-Wl,-rpath,{library.parent}"]  # fmt: skip
    subprocess.run(command, check=True)
    done = subprocess.run([str(tmp_path / "main")], env={"GRADIR_CUDA_DRIVER": "/nonexistent/libcuda.so.1"})
    assert done.returncode == 3  # no driver: start fails and says so, nothing aborts


def test_load_needs_neither_xdsl_nor_mlir_and_a_call_without_a_driver_is_a_target_error(product):
    library, _ = product
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import os, sys
        import numpy as np
        import gradir
        os.environ["GRADIR_CUDA_DRIVER"] = "/nonexistent/libcuda.so.1"
        lib = gradir.load({str(library)!r})
        print(sorted(lib.signatures), lib.manifest["target"])
        a = np.ones(4, np.float32)
        try:
            lib.df(a, np.ones(3, np.float32))
        except gradir.ArgumentError as error:
            print("ArgumentError", error)
        for attempt in range(2):
            try:
                lib.df(a, a)
            except gradir.TargetError as error:
                print("TargetError", error)
        print("loaded:", sorted(m for m in sys.modules if m.split(".")[0] in ("xdsl", "mlir")))
    """)
    printed = run_python(script, library.parent).splitlines()
    assert printed[0] == "['df', 'f', 'f_grad_0_1', 'f_vjp_0_1'] cuda"
    assert printed[1] == "ArgumentError error: df: argument 1 has shape (3,), expected (4,)"
    expected = ("TargetError error: libproduct.so: no CUDA driver: /nonexistent/libcuda.so.1 could not be "
                "loaded (/nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory)")  # fmt: skip
    assert printed[2] == printed[3] == expected
    assert printed[4] == "loaded: []"


def _run_with_fake_driver(library: pathlib.Path, fake_driver: pathlib.Path, body: str, **environment: str) -> list[str]:
    """`body` in a child process whose runtime uses the fake driver; `lib` is the library,
    `fake_log()` the driver's record so far."""
    settings = "".join(f"os.environ[{key!r}] = {value!r}\n" for key, value in environment.items())
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import ctypes, os
        import numpy as np
        import gradir
        os.environ["GRADIR_CUDA_DRIVER"] = {str(fake_driver)!r}
    """) + settings + textwrap.dedent(f"""
        fake = ctypes.CDLL({str(fake_driver)!r})
        fake.fake_log.restype = ctypes.c_char_p
        def fake_log():
            return fake.fake_log().decode().splitlines()
        lib = gradir.load({str(library)!r})
    """) + textwrap.dedent(body)
    return run_python(script, library.parent).splitlines()


def test_the_runtime_loads_every_cubin_launches_as_planned_and_frees_what_it_allocates(product, fake_driver):
    library, program = product
    printed = _run_with_fake_driver(library, fake_driver, """
        a = np.arange(4, dtype=np.float32)
        lib.df(a, a)
        print("images", lib.images_loaded, "launches", lib.launches, "|", lib.device)
        print(" ".join(f"{name}={count}" for name, count in sorted(lib.kernel_launches.items())))
        lib.close()
        try:
            lib.df(a, a)
        except gradir.TargetError as error:
            print(error)
        print("\\n".join(fake_log()))
    """)
    assert printed[0] == f"images {{'cubin': {len(program.ptx)}, 'ptx': 0}} launches 4 | Fake GPU, sm_90, CUDA driver 12.4, cuMemAlloc"
    per_kernel = dict(entry.split("=") for entry in printed[1].split())
    assert printed[2] == "error: libproduct.so: the library was stopped (gradir_cuda_stop); load it in a new process"
    log = [line.split() for line in printed[3:]]
    loads = [entry for entry in log if entry[0] == "load"]
    cubins = [cubin for cubin, _ in embedded_images(library.read_bytes())]
    assert sorted((kind, int(size), digest) for _, kind, size, digest in loads) == sorted(("cubin", len(c), fnv(c)) for c in cubins)
    launches = [(name, tuple(map(int, sizes[:3])), tuple(map(int, sizes[3:6]))) for _, name, *sizes in
                (entry for entry in log if entry[0] == "launch")]  # fmt: skip
    # The launches CudaProgram.call makes through its JIT (df calls f_grad, which has f_vjp
    # inlined), with the manifest's grids and blocks.
    recorder = RecordingDriver()
    program.use_driver(recorder)
    program.call("df", np.ones(4, np.float32), np.ones(4, np.float32))
    assert launches == [call[1:4] for call in recorder.calls if call[0] == "launch"]
    kernels = json.loads(library.with_suffix(".json").read_text())["kernels"]
    assert all((list(grid), list(block)) == (kernels[name]["grid"], kernels[name]["block"]) for name, grid, block in launches)
    assert [name for name, _, _ in launches] == program.kernels_of("df")
    # Launches per kernel (what gpu-check multiplies by each kernel's bytes): the driver's record.
    assert {name: int(count) for name, count in per_kernel.items()} == collections.Counter(name for name, _, _ in launches)
    # The two arguments copied in, the two gradients copied out.
    assert [entry[1:] for entry in log if entry[0] == "htod"] == [["16", fnv(np.arange(4, dtype=np.float32).tobytes())]] * 2
    assert [entry[1:] for entry in log if entry[0] == "dtoh"] == [["16"]] * 2
    allocations = [entry for entry in log if entry[0] == "alloc"]
    assert len(allocations) == sum(entry[0] == "free" for entry in log) > 4  # 4 arguments and results, then temporaries
    assert sum(entry[0] == "unload" for entry in log) == len(loads)
    assert log[-1] == ["release"]


def test_a_refused_cubin_falls_back_to_the_ptx_and_says_why(product, fake_driver):
    library, program = product
    body = """
        lib.df(np.ones(4, np.float32), np.ones(4, np.float32))
        print(lib.images_loaded, "|", lib.cubin_refused)
        print(" ".join(entry.split()[3] for entry in fake_log() if entry.startswith("load ptx")))
    """
    printed = _run_with_fake_driver(library, fake_driver, body, FAKE_CUDA_REFUSE_CUBIN="1")
    assert printed[0] == (f"{{'cubin': 0, 'ptx': {len(program.ptx)}}} | cuModuleLoadData refused the cubin: "
                          "CUDA_ERROR_NO_BINARY_FOR_GPU (209)")  # fmt: skip
    assert sorted(printed[1].split()) == sorted(fnv(ptx.encode()) for ptx in program.ptx.values())
    forced = _run_with_fake_driver(library, fake_driver, body, GRADIR_CUDA_IMAGE="ptx")
    assert forced[0] == f"{{'cubin': 0, 'ptx': {len(program.ptx)}}} | "
    only_cubin = _run_with_fake_driver(library, fake_driver, """
        try:
            lib.df(np.ones(4, np.float32), np.ones(4, np.float32))
        except gradir.TargetError as error:
            print(error)
    """, FAKE_CUDA_REFUSE_CUBIN="1", GRADIR_CUDA_IMAGE="cubin")
    assert only_cubin == ["error: libproduct.so: cuModuleLoadData (cubin) failed: CUDA_ERROR_NO_BINARY_FOR_GPU (209)"]


def test_driver_failures_are_target_errors_and_a_failed_allocation_launches_nothing_after_it(product, fake_driver):
    library, _ = product
    no_device = _run_with_fake_driver(library, fake_driver, """
        for attempt in range(2):
            try:
                lib.f(np.ones(4, np.float32), np.ones(4, np.float32))
            except gradir.TargetError as error:
                print(error)
    """, FAKE_CUDA_NO_DEVICE="1")
    assert no_device == ["error: libproduct.so: cuInit failed: CUDA_ERROR_NO_DEVICE (100)"] * 2
    # df's 5th allocation is its first temporary (after a, b and the two gradients).
    printed = _run_with_fake_driver(library, fake_driver, """
        a = np.ones(4, np.float32)
        try:
            lib.df(a, a)
        except gradir.TargetError as error:
            print(error)
        print("launches", lib.launches)
        fake.fake_clear()
        lib.df(a, a)
        print("then", lib.launches, sum(entry == "free" for entry in fake_log()))
    """, FAKE_CUDA_FAIL_ALLOC="5")
    assert printed[0] == "error: cuda-run: @df: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
    assert printed[1] == "launches 0"
    assert printed[2] == "then 4 6"


def test_autodiff_opt_writes_a_gpu_library_and_refuses_what_does_not_apply(tmp_path, capsys):
    output = tmp_path / "libproduct.so"
    assert autodiff_opt([str(PRODUCT), "--pipeline", "gpu", "--emit", "shared-lib", "-o", str(output)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(output.with_suffix(".json").read_text())["target"] == "cuda"
    for extra, message in (
        (["--gpu-report"], "--emit shared-lib writes a library: it does not apply with --gpu-report"),
        (["--gpu-stop-after", "map"], "--emit shared-lib writes a library: it does not apply with --gpu-stop-after map"),
    ):
        assert autodiff_opt([str(PRODUCT), "--pipeline", "gpu", "--emit", "shared-lib", "-o", str(tmp_path / "x.so"), *extra]) == 1
        assert capsys.readouterr().err.strip() == f"error: {message}"
    assert autodiff_opt([str(PRODUCT), "--pipeline", "linalg", "--emit", "shared-lib", "-o", str(tmp_path / "x.so")]) == 1
    assert capsys.readouterr().err.strip() == "error: --emit shared-lib only applies with --pipeline cpu or gpu"
    assert not (tmp_path / "x.so").exists()


def test_scalars_pass_by_value_and_tensors_through_device_memory(tmp_path, fake_driver):
    source = tmp_path / "scalars.mlir"
    source.write_text(SCALARS)
    library = gradir.export(source, target="cuda", path=tmp_path / "libscalars.so")
    printed = _run_with_fake_driver(library, fake_driver, """
        y, scaled, n = lib.f(2.5, np.array([1.0, -2.0, 0.5]), 7)
        print(type(y).__name__, y, type(n).__name__, n, scaled.shape, scaled.dtype)
        prepared = lib.prepare("f", 1.5, np.zeros(3), 2)
        prepared.run(); prepared.run()
        print(prepared.results()[0], prepared.results()[2], lib.launches)
        prepared.free()
        log = fake_log()
        print(sum(e.startswith("alloc") for e in log), sum(e == "free" for e in log))
    """)
    assert printed == ["float64 2.5 int64 7 (3,) float64", "1.5 2 3", "4 4"]


def test_on_a_device_with_memory_pools_temporaries_are_stream_ordered_and_kept(product, fake_driver):
    library, _ = product
    printed = _run_with_fake_driver(library, fake_driver, """
        a = np.ones(4, np.float32)
        lib.df(a, a)
        print(lib.device)
        print("\\n".join(fake_log()))
    """, FAKE_CUDA_POOLS="1")
    assert printed[0] == "Fake GPU, sm_90, CUDA driver 12.4, stream-ordered allocator"
    log = printed[1:]
    assert "pool attribute 4 ffffffffffffffff" in log  # the release threshold: keep freed memory
    assert log.count("stream 0") == 1  # one blocking stream, reused
    # Arguments and results with cuMemAlloc, temporaries from the pool, each freed alike.
    assert log.count("alloc 16") == 4 and log.count("free") == 4
    assert log.count("alloc async 16") + log.count("alloc async 4") == log.count("free async") > 0


def test_without_ptxas_the_library_holds_ptx_alone_and_the_driver_compiles_it(tmp_path, fake_driver, monkeypatch):
    from gradir.gpu_backend import cuda_library_export

    monkeypatch.setattr(cuda_library_export, "ptxas_path", lambda: None)
    library = gradir.export(PRODUCT, target="cuda", path=tmp_path / "libproduct.so")
    manifest = json.loads(library.with_suffix(".json").read_text())
    assert (manifest["images"], manifest["ptxas"]) == ("ptx", None)
    assert all(k["cubin_bytes"] == 0 and k["registers"] is None for k in manifest["kernels"].values())
    assert all(cubin == b"" for cubin, _ in embedded_images(library.read_bytes()))
    body = """
        try:
            lib.df(np.ones(4, np.float32), np.ones(4, np.float32))
            print(lib.images_loaded, repr(lib.cubin_refused))
        except gradir.TargetError as error:
            print(error)
    """
    count = len(manifest["kernels"])
    assert _run_with_fake_driver(library, fake_driver, body) == [f"{{'cubin': 0, 'ptx': {count}}} ''"]
    assert _run_with_fake_driver(library, fake_driver, body, GRADIR_CUDA_IMAGE="cubin") == [
        "error: libproduct.so: GRADIR_CUDA_IMAGE=cubin, but the library holds no cubin (ptxas was not found at export)"
    ]
