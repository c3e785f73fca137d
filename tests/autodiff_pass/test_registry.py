"""The derivative-rule registry: loading and validating derivatives.yaml, the
saved-value analysis, the IR every rule emits (verified, and evaluated with a
small NumPy interpreter against finite differences), and Python registration
for ops of other dialects."""

from __future__ import annotations

import importlib
import pathlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerType,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.rewriter import InsertPoint

import gradir
from gradir.autodiff_pass import rules
from gradir.autodiff_pass.rules import WalkRule, registry, yaml_loader
from gradir.dialects import autodiff as ad
from gradir.errors import DifferentiationError, RuleError

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
I1 = IntegerType(1)

# ----------------------------------------------------------------------------
# Loading and validation
# ----------------------------------------------------------------------------


def test_rule_file_covers_every_forward_op_and_the_standard_ops():
    rules = yaml_loader.load_rules()
    autodiff_rules = {name for name in rules if name.startswith("autodiff.")}
    assert autodiff_rules == {op_class.name for op_class in ad.FORWARD_OPS}
    assert set(rules) - autodiff_rules == {op_class.name for op_class in yaml_loader.STANDARD_OPS}
    assert all(rule.reverse is not None and rule.forward is not None for rule in rules.values())


def test_builtin_python_rules_are_loaded():
    for name in ("linalg.generic", "linalg.matmul", "linalg.reduce", "tensor.extract_slice"):
        rule = registry.get_rule(name)
        assert rule is not None and rule.reverse is not None and rule.forward is not None


@pytest.mark.parametrize("name", ["scf.for", "scf.if", "func.call", "autodiff.autograd_add"])
def test_control_flow_calls_and_sums_are_walk_rules_of_the_same_table(name):
    rule = registry.get_rule(name)
    assert isinstance(rule, WalkRule) and rule.op_name == name


def test_every_rule_module_is_a_builtin_rule_module():
    """A module of rules/ that defines RULES is loaded, and every listed one defines them."""
    package = pathlib.Path(rules.__file__).parent
    with_rules = set()
    for path in package.glob("*.py"):
        module = importlib.import_module(f"gradir.autodiff_pass.rules.{path.stem}")
        if hasattr(module, "RULES"):
            with_rules.add(module.__name__)
    assert with_rules == set(registry.BUILTIN_RULE_MODULES)


def test_a_missing_builtin_rule_module_is_an_error(monkeypatch):
    """The table is never silently smaller: loading fails, naming the module."""
    absent = "gradir.autodiff_pass.rules.absent"
    monkeypatch.setattr(registry, "_rules", None)
    monkeypatch.setattr(registry, "BUILTIN_RULE_MODULES", (*registry.BUILTIN_RULE_MODULES, absent))
    with pytest.raises(RuleError, match=f"the built-in rule module {absent} is missing"):
        registry.get_rule("autodiff.mul")


INVALID = sorted((FIXTURES / "invalid").glob("*.yaml"))


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_rule_file_is_reported_at_its_line(path: pathlib.Path):
    """Each fixture's first line says `# expect LINE: MESSAGE`."""
    expectation = re.match(r"# expect (\d+): (.*)", path.read_text().splitlines()[0])
    assert expectation, f"{path.name} lacks its '# expect' line"
    line, message = int(expectation.group(1)), expectation.group(2)
    with pytest.raises(RuleError) as caught:
        yaml_loader.load_rules(path)
    error = caught.value
    assert message in error.message
    assert error.location is not None and error.location.startswith(f"{path}:{line}:")
    assert "\n" not in str(error)


def test_missing_rule_file_is_a_rule_error(tmp_path):
    with pytest.raises(RuleError, match="cannot read derivative rules"):
        yaml_loader.load_rules(tmp_path / "absent.yaml")


def test_custom_rule_file_with_let_and_indexed_names():
    rules = yaml_loader.load_rules(FIXTURES / "custom_rules.yaml")
    assert set(rules) == {"autodiff.tanh", "autodiff.select"}
    tanh = rules["autodiff.tanh"]
    assert tanh.saved_outputs == {0} and tanh.saved_inputs == frozenset()
    select = rules["autodiff.select"]
    assert select.differentiable_inputs == (1, 2)
    assert select.input_names == ("cond", "a", "b")


