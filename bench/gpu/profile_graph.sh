#!/usr/bin/env bash
# Nsight Compute over the network primitives at the benchmark's size (bench_gpu_graph --profile):
# per-kernel time, DRAM traffic, L2 hit rate, occupancy and instructions of the cuBLAS GEMMs and
# of the pass kernels (degree / edge compaction, scan, gather), mid-run. Run on the GPU machine
# after scripts/gpu-check.sh has built build-gpu:
#   bench/gpu/profile_graph.sh [degree|edges] [launch skip] [launch count]
# NCU_METRICS replaces the metric list; NCU_KERNELS the kernel-name regex (default: the pass
# kernels of the primitive, 'degree' or 'edge_'; 'gemm' for the cuBLAS GEMMs). Clocks are left as
# they are (--clock-control none) and caches are not flushed between kernels (--cache-control
# none). ncu runs kernels one at a time, so it shows each kernel alone, not their overlap.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FASTCONN_GPU_BUILD_DIR:-$root/build-gpu}
what=${1:-degree}
skip=${2:-100}
count=${3:-8}
kernels=${NCU_KERNELS:-$([ "$what" = degree ] && echo degree || echo edge_)}
metrics=${NCU_METRICS:-gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum}
deps=$root/.gpu-deps/root/usr/lib/x86_64-linux-gnu
[ -d "$deps" ] && export LD_LIBRARY_PATH=$deps/openblas-openmp:$deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ncu --clock-control none --cache-control none --kernel-name-base demangled \
  --kernel-name "regex:$kernels" \
  --launch-skip "$skip" --launch-count "$count" --metrics "$metrics" \
  --csv "$build/bench/gpu/bench_gpu_graph" --profile "$what" 2>&1 |
  awk -F'","' '/^"[0-9]+","/ { gsub(/"/, "", $NF); printf "%-4s %-58s %16s  %s\n", substr($1, 2), $(NF-2), $NF, substr($5, 1, 60) }'
