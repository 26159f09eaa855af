#!/usr/bin/env bash
# The GPU machine's check, run from the repository root: builds fastconn with the CUDA backend
# (Release; CMAKE_CUDA_ARCHITECTURES from the top level, "90-real;75-virtual"), runs the GPU tests
# (`ctest -L gpu`, a missing device is a failure there), the whole test suite, then the GPU
# benchmark (bench/gpu), and prints a short table last. Logs and results go to $OUT (the device
# tool's output folder), or to <build>/gpu-check-out when OUT is unset; RESULTS-gpu.md there is
# what bench/RESULTS-gpu.md is updated from.
#
# Dependencies the GPU image lacks (OpenBLAS, GoogleTest) are taken from .gpu-deps/root when
# present: Debian packages' files, carried as .gpu-deps/gpu-deps.tar.xz (scripts/make-gpu-deps.sh
# writes it here; unpacked into .gpu-deps/root on the device) or, as before, unpacked already.
#
# Environment: GPU_CHECK_STEPS (default "build gpu-tests sanitizer all-tests bench graph-bench
# dfc-bench cli-bench"), GPU_TESTS (a ctest regex narrowing gpu-tests),
# FASTCONN_GPU_BUILD_DIR. extra: scripts/gpu-steps/*.sh (see that step). graph-bench: bench/gpu/bench_gpu_graph (networks without the N x N
# matrix) with torch_graph_baseline.py, then its --large case (GRAPH_LARGE="N T EDGES", default
# "200000 200 10000000"); its section goes to $out/RESULTS-gpu-graph.md. dfc-bench:
# bench/gpu/bench_gpu_dfc (sliding windows) with torch_dfc_baseline.py, into $out/RESULTS-gpu-dfc.md.
# modularity-bench: bench/bench_modularity on both backends (the planted partition of issue 11 and a
# voxel network), then the scale run (MODULARITY_SCALE="NODES COMMUNITIES DEG_IN DEG_OUT", default
# "1000000 1000 60 40": 50 M edges) with the device memory sampled; into $out/bench-modularity.log.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${FASTCONN_GPU_BUILD_DIR:-$root/build-gpu}
out=${OUT:-$build/gpu-check-out}
steps=${GPU_CHECK_STEPS:-build gpu-tests digests sanitizer all-tests bench graph-bench dfc-bench cli-bench modularity-bench}
jobs=$(nproc 2>/dev/null || echo 4)
mkdir -p "$out"
summary=()
note() { summary+=("$1"); echo "== $1"; }
has_step() { [[ " $steps " == *" $1 "* ]]; }

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1 | head -3
echo "cores: $jobs; $(free -g | awk '/Mem:/{print "memory: " $2 " GiB, available " $7 " GiB"}')"
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
for tool in cmake ninja nvcc python3; do printf '%s: %s\n' "$tool" "$(command -v $tool || echo missing)"; done

# --- dependencies: system ones when present, else the carried .gpu-deps ---------------------------
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DFASTCONN_CUDA=ON)
if [ -f "$root/.gpu-deps/gpu-deps.tar.xz" ]; then
  # the same path every run (tar keeps the files' times): CMake's cache and the build stay valid
  bash "$root/scripts/unpack-once.sh" "$root/.gpu-deps/gpu-deps.tar.xz" "$root/.gpu-deps/root" ||
    echo "== unpacking .gpu-deps/gpu-deps.tar.xz FAILED"
fi
deps=$root/.gpu-deps/root/usr
if [ -d "$deps" ]; then
  multiarch=$deps/lib/x86_64-linux-gnu
  cmake_args+=("-DCMAKE_PREFIX_PATH=$deps")
  if [ ! -e /usr/include/cblas.h ] && ! ls /usr/include/*/cblas.h /usr/include/*/*/cblas.h >/dev/null 2>&1; then
    cmake_args+=("-DCBLAS_INCLUDE_DIR=$deps/include/x86_64-linux-gnu/openblas-openmp"
                 "-DBLAS_LIBRARIES=$multiarch/openblas-openmp/libopenblas.so")
    export LD_LIBRARY_PATH=$multiarch/openblas-openmp:$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "using carried OpenBLAS from $deps"
  fi
