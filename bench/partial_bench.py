#!/usr/bin/env python3
"""Partial correlation benchmark (issue 34 item 3): fastconn's fc_partial_correlation (Ledoit-Wolf
shrinkage, Cholesky inverse, -P_ij / sqrt(P_ii P_jj)) against what a Python user writes instead,
scikit-learn's LedoitWolf on the standardized series + np.linalg.inv + the formula, in the same
process, on the same data and the same number of BLAS threads; writes bench/RESULTS-partial.md.

  /usr/bin/python3 bench/partial_bench.py --lib build/libfastconn.so [--n 1000] [--t 1200]
      [--threads 2] [--reps 9] [--out bench/RESULTS-partial.md]

fastconn is timed from the raw (T, N) array: series upload (mean, norm) + the partial correlation
call, on an FP64 context (float64 rows, as sklearn). Both answers are compared (max |difference|).
"""
import argparse
import ctypes
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True)
ap.add_argument("--n", type=int, default=1000)
ap.add_argument("--t", type=int, default=1200)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=9)
ap.add_argument("--out", default=None)
args = ap.parse_args()

# numpy's OpenBLAS reads its thread count when it loads: set it first, re-executing if needed.
if os.environ.get("OMP_NUM_THREADS") != str(args.threads):
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)
    os.execv(sys.executable, [sys.executable] + sys.argv)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model, median_time, openblas_core, write_results  # noqa: E402 (bench/machine.py)
import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.covariance import LedoitWolf  # noqa: E402


P = ctypes.c_void_p
lib = ctypes.CDLL(args.lib)
lib.fc_context_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(P)]
lib.fc_context_set_precision.argtypes = [P, ctypes.c_int]
lib.fc_context_set_threads.argtypes = [P, ctypes.c_int]
lib.fc_context_destroy.argtypes = [P]
lib.fc_series_create_f64.argtypes = [P, P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                     ctypes.POINTER(P)]
lib.fc_series_destroy.argtypes = [P]
lib.fc_partial_correlation.argtypes = [P, P, ctypes.c_double, ctypes.c_int, P, ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_double)]
lib.fc_last_error.restype = ctypes.c_char_p


rng = np.random.default_rng(1)
n, t = args.n, args.t
x = rng.standard_normal((t, 20)) @ rng.standard_normal((20, n)) + 2 * rng.standard_normal((t, n)) + 100

ctx = P()
assert lib.fc_context_create(1, -1, ctypes.byref(ctx)) == 0
assert lib.fc_context_set_precision(ctx, 1) == 0
assert lib.fc_context_set_threads(ctx, args.threads) == 0
out = np.empty((n, n))
used = ctypes.c_double()


def fastconn():
    s = P()
    assert lib.fc_series_create_f64(ctx, x.ctypes.data, n, t, 1, n, ctypes.byref(s)) == 0
    st = lib.fc_partial_correlation(ctx, s, -1.0, 0, out.ctypes.data, n, ctypes.byref(used))
    lib.fc_series_destroy(s)
    if st != 0:
        raise RuntimeError(lib.fc_last_error().decode())
    return out.copy()


def sklearn_recipe():
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    est = LedoitWolf(store_precision=False).fit(z)  # as nilearn: no pinvh, the inverse below
    prec = np.linalg.inv(est.covariance_)
    d = np.sqrt(np.diag(prec))
    pc = -prec / np.outer(d, d)
    np.fill_diagonal(pc, 1.0)
    return pc, est.shrinkage_


def sklearn_parts():
    """The recipe's steps timed one by one: standardize, LedoitWolf.fit, np.linalg.inv."""
    a = time.perf_counter()
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    b = time.perf_counter()
    est = LedoitWolf(store_precision=False).fit(z)
    c = time.perf_counter()
    np.linalg.inv(est.covariance_)
    d = time.perf_counter()
    return b - a, c - b, d - c


z_floor = (x - x.mean(axis=0)) / x.std(axis=0)
load_before = os.getloadavg()
# In alternation, one call of each per round: a burst of load on the shared machine then slows
# both sides, not only the one being timed.
fc_times, sk_times = [], []
for _ in range(args.reps):
    t_one, pc_fc = median_time(1, fastconn)
    fc_times.append(t_one)
    t_one, (pc_sk, a_sk) = median_time(1, sklearn_recipe)
    sk_times.append(t_one)
t_fc, t_sk = sorted(fc_times)[args.reps // 2], sorted(sk_times)[args.reps // 2]
parts = sklearn_parts()
t_default, _ = median_time(min(3, args.reps), lambda: LedoitWolf().fit(z_floor).precision_)  # sklearn's default: pinvh
t_gemm, _ = median_time(args.reps, lambda: z_floor.T @ z_floor)  # floor: the one product both need
load_after = os.getloadavg()
lib.fc_context_destroy(ctx)
diff = float(np.abs(pc_fc - pc_sk).max())
ratio = t_sk / t_fc

lines = [
    f"| N x T | threads | fastconn (s) | sklearn LedoitWolf + np.linalg.inv (s) | ratio | shrinkage (fastconn / sklearn) | max abs diff |",
    "|---|---|---|---|---|---|---|",
    f"| {n} x {t} | {args.threads} | {t_fc:.4f} | {t_sk:.4f} | **{ratio:.1f}x** | {used.value:.6f} / {a_sk:.6f} | {diff:.1e} |",
]
lines += ["", f"Floors in the same run: numpy's z.T @ z (N x N from N x T, float64, the one product both need) "
          f"{t_gemm:.4f} s; sklearn's steps: standardize {parts[0]:.4f} s, LedoitWolf.fit {parts[1]:.4f} s, "
          f"np.linalg.inv {parts[2]:.4f} s. sklearn's default LedoitWolf() "
          f"(store_precision=True: precision_ by scipy's pinvh, an eigendecomposition) takes {t_default:.4f} s for the "
          f"fit alone: {t_default / t_fc:.1f}x fastconn's time."]
machine = (f"{cpu_model()}, {os.cpu_count()} CPUs visible, OpenBLAS core {openblas_core()}, numpy {np.__version__}, "
           f"scikit-learn {sklearn.__version__}; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
           f"(shared machine); median of {args.reps}")
write_results(args.out, "Partial correlation benchmark (issue 34 item 3)",
              "`/usr/bin/python3 bench/partial_bench.py --lib build/libfastconn.so --out bench/RESULTS-partial.md`: "
              "fc_partial_correlation (Ledoit-Wolf, FP64 context, upload included) against scikit-learn's "
              "LedoitWolf(store_precision=False) (as nilearn) on the standardized series + np.linalg.inv + "
              "-P_ij / sqrt(P_ii P_jj), same process, same data, same BLAS thread count, the two timed in "
              "alternation (one of each per round) so that the shared machine's load weighs on both alike. "
              "Target: >= 5x.", lines, machine)
