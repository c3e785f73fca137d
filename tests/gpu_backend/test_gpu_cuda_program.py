"""`CudaProgram`: its host code driving a (recording) CUDA driver, and real launches on a GPU."""
import ctypes

import numpy as np
import pytest

from gpu_cases import CASES, MLP, ROW_REDUCTIONS, TRANSPOSE_AND_CONSTANTS, compiled
from gradir.errors import ArgumentError, TargetError
from gradir.gpu_backend.cuda_program import (
    RUNTIME_SIGNATURES,
    CudaProgram,
    cuda_driver_available,
)

HAVE_DRIVER, NO_DRIVER_REASON = cuda_driver_available()


class RecordingDriver:
    """Stands in for libcuda: hands out host memory as 'device' memory and records every call.

    Kernels are not executed (their numerics are tested by emulation); what is checked is that
    the JIT-compiled host code loads, allocates, launches and frees as the program says.
    """

    def __init__(self):
        self.calls: list[tuple] = []
        self.buffers: dict[int, ctypes.Array] = {}
        self.functions: dict[int, str] = {}
        self.modules: dict[int, bytes] = {}

    def load_module(self, ptx, opt_level):
        handle = 0x1000 + len(self.modules)
        self.modules[handle] = ptx
        return handle

    def unload_module(self, module):
        self.calls.append(("unload", module))

    def get_function(self, module, name):
        handle = 0x9000 + len(self.functions)
        self.functions[handle] = (module, name)
        return handle

    def launch(self, function, grid, block, shared_bytes, stream, params, num_params):
        module, name = self.functions[function]
        self.calls.append(("launch", name, grid, block, shared_bytes, num_params))

    def stream_create(self):
        return 0x77

    def stream_synchronize(self, stream):
        self.calls.append(("sync", stream))

    def stream_destroy(self, stream):
        pass

    def mem_alloc(self, size):
        buffer = ctypes.create_string_buffer(size)
        self.buffers[ctypes.addressof(buffer)] = buffer
        self.calls.append(("alloc", size))
        return ctypes.addressof(buffer)

    def mem_free(self, pointer):
        del self.buffers[pointer]
        self.calls.append(("free",))

    def memcpy(self, target, source, size, stream):
        ctypes.memmove(target, source, size)

    def copy_to_device(self, pointer, array):
        ctypes.memmove(pointer, array.ctypes.data, array.nbytes)

    def copy_to_host(self, array, pointer):
        ctypes.memmove(array.ctypes.data, pointer, array.nbytes)


def test_host_code_loads_launches_and_frees_as_planned():
    program = CudaProgram(MLP.text)
    driver = RecordingDriver()
    program.use_driver(driver)
    arguments = MLP.inputs(np.random.default_rng(0))
    outputs = program.call("mlp_grad", *arguments)
    assert [o.shape for o in outputs] == [(), (784, 256), (256,), (256, 10), (10,)]

    # every kernel's PTX was handed to the driver, once
    assert sorted(p.rstrip(b"\0").decode() for p in driver.modules.values()) == sorted(
        program.ptx.values()
    )
    launches = [c for c in driver.calls if c[0] == "launch"]
    expected = [
        (name, program.launch_configs[name].grid, program.launch_configs[name].block)
        for name in program.kernels_of("mlp_grad")
    ]
    assert [(name, grid, block) for _, name, grid, block, _, _ in launches] == expected
    assert all(shared == 0 and count >= 1 for *_, shared, count in launches)
    # every allocation (arguments, results, temporaries) is freed; the stream is synchronised
    assert sum(c[0] == "alloc" for c in driver.calls) == sum(c[0] == "free" for c in driver.calls)
    assert not driver.buffers
    assert ("sync", 0x77) in driver.calls
    # a second call reuses the compiled host code
    program.call("mlp_grad", *arguments)
    assert len([c for c in driver.calls if c[0] == "launch"]) == 2 * len(expected)


SCALARS = """
func.func @f(%y: f64, %t: tensor<3xf64>, %n: index) -> (f64, tensor<3xf64>, index) {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.mulf %a, %y : f64
    linalg.yield %m : f64
  } -> tensor<3xf64>
  return %y, %r, %n : f64, tensor<3xf64>, index
}
"""


