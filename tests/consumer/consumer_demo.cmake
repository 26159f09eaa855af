# Builds examples/c against the staged install the way an outside project would, runs it on the
# bundled real fMRI data and checks what it prints. Run with cmake -P and:
#   MODE     find_package (the CMake package) or pkg_config (the shipped Makefile + fastconn.pc)
#   STAGE    the install prefix;  LIBDIR  its library directory, relative (lib, lib64, ...)
#   EXAMPLE  the examples/c source folder;  CSV  examples/data/fmri_timeseries.csv
#   WORK     a scratch build folder (emptied first);  CC  the C compiler;  GENERATOR  CMake's
cmake_minimum_required(VERSION 3.16)

function(run_checked)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(REAL_PATH ${STAGE} stage_real)

if(MODE STREQUAL "find_package")
  run_checked(${CMAKE_COMMAND} -S ${EXAMPLE} -B ${WORK} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
              -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${STAGE})
  # the package found must be the staged one, not some fastconn installed on the machine
  file(STRINGS ${WORK}/CMakeCache.txt found_dir REGEX "^fastconn_DIR:")
  string(REGEX REPLACE "^[^=]*=" "" found_dir "${found_dir}")
  file(REAL_PATH "${found_dir}" found_real)
  if(NOT found_real MATCHES "^${stage_real}/")
    message(FATAL_ERROR "find_package(fastconn) found ${found_dir}, not the staged install under ${STAGE}")
  endif()
  run_checked(${CMAKE_COMMAND} --build ${WORK})
elseif(MODE STREQUAL "pkg_config")
  set(ENV{PKG_CONFIG_PATH} ${STAGE}/${LIBDIR}/pkgconfig)
  execute_process(COMMAND pkg-config --variable=libdir fastconn OUTPUT_VARIABLE pc_libdir
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config does not find fastconn in ${STAGE}/${LIBDIR}/pkgconfig")
  endif()
  file(REAL_PATH "${pc_libdir}" pc_libdir_real)
  file(REAL_PATH "${STAGE}/${LIBDIR}" stage_libdir_real)
  if(NOT pc_libdir_real STREQUAL stage_libdir_real)
    message(FATAL_ERROR "the staged fastconn.pc points its libdir at ${pc_libdir}, not at the install's own "
                        "${STAGE}/${LIBDIR}: the .pc file is not relocatable (prefix fixed at configure time)")
  endif()
  run_checked(make -f ${EXAMPLE}/Makefile CC=${CC})
else()
  message(FATAL_ERROR "MODE must be find_package or pkg_config, not '${MODE}'")
endif()

set(demo ${WORK}/fastconn_roi_demo)
execute_process(COMMAND ${demo} ${CSV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the demo exited with ${rc}")
endif()
if(NOT out MATCHES "backend: (CPU|CUDA)\n")
  message(FATAL_ERROR "the demo does not say which backend it ran on")
endif()
if(NOT out MATCHES "250 time points, 31 columns, 28 regions")
  message(FATAL_ERROR "the demo did not read 250 x 31 values and keep the 28 regions")
endif()

# The network section, against numpy float64 on the same CSV: 25 pairs have |r| >= 0.5 (none within
# 4.8e-4 of it), and LPut has the largest degree, 3, with strength (sum of |r|) 1.694.
if(NOT out MATCHES "network at \\|r\\| >= 0.5: 28 regions, 25 edges; most connected: LPut \\(degree 3, strength 1.694\\)")
  message(FATAL_ERROR "the demo's network line disagrees with numpy (25 edges; LPut, degree 3, strength 1.694)")
endif()

# The 10 strongest of the 378 pairs of the 28 regions, from numpy in float64 on the same CSV:
#   x = np.loadtxt(csv, delimiter=",", skiprows=1)[:, 3:]; r = np.corrcoef(x.T)[np.triu_indices(28, 1)]
# Homologous left/right regions lead (precuneus, paracingulate, posterior cingulate, frontal
# pole; thalamus 6th), as expected at rest. No r lies within 1e-5 of a 4-decimal rounding edge.
set(expected
  "1 LPrec RPrec +0.8622" "2 LParaCing RParaCing +0.8405" "3 LPCC RPCC +0.8374" "4 LFpol RFpol +0.8348"
  "5 RAntPHG RAmy +0.7505" "6 LThal RThal +0.7346" "7 RHip RAmy +0.7277" "8 RAng RSupraM +0.6834"
  "9 RHip RAntPHG +0.6605" "10 LPrec RPCC +0.6596")
foreach(line IN LISTS expected)
  string(REPLACE " " ";" f "${line}")
  list(GET f 0 rank)
  list(GET f 1 a)
  list(GET f 2 b)
  list(GET f 3 r)
  string(REPLACE "." "\\." r_regex "${r}")
  string(REPLACE "+" "\\+" r_regex "${r_regex}")
  if(NOT out MATCHES "\n *${rank} +${a} +${b} +${r_regex}\n")
    message(FATAL_ERROR "expected rank ${rank}: ${a} - ${b}, r = ${r} (numpy float64)")
  endif()
endforeach()
string(REGEX MATCHALL "\n *[0-9]+ +L([A-Za-z]+) +R([A-Za-z]+) +" pairs "${out}")
set(homologues 0)
foreach(p IN LISTS pairs)
  if(p MATCHES "L([A-Za-z]+) +R([A-Za-z]+)" AND CMAKE_MATCH_1 STREQUAL CMAKE_MATCH_2)
    math(EXPR homologues "${homologues} + 1")
  endif()
endforeach()
if(homologues LESS 5)
  message(FATAL_ERROR "only ${homologues} left/right homologous pairs among the top 10; numpy finds 5")
endif()

# A failure inside fastconn: the demo exits non-zero and prints fastconn's reason.
file(WRITE ${WORK}/bad.csv "A,B,C\n1,2,3\n2,nan,1\n3,1,2\n4,0,5\n")
execute_process(COMMAND ${demo} ${WORK}/bad.csv RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "FC_ERR_NONFINITE_INPUT" OR NOT err MATCHES "series 1 ")
  message(FATAL_ERROR "a NaN in column B should fail naming series 1; got exit ${rc}:\n${out}${err}")
endif()
message(STATUS "consumer build through ${MODE}: the demo's top 10 match numpy; ${homologues} homologous pairs")
