# Sourced by scripts/gpu-steps/*.sh, first thing after `set`, as
#   source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
# which takes the step's two arguments (BUILD_DIR OUT_DIR) into $build and $out, makes $out and
# exports FASTCONN_REQUIRE_CUDA=1 (a missing device fails a step's tests and benchmarks alike).
#
# run_step_tests REGEX LOG [CTEST ARGS...] runs the ctest tests matching REGEX
# in $build (FASTCONN_REQUIRE_CUDA=1: a missing device fails them), its output to LOG and stdout,
# and sets step_tests ("P/N", or "none run") and step_tests_ok (1 when all N > 0 passed).
# ctest's summary reads "100% tests passed, 0 tests failed out of N" or, in newer versions (the
# GPU image's CMake 4), "100% tests passed out of N": both are read here, once for every step.
build=${1:?usage: bash scripts/gpu-steps/NAME.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bash scripts/gpu-steps/NAME.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
export FASTCONN_REQUIRE_CUDA=1

run_step_tests() {
  local regex=$1 log=$2 rc summary total failed
  shift 2
  ctest --test-dir "$build" -R "$regex" --output-on-failure --timeout 300 "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)
  total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<<"$summary")
  failed=$(sed -nE 's/.*, ([0-9]+) tests? failed.*/\1/p' <<<"$summary")
  if [ -z "$total" ] || [ "$total" -eq 0 ]; then
    step_tests="none run"; step_tests_ok=0
  else
    step_tests="$((total - ${failed:-0}))/$total"
    step_tests_ok=$([ "$rc" -eq 0 ] && echo 1 || echo 0)
  fi
}

# run_step_bench NAME LOG BENCH [ARGS...] runs a step's benchmark BENCH with ARGS (at most
# STEP_BENCH_TIMEOUT seconds, default 600), its output to LOG and stdout, and sets step_verdict to the text after "NAME: " on its last such line (or why
# there is none) and step_bench_ok (1 when it was built and exited 0).
run_step_bench() {
  local name=$1 log=$2 bench=$3 rc
  shift 3
  step_bench_ok=0
  if [ ! -x "$bench" ]; then
    step_verdict="benchmark not built ($bench)"
    return
  fi
  timeout "${STEP_BENCH_TIMEOUT:-600}" "$bench" "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  [ "$rc" -eq 0 ] && step_bench_ok=1
  step_verdict=$(grep "^$name: " "$log" | tail -1 | sed "s/^$name: //")
  [ -n "$step_verdict" ] || step_verdict="benchmark failed (see $(basename "$log"))"
}
