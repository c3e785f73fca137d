"""The CPU backend: linalg on tensors -> LLVM dialect (`cpu_pipeline`) -> machine code run
through MLIR's ExecutionEngine (`cpu_runtime.CpuExecutable`, what `gradir.compile(...,
target="cpu")` returns). Builds on `gradir.mlir_bridge`; never imports `gradir.gpu_backend`."""
