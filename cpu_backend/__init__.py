"""The CPU backend: linalg on tensors -> LLVM dialect (`cpu_pipeline`) -> machine code run
through MLIR's ExecutionEngine (`cpu_runtime.CpuExecutable`, what `gradir.compile(...,
target="cpu")` returns), and that machine code linked into a shared library
(`library_export`: `gradir.export`, the compilation cache). Builds on `gradir.mlir_bridge`;
never imports `gradir.gpu_backend`."""
