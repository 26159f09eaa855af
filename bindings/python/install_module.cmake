# Installs the Python module fastconn during `cmake --install` (top-level option
# FASTCONN_INSTALL_PYTHON): pip, offline and without build isolation, from a copy of bindings/python
# (its links to the sample data followed), built against the fastconn.pc this install has just
# written, into the folder of FASTCONN_PYTHON's sys.path that lies under the install prefix (Debian:
# /usr/local/lib/python3.X/dist-packages for /usr/local), or FASTCONN_PYTHON_DIR when given. With
# DESTDIR the files go under it while the extension's RPATH names the final library folder. The
# files are added to install_manifest.txt.
#   cmake -DCMAKE_INSTALL_PREFIX=... -DFASTCONN_PYTHON=/usr/bin/python3 -DFASTCONN_PYTHON_SOURCE=.../bindings/python
#         -DFASTCONN_PYTHON_WORK=<scratch folder> -DFASTCONN_PYTHON_LIBDIR=lib [-DFASTCONN_PYTHON_DIR=...] -P install_module.cmake
foreach(var FASTCONN_PYTHON FASTCONN_PYTHON_SOURCE FASTCONN_PYTHON_WORK FASTCONN_PYTHON_LIBDIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_module.cmake needs -D${var}=...")
  endif()
endforeach()
set(fastconn_prefix "${CMAKE_INSTALL_PREFIX}")
set(fastconn_destdir "$ENV{DESTDIR}")

if(NOT FASTCONN_PYTHON_DIR)
  # the site folder the interpreter searches under the prefix, else the prefix's usual one
  execute_process(
    COMMAND ${FASTCONN_PYTHON} -c [[
import os, sys, sysconfig
prefix = os.path.normpath(sys.argv[1])
found = [p for p in sys.path if p.endswith("-packages") and os.path.normpath(p).startswith(prefix + os.sep)]
print(found[0] if found else sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
]] "${fastconn_prefix}"
    OUTPUT_VARIABLE FASTCONN_PYTHON_DIR OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
endif()
set(fastconn_target "${fastconn_destdir}${FASTCONN_PYTHON_DIR}")

file(REMOVE_RECURSE "${FASTCONN_PYTHON_WORK}")
file(MAKE_DIRECTORY "${FASTCONN_PYTHON_WORK}")
execute_process(COMMAND cp -RL "${FASTCONN_PYTHON_SOURCE}" "${FASTCONN_PYTHON_WORK}/source" COMMAND_ERROR_IS_FATAL ANY)
file(REMOVE_RECURSE "${FASTCONN_PYTHON_WORK}/source/tests" "${FASTCONN_PYTHON_WORK}/source/build"
     "${FASTCONN_PYTHON_WORK}/source/fastconn.egg-info")

unset(ENV{PKG_CONFIG_PATH})
set(ENV{PKG_CONFIG_LIBDIR} "${fastconn_destdir}${fastconn_prefix}/${FASTCONN_PYTHON_LIBDIR}/pkgconfig")
set(ENV{FASTCONN_PYTHON_RPATH} "${fastconn_prefix}/${FASTCONN_PYTHON_LIBDIR}")
message(STATUS "Installing the Python module fastconn into ${fastconn_target} (pip, ${FASTCONN_PYTHON})")
execute_process(
  COMMAND ${FASTCONN_PYTHON} -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir --upgrade
          --disable-pip-version-check --target "${fastconn_target}" "${FASTCONN_PYTHON_WORK}/source"
  RESULT_VARIABLE fastconn_rc OUTPUT_VARIABLE fastconn_output ERROR_VARIABLE fastconn_output)
if(NOT fastconn_rc EQUAL 0)
  message(FATAL_ERROR "pip could not install the Python module fastconn:\n${fastconn_output}")
endif()
file(GLOB_RECURSE fastconn_files "${fastconn_target}/fastconn/*" "${fastconn_target}/fastconn-*.dist-info/*")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES ${fastconn_files})
