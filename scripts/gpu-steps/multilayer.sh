#!/usr/bin/env bash
# Multilayer modularity on the GPU (issue 31: 400 regions x 100 windows <= 50 ms): the tests of
# fc_multilayer_modularity_v2 on both backends (tests/cpp/test_multilayer_sync.cpp: the CUDA labels
# are the CPU's) and of the single-graph synchronous Leiden that shares its engine, then
# bench_multilayer (the queue and the synchronous passes on the CPU, the synchronous passes on
# CUDA, labels compared, the supra-graph's copy as the floor) at 400 x 100 (passes until none
# moves, and 1, 2, 3), into OUT_DIR/multilayer-gpu-bench.log; compute-sanitizer memcheck on the
# CUDA tests when SANITIZE=1.
#   bash scripts/gpu-steps/multilayer.sh BUILD_DIR OUT_DIR
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
cores=$(nproc 2>/dev/null || echo 16)
bench=$build/bench/bench_multilayer
log=$out/multilayer-gpu-bench.log

run_step_tests 'cpp\.(Backends/MultilayerSync\.|MultilayerV2\.|Backends/LeidenSync\.|LeidenV2\.)' "$out/multilayer-gpu-tests.log"

: >"$log"
ok=1
row() {  # label, then bench_multilayer's arguments
  local label=$1
  shift
  echo "== $label: bench_multilayer $*" >>"$log"
  "$bench" --threads "$cores" "$@" >>"$log" 2>&1 || ok=0
}
row "400 x 100" --backend both --reps 5
for p in 1 2 3; do row "400 x 100, $p passes" --backend cuda --reps 5 --passes "$p" --skip-queue; done
echo "== 400 x 100, phases (FASTCONN_PROFILE=leiden)" >>"$log"
FASTCONN_PROFILE=leiden "$bench" --threads "$cores" --backend cuda --reps 1 --skip-queue 2>&1 | grep -v "pass [0-9]*:" >>"$log" || ok=0
if [ "${SANITIZE:-0}" = 1 ]; then
  test_bin=$(find "$build" -name test_multilayer_sync -type f | head -1)
  /usr/local/cuda/bin/compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$test_bin" \
    --gtest_filter='Backends/MultilayerSync.*/CUDA' >"$out/multilayer-memcheck.log" 2>&1 || ok=0
  tail -3 "$out/multilayer-memcheck.log"
fi
grep -E '^== |^[0-9]+ drifting|^queue|^synchronous|^labels|^floor|CUDA engine|total' "$log"
echo "tests $step_tests passed; benchmarks $([ "$ok" = 1 ] && echo ran || echo FAILED) (labels: $(grep -c 'equal those' "$log") equal, $(grep -c 'DIFFER' "$log") differ)"
[ "$step_tests_ok" = 1 ] && [ "$ok" = 1 ] && ! grep -q DIFFER "$log"