def test_rules_load_once_at_first_lookup(monkeypatch):
    loads = []

    def counting_load(path):
        loads.append(path)
        return {}

    monkeypatch.setattr(registry, "_rules", None)
    monkeypatch.setattr(registry, "load_rules", counting_load)
    assert registry.get_rule("autodiff.exp") is None
    assert registry.get_rule("autodiff.mul") is None
    assert loads == [registry.RULE_FILE]


@pytest.mark.parametrize(
    "op_name, saved_inputs, saved_outputs",
    [
        ("autodiff.mul", {0, 1}, set()),
        ("autodiff.exp", set(), {0}),
        ("autodiff.add", set(), set()),  # x and y are read only for their shapes
        ("autodiff.sub", set(), set()),
        ("autodiff.div", {1}, {0}),
        ("autodiff.relu", set(), {0}),
        ("autodiff.log", {0}, set()),
        ("autodiff.matmul", {0, 1}, set()),
        ("autodiff.sum", set(), set()),
        ("autodiff.mean", set(), set()),
        ("autodiff.max", {0}, {0}),
        ("autodiff.softmax", set(), {0}),
        ("autodiff.select", {0}, set()),
        ("autodiff.reshape", set(), set()),
    ],
)
def test_saved_values(op_name, saved_inputs, saved_outputs):
    rule = registry.get_rule(op_name)
    assert rule is not None
    assert rule.saved_inputs == saved_inputs
    assert rule.saved_outputs == saved_outputs


def test_non_differentiable_input():
    rule = registry.get_rule("autodiff.select")
    assert rule is not None and rule.differentiable_inputs == (1, 2)
    assert not rule.differentiates(0)


# ----------------------------------------------------------------------------
# A NumPy interpreter for the IR the rules emit
# ----------------------------------------------------------------------------

UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
    "abs": np.abs,
}  # fmt: skip
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum, "matmul": np.matmul,
}  # fmt: skip
COMPARISONS = {1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
               13: np.not_equal}  # fmt: skip


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def sum_to_size(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    x = x.sum(axis=tuple(range(x.ndim - len(shape))))
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and x.shape[i] != 1)
    return x.sum(axis=axes, keepdims=True)


def evaluate_op(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    name = op.name.removeprefix("autodiff.")
    if name in UNARY:
        return UNARY[name](args[0])
    if name in BINARY:
        return BINARY[name](*args)
    if isinstance(op, ad.ReductionOp):
        reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[name]
        return reduce(args[0], axis=op.reduced_dims(), keepdims=op.keeps_dims)
    if isinstance(op, ad.SoftmaxOp):
        e = np.exp(args[0] - args[0].max(axis=op.axis, keepdims=True))
        return e / e.sum(axis=op.axis, keepdims=True)
    if isinstance(op, ad.LogSoftmaxOp):
        shifted = args[0] - args[0].max(axis=op.axis, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=op.axis, keepdims=True))
    if isinstance(op, ad.TransposeOp):
        return np.transpose(args[0], op.permutation.get_values())
    if isinstance(op, ad.ReshapeOp):
        return args[0].reshape(_shape(op.result))
    if isinstance(op, ad.BroadcastToOp):
        return np.broadcast_to(args[0], _shape(op.result))
    if isinstance(op, ad.SumToSizeOp):
        return sum_to_size(args[0], _shape(op.result))
    if isinstance(op, ad.SelectOp):
        return np.where(*args)
    if isinstance(op, arith.ConstantOp):
        assert isinstance(op.value, DenseIntOrFPElementsAttr) and op.value.is_splat()
        return np.full(_shape(op.result), op.value.get_values()[0])
    if isinstance(op, tensor.EmptyOp):
        return np.zeros(_shape(op.tensor), dtype=bool)
    if isinstance(op, GenericOp):  # the rules' masks: one arith.cmpf
        comparison = next(o for o in op.body.block.ops if isinstance(o, arith.CmpfOp))
        return COMPARISONS[comparison.predicate.value.data](args[0], args[1])
    if op.name == "testd.cube":
        return args[0] ** 3
    raise NotImplementedError(op.name)


