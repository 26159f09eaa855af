#!/usr/bin/env bash
# The tensor-core degree (issue 32 item 1, kernels/tc_degree.cu) on the GPU machine:
#   bash scripts/gpu-steps/tc.sh BUILD_DIR OUT_DIR
# after a Release build with CUDA, tests and benchmarks. Runs the GPU tests of the kernel
# (gpu.CudaTcDegree.*, with FASTCONN_REQUIRE_CUDA=1, and the host test of its bound), then
# bench_tc_degree at 90,112 x 165 (medians of 3 after a warm-up) and 1,000,000 x 200 (one run
# after a warm-up: ~5 s a call), |r| >= 0.3, and the time-resolved degree (one run), the tensor-core kernel (the default)
# against the FP32 kernel in the same run, into OUT_DIR/RESULTS-tc.md. Last line: the verdict.
# Non-zero exit on any failure.
set -u
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
status=0

# --- tests ---------------------------------------------------------------------------------------
run_step_tests 'gpu\.CudaTcDegree\.|gpu\.CudaTcEdges\.|cpp\.TcBound\.' "$out/tc-tests.log"
[ "$step_tests_ok" = 1 ] || status=1
tests="tests $step_tests passed"

bench="$build/bench/gpu/bench_tc_degree"
md="$out/RESULTS-tc.md"
{
  echo "# Degree on tensor cores (issue 32 item 1): bench_tc_degree"
  echo
  echo "fc_pcc_degree (fc_dfc_degree where windows are named), degrees only, |r| >= t, seeded structured data (bench_data.hpp); FP32 fused"
  echo "kernel (FASTCONN_TC_DEGREE=0) and tensor-core kernel (the default) alternating in one run,"
  echo "medians after a warm-up (3 runs at 90k, 1 at 1M); recomputed: pairs inside the band, decided"
  echo "by their FP32 r; identical: every degree equal. $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo
  echo "| N x T | t | kernel | FP32 kernel s | tensor cores s | speed-up | recomputed | density | identical | GPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$md"
verdict_bench=""
# N T reps threshold [extra]: the 90k and 1M degrees, then the time-resolved degree of issue 32
# (90,112 x 1,200, 111 windows of 100, |r| >= 0.5, degrees only).
for shape in "90112 165 3 0.3" "1000000 200 1 0.3" "90112 1200 1 0.5 --window 100 --step 10"; do
  set -- $shape
  n=$1 t=$2 reps=$3 thr=$4
  shift 4
  log="$out/bench-tc-$n-$t.log"
  timeout 150 "$bench" "$n" "$t" --threshold "$thr" --reps "$reps" --markdown "$md" "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  line=$(grep '^tc_degree ' "$log" | tail -1)
  [ $rc -eq 0 ] || status=1
  get() { sed -nE "s/.* $1 ([^ ]+).*/\1/p" <<<"$line"; }
  if [ -n "$(get exact_s)" ] && [ -n "$(get pairs)" ]; then
    same=$([ "$(get tc_differ)" = 0 ] && echo identical || echo "$(get tc_differ) degrees DIFFER")
    pct=$(awk -v r="$(get tc_recomputed)" -v p="$(get pairs)" 'BEGIN{printf "%.3f", 100*r/p}')
    verdict_bench+="; $n x $t$([ "$(get windows)" != 1 ] && echo " ($(get windows) windows)"): exact $(get exact_s) s, tc $(get tc_s) s (${pct} % recomputed, $same)"
  else
    verdict_bench+="; $n x $t: no result (rc $rc)"
    status=1
  fi
done
# The graph (issue 32's fc_pcc_graph target: N = 200,000, T = 200, 10 M edges), tensor cores
# against the FP32 tiles in the same run, edges compared.
glog="$out/bench-tc-graph.log"
timeout 200 "$build/bench/gpu/bench_gpu_graph" --large 200000 200 10000000 --reps 3 --markdown "$md" >"$glog" 2>&1 || status=1
cat "$glog"
# Each of the log's result lines (tag, then "key value" pairs): a verdict, from a template of
# {key} fields, and a failure unless the two paths were identical.
graph_verdict() {  # TAG TEMPLATE
  local line text key
  line=$(grep "^$1 " "$glog" | tail -1)
  if [ -z "$line" ]; then
    verdict_bench+="; $1: no result"
    status=1
    return
  fi
  text=$2
  for key in $(grep -oE '\{[a-z0-9_]+\}' <<<"$2" | tr -d '{}' | sort -u); do
    text=${text//\{$key\}/$(sed -nE "s/.* $key ([^ ]+).*/\1/p" <<<"$line")}
  done
  local same
  same=$(sed -nE 's/.* identical ([^ ]+).*/\1/p' <<<"$line")
  verdict_bench+="; $text, $([ "$same" = 1 ] && echo identical || echo DIFFER)"
  [ "$same" = 1 ] || status=1
}
graph_verdict tc_graph "graph 200000 x 200: fp32 {fp32_s} s, tc {tc_s} s, {edges} edges"
graph_verdict density_graph "density graph: two passes {exact_s} s, guessed {guess_s} s"
graph_verdict topk_graph "top-{k} graph: fp32 rows {rows_s} s, tc {tc_s} s"
# The floors through PyTorch (cuBLAS FP32/TF32/BF16 GEMMs of the triangle's tiles, and the
# matmul-and-threshold degree at 90k), same GPU, same run (TC_TORCH=0 skips them).
if [ "${TC_TORCH:-1}" != 0 ] && python3 -c 'import torch' 2>/dev/null; then
  timeout 300 python3 "$(dirname "$0")/../../bench/gpu/torch_tc_floor.py" 90112 165 0.3 --markdown "$md" >"$out/torch-floor-90k.log" 2>&1 || status=1
  timeout 300 python3 "$(dirname "$0")/../../bench/gpu/torch_tc_floor.py" 1000000 200 0.3 --reps 1 --gemm-only --no-split --markdown "$md" >"$out/torch-floor-1m.log" 2>&1 || status=1
  cat "$out/torch-floor-90k.log" "$out/torch-floor-1m.log"
fi
cat "$md"
echo "$tests$verdict_bench"
exit $status
