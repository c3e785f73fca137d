"""Running a lowered module's host code on this CPU, from Python and NumPy.

Both backends end the same way on the host: the CPU backend's whole program, and the GPU
backend's host code when its kernels are emulated as loops (`gpu_backend.launch_emulation`), are
lowered to the LLVM dialect with `LLVM_PIPELINE`, JIT-compiled by MLIR's ExecutionEngine and
called through the C interface (`llvm.emit_c_interface`): `_mlir_ciface_f` takes a scalar
argument by value and a tensor argument as a pointer to a memref descriptor, then one descriptor
pointer per tensor result (an out-parameter); scalar results come back by value (see
`call_packed`).

This module holds that calling convention: each public function's signature, read before
bufferization turns results into out-parameters (`read_signatures`: ranked static tensors and
scalars of f16, f32, f64, i1, i8, i16, i32, i64 and index); the checks that turn a wrong argument
into an `ArgumentError` before any native code runs (`checked_arguments`, `checked_scalar`: no
silent truncation); the ctypes layout of memref descriptors (`MemRefDescriptor`); and the packed
call itself (`result_arrays`, `call_packed`, `returned_values`), and what calling a compiled
function by attribute returns (`as_function`).
"""
from __future__ import annotations

import ctypes
import math
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
    "index": np.dtype(np.int64),
}
"""MLIR element type -> the NumPy dtype of its values in memory (bf16 has none in NumPy)."""


@dataclass(frozen=True)
class TensorSpec:
    """The static shape and element type of one tensor argument or result."""

    shape: tuple[int, ...]
    dtype: np.dtype
    element: str = ""
    """The MLIR element type (`index` and `i64` share a dtype); derived from `dtype` if empty."""

    is_scalar = False

    def __post_init__(self) -> None:
        if not self.element:
            object.__setattr__(self, "element", _mlir_name(self.dtype))

    def __str__(self) -> str:
        dims = "".join(f"{size}x" for size in self.shape)
        return f"tensor<{dims}{self.element}>"


@dataclass(frozen=True)
class ScalarSpec:
    """The type of one scalar (float, integer or index) argument or result: passed by value."""

    dtype: np.dtype
    element: str

    is_scalar = True

    @property
    def shape(self) -> tuple[int, ...]:
        return ()

    def __str__(self) -> str:
        return self.element


ValueSpec = TensorSpec | ScalarSpec


@dataclass(frozen=True)
class FunctionSignature:
    """A public function's arguments and results (tensors and scalars), as the caller sees them."""

    name: str
    arguments: tuple[ValueSpec, ...]
    results: tuple[ValueSpec, ...]

    @property
    def scalar_results(self) -> tuple[int, ...]:
        """Positions of the scalar results, which come back by value."""
        return tuple(index for index, spec in enumerate(self.results) if spec.is_scalar)


def _mlir_name(dtype: np.dtype) -> str:
    return next(name for name, known in _NUMPY_DTYPES.items() if known == dtype)


def _value_spec(function: str, what: str, value_type: ir.Type) -> ValueSpec:
    supported = ", ".join(_NUMPY_DTYPES)
    if isinstance(value_type, ir.RankedTensorType):
        if not value_type.has_static_shape:
            raise PipelineError(f"{function}: {what} has dynamic shape {value_type}; shapes must be static")
        element = str(value_type.element_type)
        if element not in _NUMPY_DTYPES:
            raise PipelineError(f"{function}: {what} has element type {element}; supported: {supported}")
        return TensorSpec(tuple(value_type.shape), _NUMPY_DTYPES[element], element)
    if str(value_type) in _NUMPY_DTYPES:
        return ScalarSpec(_NUMPY_DTYPES[str(value_type)], str(value_type))
    raise PipelineError(
        f"{function}: {what} has type {value_type}; supported: ranked tensors and scalars of {supported}"
    )


def read_signatures(module: ir.Module) -> dict[str, FunctionSignature]:
    """The tensor-level signature of each public function of `module`."""
    signatures = {}
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        arguments = tuple(
            _value_spec(name, f"argument {index}", value_type)
            for index, value_type in enumerate(function_type.inputs)
        )
        results = tuple(
            _value_spec(name, f"result {index}", value_type)
            for index, value_type in enumerate(function_type.results)
        )
        signatures[name] = FunctionSignature(name, arguments, results)
    return signatures


