"""gradir's `cse` and `dce` (and the dead-code sweep reverse mode uses) give
xDSL's results, on random reverse-mode output and on every example and lit input."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pass_support import VALID_INPUTS, chunks, fresh_context, input_id, raw_reverse
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from gradir.autodiff_pass.cse import scoped_cse
from gradir.autodiff_pass.ir_building import erase_dead_code
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.source import parse_module


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_scoped_cse_is_xdsl_cse(seed: int, size: int):
    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    cse(expected)
    scoped_cse(actual)
    assert str(actual) == str(expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_one_sweep_dead_code_removal_is_region_dce(seed: int, size: int):
    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    region_dce(expected.body)
    for op in actual.ops:
        erase_dead_code(op.body.block)
    assert str(actual) == str(expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_gradir_dce_is_xdsl_dce(seed: int, size: int):
    """gradir's `dce` (effect queries cached) removes exactly what xDSL's does."""
    from gradir.autodiff_pass.dce import region_dce as gradir_region_dce

    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    region_dce(expected.body)
    gradir_region_dce(actual.body)
    assert str(actual) == str(expected)


@pytest.mark.parametrize("path", VALID_INPUTS, ids=input_id)
def test_gradir_cse_and_dce_match_xdsl_on_every_input(path):
    """Same output as xDSL 0.74's own `cse` and `dce` on each example and lit
    input, except that gradir's `dce` also erases unused linalg ops on tensors
    (the reference erases them between rounds of xDSL's `dce`)."""
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination
    from gradir.autodiff_pass.effects import is_tensor_linalg_op
    from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination

    ctx = fresh_context()
    for chunk in chunks(path):
        expected = parse_module(ctx, chunk)
        actual = parse_module(ctx, chunk)  # not a clone: xDSL's drops block names (^a -> ^bb1)
        CommonSubexpressionElimination().apply(ctx, expected)
        while True:
            DeadCodeElimination().apply(ctx, expected)
            unused_linalg = [
                op for op in expected.walk()
                if is_tensor_linalg_op(op) and all(not result.uses for result in op.results)
            ]  # fmt: skip
            if not unused_linalg:
                break
            for op in unused_linalg:
                op.detach()
                op.erase()
        for module_pass in (ScopedCommonSubexpressionElimination(), GradirDeadCodeElimination()):
            module_pass.apply(ctx, actual)
        assert str(actual) == str(expected)


def test_autodiff_opt_runs_gradirs_cse_and_dce():
    from gradir.pass_table import PASSES_BY_NAME

    assert PASSES_BY_NAME["dce"].replaces_xdsl and PASSES_BY_NAME["dce"].module == "gradir.autodiff_pass.dce"
    passes = AutodiffOptMain(args=[]).available_passes
    assert passes["dce"]().__module__ == "gradir.autodiff_pass.dce"


IMPURE_AND_DEAD = """
func.func private @g() -> f32
func.func @f(%m: memref<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %i = arith.constant 0 : index
  %unused_call = func.call @g() : () -> f32
  memref.store %unused_call, %m[%i] : memref<4xf32>
  %unused_load = memref.load %m[%i] : memref<4xf32>
  %unused_exp = autodiff.exp %x : tensor<4xf32>
  %r = scf.for %k = %i to %i step %i iter_args(%acc = %x) -> (tensor<4xf32>) {
    %dead_inside = autodiff.neg %acc : tensor<4xf32>
    scf.yield %acc : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"""


def test_gradir_dce_keeps_effects_and_removes_pure_dead_ops(ctx):
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination

    expected, actual = parse_module(ctx, IMPURE_AND_DEAD), parse_module(ctx, IMPURE_AND_DEAD)
    DeadCodeElimination().apply(ctx, expected)
    GradirDeadCodeElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert "func.call @g()" in text and "memref.store" in text
    assert "unused_load" not in text and "unused_exp" not in text and "dead_inside" not in text


UNSTRUCTURED = """
func.func @f(%x: f32, %n: i1) -> f32 {
  %e = arith.addf %x, %x : f32
  %read_later = arith.negf %x : f32
  cf.br ^bb1(%e : f32)
^bb1(%v: f32):
  %w = arith.mulf %v, %v : f32
  %unused = arith.negf %x : f32
  cf.cond_br %n, ^bb1(%w : f32), ^bb2
^bb2:
  %unused_reader = arith.negf %read_later : f32
  %r = scf.execute_region -> (f32) {
    %dead_inside = arith.negf %x : f32
    cf.br ^bb3
  ^bb3:
    scf.yield %x : f32
  }
  func.return %r : f32
}
"""


def test_gradir_dce_on_multi_block_regions_is_xdsl_dce(ctx):
    """Unstructured code: the sweep, then xDSL's fixpoint, gives xDSL's result
    (a block's backward sweep cannot see that `%read_later` is dead)."""
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination

    expected, actual = parse_module(ctx, UNSTRUCTURED), parse_module(ctx, UNSTRUCTURED)
    DeadCodeElimination().apply(ctx, expected)
    GradirDeadCodeElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert "unused" not in text and "read_later" not in text and "dead_inside" not in text
    assert "cf.cond_br" in text


LOADS_AND_STORES = """
func.func @f(%m: memref<4xf32>, %x: tensor<4xf32>) -> (f32, f32, f32, tensor<4xf32>, tensor<4xf32>) {
  %i = arith.constant 0 : index
  %a = memref.load %m[%i] : memref<4xf32>
  %b = memref.load %m[%i] : memref<4xf32>
  memref.store %a, %m[%i] : memref<4xf32>
  %c = memref.load %m[%i] : memref<4xf32>
  %e1 = autodiff.exp %x : tensor<4xf32>
  %e2 = autodiff.exp %x : tensor<4xf32>
  return %a, %b, %c, %e1, %e2 : f32, f32, f32, tensor<4xf32>, tensor<4xf32>
}
"""


def test_gradir_cse_merges_pure_ops_and_respects_writes(ctx):
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

    from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination

    expected, actual = parse_module(ctx, LOADS_AND_STORES), parse_module(ctx, LOADS_AND_STORES)
    CommonSubexpressionElimination().apply(ctx, expected)
    ScopedCommonSubexpressionElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert text.count("memref.load") == 2 and text.count("autodiff.exp") == 1
