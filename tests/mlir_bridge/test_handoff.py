"""The xDSL -> MLIR 22 hand-off (gradir.mlir_bridge): source locations survive it, and whatever
MLIR reports on the way (parse and verifier errors, unknown or failing passes) comes back as one
located `PipelineError` line naming the stage."""
import pytest

from gradir.errors import PipelineError
from gradir.mlir_bridge import run_pipeline, to_mlir_module
from gradir.source import parse_module

ADD = """
func.func @add(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = arith.addf %a, %b : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
"""


def test_parse_errors_carry_the_source_location():
    source = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = "math.exp"(%a) : (tensor<4xf32>) -> tensor<3xf32> loc("model.mlir":7:9)
      return %a : tensor<4xf32>
    }"""
    with pytest.raises(PipelineError) as error:
        to_mlir_module(source)
    assert str(error.value).startswith("model.mlir:7:9: error: mlir-parse: 'math.exp' op")
    assert "\n" not in str(error.value)


def test_xdsl_locations_survive_the_bridge(ctx):
    source = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    module = to_mlir_module(parse_module(ctx, source, "model.mlir"))
    add = module.body.operations[0].regions[0].blocks[0].operations[0]
    assert str(add.location) == 'loc("model.mlir":2:3)'


def test_unknown_dialect_is_a_pipeline_error():
    with pytest.raises(PipelineError, match=r"<input>:2:\d+: error: mlir-parse: .*autodiff"):
        to_mlir_module("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                       "  %0 = autodiff.exp %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}")


def test_run_pipeline_names_the_stage():
    module = to_mlir_module(ADD)
    with pytest.raises(PipelineError, match=r"^error: my-stage: 'no-such-pass' does not refer"):
        run_pipeline(module, "no-such-pass", "my-stage")
    with pytest.raises(PipelineError, match=r"my-stage: .*"):
        run_pipeline(module, "convert-func-to-llvm, func.func(test-nonexistent)", "my-stage")


def test_failing_pass_is_a_pipeline_error():
    module = to_mlir_module(ADD)
    with pytest.raises(PipelineError, match=r"^error: stage-x: 'no-such-pass' does not refer to a registered pass"):
        run_pipeline(module, "no-such-pass", "stage-x")


def test_top_level_ops_are_the_module_level_ops_walk_ops_finds():
    """`top_level_ops` reads only the module's body: its functions, never an op nested in one."""
    from gradir.mlir_bridge import top_level_ops, walk_ops

    module = to_mlir_module(ADD + ADD.replace("@add", "@add_again"))
    names = {"func.func", "arith.addf"}
    found = top_level_ops(module, names)
    assert [op.name for op in found] == ["func.func", "func.func"]
    assert found == [op for op in walk_ops(module, names) if op.name == "func.func"]
    assert [op.name for op in walk_ops(module, names)].count("arith.addf") == 2
