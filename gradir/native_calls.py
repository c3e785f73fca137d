"""Calling compiled host code from Python with NumPy arrays, through ctypes alone.

What a compiled function looks like to its caller, and how it is called, with nothing but NumPy
and ctypes: both the JIT path (`cpu_backend.cpu_runtime.CpuExecutable`, the GPU backend's host
code) and the loader of exported shared libraries (`gradir.native_library`, which must run where
neither xDSL nor MLIR is installed) call through this module, so the argument checks, the memref
descriptors and the packed calling convention exist once.

- Signatures: `TensorSpec`, `ScalarSpec`, `FunctionSignature` (read from MLIR by
  `mlir_bridge.host_execution.read_signatures`; to and from JSON for a library's manifest:
  `signature_to_json`, `signature_from_json`).
- Checks that turn a wrong argument into an `ArgumentError` before any native code runs
  (`checked_arguments`, `checked_scalar`: no silent truncation).
- The ctypes layout of memref descriptors (`MemRefDescriptor`), the packed call (`result_arrays`,
  `call_packed`, `returned_values`), and what calling a function by attribute returns
  (`as_function`).
- A guarded call's failure code as the error it stands for (`call_guarded`: an `AllocationError`
  or a `RunTimeCheckError`; `cpu_backend.checked_allocations`, `cpu_backend.run_time_checks`).

The packed calling convention (`call_packed`): `_mlir_ciface_f` takes a scalar argument by value
and a tensor argument as a pointer to a memref descriptor, then one descriptor pointer per tensor
result (an out-parameter); scalar results come back by value.
"""
from __future__ import annotations

import ctypes
import math
import os
import resource
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from gradir.errors import AllocationError, ArgumentError, RunTimeCheckError, reports_internal_errors

