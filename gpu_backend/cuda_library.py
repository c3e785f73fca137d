"""`gradir.load` of a library exported for CUDA (`cuda_library_export`): NumPy, ctypes and a
CUDA driver, no xDSL, no MLIR (this module imports neither, nor anything that does).

Loading reads and checks the manifest and maps the library; nothing touches the driver until
the first call, which starts the library's runtime (`gradir_cuda_start`: opens libcuda, device
0's primary context, loads the kernels). Where no driver loads, or it has no device, that call
raises a `TargetError` saying so. A call is what `CudaProgram.call` does: host arrays in,
device buffers allocated and filled, the host code run (its launches, allocations and
synchronization in the runtime), the results copied back, host arrays out. `prepare` keeps
the device buffers for repeated runs without copies (what the device check times).
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np

from gradir.errors import SourceError, TargetError, reports_internal_errors
from gradir.native_calls import (
    PACKED_ENTRY_POINT,
    CompiledFunctions,
    FunctionSignature,
    call_packed,
    checked_arguments,
    find_signature,
    result_arrays,
    returned_values,
    signature_from_json,
)
from gradir.native_library import manifest_path, read_manifest

_RUNTIME = {
    "gradir_cuda_start": (ctypes.c_int, []),
    "gradir_cuda_stop": (None, []),
    "gradir_cuda_error": (ctypes.c_char_p, []),
    "gradir_cuda_clear_error": (None, []),
    "gradir_cuda_device": (ctypes.c_char_p, []),
    "gradir_cuda_images": (None, [ctypes.POINTER(ctypes.c_int64)]),
    "gradir_cuda_fallback": (ctypes.c_char_p, []),
    "gradir_cuda_launch_count": (ctypes.c_uint64, []),
    "gradir_cuda_kernel_launches": (
        ctypes.c_int64, [ctypes.c_int64, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_uint64)]
    ),
    "gradir_cuda_alloc": (ctypes.c_uint64, [ctypes.c_size_t]),
    "gradir_cuda_free": (None, [ctypes.c_uint64]),
    "gradir_cuda_copy_to_device": (ctypes.c_int, [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]),
    "gradir_cuda_copy_to_host": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]),
    "gradir_cuda_synchronize": (ctypes.c_int, []),
}
"""The runtime's C functions (`cuda_runtime.c`): result and argument types."""


