# kiln-translate: mlir-translate with Kiln's translations (--import-jaxpr).
add_executable(kiln-translate ${CMAKE_CURRENT_LIST_DIR}/kiln-translate.cpp)
target_link_libraries(kiln-translate PRIVATE KilnRegistration)
