# kiln-verify-rules: every rule checked numerically with the interpreter.
add_executable(kiln-verify-rules ${CMAKE_CURRENT_LIST_DIR}/kiln-verify-rules.cpp)
target_link_libraries(kiln-verify-rules PRIVATE KilnRegistration)
