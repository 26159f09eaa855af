"""Checks the carried Debian Python (tools/debian-python/make-runtime.sh) from the inside: it must
be the bundled interpreter, its numpy Debian's on the bundled OpenBLAS (reporting the core that
OpenBLAS detected), np.corrcoef right against a float64 computation written out here, and Dask's
distributed must run a computation on a LocalCluster. Run through debpy.sh; exits non-zero on any
failure and prints one line per check."""
import os
import sys

from checks import check, finish  # tools/debian-python/checks.py


home = os.environ.get("PYTHONHOME", "")
check("interpreter inside the runtime", bool(home) and sys.executable.startswith(home),
      "%s (Python %s)" % (sys.executable, sys.version.split()[0]))

import numpy as np  # noqa: E402

check("numpy from the runtime", np.__file__.startswith(home), "%s %s" % (np.__version__, np.__file__))

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from numpy_baseline import blas_name, openblas_core  # noqa: E402  (the benchmark's own reporting)

blas = blas_name()
check("BLAS loaded from the runtime", blas != "unknown" and all(p.startswith(os.path.realpath(home + "/..")) for p in blas.split(", ")), blas)
core = openblas_core()
check("OpenBLAS reports its core", core != "unknown", core)

rng = np.random.default_rng(7)
x = rng.standard_normal((37, 53)) + np.linspace(0, 3, 53)  # rows share a trend: r far from 0
xc = x - x.mean(axis=1, keepdims=True)
norms = np.sqrt((xc * xc).sum(axis=1))
ref = np.array([[float(np.sum(xc[i] * xc[j])) / (norms[i] * norms[j]) for j in range(37)] for i in range(37)])
err = float(np.abs(np.corrcoef(x) - ref).max())
check("np.corrcoef (BLAS) vs elementwise float64", err < 1e-12, "max |diff| %.2e" % err)

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import distributed  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

check("dask and distributed from the runtime", dask.__file__.startswith(home) and distributed.__file__.startswith(home),
      "dask %s, distributed %s" % (dask.__version__, distributed.__version__))
with LocalCluster(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, \
        Client(cluster) as client:
    squares = client.gather(client.map(lambda v: v * v, range(10)))
    total = da.from_array(x, chunks=(10, 53)).sum().compute()
check("LocalCluster(processes=False) computation", squares == [v * v for v in range(10)] and abs(total - x.sum()) < 1e-9,
      "sum of squares %d, array sum %.6f" % (sum(squares), total))

finish("check_runtime")
