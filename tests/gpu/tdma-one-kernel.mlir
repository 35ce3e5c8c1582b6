// Seed 003 on the GPU, compile-only (no GPU needed): the two TDMA sweeps
// become ONE kernel, a thread per system running both scans; the host
// allocates the scratch in device memory, launches the kernel once (no loop,
// so no launch per iteration) and synchronises once.
// RUN: kiln-opt --kiln-lower-gpu %examples/seeds/seed003_tdma.mlir | FileCheck %s
// CHECK-LABEL: llvm.func @tdma(
// CHECK-NOT: llvm.br
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.call @mgpuStreamCreate()
// CHECK: llvm.call @mgpuMemAlloc(
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @tdma_kernel::@tdma_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK-NOT: llvm.br
// CHECK: llvm.call @mgpuMemFree(
// CHECK: llvm.call @mgpuStreamSynchronize(
// CHECK-NOT: llvm.call @mgpuStreamSynchronize(
// CHECK: llvm.return
// CHECK: gpu.binary @tdma_kernel {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80">
// CHECK-SAME: .entry tdma_kernel
// CHECK-NOT: .entry

// The kernel IR before NVVM: one gpu.func whose body loops over the steps.
// RUN: kiln-opt --pass-pipeline="builtin.module(func.func(kiln-fold-scan-layout,canonicalize,kiln-scan-to-parallel-loops,canonicalize),one-shot-bufferize{bufferize-function-boundaries=1},canonicalize,func.func(scf-parallel-loop-tiling{parallel-loop-tile-sizes=128 no-min-max-bounds=1},gpu-map-parallel-loops,convert-parallel-loops-to-gpu),gpu-kernel-outlining,canonicalize)" %examples/seeds/seed003_tdma.mlir | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch_func @tdma_kernel::@tdma_kernel blocks in (%c8, %c1, %c1) threads in (%c128, %c1, %c1)
// KERNEL: gpu.module @tdma_kernel
// KERNEL-COUNT-1: gpu.func @tdma_kernel
// KERNEL: scf.for
// KERNEL: arith.divf
// KERNEL: scf.for
// KERNEL: gpu.return
