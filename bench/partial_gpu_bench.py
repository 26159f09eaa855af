#!/usr/bin/env python3
"""Partial correlation on the GPU (issue 34 item 3: <= 20 ms at 1000 regions x 1200 samples on an
H100): fc_partial_correlation (Ledoit-Wolf) on a CUDA context in FP64 and FP32 mode, beside a CPU
context and numpy on the same host, same process, same data; writes a markdown results file.

  python bench/partial_gpu_bench.py --lib BUILD/libfastconn.so [--n 1000] [--t 1200] [--reps 10]
      [--out OUT/RESULTS-partial-gpu.md] [--require-cuda]

Each time is the median of --reps calls after one warm-up call. "call" times fc_partial_correlation
alone on a series already on the device; "upload + call" adds fc_series_create_f64 from the raw
(T, N) array (normalization on the host, rows copied to the device) and fc_series_destroy. Both
contexts compute in float64 (an FP32 context widens its stored float rows on the device). The
numpy peer is scikit-learn's ledoit_wolf_shrinkage written out in numpy (the device has no
sklearn: X.T @ X, X2.T @ X2, the formula) + np.linalg.inv + -P_ij / sqrt(P_ii P_jj).
Prints, as its last line, the figures the gpu-steps verdict quotes.
"""
import argparse
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model, fastconn_library, median_time, write_results  # noqa: E402 (bench/machine.py)
import numpy as np  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--n", type=int, default=1000)
ap.add_argument("--t", type=int, default=1200)
ap.add_argument("--reps", type=int, default=10)
ap.add_argument("--out", default=None)
ap.add_argument("--require-cuda", action="store_true", help="exit 1 when no CUDA context can be made")
args = ap.parse_args()

P = ctypes.c_void_p
lib = fastconn_library(args.lib)
lib.fc_partial_correlation.argtypes = [P, P, ctypes.c_double, ctypes.c_int, P, ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_double)]
CPU, CUDA = 1, 2
FP32, FP64 = 0, 1

rng = np.random.default_rng(1)
n, t = args.n, args.t
x = rng.standard_normal((t, 20)) @ rng.standard_normal((20, n)) + 2 * rng.standard_normal((t, n)) + 100


def check(status, what):
    if status != 0:
        raise RuntimeError(f"{what}: {lib.fc_last_error().decode()}")


def context(backend, precision):
    ctx = P()
    check(lib.fc_context_create(backend, -1, ctypes.byref(ctx)), "fc_context_create")
    check(lib.fc_context_set_precision(ctx, precision), "fc_context_set_precision")
    return ctx


def series(ctx):
    s = P()
    check(lib.fc_series_create_f64(ctx, x.ctypes.data, n, t, 1, n, ctypes.byref(s)), "fc_series_create_f64")
    return s


def measure(ctx):
    """(call s, upload + call s, result, intensity) on one context."""
    out = np.empty((n, n))
    used = ctypes.c_double()
    s = series(ctx)

    def call():
        check(lib.fc_partial_correlation(ctx, s, -1.0, 0, out.ctypes.data, n, ctypes.byref(used)),
              "fc_partial_correlation")

    def upload_call():
        s2 = series(ctx)
        try:
            check(lib.fc_partial_correlation(ctx, s2, -1.0, 0, out.ctypes.data, n, ctypes.byref(used)),
                  "fc_partial_correlation")
        finally:
            lib.fc_series_destroy(s2)

    call()  # warm-up: the cuSOLVER handle, the device buffers
    t_call, _ = median_time(args.reps, call)
    t_all, _ = median_time(args.reps, upload_call)
    lib.fc_series_destroy(s)
    return t_call, t_all, out.copy(), used.value


