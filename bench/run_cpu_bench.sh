#!/usr/bin/env bash
# CPU benchmark of fastconn's all-pairs PCC, networks and degree, their floors (the GEMM rate of
# OpenBLAS as it detects the CPU and again with its kernel forced to the CPU's ISA, memory) and
# np.corrcoef on the same data, all in one run; writes the tables to bench/RESULTS.md.
#
#   bash bench/run_cpu_bench.sh [--n N] [--t T] [--reps R] [--numpy-reps R] [--threads P] [--out FILE]
#                               [--python PYTHON] [--blas-dir DIR]
#
# Defaults: N = 20000, T = 165, 5 rounds, 3 numpy runs, all cores, bench/RESULTS.md, numpy of
# $PYTHON or /usr/bin/python3 (--python: another interpreter or a program that runs one, e.g.
# tools/debian-python/debpy.sh, Debian's python3-numpy carried to a machine without it).
# --blas-dir DIR: fastconn and the floors run with DIR first on the library path (another build of
# the BLAS the programs link, e.g. Debian's OpenBLAS on a machine whose own is another), and the
# floors of the linked BLAS are measured too; every ratio is to the fastest of all. Configures and
# builds what it needs (CPU only, Release) in $FASTCONN_BENCH_BUILD (default <repo>/build-cpu-bench).
# Takes about a minute on 2 cores after the build; needs ~4 GB of memory (numpy's N x N float64
# matrix is 3.2 GB). Run it on a quiet machine: the table records the load average.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
python=${PYTHON:-/usr/bin/python3}  # Debian's python3-numpy; a pyenv python may lack numpy
build=${FASTCONN_BENCH_BUILD:-$root/build-cpu-bench}
n=20000 t=165 reps=5 numpy_reps=3 threads=$(nproc) out=$here/RESULTS.md blas_dir=""

while [ $# -gt 0 ]; do
  case "$1" in
    --n) n=$2; shift 2 ;;
    --t) t=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --numpy-reps) numpy_reps=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --blas-dir) blas_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run_cpu_bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

"$python" -c 'import numpy' 2>/dev/null || { echo "run_cpu_bench.sh: $python has no numpy (apt-get install python3-numpy, or set PYTHON)" >&2; exit 1; }

# Build (incremental when already configured). CPU only: the GPU benchmark lives in bench/gpu/.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFASTCONN_CUDA=OFF \
        -DFASTCONN_BUILD_TESTS=OFF -DFASTCONN_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target bench_cpu_pcc bench_cpu_graph >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One thread count for fastconn, the BLAS floors and numpy's BLAS.
export OMP_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads

load_before=$(cat /proc/loadavg)
echo "load average before: $load_before"
status=0
# OpenBLAS may not know the CPU and run slow generic kernels (Debian's 0.3.21 runs Prescott's SSE3
# ones on some new Xeons): measure its floors again with the kernel named for the CPU's ISA, so
# that every ratio is to the faster of the two.
if grep -qw avx512f /proc/cpuinfo; then forced=SkylakeX; elif grep -qw avx2 /proc/cpuinfo; then forced=Haswell; else forced=Prescott; fi
main=(env)  # the main runs' environment: --blas-dir first on the library path
[ -n "$blas_dir" ] && main=(env "LD_LIBRARY_PATH=$blas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
floors=()  # write_cpu_results.py's --floors of the linked BLAS, when --blas-dir replaced it
if [ -n "$blas_dir" ]; then
  for core in "" "$forced"; do
    label="the linked BLAS$([ -n "$core" ] && echo ", OPENBLAS_CORETYPE=$core" || echo ", as detected")"
    env ${core:+OPENBLAS_CORETYPE=$core} "$build/bench/bench_cpu_pcc" --n "$n" --t "$t" --reps "$reps" --threads "$threads" \
      --floors-only 1 --out "$tmp/linked$core.txt" >/dev/null || { echo "run_cpu_bench.sh: floors of $label failed" >&2; exit 1; }
    echo "$label floors: $(grep -E '^(sgemm|dgemm)_reference_gflops' "$tmp/linked$core.txt" | tr '\n' ' ')"
    floors+=(--floors "$tmp/linked$core.txt=$label")
  done
fi
"${main[@]}" OPENBLAS_CORETYPE=$forced "$build/bench/bench_cpu_pcc" --n "$n" --t "$t" --reps "$reps" --threads "$threads" \
    --floors-only 1 --out "$tmp/forced.txt" >/dev/null || { echo "run_cpu_bench.sh: floors with OPENBLAS_CORETYPE=$forced failed" >&2; exit 1; }
echo "OPENBLAS_CORETYPE=$forced floors: $(grep -E '^(sgemm|dgemm)_reference_gflops' "$tmp/forced.txt" | tr '\n' ' ')"
"${main[@]}" "$build/bench/bench_cpu_pcc" --n "$n" --t "$t" --reps "$reps" --threads "$threads" --out "$tmp/fastconn.txt" \
    --data-out "$tmp/data.f32" --sample-out "$tmp/samples.bin" || status=$?
[ -s "$tmp/fastconn.txt" ] || { echo "run_cpu_bench.sh: bench_cpu_pcc failed (status $status)" >&2; exit 1; }
echo
"$python" "$here/numpy_baseline.py" --data "$tmp/data.f32" --n "$n" --t "$t" --samples "$tmp/samples.bin" \
    --reps "$numpy_reps" --out "$tmp/numpy.txt" || status=$?
[ -s "$tmp/numpy.txt" ] || { echo "run_cpu_bench.sh: numpy_baseline.py failed" >&2; exit 1; }
floor_files=("$tmp/fastconn.txt" "$tmp/forced.txt")
[ -n "$blas_dir" ] && floor_files+=("$tmp"/linked*.txt)
sgemm_best=$("$python" -c "import sys; print(max(float(l.split('=')[1]) for f in sys.argv[1:] for l in open(f) if l.startswith('sgemm_reference_gflops=')))" "${floor_files[@]}")
"${main[@]}" "$build/bench/bench_cpu_graph" --n "$n" --t "$t" --reps "$reps" --threads "$threads" --sgemm-reference "$sgemm_best" \
    --markdown "$tmp/graph.md" || status=$?
load_after=$(cat /proc/loadavg)
echo "load average after: $load_after"

"$python" "$here/write_cpu_results.py" --fastconn "$tmp/fastconn.txt" --numpy "$tmp/numpy.txt" \
    --forced "$tmp/forced.txt" --forced-core "$forced" "${floors[@]}" --graph "$tmp/graph.md" \
    --load-before "$load_before" --load-after "$load_after" --out "$out"
echo "wrote $out"
# Non-zero when a check failed (FP32 vs FP64 or numpy beyond 1e-5, or reruns not bit-identical).
exit "$status"