def evaluate(function: FuncOp, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    block = function.body.block
    values = dict(zip(block.args, args, strict=True))
    for op in block.ops:
        if isinstance(op, ReturnOp):
            return [values[v] for v in op.arguments]
        values[op.results[0]] = evaluate_op(op, [values[v] for v in op.operands])
    raise AssertionError("no return")


# ----------------------------------------------------------------------------
# Emitting every rule
# ----------------------------------------------------------------------------


@dataclass
class Case:
    """One forward op applied to fresh arguments; `domains` says what values
    each argument takes in numerical checks."""

    id: str
    make: Callable[..., Operation]
    shapes: list[tuple[int, ...]]
    domains: list[str]

    def __repr__(self) -> str:
        return self.id


def unary(name: str, domain: str = "any") -> Case:
    op_class = getattr(ad, name)
    return Case(name, lambda x: op_class(x), [(3, 4)], [domain])


def binary(name: str, x: tuple, y: tuple, domains=("any", "any")) -> Case:
    op_class = getattr(ad, name)
    shapes = f"{'x'.join(map(str, x))}_{'x'.join(map(str, y))}"
    return Case(f"{name}_{shapes}", lambda a, b: op_class(a, b), [x, y], list(domains))


def shape_op(id: str, make, shape: tuple, domain: str = "any") -> Case:
    return Case(id, make, [shape], [domain])


def _typed(shape: Sequence[int], reference: SSAValue) -> TensorType:
    assert isinstance(reference.type, TensorType)
    return TensorType(reference.type.element_type, shape)


CASES = [
    *(unary(n) for n in ["NegOp", "ExpOp", "SinOp", "CosOp", "TanhOp", "SigmoidOp", "ReluOp", "AbsOp"]),
    *(unary(n, "positive") for n in ["LogOp", "SqrtOp", "RsqrtOp"]),
    *(binary(n, (3, 4), (4,)) for n in ["AddOp", "SubOp", "MulOp", "MaximumOp", "MinimumOp"]),
    *(binary(n, (2, 1, 4), (3, 1)) for n in ["AddOp", "MulOp", "MaximumOp"]),
    binary("AddOp", (3, 4), (3, 4)),
    binary("DivOp", (3, 4), (3, 1), ("any", "nonzero")),
    binary("DivOp", (4,), (3, 4), ("any", "nonzero")),
    binary("PowOp", (3, 4), (4,), ("positive", "any")),
    binary("PowOp", (4,), (3, 4), ("positive", "any")),
    binary("MatmulOp", (3, 4), (4, 5)),
    binary("MatmulOp", (2, 3, 4), (2, 4, 5)),
    shape_op("transpose", lambda x: ad.TransposeOp(x, [2, 0, 1]), (2, 3, 4)),
    shape_op("reshape", lambda x: ad.ReshapeOp(x, _typed((2, 6), x)), (3, 4)),
    shape_op("broadcast_to", lambda x: ad.BroadcastToOp(x, _typed((2, 3, 4), x)), (3, 1)),
    shape_op("sum_to_size", lambda x: ad.SumToSizeOp(x, _typed((3, 1), x)), (2, 3, 4)),
    shape_op("sum_dim1", lambda x: ad.SumOp(x, [1]), (3, 4)),
    shape_op("sum_all", lambda x: ad.SumOp(x), (3, 4)),
    shape_op("sum_keepdim", lambda x: ad.SumOp(x, [0, 2], keepdim=True), (2, 3, 4)),
    shape_op("mean_dims", lambda x: ad.MeanOp(x, [0, 2]), (2, 3, 4)),
    shape_op("mean_all_keepdim", lambda x: ad.MeanOp(x, keepdim=True), (3, 4)),
    shape_op("max_dim1", lambda x: ad.MaxOp(x, [1]), (3, 4)),
    shape_op("max_all", lambda x: ad.MaxOp(x), (3, 4)),
    shape_op("max_keepdim", lambda x: ad.MaxOp(x, [0], keepdim=True), (3, 4)),
    shape_op("softmax", lambda x: ad.SoftmaxOp(x, 1), (3, 4)),
    shape_op("softmax_dim0", lambda x: ad.SoftmaxOp(x, 0), (3, 4)),
    shape_op("log_softmax", lambda x: ad.LogSoftmaxOp(x, 1), (3, 4)),
    Case("select", lambda c, a, b: ad.SelectOp(c, a, b), [(3, 1), (3, 4), (4,)],
         ["mask", "any", "any"]),
]  # fmt: skip


def _argument_types(case: Case, element: Attribute) -> list[TensorType]:
    return [TensorType(I1 if domain == "mask" else element, shape) for shape, domain in zip(case.shapes, case.domains)]


def _finish(block: Block, outputs: Sequence[SSAValue]) -> FuncOp:
    """Return `outputs` from `block`, wrap it in a function and verify it."""
    block.add_op(ReturnOp(*outputs))
    function_type = FunctionType.from_lists([arg.type for arg in block.args], [value.type for value in outputs])
    function = FuncOp("f", function_type, Region(block))
    ModuleOp([function]).verify()
    return function


def vjp_function(case: Case, element: Attribute = f64) -> tuple[FuncOp, list[int]]:
    """`f(inputs..., output_grads...) -> (result, input grads...)`; also the
    indices of the inputs that got gradients."""
    block = Block(arg_types=_argument_types(case, element))
    op = case.make(*block.args)
    block.add_op(op)
    output_grads = [block.insert_arg(r.type, len(block.args)) for r in op.results]
    rule = registry.get_rule(op.name)
    assert rule is not None
    grads = rule.emit_vjp(Builder(InsertPoint.at_end(block)), op, output_grads)
    differentiated = [i for i, grad in enumerate(grads) if grad is not None]
    return _finish(block, [op.results[0], *(g for g in grads if g is not None)]), differentiated


def jvp_function(case: Case, active: Sequence[int], element: Attribute = f64) -> FuncOp:
    """`f(inputs..., tangents of the active inputs...) -> (result, tangent)`."""
    block = Block(arg_types=_argument_types(case, element))
    op = case.make(*block.args)
    block.add_op(op)
    tangents: list[SSAValue | None] = [None] * len(op.operands)
    for index in active:
        tangents[index] = block.insert_arg(op.operands[index].type, len(block.args))
    rule = registry.get_rule(op.name)
    assert rule is not None
    (tangent,) = rule.emit_jvp(Builder(InsertPoint.at_end(block)), op, tangents)
    assert tangent is not None
    return _finish(block, [op.results[0], tangent])


@pytest.mark.parametrize("element", [f16, bf16, f32, f64], ids=str)
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_rules_emit_verifying_ir(case: Case, element: Attribute):
    vjp_function(case, element)
    differentiable = [i for i, d in enumerate(case.domains) if d != "mask"]
    jvp_function(case, differentiable, element)
    for index in differentiable:  # one active input: the other tangents are zero
        jvp_function(case, [index], element)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reverse_formulas_are_differentiable_again(case: Case):
    """Every op a reverse formula emits has a rule or is inactive (a mask or a
    constant), and those rules emit verifying IR in turn: grad of grad works."""
    function, _ = vjp_function(case)
    block = function.body.block
    return_op = block.last_op
    assert isinstance(return_op, ReturnOp)
    forward_op = block.first_op
    outputs = list(return_op.arguments)
    builder = Builder(InsertPoint.before(return_op))
    for op in list(block.ops)[1:-1]:
        if op.name.startswith("autodiff."):
            rule = registry.get_rule(op.name)
            assert rule is not None, f"{op.name} has no rule"
            output_grads = [block.insert_arg(r.type, len(block.args)) for r in op.results]
            outputs += [g for g in rule.emit_vjp(builder, op, output_grads) if g is not None]
        else:
            assert isinstance(op, (arith.ConstantOp, tensor.EmptyOp, GenericOp)), op.name
            assert all(r.type.element_type == I1 for r in op.results if op is not forward_op) or (
                isinstance(op, arith.ConstantOp)
            )
    return_op.detach()
    return_op.erase()
    function.body.detach_block(block)
    _finish(block, outputs)


def _sample(case: Case, rng: np.random.Generator) -> list[np.ndarray]:
    samples = []
    for shape, domain in zip(case.shapes, case.domains):
        if domain == "mask":
            samples.append(rng.random(shape) < 0.5)
        elif domain == "positive":
            samples.append(rng.uniform(0.5, 2.0, shape))
        elif domain == "nonzero":
            samples.append(rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape))
        else:
            samples.append(rng.uniform(-2.0, 2.0, shape))
    return samples


