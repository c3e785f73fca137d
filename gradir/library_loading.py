"""`gradir.load`: the loader of an exported library, chosen by its manifest's target.

`gradir.native_library.NativeLibrary` runs CPU libraries, `gpu_backend.cuda_library.CudaLibrary`
CUDA ones; both read the manifest with `native_library.read_manifest`, and this module, which
imports both, keeps them from importing each other. NumPy and ctypes only (no xDSL, no MLIR).
"""
from __future__ import annotations

import os
from pathlib import Path

from gradir.errors import reports_internal_errors
from gradir.gpu_backend.cuda_library import CudaLibrary
from gradir.native_library import NativeLibrary, read_manifest


@reports_internal_errors
def load(path: str | os.PathLike) -> NativeLibrary | CudaLibrary:
    """The library `gradir.export` wrote at `path` (`libf.so`, with `libf.json` beside it): a
    `NativeLibrary` for the CPU (`lib.f(*arrays)`), a `CudaLibrary` for CUDA (the same calls,
    on the GPU, plus `prepare`, `launches`, `images_loaded`, `device`)."""
    if read_manifest(Path(path).resolve())["target"] == "cuda":
        return CudaLibrary(path)
    return NativeLibrary(path)
