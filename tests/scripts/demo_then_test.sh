#!/bin/sh
# README order, cheaply: scripts/demo.sh configures a build folder without tests, then
# scripts/test.sh configures the same folder; the cache must then hold the tests and benchmarks
# and the same test folders as a fresh test build. Both scripts stop after configuring
# (FASTCONN_CONFIGURE_ONLY=1), skip package installs and CUDA (nvcc's checks cost time here).
#   demo_then_test.sh SOURCE_DIR SCRATCH_BUILD_DIR THIS_BUILD_DIR
set -eu
root=$1
scratch=$2
main=$3
fail() { echo "demo_then_test: $*" >&2; exit 1; }

rm -rf "$scratch"
export FASTCONN_BUILD_DIR="$scratch" FASTCONN_CONFIGURE_ONLY=1 FASTCONN_SKIP_DEPS=1 FASTCONN_CMAKE_ARGS=-DFASTCONN_CUDA=OFF
bash "$root/scripts/demo.sh" >"$scratch.demo.log" 2>&1 || { cat "$scratch.demo.log"; fail "demo.sh failed"; }
grep -q '^FASTCONN_BUILD_TESTS:BOOL=OFF$' "$scratch/CMakeCache.txt" ||
  fail "demo.sh no longer configures without tests: this check no longer covers the README order"
bash "$root/scripts/test.sh" >"$scratch.test.log" 2>&1 || { cat "$scratch.test.log"; fail "test.sh failed to configure"; }
grep -q '^FASTCONN_BUILD_TESTS:BOOL=ON$' "$scratch/CMakeCache.txt" || fail "after demo.sh, test.sh left FASTCONN_BUILD_TESTS off"
grep -q '^FASTCONN_BUILD_BENCH:BOOL=ON$' "$scratch/CMakeCache.txt" || fail "after demo.sh, test.sh left FASTCONN_BUILD_BENCH off"
[ -f "$scratch/tests/CTestTestfile.cmake" ] || fail "no tests configured in $scratch"
got=$(grep '^subdirs' "$scratch/tests/CTestTestfile.cmake" | sed 's|"[^"]*/tests/|"|' | sort)
want=$(grep '^subdirs' "$main/tests/CTestTestfile.cmake" | sed 's|"[^"]*/tests/|"|' | sort)
[ -n "$got" ] && [ "$got" = "$want" ] || fail "test folders after demo -> test: $got; in a fresh test build: $want"
grep -q -- '--no-tests=error' "$root/scripts/test.sh" || fail "scripts/test.sh must run ctest --no-tests=error"
echo "demo_then_test: after demo.sh, test.sh configures tests and benchmarks, with the test folders of a fresh build:"
echo "$got"
rm -rf "$scratch" "$scratch.demo.log" "$scratch.test.log"