def _central_difference(case, inputs, directions, eps=1e-6) -> np.ndarray:
    forward, _ = vjp_function(case)
    cotangent_shapes = [np.zeros(_shape(v)) for v in forward.body.block.args[len(inputs) :]]

    def value_at(step: float) -> np.ndarray:
        moved = [x + step * d if d is not None else x for x, d in zip(inputs, directions)]
        return evaluate(forward, [*moved, *cotangent_shapes])[0]

    return (value_at(eps) - value_at(-eps)) / (2 * eps)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reverse_rule_matches_finite_differences(case: Case):
    """<vjp(g), v> == <g, (f(x + eps v) - f(x - eps v)) / 2 eps> for random g, v."""
    rng = np.random.default_rng(0)
    inputs = _sample(case, rng)
    function, differentiated = vjp_function(case)
    result_shape = _shape(function.body.block.args[-1])
    cotangent = rng.standard_normal(result_shape)
    result, *grads = evaluate(function, [*inputs, cotangent])
    directions = [rng.standard_normal(x.shape) if i in differentiated else None
                  for i, x in enumerate(inputs)]  # fmt: skip
    derivative = _central_difference(case, inputs, directions)
    lhs = sum(np.sum(g * directions[i]) for g, i in zip(grads, differentiated))
    np.testing.assert_allclose(lhs, np.sum(cotangent * derivative), rtol=1e-6, atol=1e-8)
    for grad, index in zip(grads, differentiated):
        assert grad.shape == inputs[index].shape


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_forward_rule_matches_finite_differences(case: Case):
    rng = np.random.default_rng(1)
    inputs = _sample(case, rng)
    differentiable = [i for i, d in enumerate(case.domains) if d != "mask"]
    for active in [differentiable, *([i] for i in differentiable)]:
        directions = [rng.standard_normal(x.shape) if i in active else None
                      for i, x in enumerate(inputs)]  # fmt: skip
        function = jvp_function(case, active)
        _, tangent = evaluate(function, [*inputs, *(directions[i] for i in active)])
        expected = _central_difference(case, inputs, directions)
        np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------------
