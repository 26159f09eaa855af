#!/usr/bin/env bash
# The tensor-core degree (issue 32 item 1, kernels/tc_degree.cu) on the GPU machine:
#   bash scripts/gpu-steps/tc.sh BUILD_DIR OUT_DIR
# after a Release build with CUDA, tests and benchmarks. Runs the GPU tests of the kernel
# (gpu.CudaTcDegree.*, with FASTCONN_REQUIRE_CUDA=1), then bench_tc_degree at 90,112 x 165 and
# 1,000,000 x 200, |r| >= 0.3, tensor cores against the FP32 kernel in the same run (medians of 3
# after a warm-up), into OUT_DIR/RESULTS-tc.md. Last line: the verdict. Non-zero exit on any failure.
set -u
build=${1:?usage: tc.sh BUILD_DIR OUT_DIR}
out=${2:?usage: tc.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
status=0

# --- tests ---------------------------------------------------------------------------------------
export FASTCONN_REQUIRE_CUDA=1
ctest --test-dir "$build" -R 'gpu\.CudaTcDegree\.|cpp\.TcBound\.' --output-on-failure --timeout 300 | tee "$out/tc-tests.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
summary=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$out/tc-tests.log" | tail -1)
passed=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2-\1/' <<<"$summary")
tests="tests $(( ${passed:-0} ))/$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$summary") passed"
[ -n "$summary" ] || { tests="tests: no ctest summary"; status=1; }

# --- benchmark -----------------------------------------------------------------------------------
bench="$build/bench/gpu/bench_tc_degree"
md="$out/RESULTS-tc.md"
{
  echo "# Degree on tensor cores (issue 32 item 1): bench_tc_degree"
  echo
  echo "fc_pcc_degree, degrees only, |r| >= 0.3, seeded structured data (bench_data.hpp); FP32 fused"
  echo "kernel (FASTCONN_EXACT_PAIRS=1) and tensor-core kernel alternating in one run, medians of 3"
  echo "after a warm-up; recomputed: pairs inside the band decided by their FP32 r; identical: every"
  echo "degree equal. $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null)."
  echo
  echo "| N x T | t | tensor-core kernel | FP32 kernel s | tensor cores s | speed-up | recomputed | density | identical | GPU |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$md"
verdict_bench=""
for shape in "90112 165" "1000000 200"; do
  set -- $shape
  timeout 240 "$bench" "$1" "$2" --threshold 0.3 --reps 3 --markdown "$md" >"$out/bench-tc-$1.log" 2>&1
  rc=$?
  cat "$out/bench-tc-$1.log"
  line=$(grep '^tc_degree ' "$out/bench-tc-$1.log" | tail -1)
  [ $rc -eq 0 ] || status=1
  get() { sed -nE "s/.* $1 ([^ ]+).*/\1/p" <<<"$line"; }
  if [ -n "$(get exact_s)" ] && [ -n "$(get pairs)" ]; then
    same() { [ "$1" = 0 ] && echo identical || echo "$1 series DIFFER"; }
    pct=$(awk -v r="$(get mma_recomputed)" -v p="$(get pairs)" 'BEGIN{printf "%.3f", 100*r/p}')
    verdict_bench+="; $1 x $2: exact $(get exact_s) s, wmma $(get wmma_s) s ($(same "$(get wmma_differ)")), mma $(get mma_s) s ($(same "$(get mma_differ)")), mma inline $(get mma_inline_s) s ($(same "$(get mma_inline_differ)")), ${pct} % recomputed"
  else
    verdict_bench+="; $1 x $2: no result (rc $rc)"
    status=1
  fi
done
cat "$md"
echo "$tests$verdict_bench"
exit $status
