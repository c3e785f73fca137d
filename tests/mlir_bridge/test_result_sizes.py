"""The sizes functions of results of dynamic shape (`mlir_bridge.result_sizes`): what they
keep of the body they are copied from, and that the sizes they give are the real ones.

A sizes function that keeps a backward pass is not wrong, only slow: it runs (and
compiles) the pass twice per call. So these tests read the functions themselves, and run
the programs to check the sizes and values the caller gets.
"""

import numpy as np
import pytest
from mlir import ir

import gradir
from gradir.compilation import runnable_linalg
from gradir.errors import RunTimeCheckError
from gradir.mlir_bridge import new_context, to_mlir_module, walk_ops
from gradir.mlir_bridge.result_sizes import add_result_size_functions, derivative_shape_sources
from runtime_programs import FILL_READ, POSITIVES

GATHER = """
#map = affine_map<(d0) -> (d0)>
func.func @gather_sin(%x: tensor<?xf64>, %idx: tensor<?xindex>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xindex>
  %e = tensor.empty(%n) : tensor<?xf64>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%idx : tensor<?xindex>) outs(%e : tensor<?xf64>) {
  ^bb0(%i: index, %o: f64):
    %v = tensor.extract %x[%i] : tensor<?xf64>
    %s = math.sin %v : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %y : tensor<?xf64>
}
func.func @vjp(%x: tensor<?xf64>, %idx: tensor<?xindex>, %ct: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %r:2 = autodiff.vjp @gather_sin(%x, %idx, %ct) {wrt = array<i64: 0>}
      : (tensor<?xf64>, tensor<?xindex>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  return %r#0, %r#1 : tensor<?xf64>, tensor<?xf64>
}
func.func @jvp(%x: tensor<?xf64>, %idx: tensor<?xindex>, %dx: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %r:2 = autodiff.jvp @gather_sin(%x, %idx, %dx) {wrt = array<i64: 0>}
      : (tensor<?xf64>, tensor<?xindex>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  return %r#0, %r#1 : tensor<?xf64>, tensor<?xf64>
}
"""

PRIVATE_POSITIVES = POSITIVES.replace("func.func @positives", "func.func private @positives")
POSITIVES_TWICE = (
    PRIVATE_POSITIVES
    + """
func.func @positives_twice(%x: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %a = call @positives(%x) : (tensor<?xf64>) -> tensor<?xf64>
  %b = arith.addf %a, %a : tensor<?xf64>
  return %a, %b : tensor<?xf64>, tensor<?xf64>
}
"""
)


def sized_module(source: str) -> dict[str, ir.Operation]:
    """`source` through gradir's passes, with its sizes functions: each function by name."""
    context = new_context()
    module = to_mlir_module(str(runnable_linalg(source)), context)
    with context, ir.Location.unknown():
        add_result_size_functions(module)
    functions = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in walk_ops(module, {"func.func"})}
    functions["<module>"] = module  # keeps the context alive
    return functions


def op_names(function: ir.Operation) -> list[str]:
    names = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        names.append(op.operation.name)
        return ir.WalkResult.ADVANCE

    function.operation.walk(collect)
    return names


def callees(function: ir.Operation) -> set[str]:
    return {ir.FlatSymbolRefAttr(op.attributes["callee"]).value for op in walk_ops(function, {"func.call"})}


def test_a_gradient_is_sized_by_its_argument_not_by_the_backward_pass():
    """The gradient of a gather is a scatter-add loop, whose result size the canonicalizer
    cannot see through: before, the vjp's sizes function kept the whole backward pass."""
    functions = sized_module(GATHER)
    assert derivative_shape_sources(functions["gather_sin_vjp_0"]) == {1: ("argument", 0)}
    sizes = op_names(functions["__gradir_result_sizes_gather_sin_vjp_0"])
    assert sorted(sizes) == ["arith.constant", "func.func", "func.return", "tensor.dim", "tensor.dim"]
    assert "scf.for" in op_names(functions["gather_sin_vjp_0"])  # what it no longer copies


def test_a_tangent_is_sized_by_its_primal_result():
    functions = sized_module(GATHER)
    assert derivative_shape_sources(functions["gather_sin_jvp_0"]) == {1: ("result", 0)}
    sizes = functions["__gradir_result_sizes_gather_sin_jvp_0"]
    assert not [name for name in op_names(sizes) if name.startswith(("linalg.", "scf."))]
    (returned,) = walk_ops(sizes, {"func.return"})
    assert returned.operands[0] == returned.operands[1]  # both: the size of %idx