# Conventions at kinks and ties (DESIGN.md section 3.1) and broadcasting
# ----------------------------------------------------------------------------


def _vjp(case: Case, *arrays: np.ndarray) -> list[np.ndarray]:
    function, _ = vjp_function(case)
    return evaluate(function, [np.asarray(a, dtype=float) for a in arrays])[1:]


def test_relu_and_abs_have_zero_slope_at_zero():
    x, g = [0.0, 2.0, -3.0], [1.0, 1.0, 1.0]
    relu = Case("relu", ad.ReluOp, [(3,)], ["any"])
    absolute = Case("abs", ad.AbsOp, [(3,)], ["any"])
    np.testing.assert_array_equal(_vjp(relu, x, g)[0], [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(_vjp(absolute, x, g)[0], [0.0, 1.0, -1.0])


@pytest.mark.parametrize("op_class", [ad.MaximumOp, ad.MinimumOp])
def test_binary_tie_splits_gradient_in_half(op_class):
    case = Case("tie", op_class, [(3,), (3,)], ["any", "any"])
    dx, dy = _vjp(case, [1.0, 2.0, 3.0], [1.0, 5.0, 0.0], [2.0, 2.0, 2.0])
    winner_x = [1.0, 0.0, 2.0] if op_class is ad.MaximumOp else [1.0, 2.0, 0.0]
    np.testing.assert_array_equal(dx, winner_x)
    np.testing.assert_array_equal(dx + dy, [2.0, 2.0, 2.0])


def test_max_shares_gradient_among_tied_maxima():
    case = Case("max", lambda x: ad.MaxOp(x, [1]), [(2, 3)], ["any"])
    (dx,) = _vjp(case, [[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]], [6.0, 3.0])
    np.testing.assert_array_equal(dx, [[0.0, 3.0, 3.0], [1.0, 1.0, 1.0]])


def test_pow_masks_like_pytorch():
    """d/dy x^y is 0 where x == 0 and y >= 0; d/dx is 0 where y == 0."""
    case = Case("pow", ad.PowOp, [(3,), (3,)], ["any", "any"])
    with np.errstate(divide="ignore", invalid="ignore"):  # the masked-out branches
        dx, dy = _vjp(case, [0.0, 0.0, 2.0], [2.0, 0.0, 3.0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(dx, [0.0, 0.0, 12.0])
    np.testing.assert_allclose(dy, [0.0, 0.0, 8.0 * np.log(2.0)])


def _emitted_names(case: Case) -> list[str]:
    function, _ = vjp_function(case, f32)
    return [op.name for op in function.body.block.ops]


def test_broadcast_gradient_is_summed_to_the_input_shape():
    names = _emitted_names(binary("MulOp", (4, 3), (3,)))
    assert names.count("autodiff.sum_to_size") == 1  # only y was broadcast


def test_equal_shapes_emit_no_sum_to_size():
    assert "autodiff.sum_to_size" not in _emitted_names(binary("AddOp", (4, 3), (4, 3)))


def test_constants_take_the_element_type():
    function, _ = vjp_function(unary("TanhOp"), bf16)
    constants = [op for op in function.body.block.ops if isinstance(op, arith.ConstantOp)]
    assert constants and all(c.result.type == TensorType(bf16, (3, 4)) for c in constants)


def test_inactive_tangent_terms_are_dropped():
    """mul with only y active: the tangent is x * y_t, with no zeros built."""
    function = jvp_function(binary("MulOp", (3, 4), (4,)), [1], f32)
    names = [op.name for op in function.body.block.ops]
    assert names == ["autodiff.mul", "autodiff.mul", "func.return"]


def test_dropped_term_is_broadcast_to_the_result():
    """add with only the smaller y active: y_t alone is broadcast to the result shape."""
    function = jvp_function(binary("AddOp", (3, 4), (4,)), [1], f32)
    names = [op.name for op in function.body.block.ops]
    assert names == ["autodiff.add", "autodiff.broadcast_to", "func.return"]


def test_all_zero_tangents_give_none():
    block = Block(arg_types=[TensorType(f32, (3,))])
    op = ad.ExpOp(block.args[0])
    block.add_op(op)
    rule = registry.get_rule("autodiff.exp")
    assert rule is not None
    assert rule.emit_jvp(Builder(InsertPoint.at_end(block)), op, [None]) == [None]
    assert list(block.ops) == [op]


# ----------------------------------------------------------------------------
# Python registration, with an op of a test dialect
# ----------------------------------------------------------------------------


@irdl_op_definition
class CubeOp(IRDLOperation):
    """`x^3`, an op no rule file knows."""

    name = "testd.cube"
    x = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[x.type])


def _constant(builder: Builder, like: SSAValue, value: float) -> SSAValue:
    attr = DenseIntOrFPElementsAttr.from_list(like.type, [value])  # type: ignore[arg-type]
    return builder.insert(arith.ConstantOp(attr)).result


def cube_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    (x,), (grad,) = op.operands, grads
    square = builder.insert(ad.MulOp(x, x)).result
    slope = builder.insert(ad.MulOp(square, _constant(builder, x, 3.0))).result
    return [builder.insert(ad.MulOp(grad, slope)).result]


def cube_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    return cube_vjp(builder, op, [tangents[0]])  # 3 x^2 is symmetric


@pytest.fixture
def isolated_registry(monkeypatch):
    """Registrations made by a test vanish after it."""
    monkeypatch.setattr(registry, "_rules", dict(registry._all_rules()))


CUBE = Case("cube", CubeOp, [(2, 3)], ["any"])


def test_register_vjp_and_jvp_for_another_dialect(isolated_registry):
    assert registry.get_rule("testd.cube") is None
    gradir.register_vjp("testd.cube", cube_vjp)
    gradir.register_jvp("testd.cube", cube_jvp)
    rule = registry.get_rule("testd.cube")
    assert rule is not None and rule.saved_inputs is None and rule.saves_input(0)
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -1.0]])
    (dx,) = _vjp(CUBE, x, np.ones((2, 3)))
    np.testing.assert_allclose(dx, 3 * x**2)
    _, tangent = evaluate(jvp_function(CUBE, [0]), [x, np.full((2, 3), 2.0)])
    np.testing.assert_allclose(tangent, 6 * x**2)


