#!/usr/bin/env bash
# Issue 30's CPU bars on the GPU machine's host (an Intel Xeon whose Debian OpenBLAS 0.3.21 runs
# Prescott kernels: the CI machine kind's condition):
#   bash scripts/gpu-steps/cpuint.sh BUILD_DIR OUT_DIR
# after a Release build with CUDA, tests and benchmarks. Runs the tests that tie the CPU pair
# kernels' bits to the CUDA backend's (cpp.PairKernels.*, SameBits on both backends) and the
# triangle's ways of writing to each other (cpp.TriuWrites.*), checks the
# carried Debian Python (.gpu-python/debian-python.tar.xz, tools/debian-python: numpy 1.24 on
# Debian's OpenBLAS, Dask), then bench/run_cpu_bench.sh on two cores (taskset -c 0,1) with that
# Python's numpy as np.corrcoef's, using BUILD_DIR's bench_cpu_pcc and bench_cpu_graph (CPU
# contexts), into OUT_DIR/RESULTS-cpu-intel.md. Last line: the verdict (FP32/FP64 % of the fastest
# GEMM, np.corrcoef ratio and numpy's OpenBLAS core). Non-zero exit on any failure.
# CPUINT_BENCH_ARGS: more run_cpu_bench.sh arguments (e.g. "--n 4000 --reps 2" for a quick look).
#
# Before the device run, on the Debian bookworm side: `bash tools/debian-python/make-runtime.sh`
# (writes .gpu-python/debian-python.tar.xz, 17 MB, and checks it) and `bash scripts/make-gpu-deps.sh`
# (.gpu-deps as one 5.6 MB tarball; it removes the former 47 MB .gpu-deps/root), then carry both
# .gpu-deps and .gpu-python: about 28 MB with the tree, within the tool's 64 MiB.
# .gpu-python may also carry scikit-learn for that Python (`bash tools/debian-python/make-sklearn-addon.sh`:
# .gpu-python/sklearn-addon.tar.xz, 13 MB, Debian's sklearn 1.2.1 and scipy 1.10.1; about 41 MB in
# all), which debpy.sh then adds by itself, for bench/partial_bench.py; this step does not use it.
set -u
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0

# --- tests ---------------------------------------------------------------------------------------
run_step_tests 'cpp\.PairKernels\.|SameBits\.|cpp\.TriuWrites\.' "$out/cpuint-tests.log" -E 'TriuWrites\.portable'  # (30 s; the CI runs it)
[ "$step_tests_ok" = 1 ] || status=1
tests="tests $step_tests passed"

# --- the carried Debian Python -------------------------------------------------------------------
# (.gpu-python/debian-python.tar.xz: built on a Debian bookworm machine by
# tools/debian-python/make-runtime.sh and carried with the tree. Without it the benchmark still
# runs, with the image's numpy, and the step fails: its np.corrcoef is not Debian's.)
debpy=$root/tools/debian-python/debpy.sh
numpy_python=$debpy
image_numpy() {  # the image's Python with numpy: the GPU machine's venv, else the system's
  for p in /opt/torch/.venv/bin/python /usr/bin/python3 python3; do
    "$p" -c 'import numpy' 2>/dev/null && { command -v "$p"; return; }
  done
}
if [ ! -f "$root/.gpu-python/debian-python.tar.xz" ]; then
  runtime="Debian Python MISSING (.gpu-python not carried; numpy of the image instead)"; status=1
  numpy_python=$(image_numpy)
elif bash "$debpy" "$root/tools/debian-python/check_runtime.py" >"$out/cpuint-runtime.log" 2>&1; then
  runtime="Debian Python ok"
  bash "$debpy" -c 'import numpy; numpy.show_config()' 2>&1 | head -40
else
  runtime="Debian Python FAILED"; status=1
  numpy_python=$(image_numpy)
fi
echo "$runtime"
[ -f "$out/cpuint-runtime.log" ] && cat "$out/cpuint-runtime.log"

