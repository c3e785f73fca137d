"""Print/parse round trips of random programs are exact, in the custom and the
generic form, through `autodiff-opt` itself."""
from hypothesis import given

from program_generator import programs
from property_support import expect_success, parse, print_module, property_settings, run_opt

ALL_ELEMENT_TYPES = ("f16", "bf16", "f32", "f64")


@property_settings(25)
@given(programs(elements=ALL_ELEMENT_TYPES))
def test_custom_form_round_trip_is_exact(program):
    text = program.text()
    printed = expect_success(run_opt(text), text)
    assert expect_success(run_opt(printed), printed) == printed


@property_settings(25)
@given(programs(elements=ALL_ELEMENT_TYPES))
def test_generic_form_parses_back_to_the_same_module(program):
    text = program.text()
    printed = expect_success(run_opt(text), text)
    generic = expect_success(run_opt(text, "--print-op-generic"), text)
    assert '"autodiff.' in generic and "autodiff.grad @" not in generic
    assert expect_success(run_opt(generic), generic) == printed
    assert expect_success(run_opt(generic, "--print-op-generic"), generic) == generic


@property_settings(25)
@given(programs(elements=ALL_ELEMENT_TYPES))
def test_printer_matches_the_cli_and_reparses_to_equal_ir(program):
    """The library printer and the CLI agree, and a reparsed module is
    structurally equal to the original (not only equal as text)."""
    module = parse(program.text())
    printed = print_module(module)
    assert printed == expect_success(run_opt(program.text()), program.text())
    assert parse(printed).is_structurally_equivalent(module)
    assert parse(print_module(module, generic=True)).is_structurally_equivalent(module)
