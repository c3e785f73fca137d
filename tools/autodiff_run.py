"""`autodiff-run FILE --entry NAME --inputs a.npy b.npy [--output out.npz]`:
compile a program for the CPU, call one function on `.npy` inputs, print (and
optionally save) its results.

A scalar argument (`f64`, `i32`, `index`, ...) is read from a `.npy` file holding a
0-d array (`np.save("n.npy", 3)`), checked like any scalar argument (an integer type
takes only integral values in its range); scalar results print and save as 0-d arrays."""
from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from gradir.errors import ArgumentError
from gradir.tools.cli import OneLineArgumentParser, run_cli


def _parser() -> OneLineArgumentParser:
    parser = OneLineArgumentParser(prog="autodiff-run", description=__doc__.splitlines()[0])
    parser.add_argument("file", help=".mlir file")
    parser.add_argument("--entry", required=True, help="function to call")
    parser.add_argument(
        "--inputs", nargs="*", default=[], metavar="NPY",
        help="one .npy file per argument (a 0-d array for a scalar argument)",
    )  # fmt: skip
    parser.add_argument("--output", metavar="NPZ", help="save the results as result0, result1, ... in this .npz")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    return parser


def _load(path: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise ArgumentError(f"cannot read input {path}: {error}") from error


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    import gradir

    arrays = [_load(path) for path in args.inputs]
    exe = gradir.compile(args.file, target="cpu")
    results = exe.call(args.entry, *arrays)
    named = {f"result{i}": np.asarray(r) for i, r in enumerate(results)}
    if args.output:
        np.savez(args.output, **named)
    with np.printoptions(precision=6, suppress=True, threshold=64):
        for name, value in named.items():
            print(f"{name}: {value.dtype} {list(value.shape)}\n{value}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_run, argv)


if __name__ == "__main__":
    sys.exit(main())
