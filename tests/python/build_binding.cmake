# Configures and builds bindings/python against the staged install (run by the test
# python_binding_build with -D SOURCE_DIR, BINARY_DIR, FASTCONN_STAGE, PYTHON).
foreach(var SOURCE_DIR BINARY_DIR FASTCONN_STAGE PYTHON)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "build_binding.cmake needs -D${var}=...")
  endif()
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -DCMAKE_BUILD_TYPE=Release
          -DFASTCONN_STAGE=${FASTCONN_STAGE} -DPython3_EXECUTABLE=${PYTHON}
  COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} -j2 COMMAND_ERROR_IS_FATAL ANY)