def numpy_recipe():
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    ns, nf = z.shape
    emp = z.T @ z / ns
    x2 = z ** 2
    trace = x2.sum(axis=0) / ns
    mu = trace.sum() / nf
    delta_ = np.sum(emp ** 2)  # sklearn's delta_ = sum((X.T @ X)^2) / n_samples^2
    beta_ = np.sum(x2.T @ x2)
    beta = (beta_ / ns - delta_) / (nf * ns)
    delta = (delta_ - 2.0 * mu * trace.sum() + nf * mu ** 2) / nf
    beta = min(beta, delta)
    a = 0.0 if beta == 0 else beta / delta
    shrunk = (1.0 - a) * emp
    shrunk.flat[::nf + 1] += a * mu
    prec = np.linalg.inv(shrunk)
    d = np.sqrt(np.diag(prec))
    pc = -prec / np.outer(d, d)
    np.fill_diagonal(pc, 1.0)
    return pc, a


rows = []
results = {}
have_cuda = lib.fc_has_cuda() == 1
configs = ([("CUDA", CUDA, FP64), ("CUDA", CUDA, FP32)] if have_cuda else []) + [("CPU", CPU, FP64)]
for name, backend, precision in configs:
    try:
        ctx = context(backend, precision)
    except RuntimeError as e:
        print(f"{name}: {e}")
        if backend == CUDA and args.require_cuda:
            sys.exit(1)
        continue
    t_call, t_all, pc, used = measure(ctx)
    lib.fc_context_destroy(ctx)
    label = f"{name} {'FP64' if precision == FP64 else 'FP32'}"
    results[label] = (t_call, t_all, pc, used)

t_np, (pc_np, a_np) = median_time(args.reps, numpy_recipe)
threads = os.environ.get("OMP_NUM_THREADS", str(os.cpu_count()))

lines = ["| context | call (ms) | upload + call (ms) | intensity | max abs diff vs numpy | max abs diff vs CPU FP64 |",
         "|---|---|---|---|---|---|"]
cpu_pc = results.get("CPU FP64", (None, None, None, None))[2]
for label, (t_call, t_all, pc, used) in results.items():
    vs_cpu = "" if cpu_pc is None or label == "CPU FP64" else f"{np.abs(pc - cpu_pc).max():.1e}"
    lines.append(f"| {label} | {t_call * 1e3:.2f} | {t_all * 1e3:.2f} | {used:.6f} | {np.abs(pc - pc_np).max():.1e} | {vs_cpu} |")
lines.append(f"| numpy (LW recipe + np.linalg.inv) | {t_np * 1e3:.2f} | | {a_np:.6f} | | |")

try:
    import subprocess
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, timeout=20).stdout.strip() or "no GPU"
except (OSError, subprocess.SubprocessError):
    gpu = "no nvidia-smi"
machine = (f"{gpu}; host {cpu_model()}, {os.cpu_count()} CPUs visible (CPU context and numpy on all of them, "
           f"OMP_NUM_THREADS {threads}); numpy {np.__version__}; {n} x {t}, median of {args.reps} after one warm-up; "
           f"load average {os.getloadavg()[0]:.2f}")
write_results(args.out, "Partial correlation on the GPU (issue 34 item 3: <= 20 ms at 1000 x 1200 on an H100)",
              "`python bench/partial_gpu_bench.py --lib BUILD/libfastconn.so --out OUT/RESULTS-partial-gpu.md` "
              "(run by scripts/gpu-steps/partial.sh): fc_partial_correlation, Ledoit-Wolf, dense output. 'call': the "
              "call alone on a series already stored (on the device for CUDA); 'upload + call': "
              "fc_series_create_f64 from the raw (T, N) array (normalized on the host, copied to the device) + "
              "the call + fc_series_destroy. Both CUDA modes compute in float64 on the device (cuBLAS Dsyrk, "
              "cuSOLVER Dpotrf + Dpotri); the result comes back to host memory within both times.", lines, machine)
best = results.get("CUDA FP64")
if best is not None:
    f32 = results.get("CUDA FP32", best)
    print(f"{n} x {t} partial correlation {best[0] * 1e3:.1f} ms on CUDA FP64 ({best[1] * 1e3:.1f} ms with upload; "
          f"FP32 {f32[0] * 1e3:.1f} ms), numpy {t_np * 1e3:.0f} ms (target 20 ms)")
else:
    print(f"{n} x {t} partial correlation: no CUDA context; CPU FP64 {results['CPU FP64'][0] * 1e3:.1f} ms, "
          f"numpy {t_np * 1e3:.0f} ms")