NUMPY_DTYPES = {
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
    """The shape (None for a dimension known only at run time) and element type of one
    tensor argument or result."""

    shape: tuple[int | None, ...]
    dtype: np.dtype
    element: str = ""
    """The MLIR element type (`index` and `i64` share a dtype); derived from `dtype` if empty."""

    is_scalar = False

    def __post_init__(self) -> None:
        if not self.element:
            object.__setattr__(self, "element", _mlir_name(self.dtype))

    @property
    def is_dynamic(self) -> bool:
        return None in self.shape

    def __str__(self) -> str:
        dims = "".join(f"{'?' if size is None else size}x" for size in self.shape)
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

    @property
    def dynamic_result_dims(self) -> int:
        """How many result dimensions are known only at run time (what `result_sizes_name`
        returns, in order)."""
        return sum(size is None for spec in self.results for size in spec.shape)

    @property
    def result_sizes_name(self) -> str:
        """The public function that computes the sizes of this function's dynamic result
        dimensions from its arguments (`mlir_bridge.result_sizes`)."""
        return RESULT_SIZES_PREFIX + self.name

    def result_sizes_signature(self) -> FunctionSignature:
        index = ScalarSpec(NUMPY_DTYPES["index"], "index")
        return FunctionSignature(self.result_sizes_name, self.arguments, (index,) * self.dynamic_result_dims)


RESULT_SIZES_PREFIX = "__gradir_result_sizes_"
"""Prefix of the functions that compute result sizes (`FunctionSignature.result_sizes_name`)."""

HIDDEN_PREFIX = "__gradir_"
"""Public functions gradir adds for its own calls: not listed to users."""


def _mlir_name(dtype: np.dtype) -> str:
    return next(name for name, known in NUMPY_DTYPES.items() if known == dtype)


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
        if len(argument.shape) != len(spec.shape) or any(
            want is not None and got != want for got, want in zip(argument.shape, spec.shape)
        ):
            expected = tuple("?" if size is None else size for size in spec.shape)
            raise ArgumentError(
                f"{where} has shape {argument.shape}, expected {expected}".replace("'?'", "?")
            )
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
        available = ", ".join(sorted(n for n in signatures if not n.startswith(HIDDEN_PREFIX))) or "none"
        raise ArgumentError(f"no public function '{name}' (available: {available})")
    return signatures[name]


PACKED_ENTRY_POINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
"""The packed wrapper of `_mlir_ciface_f` (ExecutionEngine's `_mlir__mlir_ciface_f`): one pointer
to an array of pointers, one per C-interface argument (to where its value is stored), then one to
where a returned value is to be stored."""


def result_arrays(signature: FunctionSignature, sizes: Sequence[int] = ()) -> list[np.ndarray]:
    """Freshly allocated storage for each result of `signature` (0-d arrays for scalars);
    `sizes` gives the dynamic dimensions, in order (what `result_sizes_name` returned)."""
    given = iter(int(size) for size in sizes)
    arrays = [np.empty([next(given) if size is None else size for size in spec.shape], spec.dtype)
              for spec in signature.results]  # fmt: skip
    return arrays


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



def signature_to_json(signature: FunctionSignature) -> dict:
    """`signature` as a library manifest records it (`signature_from_json` reads it back)."""

    def value(spec: ValueSpec) -> dict:
        if spec.is_scalar:
            return {"kind": "scalar", "element": spec.element}
        return {"kind": "tensor", "shape": list(spec.shape), "element": spec.element}

    return {
        "arguments": [value(spec) for spec in signature.arguments],
        "results": [value(spec) for spec in signature.results],
    }


def signature_from_json(name: str, recorded: dict) -> FunctionSignature:
    """The signature `signature_to_json` wrote; a `ValueError` for anything else."""

    def value(entry: dict) -> ValueSpec:
        element = entry["element"]
        if element not in NUMPY_DTYPES:
            raise ValueError(f"unknown element type {element!r}")
        if entry["kind"] == "scalar":
            return ScalarSpec(NUMPY_DTYPES[element], element)
        if entry["kind"] == "tensor":
            shape = tuple(entry["shape"])
            if not all(size is None or isinstance(size, int) and size >= 0 for size in shape):
                raise ValueError(f"bad shape {entry['shape']!r}")
            return TensorSpec(shape, NUMPY_DTYPES[element], element)
        raise ValueError(f"unknown value kind {entry['kind']!r}")

    return FunctionSignature(
        name,
        tuple(value(entry) for entry in recorded["arguments"]),
        tuple(value(entry) for entry in recorded["results"]),
    )


def available_memory() -> int:
    """Bytes this process may at most allocate: physical memory and swap, or its
    address-space limit (`ulimit -v`) where lower."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") + _swap_bytes()
    except (ValueError, OSError, AttributeError):
        physical = 2**63 - 1
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return physical if soft in (resource.RLIM_INFINITY, -1) else min(physical, soft)


def _swap_bytes() -> int:
    """Linux's SwapTotal (0 where /proc/meminfo is missing or says nothing)."""
    try:
        with open("/proc/meminfo") as stream:
            for line in stream:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def human_bytes(count: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if count < 1024 or unit == "PiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.3g} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def call_guarded(
    entry_points: dict[str, Callable[[ctypes.Array], None]],
    signature: FunctionSignature,
    arguments: Sequence[object],
    check_failures: Sequence[tuple[str | None, str]],
    allocation_limit: int,
) -> tuple[np.ndarray | np.generic, ...]:
    """Check `arguments`, call the packed guarded entry point of `signature`'s function
    (`cpu_backend.checked_allocations`; `entry_points` by function name) and return its
    results (`returned_values`). Results of dynamic shape are allocated at the sizes the
    function's `result_sizes_name` computes from the same arguments, called first.

    A failed allocation becomes an `AllocationError` (its size compared with
    `allocation_limit`, the bytes the compiled code was allowed to ask for), a failed run-time
    check the `RunTimeCheckError` of its (location, message) in `check_failures`."""
    inputs = checked_arguments(signature, arguments)
    sizes: Sequence[int] = ()
    if signature.dynamic_result_dims:
        sizing = signature.result_sizes_signature()
        size_arrays = result_arrays(sizing)
        _run_guarded(entry_points[sizing.name], sizing, inputs, size_arrays, check_failures, allocation_limit)
        sizes = [int(size) for size in size_arrays]
    results = result_arrays(signature, sizes)
    _run_guarded(entry_points[signature.name], signature, inputs, results, check_failures, allocation_limit)
    return returned_values(signature, results)


def _run_guarded(
    entry_point: Callable[[ctypes.Array], None],
    signature: FunctionSignature,
    inputs: Sequence[np.ndarray],
    results: Sequence[np.ndarray],
    check_failures: Sequence[tuple[str | None, str]],
    allocation_limit: int,
) -> None:
    name = signature.name.removeprefix(RESULT_SIZES_PREFIX)
    failure = ctypes.c_int64(0)
    call_packed(entry_point, signature, inputs, results, failure=failure)
    if failure.value > 0:
        size = failure.value
        if size > allocation_limit:
            why = f"more than this process can ever hold ({human_bytes(allocation_limit)})"
        else:
            why = "the C library refused it (out of memory, or over `ulimit -v`)"
        raise AllocationError(
            f"cpu-run: @{name} needed a buffer of {human_bytes(size)} ({size} bytes) at run time, {why}; "
            f"the call was abandoned and the buffers it had allocated are not freed"
        )
    if failure.value < 0:
        location, message = check_failures[-1 - failure.value]
        raise RunTimeCheckError(
            f"cpu-run: @{name}: {message} at run time; the call was abandoned and the buffers "
            f"it had allocated are not freed",
            location,
        )


class CompiledFunctions:
    """Public functions of compiled host code, called like Python functions: what a
    `CpuExecutable` and a loaded library (`gradir.native_library.NativeLibrary`) share.

    Subclasses provide `_signatures` (name -> FunctionSignature) and `call`; this class gives
    `obj.f(*arrays)` (one result itself, several a tuple), a `NoFunctionError` for a name that
    is not a public function, and tab completion of the function names."""

    _signatures: dict[str, FunctionSignature]

    @reports_internal_errors
    def call(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        raise NotImplementedError

    @property
    def signatures(self) -> dict[str, FunctionSignature]:
        """Public function name -> its signature (tensors and scalars, before bufferization);
        not the functions gradir added for its own calls (`HIDDEN_PREFIX`)."""
        return {name: sig for name, sig in self._signatures.items() if not name.startswith(HIDDEN_PREFIX)}

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self.signatures:
            from gradir.errors import NoFunctionError

            available = ", ".join(sorted(self.signatures)) or "none"
            raise NoFunctionError(
                f"'{type(self).__name__}' has no public function or attribute '{name}' "
                f"(available: {available})"
            )
        return as_function(self.call, name)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.signatures})
