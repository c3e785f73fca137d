"""`check_dominance`: what a pass must never produce (xDSL does not check it),
reported at the op that reads the value."""
import pytest

from gradir.errors import SourceError
from gradir.source import make_context, parse_module
from gradir.verify import check_dominance

BRANCH_THEN_LOOP = """\
func.func @f(%x: tensor<3xf64>, %c: i1) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = scf.if %c -> (tensor<3xf64>) {
    %e = autodiff.exp %x : tensor<3xf64>
    scf.yield %e : tensor<3xf64>
  } else {
    scf.yield %x : tensor<3xf64>
  }
  %z = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %y) -> (tensor<3xf64>) {
    %a = autodiff.add %acc, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  }
  %n = autodiff.neg %z : tensor<3xf64>
  return %n : tensor<3xf64>
}
"""


def parse(text):
    return parse_module(make_context(), text, "f.mlir")


def ops_named(module, name):
    return [op for op in module.walk() if op.name == name]


def test_valid_nesting_passes():
    check_dominance(parse(BRANCH_THEN_LOOP))


def test_value_defined_after_the_loop_that_reads_it():
    module = parse(BRANCH_THEN_LOOP)
    (add,) = ops_named(module, "autodiff.add")
    (neg,) = ops_named(module, "autodiff.neg")
    add.operands = [add.operands[0], neg.result]  # the loop body reads a later value
    with pytest.raises(SourceError, match=r"^f.mlir:12:5: error: 'autodiff.add' op operand "
                       r"%n is used before it is defined$"):  # fmt: skip
        check_dominance(module)


def test_value_read_outside_the_region_that_defines_it():
    module = parse(BRANCH_THEN_LOOP)
    (exp,) = ops_named(module, "autodiff.exp")
    (neg,) = ops_named(module, "autodiff.neg")
    neg.operands = [exp.result]  # %e escapes the branch
    with pytest.raises(SourceError, match=r"^f.mlir:15:3: error: 'autodiff.neg' op operand "
                       r"%e is used outside the region that defines it$"):  # fmt: skip
        check_dominance(module)


def test_value_of_a_sibling_region():
    module = parse(BRANCH_THEN_LOOP)
    (exp,) = ops_named(module, "autodiff.exp")
    (add,) = ops_named(module, "autodiff.add")
    add.operands = [add.operands[0], exp.result]  # the loop reads the branch's value
    with pytest.raises(SourceError, match="'autodiff.add' op operand %e is used outside the region"):
        check_dominance(module)


def test_blocks_of_one_region_see_the_entry_blocks_values():
    """A function that branches between blocks reads its arguments and the entry block's
    values in every block (the check once forgot them after the entry block)."""
    module = parse("""\
func.func @f(%x: f64, %c: i1) -> f64 {
  %two = arith.constant 2.0 : f64
  cf.cond_br %c, ^a, ^b(%x : f64)
^a:
  %s = math.sin %x : f64
  cf.br ^b(%s : f64)
^b(%r: f64):
  %t = arith.mulf %r, %two : f64
  return %t : f64
}
""")
    check_dominance(module)
    (mulf,) = ops_named(module, "arith.mulf")
    (sin,) = ops_named(module, "math.sin")
    (inner,) = ops_named(parse(BRANCH_THEN_LOOP), "autodiff.exp")
    mulf.operands = [sin.result, inner.result]  # a value of another function: still refused
    with pytest.raises(SourceError, match="'arith.mulf' op operand %e is used outside the region"):
        check_dominance(module)
