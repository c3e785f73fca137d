"""`autodiff-gradcheck FILE --entry NAME [--wrt 0,1]`: check reverse and forward
mode of a function against central finite differences in float64 (exit 1 on a
mismatch, or on a vacuous check).

A gradient or tangent that is near zero everywhere, analytic and numeric (within
ten times `--atol`), proves nothing and fails the check unless `--allow-vacuous`.
Random float inputs are standard normal scaled by each argument's fan-in, or
positive where the function is not finite at those. The step is `--eps` relative
to each input's magnitude.

Float scalar arguments can be in `--wrt` like float tensors, and float scalar
results are checked. Integer and index arguments are never differentiated: they
get seeded random values in 0..3 (small loop bounds, valid indices), or take a
0-d array from `--inputs` (`np.save("n.npy", 10)`)."""
from __future__ import annotations

import pathlib
import sys
from collections.abc import Sequence

from gradir.api_arguments import checked_integer, checked_real
from gradir.tools.array_files import load_array
from gradir.tools.cli import OneLineArgumentParser, add_watching_flags, description, entry_name, run_cli, watching
from gradir.gradient_check import DEFAULT_ATOL, DEFAULT_EPS, DEFAULT_RTOL, MAX_CHECKED_ENTRIES, gradcheck


def _parser() -> OneLineArgumentParser:
    parser = OneLineArgumentParser(prog="autodiff-gradcheck", description=description(__doc__))
    parser.add_argument("file", help="MLIR file (read as a file whatever its name ends with)")
    parser.add_argument("--entry", required=True, help="function to check (f, @f, or quoted as in MLIR: '\"my f\"')")
    parser.add_argument(
        "--wrt", help="comma-separated argument indices (default: every float tensor and float scalar)"
    )
    parser.add_argument(
        "--inputs", nargs="*", metavar="NPY",
        help="one .npy per argument, a 0-d array for a scalar (default: random: floats standard "
        "normal / sqrt(fan-in), or uniform in [0.25, 1.25) / sqrt(fan-in) where the function is "
        "not finite at those; integers and index in 0..3)",
    )  # fmt: skip
    parser.add_argument(
        "--eps", type=float, default=DEFAULT_EPS,
        help=f"finite-difference step, relative to each input's magnitude above 1 (default {DEFAULT_EPS})",
    )  # fmt: skip
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL, help=f"absolute tolerance (default {DEFAULT_ATOL})")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL, help=f"relative tolerance (default {DEFAULT_RTOL})")
    parser.add_argument("--seed", type=int, default=0, help="seed of random inputs and directions")
    parser.add_argument(
        "--max-entries", type=int, default=MAX_CHECKED_ENTRIES,
        help=f"entries of each argument whose gradient is checked, two calls each; a random sample of "
        f"larger arguments (default {MAX_CHECKED_ENTRIES})",
    )  # fmt: skip
    parser.add_argument(
        "--allow-vacuous", action="store_true",
        help="pass checks whose analytic and numeric values are all near zero (they prove nothing)",
    )  # fmt: skip
    add_watching_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    return parser


def _run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    checked_real("--eps", args.eps, positive=True)
    checked_real("--atol", args.atol, non_negative=True)
    checked_real("--rtol", args.rtol, non_negative=True)
    checked_integer("--seed", args.seed, minimum=0)
    checked_integer("--max-entries", args.max_entries, minimum=1)
    wrt = None
    if args.wrt is not None:
        try:
            wrt = [int(i) for i in args.wrt.split(",")]
        except ValueError:
            _parser().error(f"--wrt expects comma-separated integers, got '{args.wrt}'")
    inputs = [load_array(path) for path in args.inputs] if args.inputs else None
    with watching(args, "autodiff-gradcheck"):
        result = gradcheck(
            pathlib.Path(args.file), entry_name(args.entry), inputs, wrt,  # a path, whatever its suffix
            eps=args.eps, atol=args.atol, rtol=args.rtol, seed=args.seed, allow_vacuous=args.allow_vacuous,
            max_entries=args.max_entries,
        )  # fmt: skip
    print(result.report())
    return 0 if result.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(_run, argv)


if __name__ == "__main__":
    sys.exit(main())
