"""The Python constructors of the autodiff ops build verified IR with inferred types."""
import pytest
from xdsl.builder import Builder
from xdsl.rewriter import InsertPoint
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, f64, i1
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from gradir.dialects import autodiff as ad
from gradir.dialects.shape_rules import (
    broadcast_shapes,
    broadcasts_to,
    matmul_shape,
    reduced_shape,
)


def build(arg_types, body):
    """A module holding one function whose body is built by `body(builder, *args)`."""
    block = Block(arg_types=arg_types)
    builder = Builder(InsertPoint.at_end(block))
    results = body(builder, *block.args)
    builder.insert(func.ReturnOp(*results))
    function = func.FuncOp(
        "f", (arg_types, [r.type for r in results]), Region(block)
    )
    module = ModuleOp([function])
    module.verify()
    return module


def test_binary_broadcast_result_type():
    def body(b, x, y):
        return [b.insert(ad.MulOp(x, y)).result]

    module = build([TensorType(f32, [4, 1]), TensorType(f32, [3])], body)
    (mul,) = [op for op in module.walk() if isinstance(op, ad.MulOp)]
    assert mul.result.type == TensorType(f32, [4, 3])


def test_reduction_transpose_matmul_softmax_select():
    def body(b, x, w, c):
        t = b.insert(ad.TransposeOp(x, [1, 0])).result          # 8x4
        m = b.insert(ad.MatmulOp(x, w)).result                   # 4x2
        s = b.insert(ad.SumOp(m, [1], keepdim=True)).result      # 4x1
        mean = b.insert(ad.MeanOp(t)).result                     # scalar
        soft = b.insert(ad.SoftmaxOp(m, 1)).result
        sel = b.insert(ad.SelectOp(c, soft, s)).result           # 4x2
        return [mean, sel]

    module = build(
        [TensorType(f64, [4, 8]), TensorType(f64, [8, 2]), TensorType(i1, [4, 1])], body
    )
    ops = {type(op): op for op in module.walk()}
    assert ops[ad.SumOp].result.type == TensorType(f64, [4, 1])
    assert ops[ad.SumOp].reduced_dims() == (1,)
    assert ops[ad.MeanOp].result.type == TensorType(f64, [])
    assert ops[ad.MeanOp].reduced_dims() == (0, 1)
    assert ops[ad.SelectOp].result.type == TensorType(f64, [4, 2])
    assert ops[ad.SoftmaxOp].axis == 1


def test_invalid_constructed_op_fails_verification():
    block = Block(arg_types=[TensorType(f32, [4]), TensorType(f32, [5])])
    op = ad.AddOp(block.args[0], block.args[1], TensorType(f32, [4]))
    block.add_op(op)
    with pytest.raises(VerifyException, match="not broadcast-compatible"):
        op.verify()


@pytest.mark.parametrize(
    "shapes, expected",
    [
        (((4, 1), (3,)), (4, 3)),
        (((), (2, 3)), (2, 3)),
        (((2, 1, 3), (4, 1)), (2, 4, 3)),
        (((2,), (3,)), None),
    ],
)
def test_broadcast_shapes(shapes, expected):
    assert broadcast_shapes(*shapes) == expected


def test_shape_helpers():
    assert broadcasts_to((3,), (2, 3))
    assert not broadcasts_to((2, 3), (3,))
    assert reduced_shape((2, 3, 4), (0, 2), True) == (1, 3, 1)
    assert reduced_shape((2, 3, 4), (0, 2), False) == (3,)
    assert matmul_shape((2, 4, 8), (2, 8, 3)) == (2, 4, 3)
    assert matmul_shape((4, 8), (7, 3)) is None
