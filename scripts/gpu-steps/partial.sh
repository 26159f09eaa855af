#!/usr/bin/env bash
# Partial correlation on the GPU (issue 34 item 3), run by scripts/gpu-check.sh's extra step as
#   bash scripts/gpu-steps/partial.sh BUILD_DIR OUT_DIR
# after a Release build with CUDA, tests and benchmarks: the GPU tests of the CUDA path
# (tests/gpu/test_cuda_partial.cpp, CUDA against CPU contexts; test_cuda_faults.cpp's
# PartialCorrelation, every CUDA call failed in turn) and the 1000 x 1200 benchmark
# (bench/partial_gpu_bench.py), which writes OUT_DIR/RESULTS-partial-gpu.md. The last line is the
# verdict; the exit status is non-zero when a test or the benchmark fails.
set -uo pipefail
build=${1:?usage: partial.sh BUILD_DIR OUT_DIR}
out=${2:?usage: partial.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
py=/opt/torch/.venv/bin/python
[ -x "$py" ] || py=python3

tests_log="$out/partial-tests.log"
# -V: the test's own lines (the worst CUDA vs CPU difference) go into the log too.
FASTCONN_REQUIRE_CUDA=1 ctest --test-dir "$build" -R '^gpu\.(CudaPartial\.|CudaFaults\.PartialCorrelation$)' -V --output-on-failure >"$tests_log" 2>&1
tests_rc=$?
cat "$tests_log"
# ctest's summary: "100% tests passed, 0 tests failed out of 5"
summary=$(grep -E 'tests passed, [0-9]+ tests? failed out of' "$tests_log" | tail -1)
total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$summary")
failed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$summary")
if [ -z "$summary" ]; then total=0; failed=0; tests_rc=1; fi
worst=$(grep -o 'worst CUDA vs CPU |difference| / kappa_1(S): [0-9.e+-]*' "$tests_log" | tail -1 | awk '{print $NF}')

bench_log="$out/partial-bench.log"
"$py" bench/partial_gpu_bench.py --lib "$build/libfastconn.so" --reps 10 --require-cuda --out "$out/RESULTS-partial-gpu.md" >"$bench_log" 2>&1
bench_rc=$?
cat "$bench_log"
bench_line=$(tail -1 "$bench_log")
[ $bench_rc -ne 0 ] && bench_line="benchmark FAILED (rc $bench_rc): $bench_line"

echo "tests $((total - failed))/$total passed (worst |CUDA - CPU| / kappa_1 ${worst:-n/a}); $bench_line"
[ $tests_rc -eq 0 ] && [ $bench_rc -eq 0 ]