def test_a_call_is_sized_by_the_callees_sizes_function():
    """The wrapper's sizes function calls the vjp's sizes function, not the vjp (which the
    CPU pipeline would inline into it, backward pass and all)."""
    functions = sized_module(GATHER)
    assert callees(functions["__gradir_result_sizes_vjp"]) == {"__gradir_result_sizes_gather_sin_vjp_0"}
    assert callees(functions["__gradir_result_sizes_jvp"]) == {"__gradir_result_sizes_gather_sin_jvp_0"}


def test_a_private_callee_gets_a_private_sizes_function():
    """A size only the computation gives (a count) comes from the callee's sizes function,
    made private like the callee; the count loop runs there, the filling loop does not."""
    functions = sized_module(POSITIVES_TWICE)
    assert callees(functions["__gradir_result_sizes_positives_twice"]) == {"__gradir_result_sizes_positives"}
    made = functions["__gradir_result_sizes_positives"]
    assert ir.StringAttr(made.attributes["sym_visibility"]).value == "private"
    assert op_names(made).count("scf.for") == 1 and "tensor.insert" not in op_names(made)
    exe = gradir.compile(POSITIVES_TWICE)
    x = np.array([1.0, -2.0, 3.0, 0.5, -0.1])
    a, b = exe.positives_twice(x)
    np.testing.assert_array_equal(a, [1.0, 3.0, 0.5])
    np.testing.assert_array_equal(b, [2.0, 6.0, 1.0])


@pytest.mark.parametrize("n, m", [(5, 8), (1, 3), (4, 0)])
def test_the_sizes_are_the_real_ones(n, m):
    """Run the derivatives: repeated indices (the scatter adds), more reads than entries,
    none; the values checked against NumPy, so a wrong size could not pass as a right one."""
    exe = gradir.compile(GATHER)
    rng = np.random.default_rng(n * 10 + m)
    x, ct, dx = rng.uniform(-2, 2, n), rng.standard_normal(m), rng.standard_normal(n)
    idx = rng.integers(0, n, m)
    y, grad = exe.vjp(x, idx, ct)
    np.testing.assert_allclose(y, np.sin(x[idx]), rtol=1e-14)
    expected = np.zeros(n)
    np.add.at(expected, idx, np.cos(x[idx]) * ct)
    np.testing.assert_allclose(grad, expected, rtol=1e-13, atol=1e-15)
    assert grad.shape == (n,)
    y, tangent = exe.jvp(x, idx, dx)
    np.testing.assert_allclose(tangent, np.cos(x[idx]) * dx[idx], rtol=1e-14)
    assert y.shape == tangent.shape == (m,)


LYING = """
func.func @twice_as_long(%x: tensor<?xf64>) -> tensor<?xf64>
    attributes {autodiff.derivative = {kind = "grad", of = @twice_as_long, wrt = array<i64: 0>, results = array<i64: 0>}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %m = arith.muli %n, %c2 : index
  %e = tensor.empty(%m) : tensor<?xf64>
  %one = arith.constant 1.5 : f64
  %f = linalg.fill ins(%one : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  return %f : tensor<?xf64>
}
"""


def test_a_false_promise_written_by_hand_is_a_run_time_error():
    """The attribute is the passes' promise; a hand-written one that does not hold gets the
    result copy's run-time check, not a write past the buffer."""
    exe = gradir.compile(LYING)
    with pytest.raises(RunTimeCheckError, match=r"@twice_as_long: size of 0-th source/target dim does not match"):
        exe.twice_as_long(np.ones(3))