fi
# The command-line program's NIfTI reader (libnifti2), system or carried: build it on purpose, so
# that a build folder first configured without it does not keep it off (cli-bench needs it).
if [ -e /usr/include/nifti/nifti2_io.h ] || [ -e "$deps/include/nifti/nifti2_io.h" ]; then
  cmake_args+=(-DFASTCONN_BUILD_CLI=ON)
fi
command -v ninja >/dev/null && cmake_args+=(-G Ninja)

if has_step build; then
  start=$(date +%s)
  if ! cmake -S "$root" -B "$build" "${cmake_args[@]}" >"$out/build.log" 2>&1; then
    # Another layer's configure failing here must not cost the GPU run: retry without tests.
    tail -20 "$out/build.log"
    note "configure with tests FAILED; retrying with FASTCONN_BUILD_TESTS=OFF"
    cmake -S "$root" -B "$build" "${cmake_args[@]}" -DFASTCONN_BUILD_TESTS=OFF >>"$out/build.log" 2>&1
  fi
  if cmake --build "$build" -j"$jobs" >>"$out/build.log" 2>&1; then
    note "build: ok ($(( $(date +%s) - start )) s)"
  else
    tail -40 "$out/build.log"
    note "build: FAILED (see build.log)"
    printf '%s\n' "${summary[@]}"
    exit 1
  fi
fi

status=0
gpu_tests='^gpu\.|BackendParity|/CUDA$|/CUDA '
if has_step gpu-tests; then
  start=$(date +%s)
  # The gpu-labelled tests, selected by name too (gpu.* of tests/gpu, every backend-parameterized
  # test of tests/cpp on CUDA) so that a lost label cannot drop them.
  (cd "$build" && FASTCONN_REQUIRE_CUDA=1 ctest -R "${GPU_TESTS:-$gpu_tests}" --output-on-failure --timeout 600 -j1) \
    >"$out/ctest-gpu.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Total Test time" "$out/ctest-gpu.log" | tail -2
  grep -E "^\s+[0-9]+ - .*(Failed|Timeout|Exception)" "$out/ctest-gpu.log" | head -20
  note "GPU tests: $(grep -E '[0-9]+% tests passed' "$out/ctest-gpu.log" | tail -1) ($(( $(date +%s) - start )) s, $(grep -c '\*\*\*Skipped' "$out/ctest-gpu.log") skipped)"
fi

# Issue 30: every public call's outputs digested on a CPU and a CUDA context (scripts/output_digest.c,
# built as tests/c's c_output_digest), listed line by line where they differ. The correlation
# calls must agree bit for bit in FP32/FP64; what may differ is listed with the reason in the header.
if has_step digests; then
  digest=$build/tests/c/c_output_digest
  csv=$root/examples/data/fmri_timeseries.csv
  if "$digest" cpu "$csv" >"$out/digest-cpu.txt" 2>"$out/digest-cpu.err" &&
     "$digest" cuda "$csv" >"$out/digest-cuda.txt" 2>"$out/digest-cuda.err"; then
    total=$(wc -l <"$out/digest-cpu.txt")
    # line by line (names hold '|', so no field splitting): the CPU's line where the two differ
    differ=$(diff --old-line-format='%L' --new-line-format='' --unchanged-line-format='' \
             "$out/digest-cpu.txt" "$out/digest-cuda.txt" | tee "$out/digest-differ.txt" | wc -l)
    # "[bound]" lines: outputs the header ties across backends by a bound, not bits (output_digest.c)
    bound=$(grep -c '\[bound\]' "$out/digest-cpu.txt")
    bound_differ=$(grep -c '\[bound\]' "$out/digest-differ.txt")
    note "CPU vs CUDA digests: $((total - bound - differ + bound_differ)) of $((total - bound)) identical, $bound_differ of $bound [bound] outputs differ in bits ($(head -1 "$out/digest-cpu.err"))"
    [ "$((differ - bound_differ))" -eq 0 ] || status=1
    cut -c1-110 "$out/digest-differ.txt" | head -40
  else
    note "CPU vs CUDA digests: FAILED"; tail -5 "$out"/digest-*.err; status=1
  fi
fi