def test_a_rule_registered_from_python_is_refused_on_dynamic_shapes(isolated_registry):
    """Its formulas may build constants of the op's static type (as `cube_vjp` does): on a
    tensor of dynamic shape the op is a located refusal, never a tensor of the wrong type.
    (Every built-in rule takes dynamic shapes, or has them rewritten first.)"""
    from gradir.autodiff_pass.reverse import AutodiffReversePass
    from gradir.dialects.entry_ops import VjpOp

    gradir.register_vjp("testd.cube", cube_vjp)
    dynamic = TensorType(f64, (DYNAMIC_INDEX, 3))
    block = Block(arg_types=[dynamic])
    cube = CubeOp(block.args[0])
    block.add_op(cube)
    callee = _finish(block, [cube.result])
    entry = Block(arg_types=[dynamic, dynamic])
    vjp = VjpOp("f", list(entry.args), [dynamic, dynamic])
    entry.add_ops([vjp, ReturnOp(vjp.results[1])])
    caller = FuncOp("g", FunctionType.from_lists([dynamic, dynamic], [dynamic]), Region(entry))
    module = ModuleOp([callee.clone(), caller])
    message = r"differentiation of 'testd.cube' on tensors of dynamic shape \(tensor<\?x3xf64>\) is not supported yet"
    with pytest.raises(DifferentiationError, match=message):
        AutodiffReversePass().apply(Context(), module)


