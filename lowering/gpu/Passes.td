//===- Passes.td - Kiln's GPU passes -----------------------*- tablegen -*-===//
#ifndef KILN_REWRITES_GPU_PASSES_TD
#define KILN_REWRITES_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GpuHostOpsToKernels : Pass<"kiln-gpu-host-ops-to-kernels", "mlir::func::FuncOp"> {
  let summary = "Move the host's remaining buffer work into parallel loops";
  let description = [{
    Runs on bufferized code before `convert-linalg-to-parallel-loops` and the
    mapping of parallel loops to the GPU. Every buffer lives in device memory
    in a GPU executable, so nothing outside a kernel may touch one:
    - a `memref.copy` outside a parallel loop becomes a `linalg.copy` (a
      parallel loop, so a kernel);
    - a linalg op with no parallel dimension (a full reduction, a rank-0
      elementwise op or fill) is wrapped in a one-iteration `scf.parallel`,
      so it runs as a one-thread kernel instead of a host loop;
    - a host `memref.load` (a dynamic_slice index, say) reads from a copy in
      host memory: `memref.alloca` + `gpu.memcpy` from the device buffer.
    A host `memref.store` into a buffer is reported as unsupported.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def GpuFlattenParallelLoops : Pass<"kiln-gpu-flatten-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Collapse each multi-dimensional scf.parallel into one dimension";
  let description = [{
    Runs before the tiling by the block size. The tiling cuts the first
    dimension into blocks of threads; with the dimensions of an op's loop
    nest kept apart, a leading unit dimension (common after a GEMM's
    [1, M, N] result) left one thread of 128 busy, and neighbouring threads
    walked the outermost dimension (uncoalesced). One flat dimension, whose
    index is split back into the original ones in row-major order, gives
    full blocks in which neighbouring threads touch neighbouring elements.
    Exact (upstream's collapseParallelLoops: same iteration space).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect"];
}

def GpuDeviceMemory : Pass<"kiln-gpu-device-memory", "mlir::func::FuncOp"> {
  let summary = "Allocate the host's buffers in device memory";
  let description = [{
    Runs on host functions after kernel outlining and before
    `gpu-async-region`: `memref.alloc` of a static shape becomes `gpu.alloc`
    and its `memref.dealloc` a `gpu.dealloc`; a `memref.get_global` (a
    constant) is copied into a device buffer with `gpu.memcpy` where the
    function starts using it, freed before each return. Then checks that no
    host op is left that would read or write a buffer (each is an error at
    the op): only kernels, the runtime GEMM and copies touch device memory.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect"];
}

def GpuLoopStreams : Pass<"kiln-gpu-loop-streams", "mlir::func::FuncOp"> {
  let summary = "Keep a host loop's launches on one stream across iterations";
  let description = [{
    Runs after `gpu-async-region`, which ends every block that launched work
    with a host synchronisation (`gpu.wait [%t]`) and starts the next with a
    new stream: a sequential scan would wait for the GPU once per iteration.
    Where an scf.for body's only synchronisation is that final wait, the
    stream's token becomes an iter_arg instead: the iterations queue on one
    stream and the host waits once, after the loop. Exact: work on one
    stream runs in issue order, which is the order the waits enforced.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect"];
}

#endif // KILN_REWRITES_GPU_PASSES_TD
