#!/usr/bin/env bash
# The test command: installs every package the tests use, builds fastconn with its tests, and
# runs the whole suite through CTest: C API tests, GoogleTest core/backend tests, header and
# symbol checks, consumer builds (find_package and pkg-config), Python, R and Octave bindings.
# GPU tests are labelled `gpu` and skip themselves without a device. Then the sanitizer runs
# (scripts/sanitize.sh all): the C and C++ tests under ASan+UBSan, each fuzzer for a fixed time,
# and the threading tests under TSan, each in its own build under <build>/asan and <build>/tsan.
#
# Tests and benchmarks are turned on explicitly: the build folder may come from scripts/demo.sh,
# which configures it without them (the cache would keep that). CTest fails when it finds no test.
#
# Environment: FASTCONN_BUILD_DIR (default build/), FASTCONN_SANITIZERS=0 skips the sanitizer
# runs, FASTCONN_CMAKE_ARGS adds configure arguments (word-split), FASTCONN_CONFIGURE_ONLY=1 stops
# after configuring, FASTCONN_SKIP_DEPS=1 skips install-deps.sh (tests/scripts uses these three to
# check the demo -> test order cheaply).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FASTCONN_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

[ "${FASTCONN_SKIP_DEPS:-0}" = 1 ] || "$root/scripts/install-deps.sh" test
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFASTCONN_BUILD_TESTS=ON -DFASTCONN_BUILD_BENCH=ON \
  ${FASTCONN_CMAKE_ARGS:-}
[ "${FASTCONN_CONFIGURE_ONLY:-0}" = 1 ] && exit 0
cmake --build "$build" -j"$jobs"

status=0
(cd "$build" && ctest --no-tests=error --output-on-failure -j"$jobs" --timeout 900) || status=1
if [ "${FASTCONN_SANITIZERS:-1}" != 0 ]; then
  FASTCONN_BUILD_DIR=$build "$root/scripts/sanitize.sh" all || status=1
fi
[ $status -eq 0 ] && echo "test.sh: all passed" || echo "test.sh: FAILED (see above)" >&2
exit $status
