"""The `autodiff` dialect: forward tensor ops, entry ops that ask for
derivatives, and the ops reverse mode produces (DESIGN.md section 3)."""
from xdsl.ir import Dialect

from gradir.dialects.ad_ops import (
    AD_OPS,
    AutogradAddOp,
    AutogradZeroOp,
    GradOfOp,
    YieldOp,
)
from gradir.dialects.batching_ops import BATCHING_OPS, HessianOp, JacobianOp, VmapOp
from gradir.dialects.entry_ops import ENTRY_OPS, EntryOp, GradOp, JvpOp, VjpOp
from gradir.dialects.forward_ops import (
    FORWARD_OPS,
    AbsOp,
    AddOp,
    BinaryElementwiseOp,
    BroadcastToOp,
    CosOp,
    DivOp,
    ExpOp,
    LogOp,
    LogSoftmaxOp,
    MatmulOp,
    MaximumOp,
    MaxOp,
    MeanOp,
    MinimumOp,
    MulOp,
    NegOp,
    PowOp,
    ReductionOp,
    ReluOp,
    ReshapeOp,
    RsqrtOp,
    SelectOp,
    SigmoidOp,
    SinOp,
    SoftmaxFamilyOp,
    SoftmaxOp,
    StopGradientOp,
    SqrtOp,
    SubOp,
    SumOp,
    SumToSizeOp,
    TanhOp,
    TransposeOp,
    UnaryElementwiseOp,
)

Autodiff = Dialect("autodiff", [*FORWARD_OPS, *ENTRY_OPS, *BATCHING_OPS, *AD_OPS], [])

__all__ = [
    "Autodiff", "FORWARD_OPS", "ENTRY_OPS", "BATCHING_OPS", "AD_OPS", "VmapOp", "JacobianOp", "HessianOp",
    "UnaryElementwiseOp", "BinaryElementwiseOp", "ReductionOp", "SoftmaxFamilyOp", "EntryOp",
    "NegOp", "ExpOp", "LogOp", "SqrtOp", "RsqrtOp", "SinOp", "CosOp", "TanhOp", "SigmoidOp", "StopGradientOp",
    "ReluOp", "AbsOp", "AddOp", "SubOp", "MulOp", "DivOp", "PowOp", "MaximumOp", "MinimumOp",
    "MatmulOp", "TransposeOp", "ReshapeOp", "BroadcastToOp", "SumToSizeOp", "SumOp", "MeanOp",
    "MaxOp", "SoftmaxOp", "LogSoftmaxOp", "SelectOp", "GradOp", "VjpOp", "JvpOp", "GradOfOp",
    "AutogradAddOp", "AutogradZeroOp", "YieldOp",
]  # fmt: skip
