#!/usr/bin/env bash
# Cohorts on GPU workers (issue 33 item 2's GPU bar), on the multi-GPU machine, as
# `bash scripts/gpu-steps/cohort.sh BUILD_DIR OUT_DIR` after a Release build with CUDA:
# bench/cohort/bench_cohort.py --gpus K (K: every visible GPU) runs 16 synthetic subjects of
# 60,000 voxels x 600 samples (degree map, window degree, modules) through fastconn.cohort on a
# local Dask cluster of 1 GPU worker and then of K (one per device), with the in-process floor on
# device 0, into OUT_DIR/RESULTS-cohort-gpu.md. The Python is the carried Debian bookworm runtime
# (tools/debian-python: numpy and Dask) with fastconn's package built for it here
# (tools/debian-python/pack-binding.sh: .gpu-python/fastconn-python.tar.xz), loading BUILD_DIR's
# CUDA libfastconn.so.0. COHORT_FOLDER: where subjects and outputs go (default /tmp); the time to
# write and fsync a 100 kB file there and in /dev/shm is printed first (the store fsyncs every
# output, so a slow disk's flush latency is part of each subject's time). COHORT_ARGS: other
# arguments (e.g. "--subjects 8 --voxels 20000").
# The last line is the verdict; the exit status is non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../gpu-step-ctest.sh" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg=$root/.gpu-python/fastconn-python.tar.xz
[ -f "$pkg" ] || { echo "cohort: no $pkg (tools/debian-python/pack-binding.sh, and carry .gpu-python)"; exit 1; }
lib=$(find "$build" -maxdepth 2 -name 'libfastconn.so.0' | head -1)
[ -n "$lib" ] || { echo "cohort: no libfastconn.so.0 in $build"; exit 1; }
bash "$root/scripts/unpack-once.sh" "$pkg" /tmp/fastconn-python || exit 1
export DEBPY_PYTHONPATH=/tmp/fastconn-python
export LD_LIBRARY_PATH=$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
folder=${COHORT_FOLDER:-/tmp}
for d in /tmp /dev/shm "$folder"; do
  [ -d "$d" ] || continue
  t0=$(date +%s.%N)
  for k in 1 2 3 4 5 6 7 8 9 10; do dd if=/dev/zero of="$d/.fsync-probe" bs=100k count=1 conv=fsync status=none; done
  rm -f "$d/.fsync-probe"
  echo "write + fsync of 100 kB in $d: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", (b - a) * 100 }') ms ($(df -hT "$d" | awk 'NR==2{print $2}'))"
done
echo "GPUs: $gpus; library: $lib"
bash "$root/tools/debian-python/debpy.sh" -c 'import fastconn; print("fastconn", fastconn.__version__, fastconn.Context(backend="cuda"))' || exit 1
STEP_BENCH_TIMEOUT=${COHORT_TIMEOUT:-420} run_step_bench cohort "$out/cohort-bench.log" "$(command -v bash)" \
  "$root/tools/debian-python/debpy.sh" "$root/bench/cohort/bench_cohort.py" --gpus "$gpus" --subjects 16 --voxels 60000 \
  --time 600 --folder "$folder" --write "$out/RESULTS-cohort-gpu.md" ${COHORT_ARGS:-}
[ -f "$out/RESULTS-cohort-gpu.md" ] && cp "$out/RESULTS-cohort-gpu.md" "$out/cohort-results.txt"
echo "$step_verdict"
[ "$step_bench_ok" = 1 ]
