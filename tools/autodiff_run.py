"""`autodiff-run FILE --entry NAME --inputs a.npy b.npy [--output out.npz]`:
compile a program for the CPU, call one function on `.npy` inputs, print (and
optionally save) its results.

A scalar argument (`f64`, `i32`, `index`, ...) is read from a `.npy` file holding a
0-d array (`np.save("n.npy", 3)`), checked like any scalar argument (an integer type
takes only integral values in its range); scalar results print and save as 0-d arrays."""
from __future__ import annotations

import pathlib
import sys
from collections.abc import Sequence

import numpy as np

from gradir.tools.array_files import checked_output_path, load_array
from gradir.tools.cli import OneLineArgumentParser, description, entry_name, run_cli


def _parser() -> OneLineArgumentParser:
    parser = OneLineArgumentParser(prog="autodiff-run", description=description(__doc__))
    parser.add_argument("file", help="MLIR file (read as a file whatever its name ends with)")
    parser.add_argument("--entry", required=True, help="function to call (f, @f, or quoted as in MLIR: '\"my f\"')")
    parser.add_argument(
        "--inputs", nargs="*", default=[], metavar="NPY",
        help="one .npy file per argument (a 0-d array for a scalar argument)",
    )  # fmt: skip
    parser.add_argument("--output", metavar="NPZ", help="save the results as result0, result1, ... in this file (its name must end in .npz)")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    import gradir

    output = checked_output_path(args.output) if args.output is not None else None
    arrays = [load_array(path) for path in args.inputs]
    exe = gradir.compile(pathlib.Path(args.file), target="cpu")  # a path, whatever its suffix
    results = exe.call(entry_name(args.entry), *arrays)
    named = {f"result{i}": np.asarray(r) for i, r in enumerate(results)}
    if output is not None:
        np.savez(output, **named)
    with np.printoptions(precision=6, suppress=True, threshold=64):
        for name, value in named.items():
            print(f"{name}: {value.dtype} {list(value.shape)}\n{value}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_run, argv)


if __name__ == "__main__":
    sys.exit(main())
