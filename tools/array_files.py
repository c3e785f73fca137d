"""`.npy` inputs and `.npz` outputs of `autodiff-run` and `autodiff-gradcheck`, checked.

An input is read only after its header has been checked against the file: an empty or
truncated file, a header that claims more data than the file holds (a few bytes claiming
terabytes would otherwise be allocated first), an object array (never unpickled) and an
`.npz` archive given where one array belongs are each one `ArgumentError` naming the
file, before anything is compiled or allocated.
"""
from __future__ import annotations

import math
import os
import zipfile

import numpy as np
from numpy.lib import format as npy_format

from gradir.errors import ArgumentError


def load_array(path: str) -> np.ndarray:
    """The array of the `.npy` file at `path`, or an ArgumentError saying what is wrong."""

    def refuse(reason: str) -> ArgumentError:
        return ArgumentError(f"cannot read input {path}: {reason}")

    try:
        size = os.path.getsize(path)
        if os.path.isdir(path):
            raise refuse("it is a directory, not a .npy file")
        with open(path, "rb") as stream:
            if size == 0:
                raise refuse("the file is empty, not a .npy array")
            if zipfile.is_zipfile(stream):
                raise refuse(
                    "it is an .npz archive; --inputs takes one .npy file (np.save) per argument"
                )
            stream.seek(0)
            try:
                version = npy_format.read_magic(stream)
                read_header = (
                    npy_format.read_array_header_1_0
                    if version == (1, 0)
                    else npy_format.read_array_header_2_0  # 3.0 differs only in its encoding
                )
                shape, _fortran_order, dtype = read_header(stream)
            except (ValueError, EOFError, SyntaxError, UnicodeDecodeError) as error:
                raise refuse(f"not a .npy file ({' '.join(str(error).split())})") from None
            if any(not isinstance(n, int) or n < 0 for n in shape):
                raise refuse(f"not a .npy file (its header has the shape {shape})")
            if dtype.hasobject:
                raise refuse(f"it holds Python objects (dtype {dtype}), which gradir never unpickles")
            needed = math.prod(shape) * dtype.itemsize
            available = size - stream.tell()
            if needed > available:
                raise refuse(
                    f"its header claims shape {shape} of {dtype} ({_bytes(needed)}) but the file "
                    f"holds {_bytes(max(available, 0))} of data"
                )
            stream.seek(0)
            return np.load(stream, allow_pickle=False)
    except FileNotFoundError:
        raise refuse("no such file") from None
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    except (ValueError, EOFError, MemoryError) as error:
        raise refuse(" ".join(str(error).split()) or type(error).__name__) from None


def _bytes(count: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if count < 1024 or unit == "EiB":
            return f"{count} {unit}" if unit == "bytes" else f"{count:.3g} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def checked_output_path(path: str) -> str:
    """`path` if results can be saved there under exactly that name, else an ArgumentError.

    NumPy's `savez` appends `.npz` to a name without it (`--output res` wrote `res.npz`;
    `--output DIR` wrote `DIR.npz` beside the folder): gradir asks for the suffix instead,
    and checks the folder, so that a run never ends with its results somewhere unexpected."""
    if not path.endswith(".npz"):
        raise ArgumentError(f"--output {path}: the results file must end in .npz")
    if os.path.isdir(path):
        raise ArgumentError(f"--output {path}: it is a directory")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise ArgumentError(f"--output {path}: no such directory {folder}")
    return path
