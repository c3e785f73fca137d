"""Hostile CLI invocations, as data (see `contract.CliCase`)."""
from __future__ import annotations

from .cases_run import RUN_CASES
from .cases_text import TEXT_CASES
from .contract import CliCase

PRODUCT = "{root}/examples/product.mlir"


def _pass_lists() -> list[CliCase]:
    """Malformed `-p` lists (xDSL's ArgSpecParseError is no `Exception`), unknown
    passes and options, option values of the wrong type."""
    malformed = [
        ("unclosed-brace", "autodiff-reverse{checkpoint-every=2", "column 36: Malformed pass arguments"),
        ("two-commas", ",,", "column 1: Expected pass name here"),
        ("one-comma", ",", "column 1: Expected pass name here"),
        ("only-brace", "{", "column 1: Expected pass name here"),
        ("extra-brace", "autodiff-reverse{checkpoint-every=2}}", "Expected a comma after pass argument dict"),
        ("no-option-name", "autodiff-reverse{=3}", "Expected argument name here"),
        ("open-brace-at-end", "cse{", "Expected argument name here"),
        ("quoted-pass-name", '"cse"', "Expected pass name here"),
        ("option-no-equals", "autodiff-reverse{x", "Expected equals, space or end of arguments"),
        ("comma-then-comma", "cse,,dce", "Expected pass name here"),
        ("leading-comma", ",cse", "Expected pass name here"),
        ("space-in-list", "cse dce", "column 4: Expected a comma or pass arguments here"),
    ]
    cases = [
        CliCase(f"opt-p-{name}", "opt", (PRODUCT, "-p", spec), expect)
        for name, spec, expect in malformed
    ]
    bad_options = [
        ("unknown-option", "autodiff-reverse{bogus=1}", "-p autodiff-reverse: unknown option 'bogus' (options: checkpoint-every, reuse-backward-bodies)"),
        ("option-not-int", "autodiff-reverse{checkpoint-every=x}", "-p autodiff-reverse: option checkpoint-every: expected int, got x"),
        ("option-float", "autodiff-reverse{checkpoint-every=1.5}", "-p autodiff-reverse: option checkpoint-every: expected int, got 1.5"),
        ("option-empty", "autodiff-reverse{checkpoint-every}", "-p autodiff-reverse: option checkpoint-every: expected int, got no value"),
        ("option-not-bool", "autodiff-reverse{reuse-backward-bodies=7}", "option reuse-backward-bodies: expected bool, got 7"),
        ("option-negative", "autodiff-reverse{checkpoint-every=-3}", "checkpoint-every must be >= 0, got -3"),
        ("unknown-pass", "no-such-pass", "Unrecognized passes: ['no-such-pass']"),
        ("unknown-pass-after-good", "cse,nope", "Unrecognized passes: ['nope']"),
    ]
    cases += [
        CliCase(f"opt-p-{name}", "opt", (PRODUCT, "-p", spec), expect)
        for name, spec, expect in bad_options
    ]
    cases.append(
        CliCase(
            "opt-p-malformed-isolated", "opt", (PRODUCT, "-p", "autodiff-reverse{checkpoint-every=2"),
            "Malformed pass arguments", isolated=True,
        )
    )
    cases.append(
        CliCase(
            "opt-p-malformed-no-output-file", "opt", (PRODUCT, "-p", ",,", "-o", "{tmp}/out.mlir"),
            "Expected pass name here", absent=("out.mlir",),
        )
    )
    return cases


