"""Partial correlation and precision (fc_partial_correlation, issue 34 item 3) against scikit-learn.

Through ctypes on the built library: for the bundled region series (examples/data/fmri_timeseries.csv)
and synthetic data, N < T and N > T, the automatic Ledoit-Wolf intensity and given ones, fastconn's
shrinkage, precision and partial correlation agree to 1e-6 with sklearn's LedoitWolf /
ShrunkCovariance on the series standardized with ddof = 0, np.linalg.inv and -P_ij / sqrt(P_ii P_jj).
Usage: check_partial_sklearn.py LIBFASTCONN REPO_ROOT. Exit 77 (skipped) without numpy or sklearn
(the GPU machine's /usr/bin/python3 has neither; the test command installs both).
"""
import ctypes
import os
import sys

try:
    import numpy as np
    from sklearn.covariance import LedoitWolf, ShrunkCovariance
except ImportError as missing:
    print(f"check_partial_sklearn: {missing.name} missing (Debian: python3-numpy, python3-sklearn), skipped")
    sys.exit(77)

lib = ctypes.CDLL(sys.argv[1])
root = sys.argv[2]
P = ctypes.c_void_p
lib.fc_context_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(P)]
lib.fc_context_set_precision.argtypes = [P, ctypes.c_int]
lib.fc_context_destroy.argtypes = [P]
lib.fc_series_create_f64.argtypes = [P, P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                     ctypes.POINTER(P)]
lib.fc_series_destroy.argtypes = [P]
lib.fc_series_window.argtypes = [P, P, ctypes.c_int64, ctypes.c_int64, ctypes.c_int, ctypes.c_double, ctypes.POINTER(P)]
lib.fc_partial_correlation.argtypes = [P, P, ctypes.c_double, ctypes.c_int, P, ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_double)]
lib.fc_last_error.restype = ctypes.c_char_p

TOL = 1e-6
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAILED:", what)


def fastconn(x, shrinkage, output, window=None):
    """x: (T, N) numpy samples x regions; window: (begin, length) of an untapered fc_series_window."""
    t, n = x.shape
    ctx, s = P(), P()
    assert lib.fc_context_create(1, -1, ctypes.byref(ctx)) == 0
    assert lib.fc_context_set_precision(ctx, 1) == 0  # FP64: float64 rows
    x = np.ascontiguousarray(x, dtype=np.float64)
    assert lib.fc_series_create_f64(ctx, x.ctypes.data, n, t, 1, n, ctypes.byref(s)) == 0
    if window is not None:
        w = P()
        assert lib.fc_series_window(ctx, s, window[0], window[1], 0, 1.0, ctypes.byref(w)) == 0
        lib.fc_series_destroy(s)
        s = w
    out = np.empty((n, n))
    used = ctypes.c_double(-7)
    st = lib.fc_partial_correlation(ctx, s, shrinkage, output, out.ctypes.data, n, ctypes.byref(used))
    lib.fc_series_destroy(s)
    lib.fc_context_destroy(ctx)
    if st != 0:
        raise RuntimeError(lib.fc_last_error().decode())
    return out, used.value


def reference(x, shrinkage):
    z = (x - x.mean(axis=0)) / x.std(axis=0)  # ddof = 0: the empirical covariance is R
    est = LedoitWolf() if shrinkage < 0 else ShrunkCovariance(shrinkage=shrinkage)
    est.fit(z)
    prec = np.linalg.inv(est.covariance_)
    d = np.sqrt(np.diag(prec))
    pcorr = -prec / np.outer(d, d)
    np.fill_diagonal(pcorr, 1.0)
    a = est.shrinkage_ if shrinkage < 0 else shrinkage
    return pcorr, prec, a


def compare(name, x, shrinkage):
    pc, used = fastconn(x, shrinkage, 0)
    prec, used2 = fastconn(x, shrinkage, 1)
    ref_pc, ref_prec, ref_a = reference(x, shrinkage)
    scale = max(1.0, np.abs(ref_prec).max())
    e_pc, e_prec = np.abs(pc - ref_pc).max(), np.abs(prec - ref_prec).max() / scale
    print(f"{name}: N={x.shape[1]} T={x.shape[0]} shrinkage {used:.6f} (sklearn {ref_a:.6f}) "
          f"max|pcorr diff| {e_pc:.2e} max|precision diff|/scale {e_prec:.2e}")
    check(abs(used - ref_a) <= TOL and used == used2, f"{name}: shrinkage {used} vs {ref_a}")
    check(e_pc <= TOL, f"{name}: partial correlation differs by {e_pc}")
    check(e_prec <= TOL, f"{name}: precision differs by {e_prec} (relative to its largest entry)")
    check(np.all(np.diag(pc) == 1.0) and np.array_equal(pc, pc.T), f"{name}: diagonal 1, symmetric")


regions = np.loadtxt(os.path.join(root, "examples", "data", "fmri_timeseries.csv"), delimiter=",", skiprows=1)
compare("regions", regions, -1.0)
compare("regions a=0", regions, 0.0)
compare("regions a=0.3", regions, 0.3)
compare("regions first 25 samples (N > T)", regions[:25], -1.0)
compare("regions first 25 samples (N > T) a=0.2", regions[:25], 0.2)
rng = np.random.default_rng(34)
for n, t in ((30, 200), (120, 80), (200, 50)):
    mix = rng.standard_normal((t, 5)) @ rng.standard_normal((5, n))
    x = mix + rng.standard_normal((t, n)) * 2 + rng.uniform(-100, 100, n)
    compare(f"synthetic {n}x{t}", x, -1.0)
    compare(f"synthetic {n}x{t} a=0.05", x, 0.05)
# Past the 128-row leaves of the CPU's block inverse (cholesky_inverse.cpp): two and three levels
# of Schur complements, sizes that are no multiple of the leaf.
for n, t in ((389, 1200), (1009, 700), (700, 300)):
    mix = rng.standard_normal((t, 8)) @ rng.standard_normal((8, n))
    x = mix + rng.standard_normal((t, n)) * 2 + rng.uniform(-100, 100, n)
    compare(f"synthetic {n}x{t}", x, -1.0)

# Dynamic partial correlation: a window of the series is a series; per window, sklearn on its samples.
for begin, length in ((0, 60), (100, 45), (190, 60)):
    pc, used = fastconn(regions, -1.0, 0, (begin, length))
    ref_pc, _, ref_a = reference(regions[begin:begin + length], -1.0)
    e = np.abs(pc - ref_pc).max()
    print(f"window [{begin}, {begin + length}): shrinkage {used:.6f} (sklearn {ref_a:.6f}) max|pcorr diff| {e:.2e}")
    check(abs(used - ref_a) <= TOL and e <= TOL, f"window {begin}: {used} vs {ref_a}, {e}")

# shrinkage 0 with N > T: refused, named.
try:
    fastconn(regions[:25], 0.0, 0)  # 31 regions, 25 samples
    check(False, "shrinkage 0 with N > T was accepted")
except RuntimeError as e:
    check("not positive definite" in str(e), f"message: {e}")
try:
    fastconn(rng.standard_normal((150, 300)), 0.0, 0)  # rank 149: a minor past the first leaf fails
    check(False, "shrinkage 0 with N = 300 > T = 150 was accepted")
except RuntimeError as e:
    check("not positive definite" in str(e) or "shrinkage 0" in str(e), f"message: {e}")

print("check_partial_sklearn:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
