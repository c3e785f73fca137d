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

from gradir.api_arguments import checked_integer
from gradir.gradient_check import DYNAMIC_SIZE, random_array
from gradir.mlir_bridge.host_execution import find_signature
from gradir.tools.array_files import checked_output_path, load_array
from gradir.tools.cli import OneLineArgumentParser, add_watching_flags, description, entry_name, run_cli, watching


def _parser() -> OneLineArgumentParser:
    parser = OneLineArgumentParser(prog="autodiff-run", description=description(__doc__))
    parser.add_argument("file", help="MLIR file (read as a file whatever its name ends with)")
    parser.add_argument("--entry", required=True, help="function to call (f, @f, or quoted as in MLIR: '\"my f\"')")
    parser.add_argument(
        "--inputs", nargs="*", metavar="NPY",
        help="one .npy file per argument (a 0-d array for a scalar argument); without it, "
        "seeded random inputs as autodiff-gradcheck draws them (floats standard normal / "
        "sqrt(fan-in), integers and index in 0..3, each dynamic dimension 3 long), named on the "
        "first line of the output",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (without --inputs)")
    parser.add_argument("--output", metavar="NPZ", help="save the results as result0, result1, ... in this file (its name must end in .npz)")
    parser.add_argument(
        "--check-numerics", action="store_true",
        help="stop at the first op (forward or backward) whose result holds a NaN or Inf, or at "
        "an argument holding one: exit 1 with the op and its location (off: NaNs are printed)",
    )  # fmt: skip
    add_watching_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    return parser


def _compiled(path: pathlib.Path, name: str, check_numerics: bool):
    """`path` compiled for the CPU with `name` its only function compiled for itself (the others,
    derived ones included, only where inlined: `gradir.compile`'s `functions`)."""
    import gradir

    try:
        return gradir.compile(path, target="cpu", check_numerics=check_numerics, functions=[name])
    except gradir.ArgumentError as error:
        if error.parameter == "functions":  # the entry is not a function of the module
            raise gradir.ArgumentError("--entry" + error.message.removeprefix("functions"), parameter="--entry") from None
        raise


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    checked_integer("--seed", args.seed, minimum=0)
    output = checked_output_path(args.output) if args.output is not None else None
    arrays = [load_array(path) for path in args.inputs] if args.inputs is not None else None
    name = entry_name(args.entry)
    with watching(args, "autodiff-run"):
        # A path, whatever its suffix; only the function called is compiled for itself.
        exe = _compiled(pathlib.Path(args.file), name, args.check_numerics)
    if arrays is None:
        signature = find_signature(exe.signatures, name)
        rng = np.random.default_rng(args.seed)
        arrays = [
            random_array(rng, tuple(DYNAMIC_SIZE if size is None else size for size in spec.shape), spec.dtype)
            for spec in signature.arguments
        ]
        if arrays:
            print(f"inputs: random, seed {args.seed} (floats standard normal / sqrt(fan-in), integers in 0..3)")
    results = exe.call(name, *arrays)
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