if has_step sanitizer; then
  # compute-sanitizer over the GPU test programs (issue 12): memcheck on each (leaks included),
  # racecheck (shared memory hazards) and initcheck (reads of device memory nothing wrote) on the
  # window and network kernels. Sizes in these tests are small, so each tool finishes in minutes.
  # SANITIZER_TOOLS (default "memcheck racecheck initcheck"), SANITIZER_FILTER (a gtest filter
  # for every tool) and SANITIZER_PROGRAMS (the test programs, for every tool) narrow it.
  start=$(date +%s)
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  srun() { # tool, program, gtest filter, extra sanitizer flags
    local log=$out/sanitizer-$1-$2.log
    # A filter that selects none of this program's tests is no failure (compute-sanitizer itself
    # fails a program that makes no CUDA call).
    if ! "$build/tests/gpu/$2" --gtest_list_tests --gtest_filter="$3" 2>/dev/null | grep -q '^  '; then
      note "compute-sanitizer $1 $2: no test matches '$3'"
      return
    fi
    # shellcheck disable=SC2086
    if FASTCONN_REQUIRE_CUDA=1 timeout 900 "$cs" --tool "$1" --error-exitcode 97 ${4:-} \
        "$build/tests/gpu/$2" --gtest_filter="$3" >"$log" 2>&1; then
      note "compute-sanitizer $1 $2: clean ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1 | sed 's/=* *//'))"
    else
      status=1
      grep -E "ERROR SUMMARY|Invalid|Race|Uninitialized|FAILED" "$log" | head -8
      note "compute-sanitizer $1 $2: FAILED (see sanitizer-$1-$2.log)"
    fi
  }
  # racecheck and initcheck slow the kernels 100-1000x: the small and odd sizes only (every kernel
  # still runs, with partial tiles); memcheck takes every test.
  small_window=${SANITIZER_FILTER:-'CudaWindowLimits.*:*n1_*:*n2_*:*n3_*:*n131_t150*:*n131_t2_*'}
  # (the modularity tests' larger graphs take over 10 minutes under racecheck: the space's
  # operations one by one and the small graphs solved on the device cover every kernel)
  small_modularity=${SANITIZER_FILTER:-'CudaModularity.GroupSpace*:CudaModularity.SmallGraphs*'}
  small_graph=${SANITIZER_FILTER:-'CudaGraph.FusedDegree*:CudaGraph.HistogramMatchesTriuBits:CudaGraph.TopK*:*n5_abs*:*n257_abs*'}
  # memcheck: every GPU test program whose kernels are ours (SANITIZER_PROGRAMS narrows it);
  # racecheck and initcheck also take the newer capabilities' programs whole (their tests are
  # small): fast ECM's device eigensolve, partial correlation, the compact codes, the tensor-core
  # degree and lFCD.
  newer_programs="test_cuda_ecm test_cuda_partial test_cuda_compact test_cuda_tc_degree test_cuda_lfcd"
  memcheck_programs=${SANITIZER_PROGRAMS:-"test_cuda_window test_cuda_graph test_cuda_modularity $newer_programs"}
  shared_memory_programs=${SANITIZER_PROGRAMS:-$newer_programs}
  [[ " ${SANITIZER_TOOLS:-memcheck racecheck initcheck} " == *" memcheck "* ]] && {
    # Tests that exhaust the device on purpose (*OutOfDeviceMemory*) are left out: memcheck counts
    # the cudaMalloc failure they provoke as an error (an H200 run: CudaEcm's 7 tests passed, 0
    # bytes leaked, "2 errors", both that test's out-of-memory API returns).
    for program in $memcheck_programs; do
      srun memcheck "$program" "${SANITIZER_FILTER:-*-*OutOfDeviceMemory*}" --leak-check=full
    done
  }
  [[ " ${SANITIZER_TOOLS:-memcheck racecheck initcheck} " == *" racecheck "* ]] && {
    if [ -z "${SANITIZER_PROGRAMS:-}" ]; then
      srun racecheck test_cuda_window "$small_window"
      srun racecheck test_cuda_graph "$small_graph"
      srun racecheck test_cuda_modularity "$small_modularity"
    fi
    for program in $shared_memory_programs; do srun racecheck "$program" "${SANITIZER_FILTER:-*}"; done
  }
  [[ " ${SANITIZER_TOOLS:-memcheck racecheck initcheck} " == *" initcheck "* ]] && {
    if [ -z "${SANITIZER_PROGRAMS:-}" ]; then
      srun initcheck test_cuda_window "$small_window"
      srun initcheck test_cuda_graph "$small_graph"
      srun initcheck test_cuda_modularity "$small_modularity"
    fi
    for program in $shared_memory_programs; do srun initcheck "$program" "${SANITIZER_FILTER:-*}"; done
  }
  note "compute-sanitizer: $(( $(date +%s) - start )) s"
