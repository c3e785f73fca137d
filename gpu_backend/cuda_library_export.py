"""A `CudaProgram` as a self-contained shared library: `libf.so`, `libf.h`, `libf.json`.

`gradir.export(source, target="cuda", path=...)` and `autodiff-opt --pipeline gpu --emit
shared-lib -o libf.so` write it; `gradir.load` calls it (`cuda_library.CudaLibrary`) with NumPy,
ctypes and a CUDA driver, without xDSL or MLIR. What goes in:

- the host code as an object file: the program's host module (LLVM dialect, `gpu.binary`,
  `gpu.launch_func`), compiled position-independent by MLIR's ExecutionEngine and dumped, as
  the CPU export does. The JIT turns the module's global constructors (one kernel-module load
  per `gpu.binary`) into a function, `HOST_INIT_SYMBOL`, which the runtime calls when the
  library is started rather than when it is loaded, so that loading needs no driver;
- each kernel as gradir's image (`kernel_image`): its cubin, assembled here by `ptxas` when it
  is on the PATH, and its PTX, which the driver compiles when it refuses the cubin (or when
  `GRADIR_CUDA_IMAGE=ptx`); the `gpu.binary`s hold these images, so the host code hands them
  to `mgpuModuleLoad` as they are;
- `cuda_runtime.c`, compiled and linked here: MLIR's `mgpu*` runtime over the CUDA driver,
  which it dlopens when started (why C and not ctypes callbacks: see that file);
- the header (the host code's C interface and the runtime's functions) and the manifest
  (`target: "cuda"`, each function's signature and entry point, each kernel's launch, image
  sizes, registers and spills from `ptxas -v`, and its bytes read and written).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mlir import ir
from mlir.dialects import gpu
from mlir.execution_engine import ExecutionEngine

from gradir.c_linking import C_IDENTIFIER, c_parameters, c_return_type, link, memref_typedefs
from gradir.errors import TargetError
from gradir.gpu_backend.cuda_program import RUNTIME_SIGNATURES, CudaProgram
from gradir.gpu_backend.ptx import KernelResources, assemble, ptxas_path
from gradir.mlir_bridge import guarded, new_context
from gradir.native_calls import signature_to_json
from gradir.native_library import MANIFEST_FORMAT, MANIFEST_VERSION, file_sha256, manifest_path

RUNTIME_SOURCE = Path(__file__).with_name("cuda_runtime.c")

SERVED_SYMBOLS = frozenset(
    {"mgpuModuleLoad", "mgpuModuleUnload", "mgpuModuleGetFunction", "mgpuLaunchKernel",
     "mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuStreamDestroy", "mgpuMemAlloc",
     "mgpuMemFree", "mgpuMemcpy"}
)  # fmt: skip
"""The `mgpu*` functions `cuda_runtime.c` defines."""

HOST_INIT_SYMBOL = "__orc_init_func.LLVMDialectModule"
HOST_DEINIT_SYMBOL = "__orc_deinit_func.LLVMDialectModule"
"""What ORC makes of the host module's global constructors and destructors (MLIR names the
translated module `LLVMDialectModule`). Referenced by the runtime, so a change of name is a
link error at export, not a library that never loads its kernels."""

LINK_LIBRARIES = ("dl", "pthread", "m")

IMAGE_MAGIC = b"GRDXKIMG"
IMAGE_VERSION = 1
_IMAGE_HEADER = struct.Struct("<8sIIQQ")
"""magic, version, flags (0), cubin bytes, PTX bytes (the PTX is followed by a NUL)."""

HOST_OPT_LEVEL = 2
"""LLVM's level for the host code: it only sequences launches and allocations."""


def kernel_image(ptx: str, cubin: bytes) -> bytes:
    """The image `cuda_runtime.c`'s `mgpuModuleLoad` reads: a header, the cubin (may be empty),
    the PTX and a NUL."""
    text = ptx.encode()
    return _IMAGE_HEADER.pack(IMAGE_MAGIC, IMAGE_VERSION, 0, len(cubin), len(text)) + cubin + text + b"\0"


def read_kernel_image(data: bytes) -> tuple[bytes, str]:
    """(cubin, PTX) of an image `kernel_image` wrote (at the start of `data`)."""
    magic, version, _flags, cubin_size, ptx_size = _IMAGE_HEADER.unpack_from(data)
    if magic != IMAGE_MAGIC or version != IMAGE_VERSION:
        raise ValueError("not a gradir kernel image")
    start = _IMAGE_HEADER.size
    return data[start : start + cubin_size], data[start + cubin_size : start + cubin_size + ptx_size].decode()


def embedded_images(library: bytes) -> list[tuple[bytes, str]]:
    """Every kernel image in a library's bytes, in the order they appear (what a test reads)."""
    header = IMAGE_MAGIC + struct.pack("<II", IMAGE_VERSION, 0)  # the runtime's code holds the magic alone
    found, start = [], library.find(header)
    while start >= 0:
        found.append(read_kernel_image(library[start:]))
        start = library.find(header, start + 1)
    return found