def _gpu_options() -> list[CliCase]:
    """GPU targets LLVM does not know: it would warn on stderr, exit 0 and write PTX for no
    real chip, or (a PTX version below the chip's minimum) abort the process."""
    bad = [
        ("chip-sm-1000", ("--gpu-chip", "sm_1000"), "unknown GPU chip 'sm_1000'"),
        ("chip-sm-20", ("--gpu-chip", "sm_20"), "unknown GPU chip 'sm_20'"),
        ("chip-empty", ("--gpu-chip=",), "unknown GPU chip ''"),
        ("chip-compute", ("--gpu-chip", "compute_90"), "unknown GPU chip 'compute_90'"),
        ("chip-uppercase", ("--gpu-chip", "SM_90"), "unknown GPU chip 'SM_90'"),
        ("chip-injects-option", ("--gpu-chip", "sm_90 cubin-format=bin"), "unknown GPU chip"),
        ("chip-injects-brace", ("--gpu-chip", "sm_90}"), "unknown GPU chip"),
        ("features-bogus", ("--gpu-features", "+bogus"), "unknown GPU feature '+bogus'"),
        ("features-no-plus", ("--gpu-features", "ptx80"), "unknown GPU feature 'ptx80'"),
        ("features-minus", ("--gpu-features=-ptx80",), "unknown GPU feature '-ptx80'"),
        ("features-ptx99", ("--gpu-features", "+ptx99"), "unknown GPU feature '+ptx99'"),
        ("features-chip", ("--gpu-features", "+sm_90"), "unknown GPU feature '+sm_90'"),
        ("features-empty-item", ("--gpu-features", "+ptx80,"), "unknown GPU feature ''"),
        ("features-empty", ("--gpu-features=",), "GPU features must be text"),
        ("features-injects", ("--gpu-features", "+ptx80 cubin-format=bin"), "unknown GPU feature"),
        ("ptx-too-old-for-chip", ("--gpu-chip", "sm_100", "--gpu-features", "+ptx80"),
         "sm_100 needs PTX version 8.6 or later"),
        ("ptx-too-old-for-sm90a", ("--gpu-chip", "sm_90a", "--gpu-features", "+ptx78"),
         "sm_90a needs PTX version 8.0 or later"),
        ("chip-without-gpu-pipeline", ("--gpu-chip", "sm_1000"), None),
    ]
    cases = []
    for name, flags, expect in bad:
        if expect is None:  # the option itself does not apply
            argv, expect = (PRODUCT, "--pipeline", "cpu", *flags), "--gpu-chip only applies with --pipeline gpu"
        else:
            argv = (PRODUCT, "--pipeline", "gpu", "--emit", "ptx", *flags, "-o", "{tmp}/out.ptx")
        # Some features LLVM does not know (`ptx80` without its `+`) and a PTX version too
        # old for the chip were an LLVM ERROR that ended the process: run those apart.
        isolated = name.startswith(("ptx-too-old", "features"))
        cases.append(CliCase(f"opt-gpu-{name}", "opt", argv, expect, absent=("out.ptx",), isolated=isolated))
    cases.append(
        CliCase(
            "opt-gpu-ptx-too-old-isolated", "opt",
            (PRODUCT, "--pipeline", "gpu", "--gpu-chip", "sm_120", "--gpu-features", "+ptx80"),
            "sm_120 needs PTX version 8.7 or later", isolated=True,
        )
    )
    return cases


def _functions_option() -> list[CliCase]:
    """`--functions`: names that are not functions, and the flag where it cannot apply."""
    bad = [
        ("unknown", ("--pipeline", "cpu", "--functions", "g"),
         "--functions: no function @g in the module (its public functions: @df, @f, @f_grad_0_1, @f_vjp_0_1)"),
        ("empty-item", ("--pipeline", "linalg", "--functions", "df,"),
         "--functions expects comma-separated function names, got 'df,'"),
        ("empty", ("--pipeline", "gpu", "--functions="), "--functions expects comma-separated function names, got ''"),
        ("no-pipeline", ("--functions", "df"), "--functions only applies with --pipeline"),
    ]  # fmt: skip
    return [
        CliCase(f"opt-functions-{name}", "opt", (PRODUCT, *flags, "-o", "{tmp}/out.mlir"), expect, absent=("out.mlir",))
        for name, flags, expect in bad
    ]


CLI_CASES: list[CliCase] = [
    *_pass_lists(),
    *_gpu_options(),
    *_functions_option(),
    *RUN_CASES,
    *TEXT_CASES,
]
