#!/usr/bin/env bash
# The sanitizer and fuzzer runs of the test command (scripts/test.sh runs `sanitize.sh all` after
# the main suite). Each build is compiled by clang, without CUDA and without benchmarks, and
# takes only the test layers that run in one instrumented process (tests/c, tests/cpp,
# tests/fuzz): the Python, R and Octave interpreters are not built with the sanitizers.
#
#   scripts/sanitize.sh asan   <build>/asan: the library, the C API tests and the GoogleTest tests
#                              with -fsanitize=address,undefined -fno-sanitize-recover=all, and
#                              their whole CTest suite (leaks included)
#   scripts/sanitize.sh fuzz   the libFuzzer fuzzers of tests/fuzz (built in <build>/asan, with
#                              ASan+UBSan), FUZZ_SECONDS each (default 20), from tests/fuzz/corpus
#   scripts/sanitize.sh tsan   <build>/tsan: the library and tests/cpp/test_threads with
#                              -fsanitize=thread, run with OMP_NUM_THREADS=1
#   scripts/sanitize.sh all    asan, fuzz and tsan (the default)
#
# Any sanitizer report ends the program with a non-zero status, which fails its step and this
# script. OpenMP: the runtimes (libomp, and libgomp inside OpenBLAS) are not instrumented; ASan
# runs keep OpenMP (2 threads) but OpenBLAS single-threaded, and the TSan run uses one OpenMP
# thread, because TSan cannot see OpenMP's own synchronization and would report races inside it;
# the threads under test there are the callers' std::threads, each with its own context.
#
# Environment: FASTCONN_BUILD_DIR (default build/; the sanitizer builds go in its asan/ and tsan/),
# FUZZ_SECONDS, CC_SANITIZE / CXX_SANITIZE (default clang / clang++).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FASTCONN_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)
steps=${1:-all}
[ "$steps" = all ] && steps="asan fuzz tsan"
cc=${CC_SANITIZE:-clang}
cxx=${CXX_SANITIZE:-clang++}
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp}
# clang 14's TSan (and sometimes ASan) cannot map its shadow memory under the address-space
# randomization of recent kernels ("unexpected memory mapping"): run without it when we can.
norandom=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
  norandom=(setarch "$(uname -m)" -R)
fi

status=0
summary=()
step() { # name, seconds since start, rc
  local s="$1: $([ "$3" -eq 0 ] && echo ok || echo FAILED) ($2 s)"
  summary+=("$s"); echo "== sanitize.sh $s"
  [ "$3" -eq 0 ] || status=1
}

configure() { # dir, sanitizers, extra cmake arguments...
  local dir=$1 sanitize=$2
  shift 2
  CC=$cc CXX=$cxx cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFASTCONN_CUDA=OFF \
    -DFASTCONN_BUILD_TESTS=ON -DFASTCONN_BUILD_BENCH=OFF "-DFASTCONN_SANITIZE=$sanitize" "$@" >/dev/null
}

for s in $steps; do
  start=$(date +%s)
  case "$s" in
    asan)
      rc=0
      configure "$build/asan" address,undefined "-DFASTCONN_TEST_LAYERS=c;cpp;fuzz" -DFASTCONN_BUILD_FUZZERS=ON &&
        cmake --build "$build/asan" -j"$jobs" >"$build/asan-build.log" 2>&1 || { tail -40 "$build/asan-build.log"; rc=1; }
      if [ $rc -eq 0 ]; then
        (cd "$build/asan" && "${norandom[@]}" ctest --no-tests=error -LE fuzz --output-on-failure -j"$jobs" --timeout 900) || rc=1
      fi
      step "ASan+UBSan: C and C++ tests" $(( $(date +%s) - start )) $rc
      ;;
    fuzz)
      rc=0
      [ -f "$build/asan/CMakeCache.txt" ] || configure "$build/asan" address,undefined "-DFASTCONN_TEST_LAYERS=c;cpp;fuzz" \
        -DFASTCONN_BUILD_FUZZERS=ON || rc=1
      [ $rc -eq 0 ] && { cmake --build "$build/asan" -j"$jobs" >"$build/asan-build.log" 2>&1 || { tail -40 "$build/asan-build.log"; rc=1; }; }
      if [ $rc -eq 0 ]; then
        (cd "$build/asan" && FUZZ_SECONDS=${FUZZ_SECONDS:-20} "${norandom[@]}" ctest --no-tests=error -L fuzz --output-on-failure -j1 \
          --timeout 900) || rc=1
      fi
      step "libFuzzer (${FUZZ_SECONDS:-20} s each)" $(( $(date +%s) - start )) $rc
      ;;
    tsan)
      rc=0
      configure "$build/tsan" thread "-DFASTCONN_TEST_LAYERS=cpp" &&
        cmake --build "$build/tsan" -j"$jobs" --target test_threads >"$build/tsan-build.log" 2>&1 ||
        { tail -40 "$build/tsan-build.log"; rc=1; }
      if [ $rc -eq 0 ]; then
        OMP_NUM_THREADS=1 "${norandom[@]}" "$build/tsan/tests/cpp/test_threads" || rc=1
      fi
      step "TSan: threads" $(( $(date +%s) - start )) $rc
      ;;
    *)
      echo "usage: $0 [asan|fuzz|tsan|all]..." >&2
      exit 2
      ;;
  esac
done
printf '%s\n' "${summary[@]}"
exit $status