@dataclass(frozen=True)
class Kernels:
    """The kernels' images and what `ptxas -v` said of them (empty without ptxas)."""

    images: dict[str, bytes]
    cubins: dict[str, bytes]
    resources: dict[str, KernelResources]
    ptxas: str | None


def assemble_kernels(program: CudaProgram) -> Kernels:
    """Each kernel's cubin for the program's chip (where `ptxas` is on the PATH) and its image."""
    executable = ptxas_path()
    cubins: dict[str, bytes] = {}
    resources: dict[str, KernelResources] = {}
    for name, ptx in program.ptx.items():
        if executable is None:
            cubins[name] = b""
            continue
        assembled = assemble(ptx, program.chip)
        cubins[name] = assembled.cubin
        resources.update(assembled.resources)
    images = {name: kernel_image(ptx, cubins[name]) for name, ptx in program.ptx.items()}
    return Kernels(images, cubins, resources, _ptxas_version(executable))


def _ptxas_version(executable: str | None) -> str | None:
    if executable is None:
        return None
    done = subprocess.run([executable, "--version"], capture_output=True, text=True)
    releases = [line.strip() for line in done.stdout.splitlines() if "release" in line]
    return releases[0] if releases else None


def host_object(program: CudaProgram, images: dict[str, bytes]) -> bytes:
    """The host code as a position-independent object file, its `gpu.binary`s holding `images`
    (a copy of the program's host module is compiled; the program is left as it was)."""
    context = new_context()
    module = guarded("cuda-export", context, lambda: ir.Module.parse(str(program.host_module), context))
    with context:
        for op in module.body.operations:
            if op.operation.name != "gpu.binary":
                continue
            name = ir.StringAttr(op.attributes["sym_name"]).value
            (compiled,) = [gpu.ObjectAttr(attribute) for attribute in op.attributes["objects"]]
            image = gpu.ObjectAttr.get(
                compiled.target, gpu.CompilationTarget.Binary, images[name], compiled.properties
            )
            op.attributes["objects"] = ir.ArrayAttr.get([image])
        engine = guarded(
            "cuda-export", context,
            lambda: ExecutionEngine(module, opt_level=HOST_OPT_LEVEL, enable_pic=True),
        )  # fmt: skip
        # The JIT links what it compiles: every runtime symbol needs an address, or it aborts.
        # The object file keeps its references symbolic, for the linker; the one function
        # called here is `mgpuModuleUnload`, by the engine's destructor (the deinitializers),
        # so the address is a function that does nothing, alive until the engine is gone.
        nothing = _NOTHING(lambda: None)
        try:
            for name in {*RUNTIME_SIGNATURES, *SERVED_SYMBOLS}:
                engine.raw_register_runtime(name, ctypes.cast(nothing, ctypes.c_void_p))
            for name in program.signatures:
                if not guarded("cuda-export", context, lambda: engine.raw_lookup(f"_mlir_ciface_{name}")):
                    raise TargetError(f"cuda-export: no host code for public function '{name}'")
            with tempfile.TemporaryDirectory(prefix="gradir-object-") as work:
                path = Path(work) / "host.o"
                engine.dump_to_object_file(str(path))
                return path.read_bytes()
        finally:
            del engine


_NOTHING = ctypes.CFUNCTYPE(None)


def check_runtime_symbols(program: CudaProgram) -> None:
    """A `TargetError` naming any `mgpu*` function the host code calls that the runtime lacks
    (`mgpuModuleLoadJIT` becomes `mgpuModuleLoad`: the images are binary)."""
    needed = (program.runtime_symbols() - {"mgpuModuleLoadJIT"}) | ({"mgpuModuleLoad"} if program.ptx else set())
    missing = sorted(needed - SERVED_SYMBOLS)
    if missing:
        raise TargetError(f"cuda-export: the exported runtime lacks {', '.join(missing)}")


RUNTIME_DECLARATIONS = """\
/* The runtime (gpu_backend/cuda_runtime.c). Call gradir_cuda_start() first: it opens the CUDA
   driver (libcuda.so.1, or $GRADIR_CUDA_DRIVER), makes device 0's primary context current and
   loads the kernels; 0 on success, else -1 and gradir_cuda_error() says why. The functions
   take and return device memory (gradir_cuda_alloc, gradir_cuda_copy_to_device...); after a
   call, gradir_cuda_error() is NULL unless a driver call failed (clear it to go on). */
int gradir_cuda_start(void);
void gradir_cuda_stop(void);
const char *gradir_cuda_error(void);
void gradir_cuda_clear_error(void);
const char *gradir_cuda_device(void);
void gradir_cuda_images(int64_t counts[2]); /* kernel modules loaded from cubin, from PTX */
const char *gradir_cuda_fallback(void);
uint64_t gradir_cuda_launch_count(void);
int64_t gradir_cuda_kernel_launches(int64_t capacity, const char **names, uint64_t *counts);
uint64_t gradir_cuda_alloc(size_t size);
void gradir_cuda_free(uint64_t pointer);
int gradir_cuda_copy_to_device(uint64_t target, const void *source, size_t size);
int gradir_cuda_copy_to_host(void *target, uint64_t source, size_t size);
int gradir_cuda_synchronize(void);
"""


