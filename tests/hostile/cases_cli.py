"""Hostile CLI invocations, as data (see `contract.CliCase`)."""
from __future__ import annotations

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
        ("unknown-option", "autodiff-reverse{bogus=1}", "-p autodiff-reverse: Provided arguments [\"bogus\"]"),
        ("option-not-int", "autodiff-reverse{checkpoint-every=x}", "-p autodiff-reverse: Incompatible types"),
        ("option-float", "autodiff-reverse{checkpoint-every=1.5}", "-p autodiff-reverse: Incompatible types"),
        ("option-empty", "autodiff-reverse{checkpoint-every}", "-p autodiff-reverse: Incompatible types"),
        ("option-not-bool", "autodiff-reverse{reuse-backward-bodies=7}", "expected <class 'bool'>"),
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


CLI_CASES: list[CliCase] = [
    *_pass_lists(),
]
