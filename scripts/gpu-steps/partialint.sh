#!/usr/bin/env bash
# Issue 34's CPU partial-correlation bar on the GPU machine's host (an Intel Xeon whose Debian
# OpenBLAS 0.3.21 runs Prescott kernels: the CI machine kind of issue 30), as
#   bash scripts/gpu-steps/partialint.sh BUILD_DIR OUT_DIR
# after a Release build with tests. Runs the C partial-correlation test and the float64 products'
# test (cpp.DenseProducts, every ISA path it has), then bench/partial_bench.py on two cores
# (taskset -c 0,1) under the carried Debian Python (tools/debian-python: numpy 1.24 on Debian's
# OpenBLAS) with scikit-learn from its addon (tools/debian-python/make-sklearn-addon.sh, carried as
# .gpu-python/sklearn-addon.tar.xz): sklearn's LedoitWolf + np.linalg.inv as a user of that machine
# runs them, against fastconn's fc_partial_correlation from BUILD_DIR's libfastconn.so, which the
# same Python loads with Debian's OpenBLAS first on the library path (its LAPACK leaves). Writes
# OUT_DIR/RESULTS-partial-intel.md. Last line: the verdict; non-zero exit on any failure.
# PARTIALINT_ARGS: more partial_bench.py arguments (e.g. "--reps 5").
set -u
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
debpy=$root/tools/debian-python/debpy.sh
status=0

run_step_tests '^c_partial$|cpp\.DenseProducts\.' "$out/partialint-tests.log"
[ "$step_tests_ok" = 1 ] || status=1
tests="tests $step_tests passed"

lib=$(find "$build" -maxdepth 1 -name 'libfastconn.so' | head -1)
[ -n "$lib" ] || { echo "partialint: no libfastconn.so in $build"; echo "$tests; no library"; exit 1; }
if ! bash "$debpy" -c 'import sklearn, numpy; print("sklearn", sklearn.__version__, "numpy", numpy.__version__)'; then
  echo "$tests; the carried Debian Python has no scikit-learn (carry .gpu-python with sklearn-addon.tar.xz)"
  exit 1
fi
echo "CPU: $(lscpu | sed -nE 's/^Model name: +//p' | head -1), family $(lscpu | sed -nE 's/^CPU family: +//p'), model $(lscpu | sed -nE 's/^Model: +//p'); pinned to cores 0,1"
bash "$debpy" -c "import ctypes; l = ctypes.CDLL('$lib'); l.fc_cpu_info.restype = ctypes.c_char_p; print('fastconn:', l.fc_cpu_info().decode())"
timeout 400 taskset -c 0,1 bash "$debpy" "$root/bench/partial_bench.py" --lib "$lib" --threads 2 --reps 15 \
  --out "$out/RESULTS-partial-intel.md" ${PARTIALINT_ARGS:-} 2>&1 | tee "$out/partialint-bench.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
row=$(grep -E '^\| [0-9]+ x [0-9]+ \|' "$out/RESULTS-partial-intel.md" 2>/dev/null | tail -1)
[ -n "$row" ] || status=1
echo "$tests; partial correlation on 2 cores: $(awk -F'|' '{gsub(/ /, "", $4); gsub(/ /, "", $5); gsub(/[ *]/, "", $6); print "fastconn " $4 " s, sklearn + inv " $5 " s, " $6}' <<<"$row")"
exit $status
