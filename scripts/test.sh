#!/usr/bin/env bash
# The test command: installs every package the tests use, builds fastconn with its tests, and
# runs the whole suite through CTest: C API tests, GoogleTest core/backend tests, header and
# symbol checks, consumer builds (find_package and pkg-config), Python, R and Octave bindings.
# GPU tests are labelled `gpu` and skip themselves without a device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FASTCONN_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

"$root/scripts/install-deps.sh" test
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j"$jobs"
cd "$build"
ctest --output-on-failure -j"$jobs" --timeout 900