def test_declared_saved_values_and_differentiable_inputs(isolated_registry):
    registry.register_vjp("testd.cube", cube_vjp, differentiable_inputs=[], saved_inputs=[0], saved_outputs=[])
    rule = registry.get_rule("testd.cube")
    assert rule is not None
    assert (rule.saved_inputs, rule.saved_outputs) == ({0}, frozenset())
    assert not rule.saves_output(0)
    _, differentiated = vjp_function(CUBE)
    assert differentiated == []  # the rule's gradient is dropped: input 0 is not differentiable


def test_python_rule_replaces_only_its_direction(isolated_registry):
    registry.register_vjp("autodiff.exp", cube_vjp)
    rule = registry.get_rule("autodiff.exp")
    assert rule is not None and rule.reverse is cube_vjp
    assert rule.forward == yaml_loader.load_rules()["autodiff.exp"].forward  # the YAML's, kept


def test_forward_only_rule_refuses_reverse_mode(isolated_registry):
    registry.register_jvp("testd.cube", cube_jvp)
    with pytest.raises(DifferentiationError, match="reverse-mode differentiation of 'testd.cube'"):
        vjp_function(CUBE)


@pytest.mark.parametrize(
    "rule, message",
    [
        (lambda b, op, grads: [grads[0], grads[0]], "returned 2 gradients for 1 operands"),
        (
            lambda b, op, grads: [b.insert(ad.SumOp(grads[0])).result],
            "produced a gradient of type tensor<f64> for #0 of type tensor<2x3xf64>",
        ),
    ],
)
def test_malformed_python_rule_results(isolated_registry, rule, message):
    registry.register_vjp("testd.cube", rule)
    with pytest.raises(RuleError, match=re.escape(message)):
        vjp_function(CUBE)


@pytest.mark.parametrize(
    "op_name, rule, kwargs, message",
    [
        ("cube", cube_vjp, {}, "'cube' is not an op name of the form 'dialect.op'"),
        ("testd.cube", "not a function", {}, "the rule for 'testd.cube' is not callable"),
        ("testd.cube", cube_vjp, {"saved_inputs": [-1]}, "saved_inputs must be non-negative"),
    ],
)
def test_bad_registrations(isolated_registry, op_name, rule, kwargs, message):
    with pytest.raises(RuleError, match=re.escape(message)):
        registry.register_vjp(op_name, rule, **kwargs)


def _node_tree(node):
    """A composed YAML node as nested tuples: tag, value, and where it starts."""
    if isinstance(node.value, list):
        value = [
            tuple(_node_tree(part) for part in item) if isinstance(item, tuple) else _node_tree(item)
            for item in node.value
        ]
    else:
        value = node.value
    return (type(node).__name__, node.tag, value, node.start_mark.line, node.start_mark.column)


@pytest.mark.parametrize("name", ["derivatives.yaml", "batching.yaml"])
def test_rule_files_compose_as_the_pure_python_parser_composes_them(name):
    """`compose_yaml` reads through libyaml: the same nodes, tags and lines as PyYAML's own parser,
    which every location in a rule error comes from."""
    import yaml

    text = (pathlib.Path(yaml_loader.__file__).parent / name).read_text()
    assert _node_tree(yaml_loader.compose_yaml(text)) == _node_tree(yaml.compose(text, Loader=yaml.Loader))


def test_malformed_yaml_keeps_the_pure_python_parsers_message():
    """libyaml words the same error differently ('... not allowed in this context'); the
    message users see stays PyYAML's, from its parser run again on the bad text."""
    import yaml

    with pytest.raises(yaml.YAMLError) as caught:
        yaml_loader.compose_yaml("- name: exp(x)\n  x: grad * result: result\n")
    assert caught.value.problem == "mapping values are not allowed here"
    assert (caught.value.problem_mark.line, caught.value.problem_mark.column) == (1, 18)