fi

if has_step all-tests; then
  start=$(date +%s)
  (cd "$build" && ctest -E "$gpu_tests" --output-on-failure --timeout 600 -j"$jobs") >"$out/ctest-all.log" 2>&1 || status=1
  grep -E "^\s+[0-9]+ - .*(Failed|Timeout|Exception|Not Run)" "$out/ctest-all.log" | head -20
  note "ctest (all but the GPU tests above): $(grep -E '[0-9]+% tests passed' "$out/ctest-all.log" | tail -1) ($(( $(date +%s) - start )) s)"
fi

if has_step bench; then
  start=$(date +%s)
  bench=$build/bench/gpu/bench_gpu_pcc
  data=${TMPDIR:-/tmp}/fastconn_bench_90112x165.f32
  {
    "$bench" --write-data "$data" &&
    if python3 -c "import torch, numpy" 2>/dev/null; then
      PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_baseline.py" "$data" "$out/torch.json"
    else
      echo "torch not importable: (e) skipped"
    fi
    torch_arg=(); [ -s "$out/torch.json" ] && torch_arg=(--torch "$out/torch.json")
    "$bench" "${torch_arg[@]}" --markdown "$out/RESULTS-gpu.md" &&
    {
      printf '\n## What page-locking fresh memory costs (probe_host_register, 4 GiB)\n\n```\n'
      "$build/bench/gpu/probe_host_register"
      printf '```\n'
    } >>"$out/RESULTS-gpu.md"
  } >"$out/bench.log" 2>&1 || status=1
  rm -f "$data"
  note "benchmark: $([ -s "$out/RESULTS-gpu.md" ] && echo ok || echo FAILED) ($(( $(date +%s) - start )) s)"
fi

if has_step graph-bench; then
  start=$(date +%s)
  data=${TMPDIR:-/tmp}/fastconn_bench_90112x165.f32
  gbench=$build/bench/gpu/bench_gpu_graph
  {
    "$build/bench/gpu/bench_gpu_pcc" --write-data "$data" &&
    "$gbench" --threshold-only "$out/graph-threshold.txt" &&
    if python3 -c "import torch, numpy" 2>/dev/null; then
      PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_graph_baseline.py" "$data" "$(cat "$out/graph-threshold.txt")" "$out/torch-graph.json"
    else
      echo "torch not importable: PyTorch graph baseline skipped"
    fi
    gtorch=(); [ -s "$out/torch-graph.json" ] && gtorch=(--torch "$out/torch-graph.json")
    "$gbench" "${gtorch[@]}" --markdown "$out/RESULTS-gpu-graph.md" &&
    # issue 11's case: fc_pcc_graph end to end at N = 200,000, T = 200, about 10 M edges
    "$gbench" --large ${GRAPH_LARGE:-200000 200 10000000} --markdown "$out/RESULTS-gpu-graph.md"
  } >"$out/bench-graph.log" 2>&1 || status=1
  rm -f "$data"
  note "graph benchmark: $([ -s "$out/RESULTS-gpu-graph.md" ] && echo ok || echo FAILED) ($(( $(date +%s) - start )) s)"
fi

if has_step dfc-bench; then
  start=$(date +%s)
  ddir=${TMPDIR:-/tmp}/fastconn_dfc_data
  mkdir -p "$ddir"
  dbench=$build/bench/gpu/bench_gpu_dfc
  {
    if python3 -c "import torch, numpy" 2>/dev/null && [ "${DFC_TORCH:-1}" = 1 ]; then
      "$dbench" --write-data "$ddir" &&
      PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_dfc_baseline.py" "$ddir" "$out/torch-dfc.json" --reps 1
    else
      echo "torch not importable (or DFC_TORCH=0): PyTorch DFC baseline skipped"
    fi
    dtorch=(); [ -s "$out/torch-dfc.json" ] && dtorch=(--torch "$out/torch-dfc.json")
    "$dbench" "${dtorch[@]}" ${DFC_CASES:+--cases "$DFC_CASES"} --markdown "$out/RESULTS-gpu-dfc.md"
  } >"$out/bench-dfc.log" 2>&1 || status=1
  rm -rf "$ddir"
  note "dfc benchmark: $([ -s "$out/RESULTS-gpu-dfc.md" ] && echo ok || echo FAILED) ($(( $(date +%s) - start )) s)"
