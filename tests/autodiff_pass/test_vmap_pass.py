"""The batching rule table (batching.yaml: validation, coverage, registration of custom
rules) and the argument checks of gradir.vmap / jacobian / hessian (raised before anything
compiles, as `ArgumentError`s)."""
from __future__ import annotations

import numpy as np
import pytest
from pass_support import fresh_context, run_passes

import gradir
from gradir.autodiff_pass.derivative_functions import display_name
from gradir.autodiff_pass.rules import batching
from gradir.dialects.autodiff import FORWARD_OPS
from gradir.errors import ArgumentError, RuleError
from gradir.source import parse_module


def write(tmp_path, text):
    path = tmp_path / "batching.yaml"
    path.write_text(text)
    return path


def test_every_forward_op_has_a_batching_rule():
    rules = batching.load_batching_rules()
    assert {op.name for op in FORWARD_OPS} <= set(rules)
    assert rules["autodiff.matmul"] is batching.batch_matmul
    assert rules["linalg.generic"] is batching.batch_generic


def test_every_linalg_op_with_a_derivative_rule_has_a_batching_rule():
    """linalg_op_names() is every linalg op the derivative registry knows; all batch."""
    from gradir.autodiff_pass.rules import batching_linalg

    rules = batching.load_batching_rules()
    names = batching_linalg.linalg_op_names()
    assert {"linalg.matmul", "linalg.conv_2d_nhwc_hwcf", "linalg.pooling_nchw_max", "linalg.dot"} <= names
    assert names <= set(rules)
    assert rules["linalg.matmul"].__qualname__ == "batch_linalg_matmul"
    assert rules["linalg.conv_2d_nchw_fchw_q"].__qualname__ == "batch_linalg_window"
    assert rules["linalg.vecmat"].__qualname__ == "structured_generic"


@pytest.mark.parametrize(
    "text, message",
    [
        ("- rule: elementwise\n  ops: [neg]\n- rule: frobnicate\n  ops: [exp]\n",
         r"batching.yaml:3:9: error: unknown batching rule 'frobnicate'"),
        ("- rule: elementwise\n  ops: [neg, nope.op]\n", r":2:14: error: unknown op 'nope.op'"),
        ("- rule: elementwise\n  ops: [neg, neg]\n", r":2:14: error: 'autodiff.neg' is listed twice"),
        ("- rule: elementwise\n  ops: [neg]\n  extra: 1\n", r":1:3: error: an entry has exactly the keys"),
        ("- rule: elementwise\n  ops: [neg]\n", r"error: forward ops without a batching rule: autodiff.abs"),
        ("- rule: [\n", r"error: malformed YAML"),
    ],
)
def test_a_bad_batching_file_is_a_located_rule_error(tmp_path, text, message):
    with pytest.raises(RuleError, match=message):
        batching.load_batching_rules(write(tmp_path, text))


CUSTOM = """
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = "testd.double"(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %y : tensor<4xf64>
}
func.func @main(%xs: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 1>, out_axes = array<i64: 1>, size = 3 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}
"""


@pytest.fixture
def isolated_batching_rules(monkeypatch):
    monkeypatch.setattr(batching, "_rules", dict(batching._all_rules()))


def test_register_batching_rule_for_a_custom_op(isolated_batching_rules):
    ctx = fresh_context()
    ctx.allow_unregistered = True
    with pytest.raises(gradir.DifferentiationError, match="vmap of 'testd.double' is not supported"):
        run_passes(ctx, parse_module(ctx, CUSTOM), "autodiff-vmap")
    seen = []

    def double_rule(builder, op, operands, batched):
        seen.append((builder.size, list(batched)))
        copy = type(op).create(
            operands=operands, result_types=[builder.batched_type(op.results[0].type)]
        )
        return [(builder.insert(copy).results[0], True)]

    gradir.register_batching_rule("testd.double", double_rule)
    module = run_passes(ctx, parse_module(ctx, CUSTOM), "autodiff-vmap")
    assert seen == [(3, [True])]
    doubled = [op for op in module.walk() if display_name(op) == "testd.double"]
    assert [op.results[0].type.get_shape() for op in doubled] == [(4,), (3, 4)]


@pytest.mark.parametrize("name, rule", [("nodot", lambda *a: a), ("testd.op", 3)])
def test_register_batching_rule_checks_its_arguments(isolated_batching_rules, name, rule):
    with pytest.raises(RuleError, match="register_batching_rule"):
        gradir.register_batching_rule(name, rule)


