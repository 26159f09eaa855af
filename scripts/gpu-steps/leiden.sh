#!/usr/bin/env bash
# The synchronous Leiden on the GPU (issue 31: 1,000,000 nodes / 50 M edges <= 0.5 s, the 38,400-node
# voxel network <= 0.1 s): its tests on both backends (tests/cpp/test_leiden_sync.cpp: the CUDA
# labels are the CPU's), then bench_modularity --method leiden-sync --backend both (the CPU
# backend on every core, then CUDA, labels compared) on the planted partition and the voxel network
# of issue 31, the 1,000,000-node scale graph on CUDA with the leading eigenvector (fc_modularity,
# CUDA) on the same graph for its Q, and fc_leiden (the queue, CPU) beside, into
# OUT_DIR/leiden-gpu-bench.log.
#   bash scripts/gpu-steps/leiden.sh BUILD_DIR OUT_DIR
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
cores=$(nproc 2>/dev/null || echo 16)
bench=$build/bench/bench_modularity
log=$out/leiden-gpu-bench.log

run_step_tests 'cpp\.(Backends/LeidenSync\.|LeidenV2\.)' "$out/leiden-gpu-tests.log"

: >"$log"
ok=1
row() {  # label, then bench_modularity's arguments
  local label=$1
  shift
  echo "== $label: bench_modularity $*" >>"$log"
  FASTCONN_PROFILE=leiden "$bench" --threads "$cores" "$@" >>"$log" 2>&1 || ok=0
}
row "planted 38,400" --method leiden-sync --backend both --reps 3
row "planted 38,400, fc_leiden (queue)" --method leiden --backend cpu --reps 3
row "voxel 38,400" --method leiden-sync --backend both --reps 3 --voxel-samples 200 --density 0.015
row "voxel 38,400, fc_leiden (queue)" --method leiden --backend cpu --reps 3 --voxel-samples 200 --density 0.015
scale="--nodes 1000000 --communities 1000 --degree-in 60 --degree-out 40"
row "1,000,000 / 50 M" --method leiden-sync --backend cuda --reps 3 $scale --save /tmp/leiden-scale.fcg
row "1,000,000 / 50 M, leading eigenvector" --method eigen --backend cuda --reps 1 --graph /tmp/leiden-scale.fcg
rm -f /tmp/leiden-scale.fcg
grep -E '^== |^graph:|^fastconn|^Q =|NMI|^labels|CUDA engine' "$log"
echo "tests $step_tests passed; benchmarks $([ "$ok" = 1 ] && echo ran || echo FAILED) (labels: $(grep -c 'equal those' "$log") equal, $(grep -c 'DIFFER' "$log") differ)"
[ "$step_tests_ok" = 1 ] && [ "$ok" = 1 ] && ! grep -q DIFFER "$log"
