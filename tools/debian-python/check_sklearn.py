"""Checks scikit-learn in the carried Debian Python (the base runtime of make-runtime.sh plus
make-sklearn-addon.sh's addon) from the inside: sklearn, scipy, joblib and threadpoolctl must come
from the addon, scipy.linalg must work, and LedoitWolf(store_precision=False).fit on a random
1200 x 300 array (as bench/partial_bench.py calls it) must give the shrinkage of the Ledoit-Wolf
formula written out here per sample in float64 and, with --reference PYTHON (a Python with its own
scikit-learn, run with an empty environment on the same data), exactly that Python's shrinkage and
covariance. Prints the versions and threadpoolctl's OpenBLAS entries; run through debpy.sh; exits
non-zero on any failure.

  debpy.sh tools/debian-python/check_sklearn.py [--reference /usr/bin/python3]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# What --reference runs: the same fit on the .npy named in argv[1], written to argv[2] (.npz).
FIT = """
import sys
import numpy as np
import sklearn
from sklearn.covariance import LedoitWolf
est = LedoitWolf(store_precision=False).fit(np.load(sys.argv[1]))
np.savez(sys.argv[2], shrinkage=est.shrinkage_, covariance=est.covariance_, version=sklearn.__version__)
"""

ap = argparse.ArgumentParser()
ap.add_argument("--reference", help="a Python with scikit-learn to compare with (e.g. /usr/bin/python3)")
args = ap.parse_args()

from checks import check, finish  # tools/debian-python/checks.py


home = os.environ.get("PYTHONHOME", "")
runtime = os.path.realpath(home + "/..") if home else None  # the base runtime's root

import joblib  # noqa: E402
import scipy  # noqa: E402
import scipy.linalg  # noqa: E402
import sklearn  # noqa: E402
import threadpoolctl  # noqa: E402
from sklearn.covariance import LedoitWolf  # noqa: E402

mods = [sklearn, scipy, joblib, threadpoolctl]
where = {m.__name__: os.path.realpath(m.__file__) for m in mods}
addon = os.path.commonpath(list(where.values()))
check("sklearn, scipy, joblib, threadpoolctl: addon", runtime is not None and not addon.startswith(runtime + os.sep)
      and all(p.startswith(addon) for p in where.values()),
      "%s (base runtime %s)" % (addon, runtime))
print("versions: python %s, numpy %s, scipy %s, sklearn %s, joblib %s, threadpoolctl %s" % (
    sys.version.split()[0], np.__version__, scipy.__version__, sklearn.__version__, joblib.__version__,
    threadpoolctl.__version__))

rng = np.random.default_rng(30)
a = rng.standard_normal((40, 40)) + 40 * np.eye(40)
err = float(np.abs(scipy.linalg.inv(a) @ a - np.eye(40)).max())
check("scipy.linalg.inv(a) @ a == I", err < 1e-12, "max |diff| %.2e" % err)

x = rng.standard_normal((1200, 20)) @ rng.standard_normal((20, 300)) + 2 * rng.standard_normal((1200, 300))
z = (x - x.mean(axis=0)) / x.std(axis=0)  # as partial_bench.py
est = LedoitWolf(store_precision=False).fit(z)

blas = [e for e in threadpoolctl.threadpool_info() if e.get("internal_api") == "openblas"]
for e in blas:
    print("threadpoolctl OpenBLAS: version %s, architecture %s, %s threads (%s), %s" % (
        e.get("version"), e.get("architecture"), e.get("num_threads"), e.get("threading_layer"), e.get("filepath")))
check("OpenBLAS (threadpoolctl) from the base runtime", bool(blas) and runtime is not None
      and all(os.path.realpath(e["filepath"]).startswith(runtime + os.sep) for e in blas),
      ", ".join(e["filepath"] for e in blas) or "none")

# Ledoit & Wolf (2004), per sample: S = X'X/n (X centred), m = tr S / p, d2 = |S - m I|^2 / p,
# b2 = min(d2, sum_k |x_k x_k' - S|^2 / (n^2 p)), shrinkage = b2 / d2.
xc = z - z.mean(axis=0)
n, p = xc.shape
s = xc.T @ xc / n
m = np.trace(s) / p
d2 = float(((s - m * np.eye(p)) ** 2).sum()) / p
b2 = sum(float(((np.outer(xk, xk) - s) ** 2).sum()) for xk in xc) / (n * n * p)
formula = min(d2, b2) / d2
rel = abs(est.shrinkage_ - formula) / formula
check("shrinkage vs the formula per sample", rel < 1e-10,
      "sklearn %.17g, formula %.17g, relative diff %.1e" % (est.shrinkage_, formula, rel))
target = (1 - est.shrinkage_) * s + est.shrinkage_ * m * np.eye(p)
err = float(np.abs(est.covariance_ - target).max())
check("covariance = (1 - a) S + a m I", err < 1e-12, "max |diff| %.2e" % err)

if args.reference:
    with tempfile.TemporaryDirectory() as tmp:
        np.save(os.path.join(tmp, "z.npy"), z)
        run = subprocess.run([args.reference, "-c", FIT, os.path.join(tmp, "z.npy"), os.path.join(tmp, "ref.npz")],
                             env={}, capture_output=True, text=True)
        if run.returncode != 0:
            check("reference %s ran" % args.reference, False, "; ".join(run.stderr.strip().splitlines()[-1:]))
        else:
            ref = np.load(os.path.join(tmp, "ref.npz"))
            same = float(ref["shrinkage"]) == est.shrinkage_
            check("shrinkage == %s's (sklearn %s)" % (args.reference, ref["version"]), same,
                  "%s vs %s" % (float(est.shrinkage_).hex(), float(ref["shrinkage"]).hex()))
            err = float(np.abs(ref["covariance"] - est.covariance_).max())
            check("covariance_ == %s's" % args.reference, err == 0.0, "max |diff| %.2e" % err)

finish("check_sklearn")
