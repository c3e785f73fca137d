"""The GPU backend: linalg on tensors -> gpu -> NVVM -> PTX (`gpu_pipeline`), run by
`cuda_program.CudaProgram` on a CUDA driver or emulated on the CPU (`launch_emulation`).
Builds on `gradir.mlir_bridge`; never imports `gradir.cpu_backend`."""