# --- benchmark on two cores ----------------------------------------------------------------------
# fastconn and its floors on Debian's OpenBLAS 0.3.21 too (issue 30's condition: the CI machine
# kind runs Debian's), swapped in by the library path from the carried runtime, while the floors
# of the BLAS the build links (the image's own) are measured as well: ratios to the fastest.
md=$out/RESULTS-cpu-intel.md
blas_args=()
if [ "$runtime" = "Debian Python ok" ]; then
  debblas=$out/debian-openblas
  libs=$(dirname "$(dirname "$(dirname "$(bash "$debpy" --print-python)")")")/lib
  mkdir -p "$debblas"
  for so in libopenblas.so.0 libblas.so.3 liblapack.so.3 libgfortran.so.5 libquadmath.so.0; do
    ln -sf "$libs/$so" "$debblas/$so"
  done
  # only where the build's programs take it (a soname of the five, a working library): else the
  # linked BLAS alone, said in the verdict
  if LD_LIBRARY_PATH=$debblas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$build/bench/bench_cpu_pcc" --n 300 --t 20 --reps 1 \
       --threads 2 --floors-only 1 --out "$out/cpuint-swap.txt" >/dev/null 2>&1 && grep -q '^blas=OpenBLAS 0\.3\.21' "$out/cpuint-swap.txt"; then
    blas_args=(--blas-dir "$debblas")
  else
    echo "Debian's OpenBLAS does not replace the linked one for bench_cpu_pcc: the linked BLAS alone"
  fi
fi
echo "CPU: $(lscpu | sed -nE 's/^Model name: +//p' | head -1); pinned to cores 0,1"
FASTCONN_BENCH_BUILD=$build timeout 400 taskset -c 0,1 bash "$root/bench/run_cpu_bench.sh" --threads 2 \
  --python "$numpy_python" "${blas_args[@]}" --out "$md" ${CPUINT_BENCH_ARGS:-} 2>&1 | tee "$out/cpuint-bench.log"
rc=${PIPESTATUS[0]}
fastconn_blas=$(sed -nE 's/^\| BLAS \(fastconn; GEMM floors\) \| OpenBLAS ([0-9.]+) .* ([A-Za-z0-9]+) MAX_THREADS.*/\1 \2/p' "$md" 2>/dev/null)
[ "$rc" -eq 0 ] || status=1
bar=$(grep -F "Issue 30's bar" "$md" 2>/dev/null)
if [ -n "$bar" ]; then
  core=$(sed -nE 's/^\| numpy.s OpenBLAS core \(`openblas_get_corename`\) \| ([^ ]+) .*/\1/p' "$md")
  numpy=$(sed -nE 's/^\| numpy \| ([^ ]+) on .*/\1/p' "$md")
  verdict=$(sed -nE 's/.*FP32 row order ([0-9]+ %), column order ([0-9]+ %) of the fastest SGEMM, FP64 \(slower order\) ([0-9]+ %) of the fastest DGEMM.*; ([0-9.]+x) np.corrcoef \(needs >= 15x\): (.*)\.$/FP32 \1 row, \2 col of SGEMM, FP64 \3 of DGEMM; \4 np.corrcoef/p' <<<"$bar")
  verdict="$verdict (numpy $numpy, OpenBLAS core $core; fastconn's floors on OpenBLAS ${fastconn_blas:-?}${blas_args[*]:+ and the linked one}); issue 30 $(grep -q '\*\*not met\*\*' <<<"$bar" && echo 'not met' || echo met)"
  # FP64 row order by each way of writing the triangle (FASTCONN_CPU_TRIU_WRITE), same rounds
  ways=""
  for mode in tile rows parts; do
    pct=$(grep -F "FP64 row order, values written" "$md" | grep -F "=$mode\`" | awk -F'|' '{gsub(/ /, "", $5); print $5}')
    ways+="${ways:+, }$mode ${pct:-?}"
  done
  verdict="$verdict; FP64 row by write way: $ways"
else
  verdict="benchmark: no result (rc $rc)"; status=1
fi
[ -s "$md" ] && cat "$md"
echo "$tests; $runtime; $verdict"
exit $status
