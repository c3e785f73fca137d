"""gradir as a pass library: every pass importable from its folder's package by
class, with its CLI name, and usable in a plain xDSL PassPipeline."""
import importlib
import pathlib

import pytest
from xdsl.passes import PassPipeline

import gradir
import gradir.autodiff_pass
import gradir.lowering
from gradir.dialects.autodiff import GradOp
from gradir.pass_table import PASSES, PASSES_BY_NAME, gradir_passes
from gradir.source import load_module, make_context

PRODUCT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "product.mlir"


@pytest.mark.parametrize("name", sorted(PASSES_BY_NAME))
def test_pass_is_exported_by_its_package(name):
    entry = PASSES_BY_NAME[name]
    package = importlib.import_module(entry.package)
    pass_class = getattr(package, entry.class_name)
    assert pass_class.name == name
    assert entry.class_name in dir(package)


@pytest.mark.parametrize("name", sorted(PASSES_BY_NAME))
def test_pass_file_is_named_after_its_cli_name(name):
    """A reader finds any pass from its CLI name in one step."""
    entry = PASSES_BY_NAME[name]
    stem = name.removeprefix("autodiff-").replace("-", "_")
    assert entry.module.rsplit(".", 1)[1] == stem, entry.module


def test_a_missing_pass_module_is_an_error_not_a_skip(monkeypatch):
    import gradir.pass_table as table

    broken = table.PassEntry("autodiff-nothing", "gradir.autodiff_pass.nothing", "X", "-")
    monkeypatch.setattr(table, "PASSES", (*table.PASSES, broken))
    factories = table.gradir_passes()
    assert "autodiff-nothing" in factories
    with pytest.raises(ModuleNotFoundError):
        factories["autodiff-nothing"]()


def test_package_exports_come_from_the_pass_table():
    """No package keeps a pass list of its own: the pass classes each exports
    are exactly the table's passes defined in it."""
    from xdsl.passes import ModulePass

    for package_name in ("gradir.autodiff_pass", "gradir.lowering"):
        package = importlib.import_module(package_name)
        exported = {
            name
            for name in package.__all__
            if isinstance(value := getattr(package, name), type) and issubclass(value, ModulePass)
        }
        assert exported == {e.class_name for e in PASSES if e.package == package_name}


def test_gradir_api_is_visible_to_dir():
    import gradir

    for name in ("compile", "gradcheck", "differentiate", "Gradient", "register_vjp", "GradirError"):
        assert name in dir(gradir)


def test_a_gradient_record_prints_in_one_line():
    """`print(g)` named the functions and index lists; it dumped kilobytes of xDSL internals."""
    example = PRODUCT.parent / "mlp.mlir"
    record = repr(gradir.differentiate(example, "mlp_loss"))
    assert record.startswith("Gradient(f=@mlp_loss_vjp_") and "df_output_vjps=[0, 1" in record
    assert "\n" not in record and len(record) < 400


def test_gpu_names_the_cuda_target_as_in_the_cli():
    program = gradir.compile(PRODUCT, target="gpu")
    assert type(program).__name__ == "CudaProgram" and program.ptx


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
    from gradir.compilation import available_passes

    assert AutodiffOptMain(args=[]).available_passes["cse"]() is ScopedCommonSubexpressionElimination
    assert available_passes()["cse"]() is ScopedCommonSubexpressionElimination


def test_xdsl_universe_keeps_xdsls_cse():
    from gradir.universe import GRADIR_UNIVERSE

    assert "cse" not in GRADIR_UNIVERSE.all_passes
