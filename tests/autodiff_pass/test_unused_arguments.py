"""PyTorch's `allow_unused` / `materialize_grads` in `gradir.differentiate`: a `wrt` argument the
results do not depend on gets zeros (the default, as before), an error, or no gradient."""
import numpy as np
import pytest

import gradir
from gradir.autodiff_pass.unused_arguments import checked_unused_choice
from gradir.source import load_module

torch = pytest.importorskip("torch")

PROGRAM = """\
func.func @g(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>, %z: tensor<3xf64>) -> tensor<f64> {
  %m = autodiff.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = func.call @g(%m, %y) : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  %c = autodiff.stop_gradient %z : tensor<3xf64>
  %t = autodiff.sum %c : tensor<3xf64> -> tensor<f64>
  %r = autodiff.add %s, %t : (tensor<f64>, tensor<f64>) -> tensor<f64>
  return %r : tensor<f64>
}
func.func @dead_relu(%x: tensor<3xf64>) -> tensor<f64> {
  %r = autodiff.relu %x : tensor<3xf64>
  %s = autodiff.sum %r : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""
"""@f reads %y only through a call whose callee ignores it, and %z only through stop_gradient:
neither influences its result (PyTorch: not in the graph). @dead_relu's gradient is zero
for negative inputs only: its argument is used."""

X = np.array([1.0, -2.0, 3.0])
Y = np.array([0.5, 0.25, 4.0])
Z = np.array([7.0, 8.0, 9.0])


@pytest.fixture
def path(tmp_path):
    path = tmp_path / "f.mlir"
    path.write_text(PROGRAM)
    return path


def torch_gradients():
    """What torch.autograd.grad gives for @f: 2x for x; y and z are not in the graph."""
    x, y, z = (torch.tensor(v, requires_grad=True) for v in (X, Y, Z))
    loss = (x * x).sum() + z.detach().sum()
    return torch.autograd.grad(loss, (x, y, z), allow_unused=True, materialize_grads=True), loss


def run_df(gradient: gradir.Gradient, inputs):
    """Run the split's f then df, as PyTorch's Gradient is run."""
    exe = gradir.compile(gradient.f.parent_op())
    outputs = exe.call(gradient.f.sym_name.data, *inputs)
    vjps = [np.ones(())]  # the seed of the loss
    captured = [inputs[i] for i in gradient.df_input_captured_inputs]
    captured += [outputs[i] for i in gradient.df_input_captured_outputs]
    return outputs[0], exe.call(gradient.df.sym_name.data, *vjps, *captured)


def test_default_gives_zeros_as_before(path):
    gradient = gradir.differentiate(path, "f")
    assert gradient.df_output_vjps == (0, 1, 2)
    loss, gradients = run_df(gradient, [X, Y, Z])
    expected, torch_loss = torch_gradients()
    np.testing.assert_allclose(loss, torch_loss.item())
    for mine, theirs in zip(gradients, expected, strict=True):
        np.testing.assert_allclose(mine, theirs.numpy())
    assert not gradients[1].any() and not gradients[2].any()
    assert gradir.differentiate(path, "f", allow_unused=True).df_output_vjps == (0, 1, 2)


def test_allow_unused_false_is_a_located_error(path):
    with pytest.raises(gradir.DifferentiationError) as caught:
        gradir.differentiate(path, "f", allow_unused=False)
    assert caught.value.location == f"{path}:5:1"  # @f
    assert caught.value.message.startswith("argument 1 of @f does not influence its result")
    assert len(str(caught.value).splitlines()) == 1
    # The stop_gradient alone is an unused argument too, and a module given as an xDSL
    # ModuleOp is left as it was.
    module = load_module(path)
    before = str(module)
    with pytest.raises(gradir.DifferentiationError, match="argument 2 of @f does not influence"):
        gradir.differentiate(module, "f", wrt=[0, 2], allow_unused=False)
    assert str(module) == before
    # PyTorch's default (materialize_grads=False) refuses too.
    with pytest.raises(gradir.DifferentiationError, match="argument 1 of @f"):
        gradir.differentiate(path, "f", materialize_grads=False)


def test_allow_unused_false_accepts_used_arguments(path):
    assert gradir.differentiate(path, "f", wrt=[0], allow_unused=False).df_output_vjps == (0,)
    # A gradient that is zero only at some inputs (a relu below 0) is a used argument.
    gradient = gradir.differentiate(path, "dead_relu", allow_unused=False)
    _, (gradient_x,) = run_df(gradient, [np.array([-1.0, -2.0, -3.0])])
    assert not gradient_x.any()


def test_materialize_grads_false_leaves_unused_gradients_out(path):
    module = load_module(path)
    gradient = gradir.differentiate(module, "f", allow_unused=True, materialize_grads=False)
    assert gradient.df_output_vjps == (0,)
    assert gradient.df.sym_name.data.endswith("_bwd_used")
    assert len(gradient.df.function_type.outputs.data) == 1
    loss, (gradient_x,) = run_df(gradient, [X, Y, Z])
    expected, _ = torch_gradients()
    np.testing.assert_allclose(gradient_x, expected[0].numpy())
    # The full df stays, for materialize_grads=True on the same module; asked again, the
    # reduced one is reused.
    assert gradir.differentiate(module, "f").df_output_vjps == (0, 1, 2)
    again = gradir.differentiate(module, "f", allow_unused=True, materialize_grads=False)
    assert again.df is gradient.df


@pytest.mark.parametrize(
    "allow_unused, materialize_grads, expected",
    [
        (None, None, (True, True)),
        (True, None, (True, True)),
        (False, None, (False, False)),
        (None, False, (False, False)),
        (True, False, (True, False)),
        (None, True, (True, True)),
    ],
)
def test_the_choice_follows_pytorch_rules(allow_unused, materialize_grads, expected):
    assert checked_unused_choice(allow_unused, materialize_grads) == expected


def test_bad_choices_are_argument_errors(path):
    with pytest.raises(gradir.ArgumentError, match="allow_unused=False contradicts materialize_grads=True"):
        gradir.differentiate(path, "f", allow_unused=False, materialize_grads=True)
    with pytest.raises(gradir.ArgumentError, match="allow_unused must be True or False, got 1"):
        gradir.differentiate(path, "f", allow_unused=1)
    with pytest.raises(gradir.ArgumentError, match="materialize_grads must be True or False"):
        gradir.differentiate(path, "f", materialize_grads="no")