SOURCE = """
func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>, %n: vector<2xi32>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @loss(%w: tensor<3x4xf64>) -> tensor<f64> {
  %s = autodiff.sum %w : tensor<3x4xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: gradir.vmap(SOURCE, "g"), "no function @g"),
        (lambda: gradir.vmap(SOURCE, "f", in_axes=(0, 0)), "in_axes has 2 entries, the function has 3"),
        (lambda: gradir.vmap(SOURCE, "f", in_axes=(None, None, None)), "in_axes batches no argument"),
        (lambda: gradir.vmap(SOURCE, "f", in_axes=(None, 0, 0)), r"in_axes\[2\] batches argument 2 of type vector<2xi32>"),
        (lambda: gradir.vmap(SOURCE, "f", in_axes="0"), "in_axes must be an int, None or a tuple"),
        (lambda: gradir.vmap(SOURCE, "f", in_axes=(None, 1.5, None)), "in_axes entry must be an integer"),
        (lambda: gradir.jacobian(SOURCE, "f", wrt=[2]), "wrt index 2 does not name a float-tensor or float-scalar argument"),
        (lambda: gradir.jacobian(SOURCE, "f", wrt=[0, 0]), "repeat"),
        (lambda: gradir.jacobian(SOURCE, "f", mode="backward"), "mode: unknown 'backward'"),
        (lambda: gradir.hessian(SOURCE, "f", wrt=[0]), "must return one 0-d float tensor"),
    ],
)
def test_bad_arguments_are_argument_errors(make, message):
    with pytest.raises(ArgumentError, match=message):
        make()


@pytest.mark.parametrize(
    "arrays, message",
    [
        ((np.zeros((3, 4)), np.zeros((5, 2, 3)), np.int32(1), 1), "takes 3 arguments, got 4"),
        ((np.zeros((3, 4)), np.zeros((2, 3)), np.int32(1)), r"argument 1 has shape \(2, 3\), expected tensor<2x3xf64> with a batch dimension"),
        ((np.zeros((3, 4)), np.zeros((2, 3, 5, 1)), np.int32(1)), r"argument 1 has shape \(2, 3, 5, 1\)"),
    ],
)
def test_bad_batches_are_argument_errors(arrays, message):
    mapped = gradir.vmap(SOURCE, "f", in_axes=(None, -1, None))
    with pytest.raises(ArgumentError, match=message):
        mapped(*arrays)


def test_batch_sizes_must_agree():
    mapped = gradir.vmap(SOURCE, "f", in_axes=(0, 0, None))
    with pytest.raises(ArgumentError, match="argument 1 has batch size 4 at axis 0, the earlier batched arguments 5"):
        mapped(np.zeros((5, 3, 4)), np.zeros((4, 2, 3)), np.int32(1))


DEFAULT_MODE = """
func.func @widen(%x: tensor<2xf64>) -> tensor<3x2xf64> {
  %b = autodiff.broadcast_to %x : tensor<2xf64> -> tensor<3x2xf64>
  return %b : tensor<3x2xf64>
}
func.func @narrow(%x: tensor<3x2xf64>) -> tensor<2xf64> {
  %s = autodiff.sum %x {dims = array<i64: 0>} : tensor<3x2xf64> -> tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func @main(%x: tensor<2xf64>, %y: tensor<3x2xf64>) -> (tensor<3x2x2xf64>, tensor<2x3x2xf64>) {
  %jw = autodiff.jacobian @widen(%x) : (tensor<2xf64>) -> tensor<3x2x2xf64>
  %jn = autodiff.jacobian @narrow(%y) : (tensor<3x2xf64>) -> tensor<2x3x2xf64>
  return %jw, %jn : tensor<3x2x2xf64>, tensor<2x3x2xf64>
}
"""


def test_default_jacobian_mode_uses_the_smaller_basis():
    """Without `mode`: forward (one jvp per input element) when the inputs have fewer
    elements than the results, reverse (one vjp per output element) otherwise."""
    ctx = fresh_context()
    module = run_passes(ctx, parse_module(ctx, DEFAULT_MODE), "autodiff-jacobian")
    names = [op.sym_name.data for op in module.ops]
    assert "widen_jacobian_fwd_0" in names and "narrow_jacobian_rev_0" in names
    assert not any(n.startswith(("widen_jacobian_rev", "narrow_jacobian_fwd")) for n in names)


BATCHED_VJP = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = autodiff.exp %x : tensor<3xf64>
  return %e : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>, %cts: tensor<4x3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>) {
  %r:2 = autodiff.vjp @f(%x, %cts) {is_grads_batched} : (tensor<3xf64>, tensor<4x3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<4x3xf64>
}
"""


def test_batched_cotangents_are_lowered_by_autodiff_vmap_only():
    """`autodiff-reverse` alone refuses a vjp with is_grads_batched (it would take the
    batch for a cotangent); after `autodiff-vmap` it is a call and a vmapped vjp."""
    ctx = fresh_context()
    with pytest.raises(gradir.DifferentiationError, match="is_grads_batched is lowered by autodiff-vmap"):
        run_passes(ctx, parse_module(ctx, BATCHED_VJP), "autodiff-reverse")
    module = run_passes(ctx, parse_module(ctx, BATCHED_VJP), "autodiff-vmap,autodiff-reverse")
    names = [op.sym_name.data for op in module.ops]
    assert "f_vjp_0_gradients_vmap_n_0_to_0_x4" in names
    assert not [op for op in module.walk() if op.name in ("autodiff.vjp", "autodiff.vmap")]


def _raising_rule(builder, op, operands, batched):
    raise ValueError("my bug")


@pytest.mark.parametrize(
    "rule, message",
    [
        (_raising_rule, r"<input>:3:3: error: the batching rule of 'testd.double' \(_raising_rule\) raised ValueError: my bug"),
        (lambda builder, op, operands, batched: operands, r"returned \[.*expected a list of one \(SSA value, is_batched\) pair per result \(1\)"),
        (lambda builder, op, operands, batched: [], r"returned \[\], expected a list of one"),
    ],
)
def test_a_batching_rule_that_fails_is_a_located_rule_error(isolated_batching_rules, rule, message):
    ctx = fresh_context()
    ctx.allow_unregistered = True
    gradir.register_batching_rule("testd.double", rule)
    with pytest.raises(RuleError, match=message):
        run_passes(ctx, parse_module(ctx, CUSTOM), "autodiff-vmap")


def test_a_bad_array_for_a_compiled_hessian_names_the_hessian():
    hessian = gradir.hessian(SOURCE, "loss")
    with pytest.raises(ArgumentError, match=r"^error: hessian of @loss: argument 0 has shape \(3,\), expected \(3, 4\)$"):
        hessian(np.zeros(3))
