"""Structure of the GPU pipeline's output: where the work runs, how it is launched."""
import numpy as np
import pytest
from mlir import ir

from gpu_cases import CASES, ELEMENTWISE, FULL_REDUCTIONS, MATMUL, MLP, ROW_REDUCTIONS, compiled
import gradir
from gradir.errors import PipelineError
from gradir.gpu_backend.gpu_pipeline import STAGES, bufferize_for_gpu, compile_to_gpu
from gradir.gpu_backend.map_to_gpu import HOST_OPS, map_to_gpu
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import to_mlir_module, walk_ops
from gradir.tools.autodiff_opt import GPU_STAGES, AutodiffOptMain

FLOAT_ARITHMETIC = {
    "llvm.fadd", "llvm.fsub", "llvm.fmul", "llvm.fdiv", "llvm.frem", "llvm.fneg", "llvm.fcmp",
    "llvm.intr.fma", "llvm.intr.fmuladd", "llvm.intr.exp", "llvm.intr.log", "llvm.intr.maxnum",
    "llvm.intr.maximum", "llvm.intr.minnum", "llvm.intr.minimum",
}


def _host_op_names(module: ir.Module) -> set[str]:
    """Names of all ops inside host functions (gpu.binary holds the kernels as data)."""
    names = set()
    for function in walk_ops(module, {"func.func", "llvm.func"}):
        def visit(op):
            names.add(op.name)
            return ir.WalkResult.ADVANCE

        function.walk(visit)
    return names


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_host_code_never_touches_tensor_data(case):
    """Stage 3: outside the kernels only launches, allocations, views and constants."""
    module = to_mlir_module(compiled(case).gpu_ir)
    for function in walk_ops(module, {"func.func"}):
        for op in function.regions[0].blocks[0].operations:
            allowed = HOST_OPS | {"gpu.launch_func", "gpu.alloc", "gpu.dealloc", "gpu.wait"}
            assert op.operation.name in allowed, f"{case.name}: {op.operation.name} on the host"
        names = _host_op_names(module)
        assert not names & {"scf.for", "scf.parallel", "memref.load", "memref.store"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lowered_host_module_has_no_malloc_and_no_float_math(case):
    module = compiled(case).host_module
    names = _host_op_names(module)
    assert not names & FLOAT_ARITHMETIC, f"{case.name}: {sorted(names & FLOAT_ARITHMETIC)}"
    callees = {
        ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        for op in walk_ops(module, {"llvm.call"})
        if "callee" in op.attributes
    }
    defined = {
        ir.StringAttr(f.attributes["sym_name"]).value
        for f in walk_ops(module, {"llvm.func"})
        if f.regions[0].blocks
    }
    external = callees - defined
    assert not {"malloc", "aligned_alloc", "free"} & external
    assert all(name.startswith("mgpu") for name in external), sorted(external)
    assert "gpu.binary" in {op.operation.name for op in module.body.operations}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_kernel_is_launched_once_with_enough_threads_per_block(case):
    program = compiled(case)
    assert set(program.launch_configs) == set(program.ptx)
    for name, config in program.launch_configs.items():
        assert config.threads >= 128 and config.block[2] == 1, name
        # a narrow shared tile's x is a whole small extent (10 classes: whole rows, contiguous)
        narrow = "shared" in name and config.block[0] <= TilePolicy().narrow_extent
        assert (config.block[0] % 16 == 0 or narrow) and config.threads % 32 == 0, name
        if "shared" not in name:
            assert config.block[1] == 1, name


def test_full_reduction_runs_on_the_device_in_two_passes():
    program = compiled(FULL_REDUCTIONS)
    kernels = program.kernels_of("f")
    assert kernels[0].endswith("split_reduce80") and kernels[1].endswith("split_combine")
    assert program.launch_configs[kernels[0]].threads >= 80


def test_row_reduction_over_the_innermost_dim_is_split_and_column_sum_is_not():
    kernels = compiled(ROW_REDUCTIONS).kernels_of("f")
    assert [k.split("_", 2)[2] for k in kernels] == [
        "split_reduce32",  # 64 rows x 256: 32 partial sums per row
        "split_combine",
        "reduce",  # 64 rows x 10: one thread per row
        "split_reduce8",  # 256 columns x 64 rows
        "split_combine",
    ]


def test_matmul_is_one_register_tiled_kernel_with_fma():
    program = compiled(MATMUL)
    (kernel,) = program.ptx
    assert "tile4x2" in kernel
    ptx = program.ptx[kernel]
    assert ptx.count("fma.rn.f32") >= 8
    assert "ld.global.nc" in ptx  # noalias arguments: read-only cache
    assert program.launch_configs[kernel].threads == 64 * 256 // 8


def test_fills_fold_into_reductions():
    names = compiled(MLP).kernels_of("mlp_grad")
    # 22 before epilogue fusion, which runs four elementwise ops (the bias add after x W1
    # among them) in the kernels of the reductions whose results they read; 17 since a
    # narrow tile computes `a W2` in one launch (a split reduction and its combine before).
    assert len(names) == 17
    gpu_ir = compiled(MLP).gpu_ir
    assert "memref.copy" not in gpu_ir


def test_stages_stop_where_asked():
    seen = []
    for stage, marker in zip(STAGES, ["linalg.generic", "gpu.launch ", "gpu.launch_func", "gpu.binary"]):
        module = to_mlir_module(ELEMENTWISE.text)
        compile_to_gpu(module, stop_after=stage)
        text = str(module)
        assert marker in text, stage
        seen.append(text)
    assert "gpu.module" not in seen[1] and "gpu.binary" not in seen[2]


def test_autodiff_opt_stops_after_every_stage(tmp_path):
    """`autodiff-opt --pipeline gpu --gpu-stop-after STAGE`; its choices are the pipeline's."""
    assert GPU_STAGES == STAGES
    path = tmp_path / "elementwise.mlir"
    path.write_text(ELEMENTWISE.text)
    for stage, marker in zip(STAGES, ["linalg.generic", "gpu.launch ", "gpu.launch_func", "gpu.binary"]):
        arguments = [str(path), "--pipeline", "gpu", "--gpu-stop-after", stage]
        assert marker in AutodiffOptMain(args=arguments).run_to_text(), stage


def test_unknown_stage_is_an_error():
    with pytest.raises(PipelineError, match="unknown GPU stage 'ptx'"):
        compile_to_gpu(to_mlir_module(ELEMENTWISE.text), stop_after="ptx")


def test_host_loops_launch_their_bodies():
    source = """
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %x) -> tensor<8xf32> {
    %e = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        outs(%t : tensor<8xf32>) {
    ^bb0(%o: f32):
      %v = math.exp %o : f32
      linalg.yield %v : f32
    } -> tensor<8xf32>
    scf.yield %e : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""
    module = map_to_gpu(bufferize_for_gpu(to_mlir_module(source)))
    text = str(module)
    loop = text.index("scf.for")
    assert "gpu.launch" in text[loop:] and "math.exp" in text[text.index("gpu.launch") :]


def test_branch_on_device_data_copies_its_condition_to_the_host():
    """A branch on a tensor element: a one-thread kernel computes the condition into a
    device byte, which is copied to a host scalar the branch reads."""
    source = """
func.func @f(%x: tensor<8xf32>, %c: tensor<f32>) -> tensor<8xf32> {
  %v = tensor.extract %c[] : tensor<f32>
  %z = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %v, %z : f32
  %r = scf.if %p -> tensor<8xf32> {
    scf.yield %x : tensor<8xf32>
  } else {
    %e = math.exp %x : tensor<8xf32>
    scf.yield %e : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""
    text = str(map_to_gpu(bufferize_for_gpu(to_mlir_module(source))))
    host = "\n".join(line for line in text.splitlines() if line.startswith("    ") and not line.startswith("     "))
    assert '{gradir.strategy = "condition"}' in text
    assert "gpu.memcpy" in host and "arith.cmpf" not in host
    assert host.index("gpu.memcpy") < host.index("memref.load") < host.index("scf.if")


def test_host_reads_of_device_data_are_copied_to_the_host():
    """A tensor element used as a kernel's scalar: a one-thread kernel copies it into a device
    scalar, `gpu.memcpy` brings it to the host, and the fill's kernel takes it as an argument."""
    source = """
func.func @f(%x: tensor<8xf32>, %c: tensor<f32>) -> tensor<8xf32> {
  %v = tensor.extract %c[] : tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""
    text = str(map_to_gpu(bufferize_for_gpu(to_mlir_module(source))))
    host = "\n".join(line for line in text.splitlines() if line.startswith("    ") and not line.startswith("     "))
    assert '{gradir.strategy = "element_to_host"}' in text
    assert host.index("gpu.memcpy") < host.index("memref.load")
    x, c = np.zeros(8, np.float32), np.array(2.5, np.float32)
    np.testing.assert_array_equal(gradir.compile(source, target="cuda").emulate("f", x, c)[0], np.full(8, 2.5))


def test_dynamic_arguments_map_to_a_run_time_grid_but_a_program_takes_static_ones():
    """The pipeline maps an op over a run-time number of elements (`run_time_mapping`); a
    program's public functions still take and return static shapes (their signatures are
    what the runtime checks arguments against)."""
    source = """
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = math.exp %x : tensor<?xf32>
  return %e : tensor<?xf32>
}
"""
    text = str(compile_to_gpu(to_mlir_module(source), stop_after="map"))
    assert '"run_time"' in text and "memref.dim" in text
    with pytest.raises(PipelineError, match=r"argument 0 has dynamic shape tensor<\?xf32>; the GPU target needs static shapes"):
        gradir.compile(source, target="cuda")


def test_sm_80_kernels_target_sm_80():
    program = compiled(MATMUL, chip="sm_80")
    assert all(".target sm_80" in text for text in program.ptx.values())


SAVED_MASK = """
#id = affine_map<(i, j) -> (i, j)>
func.func @f(%x: tensor<4x5xf32>, %y: tensor<4x5xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<4x5xi1>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x5xf32>) outs(%e : tensor<4x5xi1>) {
  ^bb0(%a: f32, %o: i1):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %p : i1
  } -> tensor<4x5xi1>
  %s = autodiff.select %c, %x, %y : (tensor<4x5xi1>, tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %t = math.tanh %s : tensor<4x5xf32>
  %l = autodiff.sum %t : tensor<4x5xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @g(%x: tensor<4x5xf32>, %y: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %dx, %dy = autodiff.grad @f(%x, %y) : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
  return %dx, %dy : tensor<4x5xf32>, tensor<4x5xf32>
}
"""


def test_mask_saved_for_the_backward_is_stored_as_bytes():
    """The select's condition is a tensor between the forward's kernels and the backward's:
    as an i1 buffer, MLIR 22's lowering aborted the process (an assertion in memref.store)."""
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((4, 5)).astype(np.float32) for _ in range(2))
    emulated = gradir.compile(SAVED_MASK, target="cuda").emulate("g", x, y)
    dx, dy = gradir.compile(SAVED_MASK, target="cpu").g(x, y)
    np.testing.assert_allclose(emulated[0], dx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(emulated[1], dy, rtol=1e-5, atol=1e-6)
    assert np.count_nonzero(dx) and np.count_nonzero(dy)
