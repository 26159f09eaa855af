#!/usr/bin/env bash
# The demo command: installs what the build needs, builds fastconn, installs it into
# build/stage, builds the C example as an outside consumer (find_package), and prints the 10
# strongest correlations between the 28 brain regions of a real resting-state fMRI scan, then
# the network at |r| >= 0.5 and its most connected region (fc_pcc_graph, fc_pcc_degree); then
# the command-line program's degree map of the bundled 4D NIfTI scan (build/demo/degree.nii.gz).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FASTCONN_BUILD_DIR:-$root/build}
jobs=$(nproc 2>/dev/null || echo 2)

[ "${FASTCONN_SKIP_DEPS:-0}" = 1 ] || "$root/scripts/install-deps.sh" build
# shellcheck disable=SC2086  (FASTCONN_CMAKE_ARGS, FASTCONN_CONFIGURE_ONLY: see scripts/test.sh)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFASTCONN_BUILD_TESTS=OFF -DFASTCONN_BUILD_BENCH=OFF \
  ${FASTCONN_CMAKE_ARGS:-} >/dev/null
[ "${FASTCONN_CONFIGURE_ONLY:-0}" = 1 ] && exit 0
cmake --build "$build" -j"$jobs" >/dev/null
cmake --install "$build" --prefix "$build/stage" >/dev/null
cmake -S "$root/examples/c" -B "$build/examples-c" -DCMAKE_PREFIX_PATH="$build/stage" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/examples-c" >/dev/null
"$build/examples-c/fastconn_roi_demo" "$root/examples/data/fmri_timeseries.csv"

# The command-line program on the bundled 4D scan (built when libnifti2 is there, which the
# build packages include): a degree-centrality map as NIfTI with its JSON sidecar.
if [ -x "$build/tools/cli/fastconn" ]; then
  echo
  echo "Degree centrality map of the bundled 4D scan (tests/data/fmri1.nii.gz), |r| >= 0.5:"
  mkdir -p "$build/demo"
  "$build/tools/cli/fastconn" degree "$root/tests/data/fmri1.nii.gz" --automask --threshold 0.5 \
    -o "$build/demo/degree.nii.gz" --force
fi
