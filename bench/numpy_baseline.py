#!/usr/bin/python3
"""The baseline a user would write instead of fastconn: np.corrcoef on the same data.

Reads the N x T float32 series that bench_cpu_pcc wrote (--data-out), times np.corrcoef (the
median of --reps runs; each allocates and fills its N x N float64 matrix, as a user's call
does), and checks fastconn's FP32 triangle against it on the pairs bench_cpu_pcc sampled
(--sample-out: int32 i, int32 j, float32 r). Writes key=value lines to --out.
Run it with the same OMP_NUM_THREADS / OPENBLAS_NUM_THREADS as the C++ benchmark.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np


def blas_name():
    """The BLAS library numpy actually runs on (Debian resolves libblas.so.3 through
    update-alternatives, so the build configuration alone does not say)."""
    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # make sure the BLAS is loaded
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "blas" in path.lower():
                libs.add(os.path.realpath(path))
    return ", ".join(sorted(libs)) or "unknown"


def openblas_core():
    """The kernel set OpenBLAS chose on this CPU (openblas_get_corename of the library loaded
    above; numpy's own wheels rename the symbols with a scipy_ prefix and a 64_ suffix), with its
    build configuration; "unknown" where the BLAS is no OpenBLAS."""
    import ctypes
    np.dot(np.ones((2, 2)), np.ones((2, 2)))
    for path in blas_name().split(", "):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix, suffix in (("", ""), ("scipy_", "64_"), ("scipy_", "")):
            core = getattr(lib, prefix + "openblas_get_corename" + suffix, None)
            config = getattr(lib, prefix + "openblas_get_config" + suffix, None)
            if core is None:
                continue
            core.restype = config.restype = ctypes.c_char_p
            return "%s (%s)" % (core().decode(), config().decode().strip())
    return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="N x T float32 series, row-major")
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--t", type=int, required=True)
    p.add_argument("--samples", required=True, help="(int32 i, int32 j, float32 r) records from fastconn")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--tolerance", type=float, default=1e-5)
    p.add_argument("--out", required=True, help="key=value results")
    a = p.parse_args()

    x = np.fromfile(a.data, dtype=np.float32)
    if x.size != a.n * a.t:
        sys.exit("numpy_baseline: %s holds %d values, expected N*T = %d" % (a.data, x.size, a.n * a.t))
    x = x.reshape(a.n, a.t)

    times = []
    c = None
    for _ in range(a.reps):
        c = None  # free the previous matrix first: two N x N float64 matrices need not fit
        start = time.perf_counter()
        c = np.corrcoef(x)  # rows are variables; float64 throughout
        times.append(time.perf_counter() - start)

    rec = np.fromfile(a.samples, dtype=np.dtype([("i", "<i4"), ("j", "<i4"), ("r", "<f4")]))
    if rec.size == 0:
        sys.exit("numpy_baseline: no samples in %s" % a.samples)
    ref = c[rec["i"], rec["j"]]
    dev = np.abs(rec["r"].astype(np.float64) - ref)
    max_dev = float(dev.max())
    worst = int(dev.argmax())
    ok = max_dev <= a.tolerance

    res = {
        "numpy_version": np.__version__,
        "numpy_blas": blas_name(),
        "numpy_blas_core": openblas_core(),
        "numpy_python": "%s (Python %s)" % (sys.executable, sys.version.split()[0]),
        "numpy_corrcoef_s": "%.6g" % statistics.median(times),
        "numpy_corrcoef_runs": " ".join("%.4f" % t for t in times),
        "numpy_check_pairs": str(rec.size),
        "numpy_check_max_abs": "%.3g" % max_dev,
        "numpy_check_ok": "yes" if ok else "NO",
    }
    with open(a.out, "w") as f:
        for k, v in res.items():
            f.write("%s=%s\n" % (k, v))
    print("np.corrcoef %d x %d: median %.3f s of %s; fastconn vs numpy on %d pairs: max |diff| %.3g (%s)"
          % (a.n, a.t, statistics.median(times), res["numpy_corrcoef_runs"], rec.size, max_dev,
             "ok" if ok else "FAILED at pair (%d, %d)" % (rec["i"][worst], rec["j"][worst])))
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
