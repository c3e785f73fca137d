"""Running a lowered module's host code on this CPU, from Python and NumPy.

Both backends end the same way on the host: the CPU backend's whole program, and the GPU
backend's host code when its kernels are emulated as loops (`gpu_backend.launch_emulation`), are
lowered to the LLVM dialect with `LLVM_PIPELINE`, JIT-compiled by MLIR's ExecutionEngine and
called through the C interface (`llvm.emit_c_interface`): `_mlir_ciface_f` takes one pointer to
a memref descriptor per bufferized argument, inputs first, then one out-parameter per result.

This module holds that calling convention: each public function's tensor-level signature, read
before bufferization turns results into out-parameters (`read_signatures`); the checks that turn
a wrong argument into an `ArgumentError` before any native code runs (`checked_arguments`); the
ctypes layout of memref descriptors (`MemRefDescriptor`); and the packed call itself
(`call_packed`).
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from mlir import ir

from gradir.errors import ArgumentError, PipelineError
from gradir.mlir_bridge import public_functions

LLVM_PIPELINE = (
    "convert-scf-to-cf,"
    "func.func(arith-expand),"
    "finalize-memref-to-llvm,"
    "convert-math-to-llvm, convert-math-to-libm,"
    "convert-vector-to-llvm,"
    "convert-arith-to-llvm, convert-index-to-llvm,"
    "convert-cf-to-llvm, convert-ub-to-llvm,"
    "convert-func-to-llvm,"
    "reconcile-unrealized-casts,"
    "canonicalize, cse"
)
"""Host code (scf, memref, arith, math, vector, func) to the LLVM dialect the JIT compiles."""

_NUMPY_DTYPES = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
}


@dataclass(frozen=True)
class TensorSpec:
    """The static shape and element type of one tensor argument or result."""

    shape: tuple[int, ...]
    dtype: np.dtype

    def __str__(self) -> str:
        dims = "".join(f"{size}x" for size in self.shape)
        return f"tensor<{dims}{_mlir_name(self.dtype)}>"


@dataclass(frozen=True)
class FunctionSignature:
    """A public function's tensor arguments and results, as the caller sees them."""

    name: str
    arguments: tuple[TensorSpec, ...]
    results: tuple[TensorSpec, ...]


def _mlir_name(dtype: np.dtype) -> str:
    return next(name for name, known in _NUMPY_DTYPES.items() if known == dtype)


def _tensor_spec(function: str, what: str, value_type: ir.Type) -> TensorSpec:
    if not isinstance(value_type, ir.RankedTensorType):
        raise PipelineError(f"{function}: {what} has type {value_type}; only ranked tensors are supported")
    if not value_type.has_static_shape:
        raise PipelineError(f"{function}: {what} has dynamic shape {value_type}; shapes must be static")
    element = str(value_type.element_type)
    if element not in _NUMPY_DTYPES:
        raise PipelineError(f"{function}: {what} has element type {element}; supported: {', '.join(_NUMPY_DTYPES)}")
    return TensorSpec(tuple(value_type.shape), _NUMPY_DTYPES[element])


def read_signatures(module: ir.Module) -> dict[str, FunctionSignature]:
    """The tensor-level signature of each public function of `module`."""
    signatures = {}
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        arguments = tuple(
            _tensor_spec(name, f"argument {index}", value_type)
            for index, value_type in enumerate(function_type.inputs)
        )
        results = tuple(
            _tensor_spec(name, f"result {index}", value_type)
            for index, value_type in enumerate(function_type.results)
        )
        signatures[name] = FunctionSignature(name, arguments, results)
    return signatures


def checked_arguments(signature: FunctionSignature, arguments: Sequence[object]) -> list[np.ndarray]:
    """C-contiguous arrays matching `signature`, or an ArgumentError naming the culprit."""
    name = signature.name
    if len(arguments) != len(signature.arguments):
        raise ArgumentError(
            f"{name}: expected {len(signature.arguments)} arguments, got {len(arguments)}"
        )
    checked = []
    for index, (argument, spec) in enumerate(zip(arguments, signature.arguments)):
        if not spec.shape and isinstance(argument, (bool, int, float, np.generic)):
            argument = np.asarray(argument, dtype=spec.dtype)
        if not isinstance(argument, np.ndarray):
            raise ArgumentError(
                f"{name}: argument {index} is a {type(argument).__name__}, expected a numpy array {spec}"
            )
        if argument.shape != spec.shape:
            raise ArgumentError(
                f"{name}: argument {index} has shape {argument.shape}, expected {spec.shape}"
            )
        if argument.dtype != spec.dtype:
            raise ArgumentError(
                f"{name}: argument {index} has dtype {argument.dtype}, expected {spec.dtype} ({spec})"
            )
        checked.append(np.ascontiguousarray(argument))
    return checked


class MemRefDescriptor:
    """ctypes layouts of MLIR's ranked memref descriptor, one class per rank."""

    _classes: dict[int, type[ctypes.Structure]] = {}

    @classmethod
    def of_rank(cls, rank: int) -> type[ctypes.Structure]:
        if rank not in cls._classes:
            fields = [
                ("allocated", ctypes.c_void_p),
                ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64),
            ]
            if rank:
                fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
            cls._classes[rank] = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
        return cls._classes[rank]

    @classmethod
    def for_array(cls, array: np.ndarray) -> ctypes.Structure:
        """A descriptor viewing the C-contiguous `array` (which must outlive the call)."""
        descriptor = cls.of_rank(array.ndim)()
        descriptor.allocated = descriptor.aligned = array.ctypes.data
        descriptor.offset = 0
        if array.ndim:
            descriptor.sizes[:] = array.shape
            descriptor.strides[:] = [stride // array.itemsize for stride in array.strides]
        return descriptor


def find_signature(signatures: dict[str, FunctionSignature], name: str) -> FunctionSignature:
    """The signature of public function `name`, or an ArgumentError listing the available ones."""
    if name not in signatures:
        available = ", ".join(sorted(signatures)) or "none"
        raise ArgumentError(f"no public function '{name}' (available: {available})")
    return signatures[name]


PACKED_ENTRY_POINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
"""The packed wrapper of `_mlir_ciface_f`: one pointer to an array of argument pointers."""


def call_packed(
    entry_point: Callable[[ctypes.Array], None],
    arrays: Sequence[np.ndarray],
    addresses: Sequence[int] | None = None,
) -> None:
    """Call a packed entry point with one memref descriptor per array (inputs, then outputs).

    The descriptors view the arrays themselves, or the memory at `addresses` (device buffers of
    the arrays' shapes) when given.
    """
    descriptors = [MemRefDescriptor.for_array(array) for array in arrays]
    if addresses is not None:
        for descriptor, address in zip(descriptors, addresses):
            descriptor.allocated = descriptor.aligned = address
    # The C interface takes one descriptor pointer per memref; the packed
    # entry point takes one pointer per C-interface argument.
    pointers = [ctypes.pointer(descriptor) for descriptor in descriptors]
    packed = (ctypes.c_void_p * len(pointers))(*[ctypes.addressof(pointer) for pointer in pointers])
    entry_point(packed)