HISTOGRAM = """
#map = affine_map<(d0) -> (d0)>
func.func @histogram(%idx: tensor<?x?xindex>, %w: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %rows = tensor.dim %idx, %c0 : tensor<?x?xindex>
  %cols = tensor.dim %idx, %c1 : tensor<?x?xindex>
  %n = tensor.dim %w, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %r = scf.for %i = %c0 to %rows step %c1 iter_args(%s = %init) -> (tensor<?xf64>) {
    %inner = scf.for %j = %c0 to %cols step %c1 iter_args(%t = %s) -> (tensor<?xf64>) {
      %k = tensor.extract %idx[%i, %j] : tensor<?x?xindex>
      %v = tensor.extract %t[%k] : tensor<?xf64>
      %u = tensor.extract %w[%k] : tensor<?xf64>
      %v1 = arith.addf %v, %u : f64
      %t1 = tensor.insert %v1 into %t[%k] : tensor<?xf64>
      scf.yield %t1 : tensor<?xf64>
    }
    %scaled = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%inner : tensor<?xf64>) {
    ^bb0(%o: f64):
      %h = arith.mulf %o, %half : f64
      linalg.yield %h : f64
    } -> tensor<?xf64>
    scf.yield %scaled : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
func.func @prefixes(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<?xf64>) {
    %p = tensor.extract_slice %x[0] [%i] [1] : tensor<?xf64> to tensor<?xf64>
    scf.yield %p : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
"""


def test_a_loop_that_only_writes_into_its_state_keeps_the_states_size():
    """Nested scatter loops and a linalg op writing into the state: the size is the init's,
    and the loops are not in the sizes function; a loop that replaces its state by a
    tensor of another size keeps its loop there."""
    functions = sized_module(HISTOGRAM)
    assert "scf.for" not in op_names(functions["__gradir_result_sizes_histogram"])
    assert "scf.for" in op_names(functions["__gradir_result_sizes_prefixes"])
    exe = gradir.compile(HISTOGRAM)
    rng = np.random.default_rng(3)
    idx, w = rng.integers(0, 6, (3, 4)), rng.standard_normal(6)
    expected = np.zeros(6)
    for row in idx:
        np.add.at(expected, row, w[row])
        expected *= 0.5
    np.testing.assert_allclose(exe.histogram(idx, w), expected, rtol=1e-14)


FILL_READ_BESIDE_A_DYNAMIC_RESULT = (
    FILL_READ
    + """
func.func @ones(%n: index) -> tensor<?xf64> {
  %one = arith.constant 1.0 : f64
  %e = tensor.empty(%n) : tensor<?xf64>
  %f = linalg.fill ins(%one : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  return %f : tensor<?xf64>
}
"""
)


def test_only_the_sizes_functions_are_simplified():
    """Canonicalizing the whole module to simplify the sizes functions folded `extract(fill)[i]`
    in the user's other functions before its index was checked: index 9 of a 4-element fill
    read 2.5 with no error whenever the module had a result of dynamic shape."""
    exe = gradir.compile(FILL_READ_BESIDE_A_DYNAMIC_RESULT)
    assert exe.f(3) == 2.5 and exe.ones(2).tolist() == [1.0, 1.0]
    with pytest.raises(RunTimeCheckError, match=r"@f: .*an index out of bounds \(tensor.extract"):
        exe.f(9)


@pytest.mark.parametrize(
    "attribute, promise",
    [
        ('{kind = "grad", of = @g, wrt = array<i64: 0>, results = array<i64: 0>}', {0: ("argument", 0)}),
        ("1 : i64", {}),
        ('{kind = "grad"}', {}),
        ("{kind = 3, wrt = array<i64: 0>, results = array<i64: 0>}", {}),
        ('{kind = "grad", wrt = [0], results = array<i64: 0>}', {}),
        ('{kind = "grad", wrt = array<i64: 5>, results = array<i64: 0>}', {}),  # no argument 5
        ('{kind = "hessian", wrt = array<i64: 0>, results = array<i64: 0>}', {}),
        ('{kind = "grad", wrt = array<i64: 1>, results = array<i64: 0>}', {}),  # argument 1 is an index
    ],
)
def test_only_a_well_formed_derivative_attribute_is_a_promise(attribute, promise):
    """Anything else (hand-written, malformed) promises nothing, and compiles as before."""
    source = (
        "func.func @g(%x: tensor<?xf64>, %n: index) -> tensor<?xf64> attributes {autodiff.derivative = "
        + attribute
        + "} {\n  return %x : tensor<?xf64>\n}"
    )
    context = new_context()
    module = ir.Module.parse(source, context)
    with context:
        assert derivative_shape_sources(next(iter(module.body.operations))) == promise
    assert gradir.compile(source).g(np.arange(3.0), 1).tolist() == [0.0, 1.0, 2.0]
