"""gradir as a pass library: every pass importable from its folder's package by
class, with its CLI name, and usable in a plain xDSL PassPipeline."""
import pathlib

import pytest
from xdsl.passes import PassPipeline

import gradir.autodiff_pass
import gradir.lowering
from gradir.dialects.autodiff import GradOp
from gradir.tools.pass_registry import GRADIR_PASS_LOCATIONS
from gradir.tools.source import load_module, make_context

PRODUCT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "product.mlir"


@pytest.mark.parametrize("name", sorted(GRADIR_PASS_LOCATIONS))
def test_pass_is_exported_by_its_package(name):
    module_name, class_name = GRADIR_PASS_LOCATIONS[name]
    package = gradir.lowering if module_name.startswith("gradir.lowering") else gradir.autodiff_pass
    pass_class = getattr(package, class_name)
    assert pass_class.name == name


def test_passes_run_in_an_xdsl_pipeline():
    ctx = make_context()
    module = load_module(PRODUCT, ctx)
    pipeline = PassPipeline((
        gradir.autodiff_pass.AutodiffReversePass(),
        gradir.autodiff_pass.AutodiffSpecializeZeroPass(),
        gradir.autodiff_pass.AutodiffLowerGradOfPass(),
        gradir.lowering.ConvertAutodiffToLinalgPass(),
    ))
    pipeline.apply(ctx, module)
    module.verify()
    names = {op.name for op in module.walk()}
    assert not any(n.startswith("autodiff.") for n in names)
    assert "linalg.generic" in names
    assert not any(isinstance(op, GradOp) for op in module.walk())


def test_cse_is_gradirs_linear_cse_in_autodiff_opt_and_compile():
    from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination
    from gradir.tools.autodiff_opt import AutodiffOptMain
    from gradir.tools.compile import available_passes

    assert AutodiffOptMain(args=[]).available_passes["cse"]() is ScopedCommonSubexpressionElimination
    assert available_passes()["cse"]() is ScopedCommonSubexpressionElimination


def test_xdsl_universe_keeps_xdsls_cse():
    from gradir.universe import GRADIR_UNIVERSE

    assert "cse" not in GRADIR_UNIVERSE.all_passes