def checked_arguments(signature: FunctionSignature, arguments: Sequence[object]) -> list[np.ndarray]:
    """C-contiguous arrays matching `signature` (0-d ones for scalars), or an ArgumentError
    naming the culprit."""
    name = signature.name
    if len(arguments) != len(signature.arguments):
        raise ArgumentError(
            f"{name}: expected {len(signature.arguments)} arguments, got {len(arguments)}"
        )
    checked = []
    for index, (argument, spec) in enumerate(zip(arguments, signature.arguments)):
        where = f"{name}: argument {index}"
        if spec.is_scalar:
            checked.append(checked_scalar(where, argument, spec))
            continue
        if not spec.shape and isinstance(argument, (bool, int, float, np.generic)):
            argument = checked_scalar(where, argument, spec)
        if not isinstance(argument, np.ndarray):
            raise ArgumentError(
                f"{where} is a {type(argument).__name__}, expected a numpy array {spec}"
            )
        if argument.shape != spec.shape:
            raise ArgumentError(f"{where} has shape {argument.shape}, expected {spec.shape}")
        if argument.dtype != spec.dtype:
            raise ArgumentError(f"{where} has dtype {argument.dtype}, expected {spec.dtype} ({spec})")
        checked.append(np.ascontiguousarray(argument))
    return checked


def checked_scalar(where: str, value: object, spec: ValueSpec) -> np.ndarray:
    """`value` (a Python or NumPy number, or a 0-d array) as a 0-d array of `spec`'s dtype.

    Only exact conversions pass: a bool is only an i1, an integer type takes integral
    values within its range, a float type takes any finite number it can represent
    (rounded to its precision). Anything else is an ArgumentError naming `where`.
    """
    if isinstance(value, np.ndarray):
        if value.shape != ():
            raise ArgumentError(f"{where} has shape {value.shape}, expected a scalar {spec}")
        value = value[()]
    kind = spec.dtype.kind
    if isinstance(value, (bool, np.bool_)):
        if kind != "b":
            raise ArgumentError(f"{where} is a bool, expected {spec}")
        return np.asarray(value, np.bool_)
    if isinstance(value, (int, np.integer)):
        number: int | float = int(value)
    elif isinstance(value, (float, np.floating)):
        number = float(value)
    else:
        raise ArgumentError(f"{where} is a {type(value).__name__}, expected a scalar {spec}")
    if kind == "f":
        with np.errstate(over="ignore"):
            try:
                converted = np.asarray(number, spec.dtype)
            except OverflowError:
                converted = np.asarray(np.inf, spec.dtype)
        if np.isinf(converted) and (isinstance(number, int) or math.isfinite(number)):
            raise ArgumentError(f"{where} is {number!r}, out of the range of {spec}")
        return converted
    if isinstance(number, float):
        if not number.is_integer():
            raise ArgumentError(f"{where} is {number!r}, expected an integer ({spec})")
        number = int(number)
    if kind == "b":
        if number not in (0, 1):
            raise ArgumentError(f"{where} is {number}, expected a bool, 0 or 1 ({spec})")
        return np.asarray(bool(number))
    limits = np.iinfo(spec.dtype)
    if not limits.min <= number <= limits.max:
        raise ArgumentError(
            f"{where} is {number}, out of the range of {spec} [{limits.min}, {limits.max}]"
        )
    return np.asarray(number, spec.dtype)


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
    if not isinstance(name, str):
        raise ArgumentError(f"a function name is a str, got {name!r} ({type(name).__name__})")
    if name not in signatures:
        available = ", ".join(sorted(signatures)) or "none"
        raise ArgumentError(f"no public function '{name}' (available: {available})")
    return signatures[name]


PACKED_ENTRY_POINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
"""The packed wrapper of `_mlir_ciface_f` (ExecutionEngine's `_mlir__mlir_ciface_f`): one pointer
to an array of pointers, one per C-interface argument (to where its value is stored), then one to
where a returned value is to be stored."""


def result_arrays(signature: FunctionSignature) -> list[np.ndarray]:
    """Freshly allocated storage for each result of `signature` (0-d arrays for scalars)."""
    return [np.empty(spec.shape, spec.dtype) for spec in signature.results]


