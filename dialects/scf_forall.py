"""`scf.forall`, its terminator `scf.forall.in_parallel` and `tensor.parallel_insert_slice`,
which xDSL 0.74 lacks, defined as MLIR 22 defines them (operand, property and result names,
custom form).

`scf.forall` is what tiling and fusion in MLIR (`transform.structured.tile_using_forall`,
fuse-into-containing-op) leave in a program: a loop whose iterations may run in any order,
each writing its slice of the shared outputs with `tensor.parallel_insert_slice`. gradir
differentiates, batches and runs it as the sequential `scf.for` nest it equals
(`lift-control-flow`'s `ForallToFor`), so these ops only need to parse, verify and print.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseArrayBase, IndexType, StringAttr, TensorType, i64
from xdsl.dialects.utils.dynamic_index_list import (
    DynamicIndexList,
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
    verify_dynamic_index_list,
)
from xdsl.ir import Attribute, Block, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_attr_definition,
    param_def,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, NoTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ParallelInsertSliceOp(IRDLOperation):
    """`tensor.parallel_insert_slice %slice into %out[offsets] [sizes] [strides]`: inside
    `scf.forall.in_parallel`, this iteration's slice of the shared output `%out`."""

    name = "tensor.parallel_insert_slice"

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (DynamicIndexList,)
    assembly_format = (
        "$source `into` $dest ``"
        "custom<DynamicIndexList>($offsets, $static_offsets)"
        "custom<DynamicIndexList>($sizes, $static_sizes)"
        "custom<DynamicIndexList>($strides, $static_strides)"
        "attr-dict `:` type($source) `into` type($dest)"
    )

    def verify_(self) -> None:
        for what, static, dynamic in (
            ("offset", self.static_offsets, self.offsets),
            ("size", self.static_sizes, self.sizes),
            ("stride", self.static_strides, self.strides),
        ):
            verify_dynamic_index_list(static.get_values(), dynamic, DYNAMIC_INDEX, f" in the {what} arguments")
        if not isinstance(self.parent_op(), InParallelOp):
            raise VerifyException("'tensor.parallel_insert_slice' must be inside 'scf.forall.in_parallel'")


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """`scf.forall.in_parallel { parallel_insert_slice ... }`: the terminator of `scf.forall`,
    holding how each iteration writes the shared outputs."""

    name = "scf.forall.in_parallel"

    region = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsTerminator(), NoTerminator(), HasParent(ForallOp)))

    def __init__(self, region: Region | None = None):
        super().__init__(regions=[region if region is not None else Region(Block())])

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls(region)
        attributes = parser.parse_optional_attr_dict()
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_empty_block=False)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        for op in self.region.block.ops:
            if not isinstance(op, ParallelInsertSliceOp):
                raise VerifyException(f"'scf.forall.in_parallel' may hold only 'tensor.parallel_insert_slice', not '{op.name}'")


