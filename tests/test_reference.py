"""docs/reference.md (scripts/reference.py) is generated from the code: regenerating it
must give the committed page, every op, pass, pipeline, stage and rule is on it, and an
op check without a docstring is an error rather than a rule silently missing."""
import importlib.util
import pathlib
import sys

import pytest
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def

from gradir import pass_table, pipelines
from gradir.autodiff_pass.rules import registry
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects import forward_ops
from gradir.dialects.autodiff import Autodiff

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "reference.py"
STALE = "docs/reference.md is out of date: run python scripts/reference.py --write"

spec = importlib.util.spec_from_file_location("reference_page", SCRIPT)
reference = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = reference  # its dataclasses look their module up
spec.loader.exec_module(reference)


@pytest.fixture(scope="module")
def page() -> str:
    return reference.page()


def test_the_committed_page_is_the_generated_one(page):
    assert (ROOT / "docs" / "reference.md").read_text() == page, STALE


def test_check_says_how_to_regenerate(monkeypatch, capsys):
    monkeypatch.setattr(reference, "page", lambda: "a page the code no longer gives\n")
    assert reference.main(["--check"]) == 1
    assert STALE in capsys.readouterr().out


def test_every_op_pass_pipeline_stage_and_rule_is_on_the_page(page):
    from gradir.gpu_backend.gpu_pipeline import STAGES

    ops = list(Autodiff.operations)
    assert len(ops) == 40  # the dialect's ops (a lost op shows here, a new one below)
    for op in ops:
        assert f"#### `{op.name}`\n" in page, op.name
    for entry in pass_table.PASSES:
        assert f"### `{entry.name}`\n" in page, entry.name
    assert "| `checkpoint-every` | `int` | `0` |" in page
    for name in pipelines.PIPELINES:
        assert f"### `{name}`\n" in page, name
    for stage in ("cpu-tensor", "cpu-bufferize", "cpu-checks", "cpu-loops", "cpu-llvm", *STAGES):
        assert f"| `{stage}` |" in page, stage
    for stage, step in (("cpu-tensor", "MLIR passes `ELEMENTWISE_FUSION_PIPELINE`"), ("cpu-loops", "MLIR passes `LOOP_PIPELINE`"),
                        ("cpu-llvm", "MLIR passes `CPU_LLVM_PIPELINE`"), ("bufferize", "MLIR passes `BUFFER_PIPELINE`"),
                        ("outline", "MLIR passes `OUTLINING_PIPELINE`"), ("nvvm", "MLIR passes `nvvm_pipeline(")):  # fmt: skip
        assert f"| `{stage}` | {step}" in page, (stage, step)
    for constant in ("BUFFER_PIPELINE", "LOOP_PIPELINE", "CPU_LLVM_PIPELINE", "ELEMENTWISE_FUSION_PIPELINE",
                     "OUTLINING_PIPELINE", "NVVM_PIPELINE"):  # fmt: skip
        assert f"#### `{constant}` (" in page, constant
    rules = registry._all_rules()
    assert len(rules) > 150
    for name in rules:
        assert f"`{name}`" in page, name
    assert "#### `autodiff.mul` (`x`, `y`)\n\n- gradient of `x`: `sum_to_size(grad * y, x)`" in page
    assert "- the backward saves inputs `x`, `y`, results none" in page


def test_an_op_check_without_a_docstring_is_an_error(monkeypatch):
    monkeypatch.setattr(forward_ops.UnaryElementwiseOp.verify_, "__doc__", None)
    with pytest.raises(SystemExit, match=r"autodiff.neg: UnaryElementwiseOp.verify_ has no docstring"):
        reference.ops_chapter()


@irdl_op_definition
class _UndocumentedCheckOp(IRDLOperation):
    """An op whose `verify_` says nothing."""

    name = "test.undocumented_check"
    x = operand_def()
    assembly_format = "$x attr-dict `:` type($x)"

    def verify_(self) -> None:
        pass


@irdl_op_definition
class _SelfParsingOp(IRDLOperation):
    """An op with its own parser and no example of its form."""

    name = "test.self_parsing"


def test_every_op_shows_its_checks_and_form():
    with pytest.raises(SystemExit, match="_UndocumentedCheckOp.verify_ has no docstring"):
        reference.op_entry(_UndocumentedCheckOp)
    with pytest.raises(SystemExit, match="test.self_parsing parses and prints itself, but its docstring shows no example"):
        reference.op_entry(_SelfParsingOp)


def test_a_new_pass_makes_the_page_stale(monkeypatch, page):
    entry = pass_table.PassEntry("autodiff-pretend", "gradir.autodiff_pass.forward", "AutodiffForwardPass", "pretend")
    monkeypatch.setattr(pass_table, "PASSES", (*pass_table.PASSES, entry))
    changed = reference.page()
    assert "### `autodiff-pretend`" in changed and changed != page


def test_a_rule_from_nowhere_is_an_error(monkeypatch):
    monkeypatch.setitem(registry._all_rules(), "test.pretend", DerivativeRule("test.pretend"))
    with pytest.raises(SystemExit, match="rules neither in derivatives.yaml nor in a built-in module: test.pretend"):
        reference.rules_chapter()
