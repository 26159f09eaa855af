#!/usr/bin/env bash
# The compact value formats on the GPU (issue 32 item 2), run by scripts/gpu-check.sh's extra step
# as `bash scripts/gpu-steps/compact.sh BUILD_DIR OUT_DIR` after a Release build with CUDA, tests
# and benchmarks:
#   1. the GPU tests of the compact outputs (tests/gpu/test_cuda_compact.cpp: every code equal to
#      the CPU context's), the C and C++ tests of the codes, with FASTCONN_REQUIRE_CUDA=1;
#   2. bench/gpu/bench_gpu_compact: the 90,112 x 165 triangle into pinned memory as float, int16
#      and half, next to the D2H floors of 4 and 2 bytes a pair, into OUT_DIR/RESULTS-compact.md.
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
status=0

run_step_tests 'gpu\.CudaCompact|cpp\.Compact|^c_compact$' "$out/compact-ctest.log"
[ "$step_tests_ok" = 1 ] || status=1

run_step_bench compact "$out/compact-bench.log" "$build/bench/gpu/bench_gpu_compact" --markdown "$out/RESULTS-compact.md"
[ "$step_bench_ok" = 1 ] || status=1
verdict=$step_verdict
echo "tests $step_tests passed; $verdict"
exit $status
