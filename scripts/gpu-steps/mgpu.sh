#!/usr/bin/env bash
# A context over several GPUs (issue 33 item 1), run on the 2-GPU machine as
# `bash scripts/gpu-steps/mgpu.sh BUILD_DIR OUT_DIR` after a Release build with CUDA, tests and
# benchmarks:
#   1. tests/gpu/test_cuda_multi.cpp (every call on devices {0, 1} and on all devices equal to
#      device 0 alone, bit for bit, the window graphs a window per device among them; argument
#      errors; a failure injected on device 1) and the split backend's CPU tests
#      (tests/cpp/test_split.cpp and test_split_windows.cpp with FASTCONN_SPLIT_CPU,
#      test_part_threads), FASTCONN_REQUIRE_CUDA=1;
#   2. bench/gpu/bench_gpu_multi: degree map 1,000,000 x 200, the 150,000 x 200 triangle into
#      pinned memory (45 GB; MGPU_TRIANGLE_N sets N) and the sliding-window graphs of Table II's shape (30,697 x 257, 108
#      windows, r >= 0.7, a window per GPU) on 1 GPU and on all, with the D2H links and host write
#      bandwidth measured in the same run, into OUT_DIR/RESULTS-multi.md.
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
status=0

nvidia-smi -L 2>/dev/null | tee "$out/mgpu-gpus.txt"
export FASTCONN_MULTI_TIMINGS="$out/mgpu-call-seconds.txt"  # the 20,000-series test's calls, timed
rm -f "$FASTCONN_MULTI_TIMINGS"
run_step_tests 'gpu\.CudaMulti\.|cpp\.Split|cpp\.PartThreads\.|cpp\.RowBands\.' "$out/mgpu-ctest.log"
[ "$step_tests_ok" = 1 ] || status=1

# 360 s: the window graphs' case digests every window's CSR (about 12 GB per context) besides its timings
STEP_BENCH_TIMEOUT=360 run_step_bench mgpu "$out/mgpu-bench.log" "$build/bench/gpu/bench_gpu_multi" \
  --degree-n 1000000 --triangle-n ${MGPU_TRIANGLE_N:-150000} --windows-n 30697 --reps 2 --markdown "$out/RESULTS-multi.md"
[ "$step_bench_ok" = 1 ] || status=1
# the results file in the log too (bench/RESULTS-multi.md is committed from it)
[ -f "$out/RESULTS-multi.md" ] && { echo "----- RESULTS-multi.md -----"; cat "$out/RESULTS-multi.md"; }
[ -f "$out/RESULTS-multi.md" ] && cp "$out/RESULTS-multi.md" "$out/mgpu-results.txt"  # steps' .txt files are shown
verdict=$step_verdict
echo "tests $step_tests passed; $verdict"
exit $status