def returned_values(signature: FunctionSignature, results: Sequence[np.ndarray]) -> tuple:
    """What a call returns: the result arrays, with each scalar's 0-d array as a NumPy scalar."""
    return tuple(
        array[()] if spec.is_scalar else array for spec, array in zip(signature.results, results)
    )


def as_function(call: Callable[..., tuple], name: str) -> Callable:
    """`call(name, *arguments)` as a Python function of the arguments (what `exe.name` is).

    `call` returns a tuple with one value per result, always (a uniform interface for generic
    code); the function returns what a JAX or PyTorch function would: the value itself for one
    result, the tuple for several (and the empty tuple for none).
    """

    def function(*arguments: object):
        values = call(name, *arguments)
        return values[0] if len(values) == 1 else values

    function.__name__ = function.__qualname__ = name
    return function


def call_packed(
    entry_point: Callable[[ctypes.Array], None],
    signature: FunctionSignature,
    inputs: Sequence[np.ndarray],
    results: Sequence[np.ndarray],
    addresses: Sequence[int] | None = None,
    failure: ctypes.c_int64 | None = None,
) -> None:
    """Call the packed entry point of `signature`'s function; the results land in `results`.

    `inputs` are `checked_arguments`, `results` are `result_arrays`. What the C interface wrapper
    takes after `buffer-results-to-out-params` and `llvm.emit_c_interface`:

    - a scalar argument by value (the packed wrapper loads it from its 0-d array);
    - a tensor argument or result as a pointer to a memref descriptor; tensor results are
      out-parameters after all the arguments, in result order;
    - one scalar result is the wrapper's return value; two or more are returned as an LLVM
      struct of the scalar results in order, through a pointer to it passed as the wrapper's
      first argument.

    The descriptors view the tensor arrays themselves (inputs, then results), or the memory at
    `addresses` (device buffers of the arrays' shapes, one per tensor) when given.

    `failure`, when given, is where a guarded entry point (`cpu_backend.checked_allocations`,
    one more leading pointer argument) writes the size of an allocation that failed, or the
    negative code of a run-time check that did (`cpu_backend.run_time_checks`).
    """
    arguments = list(zip(signature.arguments, inputs))
    tensors = [array for spec, array in arguments if not spec.is_scalar]
    tensors += [array for spec, array in zip(signature.results, results) if not spec.is_scalar]
    descriptors = [MemRefDescriptor.for_array(array) for array in tensors]
    if addresses is not None:
        if len(addresses) != len(descriptors):
            raise ValueError(f"{len(addresses)} addresses for {len(descriptors)} tensors")
        for descriptor, address in zip(descriptors, addresses):
            descriptor.allocated = descriptor.aligned = address
    # What each packed slot points to: a scalar's value, or a variable holding a descriptor's
    # (or the result struct's) address. Everything referenced must outlive the call.
    descriptor_pointers = [ctypes.pointer(descriptor) for descriptor in descriptors]
    slots: list[int] = []
    if failure is not None:
        failure_pointer = ctypes.c_void_p(ctypes.addressof(failure))
        slots.append(ctypes.addressof(failure_pointer))
    scalar_results = [results[index] for index in signature.scalar_results]
    struct = None
    if len(scalar_results) > 1:
        struct = np.zeros((), _result_struct(signature))
        struct_pointer = ctypes.c_void_p(struct.ctypes.data)
        slots.append(ctypes.addressof(struct_pointer))
    next_descriptor = iter(descriptor_pointers)
    for spec, array in arguments:
        slots.append(array.ctypes.data if spec.is_scalar else ctypes.addressof(next(next_descriptor)))
    slots += [ctypes.addressof(pointer) for pointer in next_descriptor]
    if len(scalar_results) == 1:
        slots.append(scalar_results[0].ctypes.data)
    entry_point((ctypes.c_void_p * len(slots))(*slots))
    if struct is not None:
        for position, array in enumerate(scalar_results):
            array[()] = struct[f"f{position}"]


def _result_struct(signature: FunctionSignature) -> np.dtype:
    """The NumPy twin of the LLVM struct of a function's scalar results: C alignment rules, as
    LLVM's data layouts for x86-64 and AArch64 give (i1 stored as a byte, index as i64)."""
    scalars = [signature.results[index] for index in signature.scalar_results]
    return np.dtype([(f"f{position}", spec.dtype) for position, spec in enumerate(scalars)], align=True)
