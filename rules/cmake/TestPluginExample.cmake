# ctest plugin-example-out-of-tree: install Kiln into a temporary prefix,
# build examples/plugin against it with its own CMakeLists.txt, and check that
# the installed kiln-opt runs the plugin's rule, pattern and pass.
set(tmp ${BUILD_DIR}/plugin-example-test)
file(REMOVE_RECURSE ${tmp})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${tmp}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/plugin -B ${tmp}/build -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${tmp}/prefix -DMLIR_DIR=${MLIR_DIR})
run(${CMAKE_COMMAND} --build ${tmp}/build)
file(WRITE ${tmp}/in.mlir [[
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.integer_pow %0 y = 2 : tensor<4xf32>
  %2 = lax.rev %1 dims = [0] : tensor<4xf32>
  %3 = lax.rev %2 dims = [0] : tensor<4xf32>
  return %3 : tensor<4xf32>
}
]])
run(${tmp}/prefix/bin/kiln-opt --plugin=${tmp}/build/libKilnExamplePlugin.so
    --kiln-apply-rules --example-count-ops --rule-stats ${tmp}/in.mlir)
foreach(expected "lax.integer_pow %arg0 y = 2" "even-power-of-neg: 1" "plugin-rev-rev: 1"
        "example plugin: 4 ops")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${out}")
  endif()
endforeach()
if(out MATCHES "lax.neg|lax.rev")
  message(FATAL_ERROR "neg/rev left in:\n${out}")
endif()
# The plugin's push-up pattern: the elementwise consumer and the (exact)
# max reduction of a scan's stacked output move into the scan.
file(WRITE ${tmp}/scan.mlir [[
func.func @g(%c0: tensor<3xf32>, %xs: tensor<5x3xf32>) -> tensor<3xf32> {
  %c, %ys = lax.scan length = 5 carry(%c0) xs(%xs) : (tensor<3xf32>, tensor<5x3xf32>) -> (tensor<3xf32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<3xf32>, %x: tensor<3xf32>):
    %s = lax.add %a, %x : tensor<3xf32>
    lax.yield %s, %s : tensor<3xf32>, tensor<3xf32>
  }
  %e = lax.exp %ys : tensor<5x3xf32>
  %r = lax.reduce_max %e axes = [0] : tensor<5x3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
]])
run(${tmp}/prefix/bin/kiln-opt --plugin=${tmp}/build/libKilnExamplePlugin.so
    --kiln-apply-rules --canonicalize --rule-stats ${tmp}/scan.mlir)
foreach(expected "plugin-scan-pushup: 2" "lax.exp" "lax.max")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in:\n${out}")
  endif()
endforeach()
if(out MATCHES "lax.reduce_max|tensor<5x3xf32> -> tensor<3xf32>")
  message(FATAL_ERROR "the reduction was not pushed into the scan:\n${out}")
endif()
message(STATUS "plugin example OK")
