#!/usr/bin/env bash
# Row bands of the network primitives (issue 33), run on the GPU machine as
# `bash scripts/gpu-steps/graphrows.sh BUILD_DIR OUT_DIR` after a Release build with CUDA, tests
# and benchmarks:
#   1. the bands' tests, FASTCONN_REQUIRE_CUDA=1: tests/gpu/test_cuda_graph_bands.cpp (CUDA bands
#      joined == the CUDA whole call, bit for bit) and tests/cpp/test_graph_bands.cpp (the CPU's);
#   2. bench/gpu/bench_gpu_graph_bands: 90,112 x 165, each primitive's whole call on GPU 0 against
#      two bands on GPUs 0 and 1 at once, joined and compared byte for byte, into
#      OUT_DIR/RESULTS-graphrows.md.
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
status=0

run_step_tests 'gpu\..*CudaGraphBands|cpp\..*CpuGraphBands' "$out/graphrows-ctest.log" -j 4
[ "$step_tests_ok" = 1 ] || status=1

STEP_BENCH_TIMEOUT=300 run_step_bench graphrows "$out/graphrows-bench.log" "$build/bench/gpu/bench_gpu_graph_bands" \
  --markdown "$out/RESULTS-graphrows.md"
[ "$step_bench_ok" = 1 ] || status=1
echo "tests $step_tests passed; $step_verdict"
exit $status