fi

if has_step cli-bench; then
  # The command line's overhead over the library call (issue 13): a whole-brain degree map
  # (230,000 voxels, T = 200, synthetic, uncompressed int16 NIfTI) on the GPU.
  start=$(date +%s)
  python3 "$root/bench/cli/bench_cli.py" --build-dir "$build" --backend cuda ${CLI_BENCH_ARGS:-} \
    >"$out/bench-cli.log" 2>&1 || status=1
  note "cli benchmark: $(grep -E '^CLI / library (alone|in its own process)' "$out/bench-cli.log" | tr '\n' ' ' || echo FAILED) ($(( $(date +%s) - start )) s)"
fi

if has_step modularity-bench; then
  start=$(date +%s)
  mbench=$build/bench/bench_modularity
  {
    echo "### planted partition (issue 11), all $jobs host threads"
    "$mbench" --backend both --threads "$jobs" --reps 3
    echo "### planted partition, 2 host threads"
    "$mbench" --backend both --threads 2 --reps 3
    echo "### voxel network, all $jobs host threads"
    "$mbench" --backend both --threads "$jobs" --reps 3 --nodes 38400 --communities 40 --voxel-samples 200 --density 0.015
    read -r sn sk sdi sdo <<<"${MODULARITY_SCALE:-1000000 1000 60 40}"
    echo "### scale: $sn nodes, CUDA, all $jobs host threads (device memory sampled every 0.2 s)"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$out/modularity-memory.csv" 2>/dev/null &
    sampler=$!
    timeout "${MODULARITY_SCALE_TIMEOUT:-300}" "$mbench" --backend cuda --threads "$jobs" --reps 1 --nodes "$sn" \
      --communities "$sk" --degree-in "$sdi" --degree-out "$sdo"
    kill "$sampler" 2>/dev/null
    echo "device memory used: peak $(sort -n "$out/modularity-memory.csv" | tail -1) MiB, before the run $(head -1 "$out/modularity-memory.csv") MiB"
  } >"$out/bench-modularity.log" 2>&1 || status=1
  note "modularity benchmark: $(grep -c 'median' "$out/bench-modularity.log") runs, labels $(grep -c 'equal those' "$out/bench-modularity.log") equal / $(grep -c 'DIFFER' "$out/bench-modularity.log") differ ($(( $(date +%s) - start )) s)"
fi

# extra: each scripts/gpu-steps/NAME.sh (a capability's own GPU tests and benchmark), run as
# `bash scripts/gpu-steps/NAME.sh BUILD_DIR OUT_DIR`; its output goes to $out/step-NAME.log and its
# last line (a one-line verdict) into the summary. GPU_STEPS_ONLY narrows them (a regex on NAME).
if has_step extra; then
  for script in scripts/gpu-steps/*.sh; do
    [ -e "$script" ] || continue
    name=$(basename "$script" .sh)
    [[ -n "${GPU_STEPS_ONLY:-}" && ! "$name" =~ $GPU_STEPS_ONLY ]] && continue
    start=$(date +%s)
    if bash "$script" "$build" "$out" >"$out/step-$name.log" 2>&1; then verdict=ok; else verdict=FAILED; status=1; fi
    note "$name: $verdict, $(tail -1 "$out/step-$name.log") ($(( $(date +%s) - start )) s)"
  done
fi

echo
echo "================ gpu-check summary ================"
printf '%s\n' "${summary[@]}"
if [ -s "$out/bench.log" ]; then
  echo
  sed -n '/^| measurement/,$p' "$out/bench.log"
fi
if [ -s "$out/bench-graph.log" ]; then
  echo
  sed -n '/^| graph measurement/,$p' "$out/bench-graph.log"
  [ -s "$out/RESULTS-gpu-graph.md" ] || tail -20 "$out/bench-graph.log"
fi
if [ -s "$out/bench-modularity.log" ]; then
  echo
  grep -E '^###|^graph|median|^Q =|labels|NMI|peak' "$out/bench-modularity.log"
fi
if [ -s "$out/bench-dfc.log" ]; then
  echo
  sed -n '/^| dfc measurement/,$p' "$out/bench-dfc.log"
  [ -s "$out/RESULTS-gpu-dfc.md" ] || tail -20 "$out/bench-dfc.log"
fi
exit $status
