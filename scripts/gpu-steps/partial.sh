#!/usr/bin/env bash
# Partial correlation on the GPU (issue 34 item 3), run by scripts/gpu-check.sh's extra step as
#   bash scripts/gpu-steps/partial.sh BUILD_DIR OUT_DIR
# after a Release build with CUDA, tests and benchmarks: the GPU tests of the CUDA path
# (tests/gpu/test_cuda_partial.cpp, CUDA against CPU contexts; test_cuda_faults.cpp's
# PartialCorrelation, every CUDA call failed in turn) and the 1000 x 1200 benchmark
# (bench/partial_gpu_bench.py), which writes OUT_DIR/RESULTS-partial-gpu.md. The last line is the
# verdict; the exit status is non-zero when a test or the benchmark fails.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
py=/opt/torch/.venv/bin/python
[ -x "$py" ] || py=python3

tests_log="$out/partial-tests.log"
# -V: the test's own lines (the worst CUDA vs CPU difference) go into the log too.
run_step_tests '^gpu\.(CudaPartial\.|CudaFaults\.PartialCorrelation$)' "$tests_log" -V
worst=$(grep -o 'worst CUDA vs CPU |difference| / kappa_1(S): [0-9.e+-]*' "$tests_log" | tail -1 | awk '{print $NF}')

bench_log="$out/partial-bench.log"
"$py" bench/partial_gpu_bench.py --lib "$build/libfastconn.so" --reps 10 --require-cuda --out "$out/RESULTS-partial-gpu.md" >"$bench_log" 2>&1
bench_rc=$?
cat "$bench_log"
bench_line=$(tail -1 "$bench_log")
[ $bench_rc -ne 0 ] && bench_line="benchmark FAILED (rc $bench_rc): $bench_line"

echo "tests $step_tests passed (worst |CUDA - CPU| / kappa_1 ${worst:-n/a}); $bench_line"
[ "$step_tests_ok" = 1 ] && [ $bench_rc -eq 0 ]
