# kiln-run: run a lax program with the LLVM JIT (kiln::Compiler) or the
# reference interpreter, with .npy inputs and outputs.
add_executable(kiln-run ${CMAKE_CURRENT_LIST_DIR}/kiln-run.cpp ${CMAKE_CURRENT_LIST_DIR}/RunSupport.cpp)
target_link_libraries(kiln-run PRIVATE KilnCompiler KilnRegistration)
