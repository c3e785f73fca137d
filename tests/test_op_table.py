"""README's op-status table (scripts/op_table.py) is generated from the rule registry
and MLIR 22's op lists: regenerating it must give README's copy, every op of the
four dialects appears once, and a stale hand-written entry is an error."""
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "op_table.py"

spec = importlib.util.spec_from_file_location("op_table", SCRIPT)
op_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(op_table)


def test_readme_has_the_generated_table():
    assert op_table.readme_copy((ROOT / "README.md").read_text()) == op_table.table(), (
        "README.md's op table is out of date: run python scripts/op_table.py --write"
    )


def test_every_op_of_the_four_dialects_is_listed_once():
    table = op_table.table()
    ops = op_table.mlir_ops()
    assert {dialect: len(names) for dialect, names in ops.items()} == {
        "linalg": 99, "tensor": 21, "math": 46, "arith": 51,
    }  # MLIR 22.1's op counts
    for dialect, names in ops.items():
        rows = [line for line in table.splitlines() if line.startswith(f"| {dialect} |")]
        listed = [op.strip("`") for row in rows for op in row.rsplit("|", 2)[1].split()]
        assert sorted(listed) == sorted(name.split(".", 1)[1] for name in names), dialect


def test_statuses_follow_the_registry():
    statuses = op_table.statuses()
    assert statuses["math.atan2"] == ("both modes", "derivatives.yaml")
    assert statuses["tensor.gather"] == ("both modes", "rules/tensor_gather.py")
    assert statuses["arith.cmpi"][0] == statuses["tensor.dim"][0] == "inactive"
    assert statuses["arith.bitcast"][0] == "unsupported"


def test_a_stale_entry_is_an_error(monkeypatch):
    monkeypatch.setitem(op_table.INACTIVE, "math.exp", "pretend")
    with pytest.raises(SystemExit, match="math.exp has no rule, but it has one"):
        op_table.statuses()
    monkeypatch.delitem(op_table.INACTIVE, "math.exp")
    monkeypatch.setitem(op_table.UNSUPPORTED, "math.frobnicate", "typo")
    with pytest.raises(SystemExit, match="MLIR 22 does not have: math.frobnicate"):
        op_table.statuses()
