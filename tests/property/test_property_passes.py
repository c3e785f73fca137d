"""Every gradir pass and named pipeline runs on random programs, and the IR
verifies after each pass."""
import pytest
from hypothesis import given

from gradir.errors import GradirError
from gradir.pass_table import PASSES_BY_NAME
from program_generator import programs
from property_support import (
    expect_success,
    parse,
    property_settings,
    run_opt,
    run_passes,
)

FULL_SEQUENCE = (
    "autodiff-reverse",
    "autodiff-forward",
    "autodiff-specialize-zero",
    "cse",
    "dce",
    "autodiff-split",
    "autodiff-lower-grad-of",
    "convert-autodiff-to-linalg",
    "canonicalize",
    "cse",
    "dce",
)
"""Every gradir pass in pipeline order (with the split, which no pipeline runs)."""


@property_settings(25)
@given(programs())
def test_every_pass_in_order_keeps_the_ir_valid(program):
    text = program.text()
    module = run_passes(parse(text), FULL_SEQUENCE, text)
    remaining = {op.name for op in module.walk() if op.name.startswith("autodiff.")}
    assert not remaining, f"autodiff ops left after lowering: {sorted(remaining)}\n{text}"


@pytest.mark.parametrize("pass_name", sorted(PASSES_BY_NAME))
@property_settings(10)
@given(program=programs())
def test_each_pass_alone_verifies_or_reports_a_located_error(pass_name, program):
    """On the raw program (entry ops not yet replaced), a pass either produces
    valid IR or raises a located `GradirError`: never an internal exception."""
    text = program.text()
    module = parse(text)
    try:
        run_passes(module, (pass_name,), text)
    except AssertionError as failure:
        cause = failure.__cause__
        if not isinstance(cause, GradirError) or cause.location is None:
            raise
        assert "generated.mlir:" in str(cause)


@pytest.mark.parametrize("pipeline", ["grad", "linalg"])
@property_settings(25)
@given(program=programs())
def test_named_pipeline_output_reparses_and_verifies(pipeline, program):
    text = program.text()
    output = expect_success(run_opt(text, "--pipeline", pipeline), text)
    module = parse(output)
    if pipeline == "grad":
        entry_ops = [op.name for op in module.walk() if op.name in
                     ("autodiff.grad", "autodiff.vjp", "autodiff.jvp")]  # fmt: skip
        assert not entry_ops, f"entry ops left by the grad pipeline:\n{output}"
    else:
        leftover = {op.name for op in module.walk() if op.name.startswith("autodiff.")}
        assert not leftover, f"autodiff ops left by the linalg pipeline: {sorted(leftover)}"
