# The README's C snippet (its first ```c block) is a complete program: written out exactly as it
# stands in README.md, compiled through pkg-config against the staged install (with an rpath, as
# the stage is not in the loader's path), and run. Also: only the installed or staged fastconn.pc
# is findable (the build folder holds none that pkg-config would pick up).
#   cmake -DREADME=... -DSTAGE=... -DLIBDIR=lib -DCC=cc -DWORK=... -DBUILD=... -P readme_snippet.cmake
cmake_minimum_required(VERSION 3.16)
file(READ ${README} text)
string(FIND "${text}" "```c\n" begin)
if(begin EQUAL -1)
  message(FATAL_ERROR "README.md has no ```c block")
endif()
math(EXPR begin "${begin} + 5")
string(SUBSTRING "${text}" ${begin} -1 rest)
string(FIND "${rest}" "\n```" end)
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} snippet)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/readme_example.c "${snippet}")

# PKG_CONFIG_LIBDIR replaces pkg-config's search path (PKG_CONFIG_PATH only goes before it), so a
# fastconn installed in /usr/local (the README's install) is not found instead of the folder named.
unset(ENV{PKG_CONFIG_PATH})
if(EXISTS ${BUILD}/fastconn.pc)
  message(FATAL_ERROR "${BUILD}/fastconn.pc exists: a .pc for a prefix that does not exist yet")
endif()
set(ENV{PKG_CONFIG_LIBDIR} ${BUILD})
execute_process(COMMAND pkg-config --exists fastconn RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "pkg-config finds a fastconn.pc in the build folder ${BUILD}; only installs should have one")
endif()

set(ENV{PKG_CONFIG_LIBDIR} ${STAGE}/${LIBDIR}/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs fastconn OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find the staged fastconn.pc")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CC} -std=c99 -pedantic -Wall -Wextra -Werror readme_example.c ${flags}
                        -Wl,-rpath,${STAGE}/${LIBDIR} -o readme_example
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's C snippet does not compile as written:\n${out}${err}\n--- snippet ---\n${snippet}")
endif()
execute_process(COMMAND ${WORK}/readme_example RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's C program exited with ${rc}")
endif()
if(NOT out MATCHES "r\\(0, 1\\) = [-+][01]\\.[0-9]+")
  message(FATAL_ERROR "the README's C program did not print r(0, 1)")
endif()
