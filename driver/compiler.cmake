# KilnCompiler: kiln::Compiler / kiln::Executable (lax -> JIT). Linked
# explicitly by its users (kiln-run); unit tests get it via KILN_LIBRARIES.
add_library(KilnCompiler ${CMAKE_CURRENT_LIST_DIR}/Compiler.cpp
            ${CMAKE_CURRENT_LIST_DIR}/CompilerRun.cpp
            ${CMAKE_CURRENT_LIST_DIR}/CompileCache.cpp
            ${CMAKE_CURRENT_LIST_DIR}/GpuCall.cpp
            ${CMAKE_CURRENT_LIST_DIR}/HostJit.cpp)
target_link_libraries(KilnCompiler PUBLIC KilnRegistration MLIRExecutionEngineShared
                      ${KILN_MLIR_LIBS})
if(TARGET KilnRuntimeCpu)
  add_dependencies(KilnCompiler KilnRuntimeCpu)
  target_compile_definitions(KilnCompiler PRIVATE
    KILN_RUNTIME_CPU_PATH="$<TARGET_FILE:KilnRuntimeCpu>")
endif()
# Target::Gpu opens the GPU runtime by path (it is built when CUDA's headers
# are there; it opens the driver itself at run time).
if(TARGET KilnRuntimeGpu)
  add_dependencies(KilnCompiler KilnRuntimeGpu)
  target_compile_definitions(KilnCompiler PRIVATE
    KILN_RUNTIME_GPU_PATH="$<TARGET_FILE:KilnRuntimeGpu>")
endif()
target_link_libraries(KilnCompiler PRIVATE KilnGpu ${CMAKE_DL_LIBS})
set_property(GLOBAL APPEND PROPERTY KILN_LIBRARIES KilnCompiler)

# Parallel loops lower to MLIR's async runtime; the JIT loads it beside ours.
find_library(KILN_MLIR_ASYNC_RUNTIME mlir_async_runtime PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH)
if(KILN_MLIR_ASYNC_RUNTIME)
  target_compile_definitions(KilnCompiler PRIVATE KILN_ASYNC_RUNTIME_PATH="${KILN_MLIR_ASYNC_RUNTIME}")
endif()