def c_header(program: CudaProgram, guard_name: str) -> str:
    """Declarations of the runtime and of each public function's C interface."""
    signatures = program.signatures
    lines = [
        "/* Generated by gradir.export(target=\"cuda\"); the signatures are also in the .json manifest. */",
        f"#ifndef {guard_name}", f"#define {guard_name}", "#include <stdbool.h>", "#include <stddef.h>",
        "#include <stdint.h>", "#ifdef __cplusplus", 'extern "C" {', "#endif", "", RUNTIME_DECLARATIONS,
        "/* A tensor is a pointer to MLIR's memref descriptor whose data is DEVICE memory (strides",
        "   in elements, row-major); results are out-parameters the caller allocates. */",
    ]  # fmt: skip
    lines += memref_typedefs(signatures)
    lines.append("")
    for name, signature in signatures.items():
        parameters = c_parameters(signature)
        lines.append(f"/* {name}: ({', '.join(map(str, signature.arguments))}) -> "
                     f"({', '.join(map(str, signature.results))}); kernels: "
                     f"{', '.join(program.kernels_of(name)) or 'none'} */")  # fmt: skip
        if not C_IDENTIFIER.fullmatch(name):
            lines += [f"/* not a C identifier: look up `_mlir__mlir_ciface_{name}` with dlsym */", ""]
            continue
        returned = c_return_type(signature)
        if returned is not None:
            lines.append(f"{returned} _mlir_ciface_{name}(\n    " + ",\n    ".join(parameters or ["void"]) + ");")
        lines.append(f"void _mlir__mlir_ciface_{name}(void **slots); /* packed, as gradir.load calls it */")
        lines.append("")
    lines += ["#ifdef __cplusplus", "}", "#endif", f"#endif /* {guard_name} */", ""]
    return "\n".join(lines)


def manifest(program: CudaProgram, kernels: Kernels, library: Path) -> dict:
    """The manifest `gradir.load` reads (`cuda_library`), for the linked `library`."""
    kernel_entries = {}
    for name, config in program.launch_configs.items():
        resources = kernels.resources.get(name)
        traffic = program.traffic.get(name)
        kernel_entries[name] = {
            "function": config.function,
            "grid": list(config.grid),
            "block": list(config.block),
            "ptx_bytes": len(program.ptx[name].encode()),
            "ptx_sha256": hashlib.sha256(program.ptx[name].encode()).hexdigest(),
            "cubin_bytes": len(kernels.cubins[name]),
            "registers": resources.registers if resources else None,
            "spill_bytes": resources.spill_bytes if resources else None,
            "shared_bytes": resources.shared_bytes if resources else None,
            "bytes_read": traffic.bytes_read if traffic else None,
            "bytes_written": traffic.bytes_written if traffic else None,
        }
    return {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "target": "cuda",
        "library": library.name,
        "sha256": file_sha256(library),
        "chip": program.chip,
        "features": program.features,
        "images": "cubin+ptx" if all(kernels.cubins.values()) and kernels.cubins else "ptx",
        "ptxas": kernels.ptxas,
        "functions": {
            name: {
                **signature_to_json(signature),
                "entry_point": f"_mlir__mlir_ciface_{name}",
                "c_interface": f"_mlir_ciface_{name}",
                "kernels": program.kernels_of(name),
            }
            for name, signature in program.signatures.items()
        },
        "kernels": kernel_entries,
    }


def build_cuda_library(program: CudaProgram, directory: Path, stem: str) -> Path:
    """Link and describe `program` as `stem.so`, `stem.h` and `stem.json` in `directory`."""
    check_runtime_symbols(program)
    kernels = assemble_kernels(program)
    library = directory / f"{stem}.so"
    with tempfile.TemporaryDirectory(prefix="gradir-link-") as work:
        object_file = Path(work) / "host.o"
        object_file.write_bytes(host_object(program, kernels.images))
        flags = [f'-DGRADIR_HOST_INIT="{HOST_INIT_SYMBOL}"', f'-DGRADIR_HOST_DEINIT="{HOST_DEINIT_SYMBOL}"'] if program.ptx else []
        link(library, [object_file, RUNTIME_SOURCE], LINK_LIBRARIES, ["-O2", *flags])
    guard_name = "GRADIR_" + "".join(c if c.isalnum() else "_" for c in stem.upper()) + "_H"
    (directory / f"{stem}.h").write_text(c_header(program, guard_name))
    manifest_path(library).write_text(json.dumps(manifest(program, kernels, library), indent=1) + "\n")
    return library


def write_cuda_library(program: CudaProgram, path: str | os.PathLike) -> Path:
    """`build_cuda_library` at `path` (`libf.so`, checked by the caller), each file renamed into
    place once complete, the manifest last. Returns the library's path."""
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix=".gradir-export-", dir=path.parent) as staging:
        built = build_cuda_library(program, Path(staging), path.stem)
        for suffix in (".so", ".h", ".json"):
            os.replace(built.with_suffix(suffix), path.with_suffix(suffix))
    return path