def test_scalar_arguments_and_results_use_the_shared_calling_convention():
    program = CudaProgram(SCALARS)
    t = np.array([1.0, -2.0, 0.5])
    y, scaled, n = program.emulate("f", 2.5, t, 7)
    assert (type(y), y, type(n), n) == (np.float64, 2.5, np.int64, 7)
    np.testing.assert_array_equal(scaled, 2.5 * t)
    # On the "device": scalars by value (no device buffer), the tensors copied in and out.
    driver = RecordingDriver()
    program.use_driver(driver)
    y, scaled, n = program.call("f", 2.5, t, 7)
    assert (y, n, scaled.shape) == (2.5, 7, (3,))
    assert [c for c in driver.calls if c[0] == "alloc"][:2] == [("alloc", 24), ("alloc", 24)]
    with pytest.raises(ArgumentError, match="f: argument 2 is 7.5, expected an integer"):
        program.emulate("f", 2.5, t, 7.5)


@pytest.mark.parametrize("case", [ROW_REDUCTIONS, TRANSPOSE_AND_CONSTANTS], ids=lambda c: c.name)
def test_runtime_provides_every_symbol_the_host_code_needs(case):
    needed = compiled(case).runtime_symbols()
    assert {"mgpuLaunchKernel", "mgpuMemAlloc", "mgpuModuleLoadJIT"} <= needed
    assert needed <= set(RUNTIME_SIGNATURES)


def test_wrong_arguments_are_rejected_before_running():
    program = compiled(ROW_REDUCTIONS)
    with pytest.raises(ArgumentError, match="argument 0 has shape"):
        program.emulate("f", np.zeros((3, 3), np.float32), np.zeros((64, 10), np.float32))
    with pytest.raises(ArgumentError, match="no public function 'g'"):
        program.call("g")


RESULT_COUNTS = """
func.func @row(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = arith.addf %x, %x : tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
func.func @same(%x: tensor<1x4xf32>, %s: f32) -> f32 {
  return %s : f32
}
func.func @both(%x: tensor<1x4xf32>, %s: f32) -> (tensor<1x4xf32>, f32) {
  %r = arith.addf %x, %x : tensor<1x4xf32>
  return %r, %s : tensor<1x4xf32>, f32
}
"""


def test_an_attribute_call_returns_one_result_itself_and_call_a_tuple():
    """`prog.f(...)` as a Python function (one result: itself; several: a tuple); `prog.call`
    and `prog.emulate` always a tuple. The recorder runs no kernel: types and shapes only."""
    program = CudaProgram(RESULT_COUNTS)
    program.use_driver(RecordingDriver())
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    row = program.row(x)
    assert type(row) is np.ndarray and row.shape == (1, 4)  # not a 1-tuple, nor its first row
    same = program.same(x, np.float32(2.5))
    assert type(same) is np.float32 and float(same) == 2.5
    both = program.both(x, np.float32(2.5))
    assert type(both) is tuple and [np.shape(v) for v in both] == [(1, 4), ()]
    for run in (program.call, program.emulate):
        (row,) = results = run("row", x)
        assert type(results) is tuple and row.shape == (1, 4)
        assert run("same", x, np.float32(2.5)) == (2.5,)


def test_functions_makes_kernels_only_for_the_named_functions():
    """`gradir.compile(..., target="cuda", functions=[...])`: the others' kernels are not made."""
    import gradir
    from pathlib import Path

    product = Path(__file__).resolve().parents[2] / "examples" / "product.mlir"
    whole = gradir.compile(product, target="cuda")
    df_only = gradir.compile(product, target="cuda", functions=["df"])
    assert sorted(whole.signatures) == ["df", "f", "f_grad_0_1", "f_vjp_0_1"]
    assert sorted(df_only.signatures) == ["df"]
    assert any(kernel.startswith("f_vjp_0_1") for kernel in whole.ptx)
    assert all(kernel.startswith("df_") for kernel in df_only.ptx), list(df_only.ptx)
    a, b = np.arange(4, dtype=np.float32), np.full(4, 2.0, np.float32)
    for got, want in zip(df_only.emulate("df", a, b), whole.emulate("df", a, b)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.skipif(HAVE_DRIVER, reason="a CUDA driver is present")
def test_call_without_a_driver_is_a_clear_error():
    program = compiled(ROW_REDUCTIONS)
    arguments = ROW_REDUCTIONS.inputs(np.random.default_rng(0))
    with pytest.raises(TargetError, match=r"no CUDA driver: libcuda.so.1 could not be loaded \("):
        program.call("f", *arguments)


@pytest.mark.skipif(not HAVE_DRIVER, reason=f"needs a CUDA GPU ({NO_DRIVER_REASON})")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_launch_on_the_gpu_matches_numpy(case):
    arguments = case.inputs(np.random.default_rng(0))
    expected = case.reference(*arguments)
    for got, want in zip(compiled(case).call(case.entry, *arguments), expected):
        scale = max(float(np.max(np.abs(want))), 1.0)
        np.testing.assert_allclose(got, want, rtol=case.tolerance, atol=case.tolerance * scale)
