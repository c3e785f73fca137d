"""Files the hostile cases write: programs, and `.npy` files good and bad."""
from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import numpy as np

PRODUCT = (Path(__file__).resolve().parents[2] / "examples" / "product.mlir").read_text()

INDEXED = """\
func.func @g(%x: tensor<3xf64>, %n: tensor<3xi32>) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @h(%x: tensor<3xf64>, %n: i32) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

QUOTED = """\
func.func @"my loss"(%x: tensor<3xf64>) -> tensor<f64> {
  %e = autodiff.exp %x : tensor<3xf64>
  %s = autodiff.sum %e : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""


def npy(array) -> callable:
    def write(path: Path) -> None:
        with open(path, "wb") as stream:  # np.save would append .npy to other names
            np.save(stream, array, allow_pickle=True)

    return write


def npy_header_claiming(shape: tuple[int, ...], dtype: str = "<f4", data: bytes = b"") -> bytes:
    """A version-1.0 `.npy` header for `shape`, followed by `data` (too little of it)."""
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (118 - len(header) % 128 if len(header) < 118 else 0) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def npz(**arrays) -> callable:
    def write(path: Path) -> None:
        with open(path, "wb") as stream:
            np.savez(stream, **arrays)

    return write


def zip_of_text(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.txt", "hello")


A = npy(np.ones(4, np.float32))
B = npy(np.full(4, 2.0, np.float32))