class CudaLibrary(CompiledFunctions):
    """An exported CUDA library's public functions: `lib.f(*arrays)` returns one result
    itself, several as a tuple; `lib.call("f", *arrays)` always a tuple (as `CudaProgram`)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).resolve()
        manifest = read_manifest(self.path)
        try:
            self._signatures: dict[str, FunctionSignature] = {
                name: signature_from_json(name, entry) for name, entry in manifest["functions"].items()
            }
            entry_symbols = {name: entry["entry_point"] for name, entry in manifest["functions"].items()}
            self.kernels: dict[str, dict] = dict(manifest["kernels"])
        except (KeyError, TypeError, ValueError) as error:
            raise SourceError(f"{manifest_path(self.path)}: malformed manifest ({error!r})") from error
        try:
            self._library = ctypes.CDLL(str(self.path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
            self._entry_points = {
                name: PACKED_ENTRY_POINT((symbol, self._library)) for name, symbol in entry_symbols.items()
            }
            self._runtime = {}
            for name, (result, arguments) in _RUNTIME.items():
                function = getattr(self._library, name)
                function.restype, function.argtypes = result, arguments
                self._runtime[name] = function
        except (OSError, AttributeError) as error:
            raise TargetError(f"cannot load {self.path}: {error}") from error
        self.manifest = manifest

    # ------------------------------------------------------------ the runtime

    def start(self) -> None:
        """Start the runtime (driver, context, kernels) if not yet; a `TargetError` saying why
        it cannot (no driver, no device, an image the driver refuses)."""
        if self._runtime["gradir_cuda_start"]() != 0:
            raise TargetError(f"{self.path.name}: {self._error() or 'the CUDA runtime did not start'}")

    def _error(self) -> str | None:
        message = self._runtime["gradir_cuda_error"]()
        return message.decode(errors="replace") if message else None

    def _check(self, what: str) -> None:
        message = self._error()
        if message is not None:
            self._runtime["gradir_cuda_clear_error"]()
            raise TargetError(f"cuda-run: {what}: {message}")

    @property
    def device(self) -> str:
        """The device, its architecture, the driver's version and the allocator (once started)."""
        self.start()
        return self._runtime["gradir_cuda_device"]().decode(errors="replace")

    @property
    def images_loaded(self) -> dict[str, int]:
        """Kernel modules loaded from their cubin and from their PTX (JIT by the driver)."""
        counts = (ctypes.c_int64 * 2)()
        self._runtime["gradir_cuda_images"](counts)
        return {"cubin": counts[0], "ptx": counts[1]}

    @property
    def cubin_refused(self) -> str:
        """Why the driver refused a cubin (then the PTX was used), or ''."""
        return self._runtime["gradir_cuda_fallback"]().decode(errors="replace")

    @property
    def launches(self) -> int:
        """Kernels launched by this library's runtime so far."""
        return self._runtime["gradir_cuda_launch_count"]()

    @property
    def kernel_launches(self) -> dict[str, int]:
        """Launches of each kernel so far, by kernel name (the manifest's `kernels` keys): with
        the manifest's bytes per kernel, the bytes a call touches, loops included."""
        function = self._runtime["gradir_cuda_kernel_launches"]
        capacity = 0
        while True:
            names, counts = (ctypes.c_char_p * capacity)(), (ctypes.c_uint64 * capacity)()
            found = function(capacity, names, counts)
            if found <= capacity:
                return {names[i].decode(): counts[i] for i in range(found)}
            capacity = found

    def close(self) -> None:
        """Unload the kernels and release the context; the library cannot run afterwards."""
        self._runtime["gradir_cuda_stop"]()

    # ------------------------------------------------------------ calls

    def prepare(self, name: str, *arguments: object) -> DeviceCall:
        """Function `name` with its arguments copied to the device once: `run()` runs it there
        (as often as wanted), `results()` copies the results back, `free()` releases it."""
        signature = find_signature(self._signatures, name)
        inputs = checked_arguments(signature, arguments)
        self.start()
        self._runtime["gradir_cuda_clear_error"]()
        return DeviceCall(self, signature, inputs)

    @reports_internal_errors
    def call(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        """Run public function `name` on the GPU: NumPy arrays (and numbers for scalars) in,
        a tuple of NumPy arrays (and NumPy scalars) out, one per result."""
        prepared = self.prepare(name, *arguments)
        try:
            prepared.run()
            return prepared.results()
        finally:
            prepared.free()

    def __repr__(self) -> str:
        return f"<gradir.CudaLibrary {self.path} ({', '.join(self._signatures)})>"


class DeviceCall:
    """A function's arguments and results in device memory (`CudaLibrary.prepare`)."""

    def __init__(self, library: CudaLibrary, signature: FunctionSignature, inputs: list[np.ndarray]):
        self.library, self.signature, self.inputs = library, signature, inputs
        runtime = library._runtime
        self.outputs = result_arrays(signature)
        tensors = [a for a, spec in zip(inputs, signature.arguments) if not spec.is_scalar]
        self._output_tensors = [a for a, spec in zip(self.outputs, signature.results) if not spec.is_scalar]
        self.device: list[int] = []
        try:
            for array in (*tensors, *self._output_tensors):
                pointer = runtime["gradir_cuda_alloc"](array.nbytes)
                library._check(f"@{signature.name}: allocating {array.nbytes} bytes")
                self.device.append(pointer)
            for pointer, array in zip(self.device, tensors):
                runtime["gradir_cuda_copy_to_device"](pointer, array.ctypes.data, array.nbytes)
            library._check(f"@{signature.name}: copying the arguments")
        except BaseException:
            self.free()
            raise

    def run(self) -> None:
        """Run the function on the device (it returns once its kernels are done)."""
        library = self.library
        call_packed(
            library._entry_points[self.signature.name], self.signature, self.inputs, self.outputs, self.device
        )
        library._check(f"@{self.signature.name}")

    def results(self) -> tuple[np.ndarray | np.generic, ...]:
        """The results of the last `run`, copied to fresh host arrays."""
        runtime = self.library._runtime
        offset = len(self.device) - len(self._output_tensors)
        for pointer, array in zip(self.device[offset:], self._output_tensors):
            runtime["gradir_cuda_copy_to_host"](array.ctypes.data, pointer, array.nbytes)
        self.library._check(f"@{self.signature.name}: copying the results")
        return tuple(np.copy(value) if isinstance(value, np.ndarray) else value
                     for value in returned_values(self.signature, self.outputs))  # fmt: skip

    def free(self) -> None:
        """Release the device buffers (idempotent)."""
        free = self.library._runtime["gradir_cuda_free"]
        while self.device:
            free(self.device.pop())