@irdl_op_definition
class ForallOp(IRDLOperation):
    """`scf.forall (%i, ...) in (ubs) shared_outs(%s = %init, ...) -> (types) { ... }`, or
    `= (lbs) to (ubs) step (steps)`: one iteration per point of the index space, in any
    order; the results are the shared outputs once every iteration has written its slices."""

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)
    dynamicUpperBound = var_operand_def(IndexType)
    dynamicStep = var_operand_def(IndexType)
    outputs = var_operand_def(TensorType)
    staticLowerBound = prop_def(DenseArrayBase.constr(i64))
    staticUpperBound = prop_def(DenseArrayBase.constr(i64))
    staticStep = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)
    """A device mapping (GPU threads or blocks): gradir runs the loop sequentially and ignores it."""
    results_ = var_result_def(TensorType)
    region = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(SingleBlockImplicitTerminator(InParallelOp))

    def bounds(self) -> list[tuple[SSAValue | int, SSAValue | int, SSAValue | int]]:
        """(lower, upper, step) per induction variable: an int where static."""

        def mixed(static: DenseArrayBase, dynamic: Sequence[SSAValue]) -> list[SSAValue | int]:
            values = iter(dynamic)
            return [next(values) if v == DYNAMIC_INDEX else v for v in static.get_values()]

        return list(zip(
            mixed(self.staticLowerBound, self.dynamicLowerBound),
            mixed(self.staticUpperBound, self.dynamicUpperBound),
            mixed(self.staticStep, self.dynamicStep),
        ))  # fmt: skip

    @property
    def rank(self) -> int:
        return len(self.staticUpperBound.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        ivs = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))

        def index_list() -> tuple[list[SSAValue], list[int]]:
            dynamic, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX, delimiter=Parser.Delimiter.PAREN)
            return [parser.resolve_operand(value, IndexType()) for value in dynamic], list(static)

        if parser.parse_optional_keyword("in") is not None:
            upper, static_upper = index_list()
            lower, static_lower, step, static_step = [], [0] * len(ivs), [], [1] * len(ivs)
        else:
            parser.parse_punctuation("=")
            lower, static_lower = index_list()
            parser.parse_keyword("to")
            upper, static_upper = index_list()
            parser.parse_keyword("step")
            step, static_step = index_list()
        shared: list[tuple[object, UnresolvedOperand]] = []
        result_types: list[Attribute] = []
        if parser.parse_optional_keyword("shared_outs") is not None:

            def assignment():
                argument = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return argument, parser.parse_unresolved_operand()

            shared = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, assignment)
            parser.parse_punctuation("->")
            result_types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
            if len(result_types) != len(shared):
                parser.raise_error(f"'scf.forall' has {len(shared)} shared outputs but {len(result_types)} result types")
        outputs = [parser.resolve_operand(operand, t) for (_, operand), t in zip(shared, result_types)]
        arguments = [iv.resolve(IndexType()) for iv in ivs] + [arg.resolve(t) for (arg, _), t in zip(shared, result_types)]
        region = parser.parse_region(arguments)
        if not region.blocks:
            region.add_block(Block(arg_types=[argument.type for argument in arguments]))
        if not isinstance(region.block.last_op, InParallelOp):  # implied, as in MLIR
            region.block.add_op(InParallelOp())
        attributes = parser.parse_optional_attr_dict()
        mapping = attributes.pop("mapping", None)
        op = cls.build(
            operands=[lower, upper, step, outputs],
            result_types=[result_types],
            regions=[region],
            properties={
                "staticLowerBound": DenseArrayBase.from_list(i64, static_lower),
                "staticUpperBound": DenseArrayBase.from_list(i64, static_upper),
                "staticStep": DenseArrayBase.from_list(i64, static_step),
                **({"mapping": mapping} if mapping is not None else {}),
            },
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        ivs = self.region.block.args[: self.rank]
        shared = self.region.block.args[self.rank :]
        printer.print_string(" (")
        printer.print_list(ivs, printer.print_ssa_value)
        printer.print_string(")")
        paren = Parser.Delimiter.PAREN
        normalized = set(self.staticLowerBound.get_values()) <= {0} and set(self.staticStep.get_values()) <= {1}
        if normalized:
            printer.print_string(" in ")
            print_dynamic_index_list(printer, DYNAMIC_INDEX, self.dynamicUpperBound, self.staticUpperBound.get_values(), delimiter=paren)
        else:
            for keyword, dynamic, static in (
                (" = ", self.dynamicLowerBound, self.staticLowerBound),
                (" to ", self.dynamicUpperBound, self.staticUpperBound),
                (" step ", self.dynamicStep, self.staticStep),
            ):
                printer.print_string(keyword)
                print_dynamic_index_list(printer, DYNAMIC_INDEX, dynamic, static.get_values(), delimiter=paren)
        if self.outputs:
            printer.print_string(" shared_outs(")
            printer.print_list(
                zip(shared, self.outputs),
                lambda pair: (printer.print_ssa_value(pair[0]), printer.print_string(" = "), printer.print_ssa_value(pair[1])),
            )
            printer.print_string(") -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False)
        attributes = dict(self.attributes)
        if self.mapping is not None:
            attributes["mapping"] = self.mapping
        printer.print_op_attributes(attributes)

    def verify_(self) -> None:
        rank = self.rank
        for what, static, dynamic in (
            ("lower bound", self.staticLowerBound, self.dynamicLowerBound),
            ("upper bound", self.staticUpperBound, self.dynamicUpperBound),
            ("step", self.staticStep, self.dynamicStep),
        ):
            if len(static.get_values()) != rank:
                raise VerifyException(f"'scf.forall' needs one {what} per induction variable")
            verify_dynamic_index_list(static.get_values(), dynamic, DYNAMIC_INDEX, f" in the {what}s")
        if any(step != DYNAMIC_INDEX and step <= 0 for step in self.staticStep.get_values()):
            raise VerifyException("'scf.forall' needs positive constant steps")
        block = self.region.block
        expected = [IndexType()] * rank + [o.type for o in self.outputs]
        if [a.type for a in block.args] != expected:
            raise VerifyException(f"'scf.forall' body must take {rank} indices and one argument per shared output")
        if list(self.result_types) != [o.type for o in self.outputs]:
            raise VerifyException("'scf.forall' results must have the types of its shared outputs")
        terminator = block.last_op
        if not isinstance(terminator, InParallelOp):
            raise VerifyException("'scf.forall' body must end with 'scf.forall.in_parallel'")
        shared = set(block.args[rank:])
        for insert in terminator.region.block.ops:
            if isinstance(insert, ParallelInsertSliceOp) and insert.dest not in shared:
                raise VerifyException("'tensor.parallel_insert_slice' must write into a shared output of its 'scf.forall'")


_MAPPING_IDS = ("x", "y", "z", *(f"linear_dim_{i}" for i in range(10)))


class _GpuMappingAttr(ParametrizedAttribute):
    """`#gpu.thread<x>` and its kin: which GPU index a forall's loop is mapped to, in
    `mapping = [...]`. gradir runs the loop sequentially, so they only need to parse."""

    dim: StringAttr = param_def(StringAttr)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            at = parser.pos
            dim = parser.parse_identifier()
            if dim not in _MAPPING_IDS:
                parser.raise_error(f"'{cls.name}' expects one of {', '.join(_MAPPING_IDS[:4])}, ..., not '{dim}'", at, parser.pos)
        return (StringAttr(dim),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.dim.data}>")


@irdl_attr_definition
class GpuBlockMappingAttr(_GpuMappingAttr):
    name = "gpu.block"


@irdl_attr_definition
class GpuThreadMappingAttr(_GpuMappingAttr):
    name = "gpu.thread"


@irdl_attr_definition
class GpuWarpMappingAttr(_GpuMappingAttr):
    name = "gpu.warp"


@irdl_attr_definition
class GpuWarpgroupMappingAttr(_GpuMappingAttr):
    name = "gpu.warpgroup"


@irdl_attr_definition
class GpuLaneMappingAttr(_GpuMappingAttr):
    name = "gpu.lane"


SCF_OPS = (ForallOp, InParallelOp)
GPU_ATTRIBUTES = (GpuBlockMappingAttr, GpuThreadMappingAttr, GpuWarpMappingAttr, GpuWarpgroupMappingAttr, GpuLaneMappingAttr)
TENSOR_OPS = (ParallelInsertSliceOp,)
