#!/usr/bin/env bash
# lFCD on the GPU (issue 34: 1,000,000 voxels in <= 0.3 s): its GPU tests (tests/gpu/test_cuda_lfcd.cpp
# and the CUDA half of tests/cpp/test_lfcd.cpp), then bench/lfcd_bench.py --context cuda on the
# 1,000,000-voxel mask (the CUDA call, median of 3 after a warm-up, against the CPU context on
# every core, counts compared), into OUT_DIR/RESULTS-lfcd-gpu.md.
#   bash scripts/gpu-steps/lfcd.sh BUILD_DIR OUT_DIR
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
python=/opt/torch/.venv/bin/python
[ -x "$python" ] || python=python3
cores=$(nproc 2>/dev/null || echo 16)

run_step_tests 'gpu\.CudaLfcd\.|cpp\.Backends/Lfcd\..*/CUDA' "$out/lfcd-gpu-tests.log"

bench_log=$out/lfcd-gpu-bench.log
"$python" bench/lfcd_bench.py --lib "$build/libfastconn.so" --context cuda --threads "$cores" --sizes 1000000 \
  --sample-seeds 1000 --reps 3 --out "$out/RESULTS-lfcd-gpu.md" 2>&1 | tee "$bench_log"
bench_rc=${PIPESTATUS[0]}
summary=$(grep '^SUMMARY ' "$bench_log" | tail -1 | sed 's/^SUMMARY //')
[ -n "$summary" ] || summary="benchmark failed (rc $bench_rc)"

echo "tests $step_tests passed; $summary"
[ "$step_tests_ok" = 1 ] && [ "$bench_rc" -eq 0 ]
