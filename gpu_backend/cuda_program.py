"""`CudaProgram`: what `gradir.compile(source, target="cuda")` returns.

It holds the kernels' PTX, the host module (LLVM dialect plus `gpu.binary`/`gpu.launch_func`),
each kernel's launch configuration, and runs a public function in one of two ways:

- `call(name, *arrays)` on an NVIDIA GPU. The host module is JIT-compiled by MLIR's
  ExecutionEngine; its `mgpu*` runtime calls (module load, launch, alloc, free) are served by
  `CudaRuntime`, a small ctypes layer over the CUDA driver (`libcuda.so.1`), because the MLIR
  wheel ships no `libmlir_cuda_runtime.so`. Where the driver does not load, `call` raises
  `TargetError` before anything is compiled (an unresolved symbol inside the ExecutionEngine
  would abort the process).
- `emulate(name, *arrays)` on the CPU: the very kernels of stage 2 (`gpu.launch` bodies) run as
  loops over blocks and threads, so their index maps and reductions are checked without a GPU.

Both check their arguments and pass them with the calling convention the CPU backend uses too
(`mlir_bridge.host_execution`), and the emulation's host code goes to LLVM with the same
`LLVM_PIPELINE`: the GPU backend shares them with the CPU backend, it does not import it.
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from xdsl.dialects.builtin import ModuleOp

from gradir.errors import PipelineError, TargetError, reports_internal_errors
from gradir.gpu_backend.gpu_pipeline import (
    bufferize_for_gpu,
    nvvm_pipeline,
    outline_kernels,
    to_nvvm_binary,
)
from gradir.gpu_backend.gpu_report import Traffic, kernel_traffic
from gradir.gpu_backend.launch_emulation import launch_sizes, launches_to_host_loops
from gradir.gpu_backend.map_to_gpu import map_to_gpu
from gradir.gpu_backend.nvptx_targets import checked_target
from gradir.gpu_backend.ptx import kernel_ptx
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import (
    guarded,
    location_text,
    new_context,
    public_functions,
    run_pipeline,
    to_mlir_module,
    walk_ops,
)
from gradir.mlir_bridge.host_execution import (
    LLVM_PIPELINE,
    PACKED_ENTRY_POINT,
    accurate_expm1,
    keep_function_names_off_the_c_library,
    restore_c_interface_names,
    FunctionSignature,
    as_function,
    call_packed,
    checked_arguments,
    find_signature,
    read_signatures,
    result_arrays,
    returned_values,
)

EMULATION_PIPELINE = "expand-strided-metadata, lower-affine, " + LLVM_PIPELINE


@dataclass(frozen=True)
class LaunchConfig:
    """Grid and block of one kernel launch, and the host function that launches it."""

    function: str
    grid: tuple[int | None, int | None, int | None]
    """None: sized at run time (`run_time_mapping`)."""
    block: tuple[int, int, int]

    @property
    def threads(self) -> int | None:
        if None in self.grid:
            return None
        return int(np.prod(self.grid) * np.prod(self.block))


def _constant_index(value: ir.Value) -> int | None:
    """A launch size, or None for one computed at run time (`run_time_mapping`'s grid)."""
    owner = value.owner
    if isinstance(owner, ir.Block) or owner.name not in ("arith.constant", "llvm.mlir.constant"):
        return None
    return ir.IntegerAttr(owner.attributes["value"]).value


def read_launch_configs(module: ir.Module) -> dict[str, LaunchConfig]:
    """Kernel name -> its launch, from the `gpu.launch_func`s of an outlined module."""
    configs: dict[str, LaunchConfig] = {}
    for function in walk_ops(module, {"func.func"}):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        for launch in walk_ops(function, {"gpu.launch_func"}):
            kernel = ir.SymbolRefAttr(launch.attributes["kernel"]).value[-1]
            sizes = [_constant_index(v) for v in launch_sizes(launch.opview)]
            configs[kernel] = LaunchConfig(name, tuple(sizes[:3]), tuple(sizes[3:]))
    return configs


def read_launch_sequences(module: ir.Module) -> dict[str, list[tuple[str, str]]]:
    """Host function -> its kernel launches and calls in program order, each `("kernel",
    name)` or `("call", callee)`, from an outlined module (what `kernels_of` expands)."""
    sequences: dict[str, list[tuple[str, str]]] = {}
    for function in walk_ops(module, {"func.func"}):
        steps = []
        for op in walk_ops(function, {"gpu.launch_func", "func.call"}):
            if op.name == "gpu.launch_func":
                steps.append(("kernel", ir.SymbolRefAttr(op.attributes["kernel"]).value[-1]))
            else:
                steps.append(("call", ir.FlatSymbolRefAttr(op.attributes["callee"]).value))
        sequences[ir.StringAttr(function.attributes["sym_name"]).value] = steps
    return sequences


def _mark_c_interface(module: ir.Module) -> None:
    with module.context:
        for function in public_functions(module):
            function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


class CudaProgram:
    """A linalg-on-tensors module compiled for NVIDIA GPUs (see the module docstring)."""

    def __init__(
        self,
        source: ModuleOp | str,
        chip: str = "sm_90",
        features: str | None = None,
        policy: TilePolicy | None = None,
        opt_level: int = 3,
    ):
        nvvm_pipeline(chip, features, opt_level)  # checks the target before any work
        self.chip, self.features = checked_target(chip, features)
        module = to_mlir_module(source, new_context())
        self.signatures: dict[str, FunctionSignature] = read_signatures(module)
        _refuse_dynamic_boundaries(module, self.signatures)
        _mark_c_interface(module)
        map_to_gpu(bufferize_for_gpu(module), policy)
        self.launch_ir = str(module)
        """Stage 2: host functions with `gpu.launch` regions (what `emulate` runs)."""
        outline_kernels(module)
        self.gpu_ir = str(module)
        """Stage 3: outlined `gpu.func` kernels launched by `gpu.launch_func`."""
        self.launch_configs: dict[str, LaunchConfig] = read_launch_configs(module)
        self._launch_sequences = read_launch_sequences(module)
        self.traffic: dict[str, Traffic] = kernel_traffic(module)
        to_nvvm_binary(module, chip, features, opt_level)
        self.host_module: ir.Module = module
        """Stage 4: LLVM-dialect host code and one `gpu.binary` (PTX) per kernel."""
        self.ptx: dict[str, str] = kernel_ptx(module)
        self._driver: Driver | None = None
        self._jitted: _JittedHost | None = None

    def kernels_of(self, function: str) -> list[str]:
        """The kernels a call of `function` launches, those of the functions it calls
        included (a forwarder's are its callee's), each once, in launch order."""
        kernels: list[str] = []

        def visit(name: str, calling: tuple[str, ...]) -> None:
            for kind, target in self._launch_sequences.get(name, []):
                if kind == "call":
                    if target not in calling:
                        visit(target, (*calling, target))
                elif target not in kernels:
                    kernels.append(target)

        visit(function, (function,))
        return kernels

    # ------------------------------------------------------------ running on a GPU

    @reports_internal_errors
    def call(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        """Run public function `name` on the GPU; NumPy arrays (and numbers for scalars) in,
        NumPy arrays (and NumPy scalars) out, as a tuple with one value per result whatever their
        number (`prog.name(...)` returns a single result itself)."""
        signature = self._signature(name)
        inputs = checked_arguments(signature, arguments)
        if self._driver is None:
            self.use_driver(LibCudaDriver.load())
        jitted = self._jit()
        runtime, engine = jitted.runtime, jitted.engine
        outputs = result_arrays(signature)
        # Tensors live on the device; scalars are passed and returned by value.
        input_tensors = [a for a, spec in zip(inputs, signature.arguments) if not spec.is_scalar]
        output_tensors = [a for a, spec in zip(outputs, signature.results) if not spec.is_scalar]
        device = [runtime.driver.mem_alloc(max(a.nbytes, 1)) for a in (*input_tensors, *output_tensors)]
        try:
            for pointer, array in zip(device, input_tensors):
                runtime.driver.copy_to_device(pointer, array)
            _invoke(engine, signature, inputs, outputs, device)
            runtime.check()
            for pointer, array in zip(device[len(input_tensors) :], output_tensors):
                runtime.driver.copy_to_host(array, pointer)
        finally:
            for pointer in device:
                runtime.driver.mem_free(pointer)
        return returned_values(signature, outputs)

    def use_driver(self, driver: "Driver") -> None:
        """Run `call` through `driver` instead of libcuda (a recorder in tests, a profiler...)."""
        self._driver, self._jitted = driver, None

    def _jit(self) -> "_JittedHost":
        if self._jitted is None:
            runtime = CudaRuntime(self._driver)
            missing = sorted(self.runtime_symbols() - set(runtime.symbols))
            if missing:
                raise TargetError(f"the GPU runtime lacks {', '.join(missing)}")
            context = self.host_module.context
            with context:
                engine = guarded("cuda-jit", context, lambda: ExecutionEngine(self.host_module))
                runtime.register(engine)
                guarded("cuda-jit", context, engine.initialize)  # loads every kernel's PTX
                runtime.check()
            self._jitted = _JittedHost(engine, runtime)
        return self._jitted

    def runtime_symbols(self) -> set[str]:
        """The `mgpu*` functions the host code calls.

        `gpu.binary` and `gpu.launch_func` only turn into runtime calls when the module is
        translated to LLVM IR, so their functions are not declared in the module yet.
        """
        declared = {
            ir.StringAttr(op.attributes["sym_name"]).value
            for op in self.host_module.body.operations
            if op.operation.name == "llvm.func" and not op.regions[0].blocks
        }
        launches = {
            "mgpuModuleLoadJIT", "mgpuModuleUnload", "mgpuModuleGetFunction", "mgpuLaunchKernel"
        }
        return {s for s in declared if s.startswith("mgpu")} | (launches if self.ptx else set())

    # ------------------------------------------------------------ running on the CPU

    def emulate(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        """Run public function `name` with its kernels executed as CPU loops (stage-2 IR); a
        tuple with one value per result, as `call` returns."""
        signature = self._signature(name)
        inputs = checked_arguments(signature, arguments)
        outputs = result_arrays(signature)
        engine = _emulation_engine(self.launch_ir).engine
        _invoke(engine, signature, inputs, outputs)
        return returned_values(signature, outputs)

    def _signature(self, name: str) -> FunctionSignature:
        return find_signature(self.signatures, name)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """`prog.f(*arguments)`: `call("f", ...)` called like a Python function, which returns
        the value itself for one result and a tuple for several."""
        if name.startswith("_") or name not in self.__dict__.get("signatures", {}):
            raise AttributeError(name)
        return as_function(self.call, name)


class _JittedHost:
    """The host code's engine and the runtime it calls back into.

    The engine's destructor unloads the kernels through the runtime's callbacks, so the
    engine must go first.
    """

    def __init__(self, engine: ExecutionEngine, runtime: "CudaRuntime"):
        self.engine, self.runtime = engine, runtime

    def __del__(self) -> None:
        del self.engine


def _invoke(
    engine: ExecutionEngine,
    signature: FunctionSignature,
    inputs: list[np.ndarray],
    outputs: list[np.ndarray],
    device: list[int] | None = None,
) -> None:
    """Call `_mlir_ciface_<name>`; tensors' data lives at `device` (one address per tensor
    input, then per tensor output) or, without it, in the arrays themselves."""
    address = engine.raw_lookup(f"_mlir_ciface_{signature.name}")
    if not address:
        raise PipelineError(f"no machine code for public function '{signature.name}'")
    call_packed(PACKED_ENTRY_POINT(address), signature, inputs, outputs, device)


def _refuse_dynamic_boundaries(module: ir.Module, signatures: dict[str, FunctionSignature]) -> None:
    """The GPU target's calls allocate device buffers of their results' static sizes (the CPU
    target computes dynamic ones first, `mlir_bridge.result_sizes`): a tensor of dynamic
    shape at a public function's boundary is a located error. Inside, run-time sizes run."""
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        signature = signatures[name]
        for what, specs in (("argument", signature.arguments), ("result", signature.results)):
            for index, spec in enumerate(specs):
                if not spec.is_scalar and spec.is_dynamic:
                    raise PipelineError(
                        f"{name}: {what} {index} has dynamic shape {spec}; the GPU target needs static "
                        "shapes at a public function's boundary (the CPU target takes them)",
                        location_text(function.location),
                    )


@dataclass(frozen=True)
class _Emulation:
    engine: ExecutionEngine
    module: ir.Module  # kept alive as long as the engine


EMULATION_OPT_LEVEL = 0
"""LLVM's level for the emulation's JIT. Emulation checks the kernels' numbers on the CPU and
runs them on small inputs; its compile time dominates: at -O0 instead of -O2 the corpus GPU
sweep of LAGrad's GMM took 26 s instead of 32, the named-linalg and random-program GPU tests
142 s instead of 155."""


@functools.lru_cache(maxsize=16)
def _emulation_engine(launch_ir: str) -> _Emulation:
    module = to_mlir_module(launch_ir, new_context())
    launches_to_host_loops(module)
    with module.context, ir.Location.unknown():
        keep_function_names_off_the_c_library(module)
        accurate_expm1(module)
    run_pipeline(module, EMULATION_PIPELINE, "gpu-emulate")
    with module.context:
        restore_c_interface_names(module)
    with module.context:
        engine = guarded("gpu-emulate", module.context, lambda: ExecutionEngine(module, opt_level=EMULATION_OPT_LEVEL))
    return _Emulation(engine, module)


# ---------------------------------------------------------------- the CUDA runtime layer


class Driver(Protocol):
    """The driver calls the `mgpu*` runtime needs (real: `LibCudaDriver`; tests: a recorder)."""

    def load_module(self, ptx: bytes, opt_level: int) -> int: ...
    def unload_module(self, module: int) -> None: ...
    def get_function(self, module: int, name: str) -> int: ...
    def launch(self, function: int, grid: tuple, block: tuple, shared_bytes: int,
               stream: int, params: int, num_params: int) -> None: ...
    def stream_create(self) -> int: ...
    def stream_synchronize(self, stream: int) -> None: ...
    def stream_destroy(self, stream: int) -> None: ...
    def mem_alloc(self, size: int) -> int: ...
    def mem_free(self, pointer: int) -> None: ...
    def memcpy(self, target: int, source: int, size: int, stream: int) -> None: ...
    def copy_to_device(self, pointer: int, array: np.ndarray) -> None: ...
    def copy_to_host(self, array: np.ndarray, pointer: int) -> None: ...


_P, _I64 = ctypes.c_void_p, ctypes.c_int64

# The C signatures of MLIR's CudaRuntimeWrappers that gpu-to-llvm and gpu.binary loading call.
RUNTIME_SIGNATURES: dict[str, tuple[Any, ...]] = {
    "mgpuModuleLoadJIT": (_P, _P, ctypes.c_int),
    "mgpuModuleLoad": (_P, _P, ctypes.c_size_t),
    "mgpuModuleUnload": (None, _P),
    "mgpuModuleGetFunction": (_P, _P, ctypes.c_char_p),
    "mgpuLaunchKernel": (None, _P, _I64, _I64, _I64, _I64, _I64, _I64, ctypes.c_int32, _P, _P, _P,
                         ctypes.c_size_t),
    "mgpuStreamCreate": (_P,),
    "mgpuStreamSynchronize": (None, _P),
    "mgpuStreamDestroy": (None, _P),
    "mgpuMemAlloc": (_P, ctypes.c_uint64, _P, ctypes.c_bool),
    "mgpuMemFree": (None, _P, _P),
    "mgpuMemcpy": (None, _P, _P, ctypes.c_size_t, _P),
}


class CudaRuntime:
    """MLIR's `mgpu*` runtime functions, implemented over a `Driver` and handed to the JIT."""

    def __init__(self, driver: Driver):
        self.driver = driver
        d = driver
        implementations: dict[str, Callable] = {
            "mgpuModuleLoadJIT": lambda data, opt: d.load_module(ctypes.string_at(data), opt),
            "mgpuModuleLoad": lambda data, size: d.load_module(ctypes.string_at(data, size), 3),
            "mgpuModuleUnload": lambda module: d.unload_module(module),
            "mgpuModuleGetFunction": lambda module, name: d.get_function(module, name.decode()),
            "mgpuLaunchKernel": lambda f, gx, gy, gz, bx, by, bz, smem, stream, params, extra, n: (
                d.launch(f, (gx, gy, gz), (bx, by, bz), smem, stream, params, n)
            ),
            "mgpuStreamCreate": d.stream_create,
            "mgpuStreamSynchronize": d.stream_synchronize,
            "mgpuStreamDestroy": d.stream_destroy,
            # A buffer sized at run time may be empty (a loop that ran no iteration keeps a
            # tape of none), and the driver refuses to allocate 0 bytes (as cuda_runtime.c).
            "mgpuMemAlloc": lambda size, stream, host_shared: d.mem_alloc(max(size, 1)),
            "mgpuMemFree": lambda pointer, stream: d.mem_free(pointer),
            "mgpuMemcpy": lambda target, source, size, stream: d.memcpy(target, source, size, stream),
        }
        self.failure: BaseException | None = None
        # ctypes callbacks must outlive the engine: the runtime keeps them.
        self.symbols = {
            name: ctypes.CFUNCTYPE(*RUNTIME_SIGNATURES[name])(self._guarded(function))
            for name, function in implementations.items()
        }

    def _guarded(self, function: Callable) -> Callable:
        """ctypes swallows exceptions raised in callbacks: keep the first one for `check`."""

        def call(*arguments):
            try:
                return function(*arguments)
            except BaseException as error:  # noqa: BLE001 - re-raised by check()
                self.failure = self.failure or error
                return None

        return call

    def check(self) -> None:
        """Raise the first error a runtime call hit since the last check."""
        failure, self.failure = self.failure, None
        if failure is not None:
            raise failure

    def register(self, engine: ExecutionEngine) -> None:
        for name, callback in self.symbols.items():
            engine.raw_register_runtime(name, ctypes.cast(callback, ctypes.c_void_p))


def _libcuda() -> ctypes.CDLL:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        raise TargetError(f"no CUDA driver: libcuda.so.1 could not be loaded ({error})") from None


class LibCudaDriver:
    """The CUDA driver API through ctypes, on device 0's primary context."""

    def __init__(self, library: ctypes.CDLL):
        self.cuda = library
        self._check(self.cuda.cuInit(0), "cuInit")
        device, context = ctypes.c_int(), _P()
        self._check(self.cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        self._check(
            self.cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
            "cuDevicePrimaryCtxRetain",
        )
        self._check(self.cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        self.cuda.cuLaunchKernel.argtypes = [_P] + [ctypes.c_uint] * 7 + [_P, _P, _P]
        for name in ("cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2"):
            getattr(self.cuda, name).argtypes = [_P, _P, ctypes.c_size_t]
        self.cuda.cuMemcpyAsync.argtypes = [_P, _P, ctypes.c_size_t, _P]

    @classmethod
    @functools.lru_cache(maxsize=1)
    def load(cls) -> "LibCudaDriver":
        return cls(_libcuda())

    def _check(self, status: int, call: str) -> None:
        if status != 0:
            name = ctypes.c_char_p()
            self.cuda.cuGetErrorName(status, ctypes.byref(name))
            raise TargetError(f"{call} failed: {(name.value or b'?').decode()} ({status})")

    def load_module(self, ptx: bytes, opt_level: int) -> int:
        module = _P()
        self._check(self.cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx)),
                    "cuModuleLoadData")
        return module.value

    def unload_module(self, module: int) -> None:
        self._check(self.cuda.cuModuleUnload(_P(module)), "cuModuleUnload")

    def get_function(self, module: int, name: str) -> int:
        function = _P()
        self._check(
            self.cuda.cuModuleGetFunction(ctypes.byref(function), _P(module), name.encode()),
            "cuModuleGetFunction",
        )
        return function.value

    def launch(self, function, grid, block, shared_bytes, stream, params, num_params) -> None:
        self._check(
            self.cuda.cuLaunchKernel(function, *grid, *block, shared_bytes, stream, params, None),
            "cuLaunchKernel",
        )

    def stream_create(self) -> int:
        stream = _P()
        self._check(self.cuda.cuStreamCreate(ctypes.byref(stream), 0), "cuStreamCreate")
        return stream.value

    def stream_synchronize(self, stream: int) -> None:
        self._check(self.cuda.cuStreamSynchronize(_P(stream)), "cuStreamSynchronize")

    def stream_destroy(self, stream: int) -> None:
        self._check(self.cuda.cuStreamDestroy_v2(_P(stream)), "cuStreamDestroy")

    def mem_alloc(self, size: int) -> int:
        pointer = ctypes.c_uint64()
        self._check(self.cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(size)),
                    "cuMemAlloc")
        return pointer.value

    def mem_free(self, pointer: int) -> None:
        self._check(self.cuda.cuMemFree_v2(ctypes.c_uint64(pointer)), "cuMemFree")

    def memcpy(self, target: int, source: int, size: int, stream: int) -> None:
        self._check(self.cuda.cuMemcpyAsync(target, source, size, stream), "cuMemcpyAsync")

    def copy_to_device(self, pointer: int, array: np.ndarray) -> None:
        self._check(self.cuda.cuMemcpyHtoD_v2(pointer, array.ctypes.data, array.nbytes),
                    "cuMemcpyHtoD")

    def copy_to_host(self, array: np.ndarray, pointer: int) -> None:
        self._check(self.cuda.cuMemcpyDtoH_v2(array.ctypes.data, pointer, array.nbytes),
                    "cuMemcpyDtoH")


def cuda_driver_available() -> tuple[bool, str]:
    """Whether libcuda.so.1 loads here, and why not."""
    try:
        _libcuda()
    except TargetError as error:
        return False, error.message
    return True, ""
