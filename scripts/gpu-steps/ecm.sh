#!/usr/bin/env bash
# Fast ECM with its eigensolve on the device (issue 34: 1,000,000 x 200 in <= 0.1 s on the H100).
# The GPU tests that cover it: tests/gpu/test_cuda_ecm.cpp (the same bits as the CPU backend,
# progress and cancellation, out of device memory), test_cuda_faults's FastEcm (each CUDA call
# failed in turn), test_centrality's CUDA instances, test_same_bits (fast ECM among its calls) and
# the modules' device space (it shares cuda_eigen_space.cpp). Then bench/gpu/bench_gpu_ecm at
# 1,000,000 x 200 and 90,112 x 165 with its floor measured in the same run, its table into
# OUT_DIR/RESULTS-ecm-gpu.md. Last line: the verdict.
#   bash scripts/gpu-steps/ecm.sh BUILD_DIR OUT_DIR
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader 2>&1 | head -2
echo "host CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"

regex='CudaEcm|Centrality|CudaModularity|SameBits|CudaFaults.FastEcm'
run_step_tests "$regex" "$out/ecm-tests.log"

bench="$build/bench/gpu/bench_gpu_ecm"
bench_rc=1
if [ -x "$bench" ]; then
  "$bench" --sizes 1000000x200,90112x165 --reps 5 --cpu-threads "$(nproc)" --md "$out/RESULTS-ecm-gpu.md" 2>&1 |
    tee "$out/ecm-bench.log"
  bench_rc=${PIPESTATUS[0]}
else
  echo "missing $bench (a build without -DFASTCONN_BUILD_BENCH=ON?)"
fi
verdict=$(sed -n 's/^verdict=//p' "$out/ecm-bench.log" 2>/dev/null | tail -1)
echo "tests $step_tests passed; ${verdict:-bench failed (rc $bench_rc)}"
[ "$step_tests_ok" = 1 ] && [ "$bench_rc" -eq 0 ]
